"""An OTLP/JSON file of spans read back into a Trace: ReAct Lab's own export exactly, and another tool's agent run
(GenAI conventions or OpenInference, e.g. smolagents' instrumentation) as far as its spans allow, with what could not
be mapped named for the person.

The file meets the limits of every import (``trace_schema.read_import``: size, JSON, nesting), then a check of the
OTLP shape that names the first wrong field (``resourceSpans[0].scopeSpans[0].spans[3].spanId must be …``), and the
Trace it becomes is checked by ``trace_schema.validate_trace`` like any imported trace. Only ConfigError leaves.

Mapping another tool's run: the root span (an agent span if there is one) is the run; its input is the question and
its output the answer. Below it, in time order, each model call (LLM / ``chat`` span) starts a step whose Thought is
the model's reply, and a tool span (TOOL / ``execute_tool``) is that step's Action and Observation; a ``final_answer``
tool (smolagents) is the Final Answer. Other spans (chains, retrievers, nested agents) are counted and named.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from react_core.base.nesting import TooDeep, loads_json
from react_core.base.provenance import Provenance
from react_core.base.trace import Trace
from react_core.base.trace_schema import validate_trace
from react_core.telemetry.otlp_spans import InvalidOtlp, Span, descendants, parse_spans

NO_QUESTION = "(the question was not exported)"
FINAL_ANSWER_TOOLS = ("final_answer",)  # smolagents' FinalAnswerTool
MAX_CONTENTS = 50  # text parts of one output message read back


@dataclass(frozen=True)
class ImportedTrace:
    trace: Trace
    unmapped: tuple[str, ...] = ()  # what the file held that the trace could not keep, one phrase each


def is_otlp(value: Any) -> bool:
    return isinstance(value, dict) and "resourceSpans" in value


def from_otlp(value: dict[str, Any]) -> ImportedTrace:
    spans = parse_spans(value)
    if not spans:
        raise InvalidOtlp("resourceSpans", "holds no spans")
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if not s.parent_id or s.parent_id not in ids]
    root = next((s for s in roots if s.kind == "agent"), None) or min(roots or spans, key=lambda s: s.start)
    inside = descendants(root, spans)
    unmapped: list[str] = []
    if len(inside) + 1 < len(spans):
        unmapped.append(f"{len(spans) - len(inside) - 1:,} spans outside the run's own span (other traces or runs)")
    if "reactlab.settings" in root.attributes:
        d = _own_export(root, inside, unmapped)
    else:
        d = _foreign(root, inside, unmapped)
    return ImportedTrace(Trace.from_dict(validate_trace(d)), tuple(unmapped))


def _iso(nanos: int) -> str:
    moment = datetime.fromtimestamp(nanos // 1_000_000_000, UTC)
    return moment.replace(microsecond=nanos % 1_000_000_000 // 1000).isoformat()


def _json_attribute(span: Span, key: str, kind: type) -> Any:
    text = span.attributes.get(key)
    where = f"the attribute {key} of span {json.dumps(span.name[:60])}"
    try:
        value = loads_json(text) if isinstance(text, str) else None
    except TooDeep:
        raise InvalidOtlp(where, TooDeep.problem) from None
    except ValueError:
        value = None
    if not isinstance(value, kind):
        raise InvalidOtlp(where, "must hold JSON")
    return value


# -- ReAct Lab's own export -------------------------------------------------------------------------------------


def _own_export(root: Span, inside: list[Span], unmapped: list[str]) -> dict[str, Any]:
    a = root.attributes
    d: dict[str, Any] = {"settings": _json_attribute(root, "reactlab.settings", dict)}
    for key in ("stop_reason", "started_at", "final_answer", "error", "expected_answer"):
        if f"reactlab.{key}" in a:
            d[key] = a[f"reactlab.{key}"]
    if "reactlab.imported_from" in a:  # a run imported from another tool's file, exported again
        d["imported_from"] = _json_attribute(root, "reactlab.imported_from", dict)
    failed = [s for s in inside if "reactlab.failed_call" in s.attributes]
    if failed:  # the model call that ended the run wrote no step
        d["failed_call"] = _json_attribute(failed[0], "reactlab.failed_call", dict)
        inside = [s for s in inside if s is not failed[0]]
    if not a.get("reactlab.content"):
        foreign = _foreign(root, inside, [])
        d["question"], d["steps"] = NO_QUESTION, foreign["steps"]
        unmapped.append(
            "the question, thoughts, actions' inputs and observations (exported without content: export with "
            "content to keep them)"
        )
        return d
    d["question"] = a.get("reactlab.question", "")
    if "reactlab.context" in a:
        d["context"] = _json_attribute(root, "reactlab.context", list)
    d["steps"] = [_json_attribute(s, "reactlab.step", dict) for s in inside if "reactlab.step" in s.attributes]
    return d


# -- another tool's run -----------------------------------------------------------------------------------------


def _message_text(span: Span, key: str, roles: tuple[str, ...]) -> str | None:
    """The text parts of the last message of one of ``roles`` in a GenAI messages attribute (JSON)."""
    try:
        messages = loads_json(span.attributes.get(key, "null"))
    except (TypeError, ValueError):
        return None
    if not isinstance(messages, list):
        return None
    for m in reversed(messages):
        if isinstance(m, dict) and m.get("role") in roles and isinstance(m.get("parts"), list):
            texts = [p["content"] for p in m["parts"] if isinstance(p, dict) and isinstance(p.get("content"), str)]
            return "\n".join(texts)
    return None


def plain(text: str | None, keys: tuple[str, ...]) -> str | None:
    """A value that may be JSON arguments (``{"task": …}``, or smolagents' bound call ``{"args": […], "kwargs": {…}}``):
    its one text when it has one, else the arguments as JSON, else the text itself."""
    if text is None:
        return None
    try:
        value = loads_json(text)
    except ValueError:  # not JSON, or nested too deep to be arguments: the text as it is
        return text
    if isinstance(value, dict) and isinstance(value.get("kwargs"), dict):
        args = value["args"] if isinstance(value.get("args"), list) else []
        value = value["kwargs"] if value["kwargs"] or not args else args[0] if len(args) == 1 else args
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return text
    for key in keys:
        if isinstance(value.get(key), str):
            return value[key]
    if len(value) == 1 and isinstance(next(iter(value.values())), str):
        return next(iter(value.values()))
    return json.dumps(value, ensure_ascii=False)


def _reply(span: Span) -> str:
    """What the model answered: OpenInference's output message (its content, or its text contents), the GenAI
    output messages, or the span's output value (smolagents writes the ChatMessage there as JSON)."""
    text = span.text("llm.output_messages.0.message.content")
    if text is not None:
        return text
    prefix = "llm.output_messages.0.message.contents"
    parts = [span.text(f"{prefix}.{i}.message_content.text") for i in range(MAX_CONTENTS)]
    if any(p is not None for p in parts):
        return "\n".join(p for p in parts if p is not None)
    text = _message_text(span, "gen_ai.output.messages", ("assistant",))
    if text is not None:
        return text
    output = span.text("output.value") or ""
    try:
        value = loads_json(output)
    except ValueError:
        return output
    return value["content"] if isinstance(value, dict) and isinstance(value.get("content"), str) else output


def _seconds(span: Span) -> float:
    """A step's time: what our own export recorded for the whole step, else the model call's span."""
    recorded = span.attributes.get("reactlab.step.seconds")
    if isinstance(recorded, int | float) and not isinstance(recorded, bool):
        return recorded
    return span.seconds


def _foreign(root: Span, inside: list[Span], unmapped: list[str]) -> dict[str, Any]:
    question = root.text("smolagents.task") or plain(root.text("input.value"), ("task", "question", "input", "query"))
    question = question or _message_text(root, "gen_ai.input.messages", ("user",))
    answer = plain(root.text("output.value"), ("answer", "output", "final_answer")) or _message_text(
        root, "gen_ai.output.messages", ("assistant",)
    )
    steps: list[dict[str, Any]] = []
    other: Counter[str] = Counter()
    model = root.text("gen_ai.request.model", "llm.model_name")
    for span in inside:
        kind = span.kind
        if kind == "llm":
            model = model or span.text("gen_ai.request.model", "gen_ai.response.model", "llm.model_name")
            reply = _reply(span)
            steps.append(
                {
                    "index": len(steps) + 1,
                    "thought": reply,
                    "raw_output": reply,
                    "usage": {
                        "prompt_tokens": span.count("gen_ai.usage.input_tokens", "llm.token_count.prompt"),
                        "completion_tokens": span.count("gen_ai.usage.output_tokens", "llm.token_count.completion"),
                    },
                    "seconds": _seconds(span),
                }
            )
        elif kind == "tool":
            name = span.text("gen_ai.tool.name", "tool.name") or span.name.removeprefix("execute_tool ").strip()
            arguments = span.text("gen_ai.tool.call.arguments", "input.value")  # (tool.parameters is the schema)
            argument = plain(arguments, ("answer", "input", "query", "expression")) or ""
            if not steps or steps[-1].get("action") or steps[-1].get("final_answer") is not None:
                steps.append({"index": len(steps) + 1, "seconds": 0.0})
            step = steps[-1]
            if "reactlab.step.index" not in span.attributes:  # our own model-call span holds the whole step's time
                step["seconds"] = step.get("seconds", 0.0) + span.seconds
            if name in FINAL_ANSWER_TOOLS:
                step["final_answer"] = argument
                answer = answer if answer is not None else argument
                continue
            result = span.text("gen_ai.tool.call.result", "output.value")
            step["action"] = {"tool": name or "tool", "input": argument}
            failed = span.error or bool(span.attributes.get("reactlab.observation.error"))
            # Our own export says which results were evidence; another tool's result is what it returned, so whatever
            # words an answer shares with it are evidence (a failed call's message is not).
            evidence = span.attributes.get("reactlab.observation.evidence", not failed and bool(result))
            step["observation"] = {
                "text": result if result is not None else span.message or "(the tool's span holds no result)",
                "is_error": failed,
                "evidence": bool(evidence),
            }
        else:
            other[span.name[:60] or "(unnamed)"] += 1
    if other:
        named = ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in other.most_common(5))
        more = "" if len(other) <= 5 else f" and {len(other) - 5:,} other names"
        unmapped.append(f"{sum(other.values()):,} spans that are neither a model call nor a tool ({named}{more})")
    llm_calls = sum(1 for s in inside if s.kind == "llm")
    if llm_calls:
        calls = "1 model call" if llm_calls == 1 else f"{llm_calls:,} model calls"
        unmapped.append(f"the prompts of {calls} (a step keeps the model's reply)")
    if question is None:
        unmapped.append("the question (the run's span has no input)")
    d: dict[str, Any] = {
        "question": question if question is not None else root.name,
        "settings": {"model": model} if model else {},
        "steps": steps,
        "final_answer": answer,
        "started_at": _iso(root.start),
        "imported_from": Provenance("OTLP/JSON", root.producer, model=model or "").to_dict(),
    }
    for step in steps:
        step["seconds"] = round(step["seconds"], 6)
    if root.error:
        d["stop_reason"], d["error"] = "error", root.message or "The run failed."
    elif answer is not None:
        d["stop_reason"] = "finished"
    return d
