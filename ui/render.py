"""Drawing a run: step panels from Step dicts, the live step, the status header, the answer with its sources.

Everything arrives as plain dicts (``Trace.to_dict`` / ``Step.to_dict`` / a job snapshot) and is drawn by its ``kind``
or its fields, never by isinstance. Text from the model or from Wikipedia is shown with ``st.text`` or ``st.code``
(never interpreted); where Streamlit insists on Markdown (labels, links, buttons) it goes through ``md_literal``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from react_core.base import call_records
from react_core.base.call_records import CallTexts
from react_core.base.trace import Trace
from react_core.report.expected import check_expected
from react_core.report.exports import CREDIT, action_text, action_title, plural, safe_url, summary_line
from react_core.report.grounding import check_grounding
from react_core.tools.wiki import similar_titles
from ui.inspector import render_call, render_calls_table
from ui.text import md_literal

SimilarHandler = Callable[[int, str], None]  # (step index, title) -> None


def step_title(step: dict[str, Any], fmt: str) -> str:
    return f"Step {step['index']} · {action_title(step, fmt)}"


def credit_caption(knowledge: str) -> str:
    if str(knowledge).startswith("pack:"):
        return "Text: Wikipedia opening paragraphs (2017) from the HotpotQA corpus — CC BY-SA 4.0."
    return "Text: Wikipedia, CC BY-SA 4.0."


def render_sources(sources: list[dict[str, Any]], label: str = "Sources") -> None:
    links = []
    for src in sources:
        href = safe_url(src.get("url", ""))
        title = md_literal(src.get("title", "") or href)
        links.append(f"[{title}]({href})" if href else title)
    if links:
        st.markdown(f"**{label}:** " + " · ".join(links))


def render_step(
    trace: Trace,
    position: int,
    rebuilt: CallTexts | None,
    *,
    key: str,
    on_similar: SimilarHandler | None = None,
    expanded: bool = False,
) -> None:
    """One step panel: Thought, Action, Observation, sources, and the model call behind it."""
    fmt, knowledge = trace.settings.get("dialect", "paper"), str(trace.settings.get("knowledge", ""))
    step = trace.steps[position].to_dict()
    obs = step.get("observation")
    is_error = bool(obs and obs.get("is_error"))
    icon = ":material/error:" if is_error else None
    with st.expander(md_literal(step_title(step, fmt)), expanded=expanded or is_error, icon=icon):
        st.markdown("**Thought**")
        st.text(step.get("thought") or "(no thought)")
        st.markdown("**Action**")
        st.code(action_text(step, fmt), language=None, wrap_lines=True)
        if obs is not None:
            st.markdown(":red[**Observation — error**]" if is_error else "**Observation**")
            st.text(obs.get("text", ""))
            if obs.get("note"):
                st.info(md_literal(obs["note"]), icon=":material/info:")
            render_sources(obs.get("sources", []), "Source")
            if obs.get("sources"):
                st.caption(credit_caption(knowledge))
            action = step.get("action") or {}
            titles = similar_titles(obs.get("text", "")) if action.get("tool") == "search" else []
            if titles and on_similar is not None:
                st.caption("Similar titles — click one to search it instead and go on from here:")
                cols = st.columns(min(len(titles), 3))
                for i, title in enumerate(titles[:9]):
                    cols[i % len(cols)].button(
                        md_literal(title),
                        key=f"{key}-similar-{i}",
                        on_click=on_similar,
                        args=(step["index"], title),
                    )
        if step.get("leaked_observation"):
            st.caption("The model started writing its own Observation; that part was cut off and ignored.")
        http = (obs or {}).get("stats", {}).get("http_requests", 0)
        requests = f" · {plural(http, 'HTTP request')}" if http else ""
        st.caption(f"Step took {step.get('seconds', 0.0):.2f} s{requests}")
        render_call(trace, position, rebuilt, key=key)


def render_current(current: dict[str, Any], fmt: str) -> None:
    """The step the model is writing right now: its text streams in as it arrives."""
    action = current.get("action")
    doing = action_title({"index": 0, "action": action}, fmt) if action else "writing…"
    title = f"Step {current['index']} · {doing}"
    with st.expander(md_literal(title), expanded=True, icon=":material/edit_note:"):
        st.markdown("**Thought**")
        st.text(current.get("text") or "…")
        if action:
            st.caption("Running the action…")


def status_text(trace: dict[str, Any]) -> tuple[str, str]:
    """The header of a finished turn and its state for st.status."""
    state = "complete" if trace.get("stop_reason") in ("finished", "cancelled") else "error"
    return summary_line(Trace.from_dict(trace)), state


def render_status(trace: dict[str, Any]) -> None:
    label, state = status_text(trace)
    with st.status(label, state=state, expanded=False):
        s = trace.get("settings", {})
        st.caption(
            md_literal(
                f"{s.get('provider', '?')} · {s.get('model') or 'default model'} · preset {s.get('preset', '?')} "
                f"(dialect {s.get('dialect', '?')}) · temperature {s.get('temperature', '?')} · "
                f"max calls {s.get('max_calls', '?')} · knowledge {s.get('knowledge', '?')} · "
                f"tools {', '.join(s.get('tools', [])) or 'none'}"
            )
        )
        if trace.get("started_at"):
            st.caption(md_literal(f"Started {trace['started_at']}"))
        render_calls_table(Trace.from_dict(trace))


# The evidence check only says where the answer's words occur, so it never wears the colour of a right answer
# (a wrong answer, such as a title the model just searched, occurs too); green is kept for an exact match with the
# expected answer.
EVIDENCE_BADGES = {
    "grounded": ("gray", ":material/format_quote:"),
    "partial": ("gray", ":material/help:"),
    "not_found": ("orange", ":material/warning:"),
}
EXPECTED_BADGES = {
    "match": ("green", ":material/check_circle:"),
    "close": ("orange", ":material/rule:"),
    "differs": ("red", ":material/cancel:"),
    "no_answer": ("gray", ":material/flag:"),
}


def _badge(message: str, color: str, icon: str) -> None:
    # The message quotes Wikipedia's sentence: shown literally (st.badge escapes the brackets itself).
    st.badge(md_literal(message).replace("\\[", "[").replace("\\]", "]"), icon=icon, color=color)


def render_answer(trace: dict[str, Any]) -> None:
    """The final answer as the chat message, the expected answer beside it when known, the evidence check and the
    sources (or the failure)."""
    expected = check_expected(trace)
    if trace.get("final_answer") is not None:
        st.subheader(md_literal(trace["final_answer"]) or "(empty answer)", anchor=False)
        if expected is not None:
            _badge(expected.message, *EXPECTED_BADGES[expected.kind])
        g = check_grounding(trace)
        _badge(g.message, *EVIDENCE_BADGES.get(g.kind, ("gray", ":material/info:")))
        steps = Trace.from_dict(trace).sources
        if steps:
            render_sources([s.to_dict() for s in steps])
            st.caption(CREDIT)
        return
    if trace.get("stop_reason") == "error" or trace.get("error"):
        st.error(md_literal(trace.get("error") or "The run failed."), icon=":material/error:")
    if expected is not None:
        _badge(expected.message, *EXPECTED_BADGES[expected.kind])


def render_steps(
    trace: dict[str, Any], *, key: str, on_similar: SimilarHandler | None = None, steps: list | None = None
) -> None:
    """The step panels of a run (or of the steps a running turn has finished so far)."""
    run = Trace.from_dict({"question": "", **trace, "steps": trace.get("steps", []) if steps is None else steps})
    for position, (step, rebuilt) in enumerate(zip(run.steps, call_records.texts(run.steps), strict=True)):
        render_step(run, position, rebuilt, key=f"{key}-s{step.index}", on_similar=on_similar)


def render_trace(trace: dict[str, Any], *, key: str, on_similar: SimilarHandler | None = None) -> None:
    """A whole finished run: status header, step panels, answer."""
    render_status(trace)
    render_steps(trace, key=key, on_similar=on_similar)
    render_answer(trace)
