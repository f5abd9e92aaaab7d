"""An ATIF trajectory read back into a Trace: ReAct Lab's own exactly (from its ``extra.react_lab`` records), another
tool's as far as its steps allow, with what could not be kept named for the person and where it came from recorded
(``Trace.imported_from``), so its page never takes this app's settings for the run's own.

Mapping another tool's trajectory: the last user message is the question, earlier user messages and the agent's last
reply to each (and any copied context) are the conversation before it. Each agent step after the question is a step:
its reasoning (else its message) the Thought, its message the reply, its first tool call the Action with that call's
result as the Observation; each further call of the same reply is a step of its own. A call of a ``final_answer`` or
``finish`` tool, or the last agent message when no tool was called, is the answer. Times are the gaps between the
steps' timestamps. The file is checked first (``atif_schema``); values the rules leave open are read defensively.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from react_core.base.provenance import Provenance
from react_core.base.trace import Trace
from react_core.base.trace_schema import validate_trace
from react_core.telemetry import atif_schema
from react_core.telemetry.atif import OURS
from react_core.telemetry.otlp_import import ImportedTrace, plain

FINAL_ANSWER_TOOLS = ("final_answer", "finish", "submit")
ARGUMENT_KEYS = ("answer", "input", "query", "expression", "command", "code")


def from_atif(value: dict[str, Any]) -> ImportedTrace:
    atif_schema.check(value)
    steps = value["steps"]
    own = (value.get("extra") or {}).get(OURS)
    if isinstance(own, dict) and all(_ours(s) is not None for s in steps if _is_run_step(s)):
        d = {**own, "steps": [_ours(s) for s in steps if _is_run_step(s)]}
        return ImportedTrace(Trace.from_dict(validate_trace(d)))
    unmapped: list[str] = []
    d = _foreign(value, unmapped)
    return ImportedTrace(Trace.from_dict(validate_trace(d)), tuple(unmapped))


def _is_run_step(step: dict[str, Any]) -> bool:
    return step.get("source") == "agent" and not step.get("is_copied_context")


def _ours(step: dict[str, Any]) -> Any:
    extra = step.get("extra")
    return extra.get(OURS) if isinstance(extra, dict) else None


def _text(message: Any) -> str:
    """A message or a result's content as text: a string, or the text parts of a list of content parts."""
    if isinstance(message, str):
        return message
    if isinstance(message, list):
        return "\n".join(p["text"] for p in message if isinstance(p, dict) and isinstance(p.get("text"), str))
    return "" if message is None else json.dumps(message, ensure_ascii=False)


def _images(message: Any) -> int:
    parts = message if isinstance(message, list) else []
    return sum(1 for p in parts if isinstance(p, dict) and p.get("type") == "image")


def _count(metrics: Any, key: str) -> int:
    value = metrics.get(key) if isinstance(metrics, dict) else None
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e12 else 0


def _moment(step: dict[str, Any]) -> datetime | None:
    stamp = step.get("timestamp")
    if not isinstance(stamp, str):
        return None
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))  # checked by atif_schema
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _argument(arguments: Any) -> str:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return plain(text, ARGUMENT_KEYS) or ""


def _foreign(value: dict[str, Any], unmapped: list[str]) -> dict[str, Any]:
    agent, steps = value["agent"], value["steps"]
    users = [i for i, s in enumerate(steps) if s["source"] == "user" and not s.get("is_copied_context")]
    start = users[-1] if users else -1
    context, pending = [], None
    for s in steps[: max(start, 0)]:
        if s["source"] == "user":
            if pending is not None:
                context.append({"question": pending, "answer": ""})
            pending = _text(s.get("message"))
        elif s["source"] == "agent" and pending is not None and _text(s.get("message")):
            context.append({"question": pending, "answer": _text(s.get("message"))})
            pending = None
    if pending is not None:
        context.append({"question": pending, "answer": ""})
    run = [s for s in steps[start + 1 :] if s["source"] == "agent" and not s.get("is_copied_context")]
    out_steps: list[dict[str, Any]] = []
    answer: str | None = None
    previous = _moment(steps[start]) if start >= 0 else None
    for n, s in enumerate(run):
        moment = _moment(s)
        seconds = max((moment - previous).total_seconds(), 0.0) if moment and previous else 0.0
        previous = moment or previous
        message = _text(s.get("message"))
        reasoning = s.get("reasoning_content")
        thought = reasoning if isinstance(reasoning, str) and reasoning.strip() else message
        calls = [c for c in s.get("tool_calls") or [] if isinstance(c, dict)]
        results = [r for r in (s.get("observation") or {}).get("results", []) if isinstance(r, dict)]
        usage = {"prompt_tokens": _count(s.get("metrics"), "prompt_tokens"),
                 "completion_tokens": _count(s.get("metrics"), "completion_tokens")}  # fmt: skip
        first = {"thought": thought, "raw_output": message, "usage": usage, "seconds": round(seconds, 6)}
        if not calls:
            if n == len(run) - 1 and not results:
                first["final_answer"] = answer = message
            elif results:
                first["observation"] = {"text": "\n".join(_text(r.get("content")) for r in results)}
            out_steps.append(first)
            continue
        for j, call in enumerate(calls):
            step = first if j == 0 else {"thought": "", "seconds": 0.0}
            name = str(call.get("function_name") or "tool")
            argument = _argument(call.get("arguments"))
            if name.lower() in FINAL_ANSWER_TOOLS:
                step["final_answer"] = answer = argument
                out_steps.append(step)
                break
            mine = [r for r in results if r.get("source_call_id") == call.get("tool_call_id")]
            if not mine and len(calls) == 1:  # a result that names no call answers the only one
                mine = [r for r in results if r.get("source_call_id") is None]
            step["action"] = {"tool": name, "input": argument}
            if mine:
                text = "\n".join(_text(r.get("content")) for r in mine)
                # Another tool's result is what it returned: whatever words the answer shares with it are evidence.
                step["observation"] = {"text": text, "evidence": bool(text.strip())}
            out_steps.append(step)
        if len(calls) > 1:
            unmapped.append(f"that step {len(out_steps)}'s reply made {len(calls)} tool calls at once (each is a step)")
    for i, step in enumerate(out_steps, 1):
        step["index"] = i
    _name_unmapped(value, steps, start, unmapped)
    model = agent.get("model_name") or next((s["model_name"] for s in run if isinstance(s.get("model_name"), str)), "")
    first_stamp = next((_moment(s) for s in steps if _moment(s) is not None), None)
    d: dict[str, Any] = {
        "question": _text(steps[start].get("message")) if start >= 0 else "(the trajectory holds no question)",
        "settings": {"model": model} if model else {},
        "steps": out_steps,
        "final_answer": answer,
        "stop_reason": "finished" if answer is not None else None,
        "context": context,
        "started_at": first_stamp.isoformat() if first_stamp else "",
        "imported_from": Provenance(
            str(value["schema_version"]), str(agent["name"]), str(agent["version"]), str(model or "")
        ).to_dict(),
    }
    return d


def _name_unmapped(value: dict[str, Any], steps: list[dict[str, Any]], start: int, unmapped: list[str]) -> None:
    if start < 0:
        unmapped.append("a question (the trajectory has no user message)")
    system = [s for s in steps if s["source"] == "system"]
    if system:
        unmapped.append("the system prompt" if len(system) == 1 else f"{len(system)} system messages")
    images = sum(_images(s.get("message")) for s in steps)
    if images:
        unmapped.append(f"{images} images")
    subagents = value.get("subagent_trajectories") or []
    refs = sum(
        len(r.get("subagent_trajectory_ref") or [])
        for s in steps
        for r in ((s.get("observation") or {}).get("results") or [])
        if isinstance(r, dict) and isinstance(r.get("subagent_trajectory_ref"), list)
    )
    if subagents or refs:
        unmapped.append(f"{max(len(subagents), refs)} subagent trajectories (only the main agent's steps are shown)")
    if value["agent"].get("tool_definitions"):
        unmapped.append("the tools' definitions")
