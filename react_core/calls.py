"""A step's model call, rebuilt from its trace: the prompt texts, the request exactly as the API received it, and
what each call added to the one before.

Each step's ``ModelCall`` keeps the request body with the run's long texts as references, the system prompt only when
it changed, and the prompt as "the first ``prompt_keep`` characters of the previous call's prompt, then
``prompt_added``". Storage grows linearly with the steps; rebuilding walks them in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from react_core.errors import ConfigError
from react_core.trace import ModelCall, Step, Trace

REF = "$ref"


@dataclass(frozen=True)
class CallTexts:
    system: str
    prompt: str
    keep: int  # how many characters of the previous call's prompt this one starts with (reusable by a prompt cache)


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of two strings."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # binary search on slices: C-speed comparisons instead of a Python loop per character
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def texts(steps: Sequence[Step]) -> list[CallTexts | None]:
    """The system prompt and prompt of every step's call (None for a step without a call record, e.g. from an old
    export, or whose record does not fit the one before it)."""
    out: list[CallTexts | None] = []
    system: str | None = None
    prompt: str | None = ""
    for step in steps:
        call = step.call
        if call is None:
            out.append(None)
            system, prompt = None, ""  # the chain starts again at the next call that carries its system prompt
            continue
        if call.system is not None:
            system = call.system
        if system is None or prompt is None or call.prompt_keep > len(prompt):
            out.append(None)
            prompt = None
            continue
        prompt = prompt[: call.prompt_keep] + call.prompt_added
        out.append(CallTexts(system, prompt, call.prompt_keep))
    return out


def template(body: Any, system: str, prompt: str) -> Any:
    """``body`` with every string equal to the system prompt, the prompt or both joined replaced by a reference."""
    names = {system + prompt: "system+prompt", system: "system", prompt: "prompt"}
    names.pop("", None)

    def walk(value: Any) -> Any:
        if isinstance(value, str) and value in names:
            return {REF: names[value]}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return walk(body)


def fill(body: Any, texts_: CallTexts) -> Any:
    """The inverse of ``template``: references replaced by the texts."""
    values = {"system": texts_.system, "prompt": texts_.prompt, "system+prompt": texts_.system + texts_.prompt}

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            if set(value) == {REF} and value[REF] in values:
                return values[value[REF]]
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(body)


def record(
    previous: CallTexts | None,
    system: str,
    prompt: str,
    *,
    api: str,
    endpoint: str = "",
    body: dict[str, Any],
    **details: Any,
) -> ModelCall:
    """The ModelCall for a request, stored relative to the previous call of the same run."""
    same_system = previous is not None and previous.system == system
    keep = common_prefix(previous.prompt, prompt) if previous is not None else 0
    return ModelCall(
        api=api,
        endpoint=endpoint,
        body=template(body, system, prompt),
        system=None if same_system else system,
        prompt_keep=keep,
        prompt_added=prompt[keep:],
        **details,
    )


def request(steps: Sequence[Step], position: int) -> dict[str, Any] | None:
    """The request of ``steps[position]`` exactly as the API received it, or None when the trace cannot tell."""
    call = steps[position].call
    rebuilt = texts(steps[: position + 1])[position]
    if call is None or rebuilt is None:
        return None
    return fill(call.body, rebuilt)


def request_of(trace: Trace, index: int) -> dict[str, Any]:
    """Step ``index``'s model call as one JSON-able object: where it went, the body exactly as received (the texts
    verbatim), the stop sequences cut locally and the parameters left out. ConfigError when the trace cannot say."""
    position = next((i for i, s in enumerate(trace.steps) if s.index == index), None)
    if position is None:
        raise ConfigError(f"The trace has no step {index} (its steps are {[s.index for s in trace.steps]}).")
    call, body = trace.steps[position].call, request(trace.steps, position)
    if call is None or body is None:
        raise ConfigError(
            f"Step {index} does not record its model call (a trace exported before ReAct Lab kept them): "
            "run the question again to inspect its calls."
        )
    return {
        "step": index,
        "provider": trace.settings.get("provider", ""),
        "model": trace.settings.get("model", ""),
        "api": call.api,
        "endpoint": call.endpoint,
        "body": body,
        "stop_local": list(call.stop_local),
        "omitted": list(call.omitted),
    }


def table(steps: Sequence[Step]) -> list[dict[str, Any]]:
    """One row per model call of a run: how the prompt grew and what each call cost, for the run-level view."""
    rows = []
    for step, rebuilt in zip(steps, texts(steps), strict=True):
        call = step.call
        if call is None:
            continue
        prompt_chars = len(rebuilt.system) + len(rebuilt.prompt) if rebuilt else None
        rows.append(
            {
                "step": step.index,
                "prompt characters": prompt_chars,
                "new characters": len(call.prompt_added) + (len(call.system) if call.system is not None else 0),
                "prompt tokens": step.usage.prompt_tokens,
                "reused tokens": call.reused_tokens,
                "written tokens": step.usage.completion_tokens,
                "first token (s)": round(call.first_token_seconds, 3),
                "call (s)": round(call.seconds, 3),
                "finish": call.finish_reason,
            }
        )
    return rows
