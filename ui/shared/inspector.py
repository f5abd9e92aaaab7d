"""The call inspector: the Model call section of a step panel, and the run's calls at a glance.

What the model was sent is rebuilt from the trace (``react_core.base.call_records``): the request exactly as the
provider's API
received it, what is new since the previous call (the unchanged prefix is what a prompt cache or llama.cpp's KV cache
can reuse), the response as streamed with the stop-sequence cut marked, and the call as cURL or Python with the key
as a variable. Long texts sit in closed ``<details>`` blocks: monospace, collapsed, and still found by the browser's
find. Everything from a model, a wiki or a file is HTML-escaped before it is drawn.
"""

from __future__ import annotations

import html
import json
import unicodedata
from typing import Any

import pandas as pd
import streamlit as st

from react_core import (
    PROVIDERS,
    CallTexts,
    Provider,
    ReactLabError,
    Step,
    Trace,
)
from ui.shared.text import md_literal

_PRE = "margin:0.25rem 0;padding:0.5rem;white-space:pre-wrap;word-break:break-word;font-size:0.8rem;"
_NEW = "background:rgba(255,214,10,0.25);"
SNIPPETS = (("curl", "Copy as cURL", "bash"), ("python", "Copy as Python", "python"))
VISIBLE_NOTE = "Characters that would not show (Unicode spaces, controls) are written as \\uXXXX, as GBNF reads them."


def _pre(text: str, style: str = "") -> str:
    return f'<pre style="{_PRE}{style}">{html.escape(text)}</pre>'


def _p(text: str) -> str:
    return f"<p style='margin:0.2rem 0'>{html.escape(text)}</p>"


def _details(summary: str, body: str, *, open_: bool = False) -> str:
    return f"<details{' open' if open_ else ''}><summary>{html.escape(summary)}</summary>{body}</details>"


def _new_in_call(step: Step, rebuilt: CallTexts, previous_index: int | None) -> str:
    call = step.call
    assert call is not None
    if previous_index is None:
        whole = len(rebuilt.system) + len(rebuilt.prompt)
        tokens = Provider.estimate_tokens(rebuilt.system + rebuilt.prompt)
        lines = [f"The run's first call: its whole prompt is new ({whole:,} characters, ≈ {tokens:,} tokens)."]
    else:
        kept = len(rebuilt.system) + call.prompt_keep
        kept_tokens = Provider.estimate_tokens(rebuilt.system + rebuilt.prompt[: call.prompt_keep])
        lines = [
            f"Unchanged prefix: {kept:,} characters (≈ {kept_tokens:,} tokens) of step {previous_index}'s call, which "
            "a prompt cache can reuse."
        ]
    if call.reused_tokens is not None:
        lines.append(f"The model reused {call.reused_tokens:,} prompt tokens from its cache.")
    if call.system is not None and previous_index is not None:
        lines.append("The system prompt changed since the previous call.")
    body = "".join(_p(line) for line in lines)
    if call.conversation:  # native tool calling: the conversation grew by these messages
        added = json.dumps(call.messages_added, ensure_ascii=False, indent=2)
        return body + _p(f"{len(call.messages_added)} new messages in the conversation:") + _pre(added, _NEW)
    return body + _pre(call.prompt_added, _NEW)


def _request(call_dict: dict[str, Any], template: dict[str, Any], rebuilt: CallTexts) -> str:
    """The body as sent, readable: its structure and parameters as JSON, with the long texts (written
    ``{"$ref": …}`` there) shown verbatim below it."""
    where = f"{call_dict['api']}" + (f" · {call_dict['endpoint']}" if call_dict["endpoint"] else " · in-process")
    parts = [_p(where)]
    if call_dict["omitted"]:
        items = "".join(
            f"<li><code>{html.escape(o.get('param', ''))}</code>: {html.escape(o.get('reason', ''))}</li>"
            for o in call_dict["omitted"]
        )
        parts.append(_p("Left out of the request:") + f"<ul>{items}</ul>")
    stops = ", ".join(json.dumps(s) for s in call_dict["stop_local"]) or "none"
    parts.append(_p(f"Stop sequences enforced by the loop's own cutting: {stops}"))
    template, params = _lift_texts(template)
    parts.append(_pre(json.dumps(template, ensure_ascii=False, indent=2)))
    texts = {"system": rebuilt.system, "prompt": rebuilt.prompt, "system+prompt": rebuilt.system + rebuilt.prompt}
    if rebuilt.messages is not None:
        texts["messages"] = json.dumps(list(rebuilt.messages), ensure_ascii=False, indent=2)
    for name in _refs(template):
        if name in texts:
            parts.append(_details(f'"$ref": "{name}" ({len(texts[name]):,} characters)', _pre(texts[name])))
        elif name in params:
            text = params[name]
            shown = _visible(text)
            note = _p(VISIBLE_NOTE) if shown != text else ""
            parts.append(_details(f'"$ref": "{name}" ({len(text):,} characters)', note + _pre(shown)))
    return "".join(parts)


def _lift_texts(template: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The template with each parameter whose value is a text of several lines (the on-device model's grammar)
    written as a reference too, and those texts by name: shown in their own block as the texts they are, not as a
    JSON string of escapes."""
    lifted: dict[str, str] = {}
    shown = {}
    for key, value in template.items():
        if isinstance(value, str) and "\n" in value:
            lifted[key] = value
            shown[key] = {CallTexts.REF: key}
        else:
            shown[key] = value
    return shown, lifted


def _visible(text: str) -> str:
    """``text`` with the characters a browser draws as nothing or as an empty box (Unicode spaces other than the
    plain one, line and paragraph separators, controls other than the line break, format characters) written as
    ``\\uXXXX``: the grammar's character classes hold them, and GBNF reads the escape as the same character."""
    out = []
    for c in text:
        if c == "\n" or c == " " or unicodedata.category(c) not in ("Zs", "Zl", "Zp", "Cc", "Cf"):
            out.append(c)
        else:
            out.append(f"\\u{ord(c):04X}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08X}")
    return "".join(out)


def _refs(value: Any) -> list[str]:
    """The text references in a body template, in order of appearance."""
    found: list[str] = []
    if isinstance(value, dict):
        if set(value) == {CallTexts.REF}:
            return [value[CallTexts.REF]]
        for v in value.values():
            found += [r for r in _refs(v) if r not in found]
    elif isinstance(value, list):
        for v in value:
            found += [r for r in _refs(v) if r not in found]
    return found


def _response(step: Step) -> str:
    call, raw = step.call, step.raw_output
    assert call is not None
    if call.cut_at is None:
        return _pre(raw or "(nothing)")
    before, after = raw[: call.cut_at], raw[call.cut_at :]
    note = _p(f"Cut at the stop sequence {json.dumps(call.cut_by)}; the struck-out text after it was not used.")
    return note + f'<pre style="{_PRE}">{html.escape(before)}<del style="opacity:0.6">{html.escape(after)}</del></pre>'


def figures(step: Step) -> str:
    call = step.call
    assert call is not None
    u = step.usage
    reused = f" ({call.reused_tokens:,} reused)" if call.reused_tokens else ""
    parts = [
        f"{u.prompt_tokens:,} prompt tokens{reused} + {u.completion_tokens:,} written",
        f"first token {call.first_token_seconds:.2f} s",
        f"call {call.seconds:.2f} s",
    ]
    if call.finish_reason:
        parts.append(f"finished: {call.finish_reason}")
    return " · ".join(parts)


def previous_call(trace: Trace, position: int) -> int | None:
    """The index of the last step before ``position`` that records its model call."""
    return next((s.index for s in reversed(trace.steps[:position]) if s.call is not None), None)


def render_call(trace: Trace, position: int, rebuilt: CallTexts | None, *, key: str) -> None:
    """The Model call section of the step at ``position`` in ``trace.steps``."""
    step = trace.steps[position]
    st.markdown("**Model call**")
    if step.call is None:
        if trace.imported_from is not None:
            st.caption(
                md_literal(
                    f"The imported file ({trace.imported_from.format}) holds the model's reply, not the request "
                    "that was sent for it."
                )
            )
        else:
            st.caption("This step does not record its model call (a run saved before ReAct Lab kept them).")
        return
    if step.call.same_reply_as is not None:
        st.caption(
            f"This tool call came in the same reply as step {step.call.same_reply_as}'s: its model call is shown there."
        )
        return
    if rebuilt is None:
        st.caption("The call of this step cannot be rebuilt: the step before it does not record its call.")
        return
    st.caption(md_literal(figures(step)))
    chosen = trace.settings.get("examples_chosen")
    if chosen and previous_call(trace, position) is None:  # said once, at the run's first call
        st.caption(
            md_literal(f"Dynamic examples: the {len(chosen)} most like this question were sent: " + "; ".join(chosen))
        )
    try:
        call_dict = CallTexts.request(trace, step.index)
    except ReactLabError as e:
        st.caption(md_literal(str(e)))
        return
    previous = previous_call(trace, position)
    size = len(json.dumps(call_dict["body"], ensure_ascii=False))
    request = _request(call_dict, step.call.body, rebuilt)
    st.html(
        _details("What is new in this call", _new_in_call(step, rebuilt, previous), open_=True)
        + _details(f"Request as the API received it ({size:,} characters)", request)
        + _details("Response as streamed", _response(step))
    )
    name = trace.settings.get("provider", "")
    provider = PROVIDERS.get(name)
    row = st.container(horizontal=True)  # as wide as their labels, wrapping in a narrow column (Compare's)
    for style, label, language in SNIPPETS:
        with row.popover(label):
            try:
                snippet = provider.snippet(call_dict, style) if provider else ""
            except ReactLabError as e:
                snippet = ""
                st.caption(md_literal(str(e)))
            if snippet:
                st.code(snippet, language=language)


def render_calls_table(trace: Trace) -> None:
    """Every call of the run with its size, tokens and times: the prompt growing step by step."""
    rows = CallTexts.table(trace.steps)
    if not rows:
        return
    st.caption("Model calls: each resends the whole prompt so far; the new part is what the last step added.")
    frame = pd.DataFrame(rows)
    st.dataframe(frame, hide_index=True, width="stretch")
    if len(rows) > 1:
        st.bar_chart(frame.set_index("step")[["prompt tokens", "written tokens"]], height=160, stack=True)
