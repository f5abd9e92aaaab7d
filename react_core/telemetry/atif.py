"""A run as an ATIF trajectory (Agent Trajectory Interchange Format v1.7, Harbor's RFC 0001), the JSON that Harbor,
Phoenix and NeMo tools read: the system prompt and the question as ``system`` and ``user`` steps, then one ``agent``
step per ReAct step with the model's reply as its message, its action as a tool call (the arguments the tool received)
and the observation as that call's result, its tokens as metrics; Finish is a reply without a tool call. Earlier
questions of the conversation come first as copied context (``is_copied_context``).

The run itself rides along in ``extra.react_lab`` (the trace without its steps on the root, each step's record on its
step), so ReAct Lab imports its own trajectory back exactly; another tool reads the standard fields.
``atif_schema`` checks the result by the format's rules.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from react_core.base.call_records import CallTexts
from react_core.base.trace import STOP_REASONS, Step, Trace
from react_core.telemetry.run_facts import AGENT_NAME, agent_version, request_model, run_id, tool_definitions
from react_core.telemetry.span_messages import arguments

__all__ = ["OURS", "SCHEMA_VERSION", "UNVERSIONED", "to_atif", "to_atif_json"]

SCHEMA_VERSION = "ATIF-v1.7"
OURS = "react_lab"  # the key of ReAct Lab's own record in ``extra``
UNVERSIONED = "unversioned"  # ATIF requires a version; a run of an unsaved prompt has none


def to_atif_json(trace: Trace, *, conversation: str = "") -> str:
    return json.dumps(to_atif(trace, conversation=conversation), ensure_ascii=False, indent=1)


def to_atif(trace: Trace, *, conversation: str = "") -> dict[str, Any]:
    """The run as one ATIF trajectory; ``conversation``: the chat it was a turn of, its session (else the run)."""
    model = request_model(trace)
    clock = _Clock(trace.started_at)
    steps: list[dict[str, Any]] = []
    system = next((t.system for t in CallTexts.of(trace.steps) if t is not None and t.system), None)
    if system:
        steps.append({"source": "system", "message": system})
    for turn in trace.context:
        steps.append({"source": "user", "message": turn.question, "is_copied_context": True})
        steps.append({"source": "agent", "message": turn.answer, "is_copied_context": True, "llm_call_count": 0})
    steps.append({"source": "user", "message": trace.question, **clock.stamp()})
    for step in trace.steps:
        clock.advance(step.seconds)
        steps.append(_agent_step(step, model, clock))
    for n, step in enumerate(steps, 1):
        step["step_id"] = n
    totals = trace.totals
    own = {k: v for k, v in trace.to_dict().items() if k not in ("steps", "totals")}
    agent: dict[str, Any] = {"name": AGENT_NAME, "version": agent_version(trace) or UNVERSIONED}
    if model:
        agent["model_name"] = model
    agent["tool_definitions"] = [_openai_style(d) for d in tool_definitions(trace)]
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "session_id": conversation or run_id(trace),
        "trajectory_id": run_id(trace),
        "agent": agent,
        "steps": [{"step_id": s.pop("step_id"), **s} for s in steps],
        "final_metrics": {
            "total_prompt_tokens": totals["prompt_tokens"],
            "total_completion_tokens": totals["completion_tokens"],
            "total_steps": len(steps),
        },
        "extra": {OURS: own},
    }
    if trace.stop_reason:
        ended = STOP_REASONS.get(trace.stop_reason, trace.stop_reason)
        out["notes"] = f"{ended}: {trace.error}" if trace.error else ended
    return out


def _openai_style(definition: dict[str, Any]) -> dict[str, Any]:
    """A function definition as ATIF's producers write ``tool_definitions`` (OpenAI's ``{"type": "function",
    "function": {…}}``)."""
    inner = {k: v for k, v in definition.items() if k != "type"}
    return {"type": "function", "function": inner}


def _agent_step(step: Step, model: str, clock: _Clock) -> dict[str, Any]:
    out: dict[str, Any] = {"source": "agent", **clock.stamp(), "message": step.raw_output}
    if model:
        out["model_name"] = model
    if step.action is not None:
        call_id = step.tool_call.id if step.tool_call is not None and step.tool_call.id else f"call_{step.index}"
        out["tool_calls"] = [{"tool_call_id": call_id, "function_name": step.action.tool, "arguments": arguments(step)}]
        if step.observation is not None:
            out["observation"] = {"results": [{"source_call_id": call_id, "content": step.observation.text}]}
    elif step.observation is not None:  # an unreadable reply: the error the model was told
        out["observation"] = {"results": [{"content": step.observation.text}]}
    out["metrics"] = {"prompt_tokens": step.usage.prompt_tokens, "completion_tokens": step.usage.completion_tokens}
    out["extra"] = {OURS: step.to_dict()}
    return out


class _Clock:
    """Each step's time as ATIF records it (when it happened): the run's start plus the steps before it."""

    def __init__(self, started_at: str) -> None:
        try:
            moment = datetime.fromisoformat(started_at) if started_at else None
        except ValueError:
            moment = None
        if moment is not None and moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        self.moment = moment

    def advance(self, seconds: float) -> None:
        if self.moment is not None:
            self.moment += timedelta(seconds=seconds)

    def stamp(self) -> dict[str, str]:
        return {"timestamp": self.moment.isoformat()} if self.moment is not None else {}
