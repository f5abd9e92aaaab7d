"""A step's model call, rebuilt from its trace: the prompt texts, the request exactly as the API received it, and
what each call added to the one before.

Each step's ``ModelCall`` keeps the request body with the run's long texts as references, the system prompt only when
it changed, and the prompt as "the first ``prompt_keep`` characters of the previous call's prompt, then
``prompt_added``". A conversation (the ``tools`` dialect: the body's message list under the key ``conversation``) is
kept the same way, as "the first ``messages_keep`` messages of the previous call's list, then ``messages_added``". A
step from the same reply as an earlier one keeps only ``same_reply_as``. Storage grows linearly with the steps;
rebuilding walks them in order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from react_core.base.errors import ConfigError
from react_core.base.trace import ModelCall, Step, Trace

__all__ = [
    "CallTexts",
    "advance",
    "common_items",
    "common_prefix",
    "fill",
    "record",
    "request",
    "template",
]


@dataclass(frozen=True)
class CallTexts:
    # How a recorded body refers to one of these texts (``template``): ``{"$ref": "prompt"}`` stands for the prompt.
    REF: ClassVar[str] = "$ref"

    system: str
    prompt: str
    keep: int  # how many characters of the previous call's prompt this one starts with (reusable by a prompt cache)
    messages: tuple[Any, ...] | None = None  # the conversation as the API received it (the tools format)

    @staticmethod
    def of(steps: Sequence[Step]) -> list[CallTexts | None]:
        """The system prompt, prompt (and conversation) of every step's call (None for a step without a call record,
        e.g. from an old export, or whose record does not fit the one before it). A step from the same reply as an
        earlier one has that step's texts."""
        out: list[CallTexts | None] = []
        previous: CallTexts | None = None
        for step in steps:
            # Without a record the chain starts again at the next call that carries its system prompt.
            previous = advance(previous, step.call) if step.call is not None else None
            out.append(previous)
        return out

    @staticmethod
    def request(trace: Trace, index: int) -> dict[str, Any]:
        """Step ``index``'s model call as one JSON-able object: where it went, the body exactly as received (the texts
        verbatim), the stop sequences cut locally and the parameters left out. ConfigError when the trace cannot say."""
        position = next((i for i, s in enumerate(trace.steps) if s.index == index), None)
        if position is None:
            raise ConfigError(f"The trace has no step {index} (its steps are {[s.index for s in trace.steps]}).")
        call, body = trace.steps[position].call, request(trace.steps, position)
        if call is not None and call.same_reply_as is not None:
            call = next((s.call for s in trace.steps if s.index == call.same_reply_as), None)
        if call is None or body is None:
            raise ConfigError(
                f"Step {index} does not record its model call (a trace exported before ReAct Lab kept them): "
                "run the question again to inspect its calls."
            )
        return {
            "step": index,
            "provider": trace.settings.get("provider", ""),
            "model": trace.settings.get("model", ""),
            **({"adapter": trace.settings["adapter"]} if trace.settings.get("adapter") else {}),
            "api": call.api,
            "endpoint": call.endpoint,
            "body": body,
            "stop_local": list(call.stop_local),
            "omitted": list(call.omitted),
        }

    @staticmethod
    def table(steps: Sequence[Step]) -> list[dict[str, Any]]:
        """One row per model call of a run: how the prompt grew and what each call cost, for the run-level view."""
        rows = []
        for step, rebuilt in zip(steps, CallTexts.of(steps), strict=True):
            call = step.call
            if call is None or call.same_reply_as is not None:  # one reply's later calls share its model call's row
                continue
            prompt_chars = len(rebuilt.system) + len(rebuilt.prompt) if rebuilt else None
            if rebuilt is not None and rebuilt.messages:
                prompt_chars = (prompt_chars or 0) + sum(
                    len(json.dumps(m, ensure_ascii=False)) for m in rebuilt.messages
                )
            added = sum(len(json.dumps(m, ensure_ascii=False)) for m in call.messages_added)
            added += len(call.prompt_added) + (len(call.system) if call.system is not None else 0)
            rows.append(
                {
                    "step": step.index,
                    "prompt characters": prompt_chars,
                    "new characters": added,
                    "prompt tokens": step.usage.prompt_tokens,
                    "reused tokens": call.reused_tokens,
                    "written tokens": step.usage.completion_tokens,
                    "first token (s)": round(call.first_token_seconds, 3),
                    "call (s)": round(call.seconds, 3),
                    "finish": call.finish_reason,
                }
            )
        return rows


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


def advance(previous: CallTexts | None, call: ModelCall) -> CallTexts | None:
    """The texts of ``call`` from the previous call's (None: the trace cannot tell)."""
    if call.same_reply_as is not None:
        return previous
    system = call.system if call.system is not None else (previous.system if previous else None)
    before = previous.prompt if previous is not None else ""
    if system is None or call.prompt_keep > len(before):
        return None
    texts_ = CallTexts(system, before[: call.prompt_keep] + call.prompt_added, call.prompt_keep)
    if not call.conversation:
        return texts_
    held = previous.messages if previous is not None and previous.messages is not None else ()
    if call.messages_keep > len(held):
        return None
    messages = held[: call.messages_keep] + tuple(fill(m, texts_) for m in call.messages_added)
    return CallTexts(texts_.system, texts_.prompt, texts_.keep, messages)


def common_items(a: Sequence[Any], b: Sequence[Any]) -> int:
    """How many leading items two lists share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def template(body: Any, system: str, prompt: str) -> Any:
    """``body`` with every string equal to the system prompt, the prompt or both joined replaced by a reference."""
    names = {system + prompt: "system+prompt", system: "system", prompt: "prompt"}
    names.pop("", None)

    def walk(value: Any) -> Any:
        if isinstance(value, str) and value in names:
            return {CallTexts.REF: names[value]}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return walk(body)


def fill(body: Any, texts_: CallTexts) -> Any:
    """The inverse of ``template``: references replaced by the texts (and the conversation)."""
    values: dict[str, Any] = {
        "system": texts_.system,
        "prompt": texts_.prompt,
        "system+prompt": texts_.system + texts_.prompt,
    }
    if texts_.messages is not None:
        values["messages"] = list(texts_.messages)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            if set(value) == {CallTexts.REF} and value[CallTexts.REF] in values:
                return values[value[CallTexts.REF]]
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
    conversation: str = "",
    **details: Any,
) -> ModelCall:
    """The ModelCall for a request, stored relative to the previous call of the same run. ``conversation`` names the
    body key holding a message list that grows from call to call (stored as what this call added)."""
    same_system = previous is not None and previous.system == system
    keep = common_prefix(previous.prompt, prompt) if previous is not None else 0
    messages_keep, added = 0, []
    if conversation and isinstance(body.get(conversation), list):
        items = body[conversation]
        held = previous.messages if previous is not None and previous.messages is not None else ()
        messages_keep = common_items(held, items)
        added = [template(m, system, prompt) for m in items[messages_keep:]]
        body = {**body, conversation: {CallTexts.REF: "messages"}}
    else:
        conversation = ""
    return ModelCall(
        api=api,
        endpoint=endpoint,
        body=template(body, system, prompt),
        system=None if same_system else system,
        prompt_keep=keep,
        prompt_added=prompt[keep:],
        conversation=conversation,
        messages_keep=messages_keep,
        messages_added=added,
        **details,
    )


def request(steps: Sequence[Step], position: int) -> dict[str, Any] | None:
    """The request of ``steps[position]`` exactly as the API received it, or None when the trace cannot tell. A step
    from the same reply as an earlier one has that step's request."""
    call = steps[position].call
    if call is not None and call.same_reply_as is not None:
        heads = [i for i in range(position) if steps[i].index == call.same_reply_as]
        if not heads:
            return None
        position = heads[-1]
        call = steps[position].call
    rebuilt = CallTexts.of(steps[: position + 1])[position]
    if call is None or rebuilt is None or call.same_reply_as is not None:
        return None
    return fill(call.body, rebuilt)
