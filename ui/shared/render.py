"""Drawing a run from its objects: step panels from ``Step``, the step being written, the status header, the answer
with the expected answer and the evidence check, and its sources.

Text from the model or from Wikipedia is shown with ``st.text`` or ``st.code`` (never interpreted); where Streamlit
insists on Markdown (labels, links, buttons) it goes through ``md_literal``.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from react_core import (
    PROVIDERS,
    CallTexts,
    Decision,
    Knowledge,
    Saying,
    Source,
    Step,
    ToolSpec,
    Trace,
    Verdict,
    Writing,
    md_escape,
    plural,
)
from ui.shared.inspector import render_call, render_calls_table
from ui.shared.mcp_call import render_mcp_call
from ui.shared.step_mode import render_decisions, render_pause
from ui.shared.text import md_literal

SimilarHandler = Callable[[int, str], None]  # (step index, title) -> None
DecisionHandler = Callable[[Decision], None]  # step mode: the person's decision at the paused step


def step_key(key: str, index: int) -> str:
    """Where the widget keys of step ``index``'s panel begin, in the run drawn with ``key``."""
    return f"{key}-s{index}"


def lazy_panel(label: str, *, key: str, expanded: bool = False, icon: str | None = None):
    """An expander whose content is drawn only while it is open (opening it reruns the page to draw it). A finished
    step's panel holds its whole model call (the prompt, four times over: request, Python, curl, JavaScript) and a
    run's header its calls table and chart; drawn closed on every rerun of a 3-turn chat they cost the browser 0.19 and
    the server 0.085 CPU-seconds a rerun, the model's cores while a turn runs (docs/benchmarks.md, chat page)."""
    return st.expander(label, expanded=expanded, icon=icon, key=key, on_change="rerun")


def step_title(step: Step, dialect: str) -> str:
    return f"Step {step.index} · {Saying(step, dialect).title}"


def render_sources(sources: list[Source], label: str = "Sources") -> None:
    links = []
    for src in sources:
        href = src.href
        title = md_literal(src.title or href)
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
    on_decide: DecisionHandler | None = None,
    expanded: bool = False,
    open_errors: bool = True,
    model_call: bool = True,
) -> None:
    """One step panel: Thought, Action, Observation, sources, and the model call behind it (unless ``model_call`` is
    False: a shared follow-up); at a pause (step mode) what it would do and the person's choices (``on_decide``), and
    on any step the decisions taken on it. A step that failed opens by itself unless ``open_errors`` is False (side by
    side, an open panel would push its row far down)."""
    dialect, knowledge = trace.settings.get("dialect", "paper"), str(trace.settings.get("knowledge", ""))
    step = trace.steps[position]
    obs = step.observation
    icon = ":material/pause_circle:" if step.pending else ":material/error:" if step.is_error else None
    icon = ":material/stop_circle:" if step.stopped else icon
    open_ = expanded or (open_errors and step.is_error) or bool(step.pending) or step.stopped
    panel = lazy_panel(md_literal(step_title(step, dialect)), key=f"{key}-panel", expanded=open_, icon=icon)
    with panel:
        if not panel.open:
            return
        st.markdown("**Thought**")
        st.text(step.thought or "(no thought)")
        st.markdown("**Action**")
        st.code(Saying(step, dialect).text, language=None, wrap_lines=True)
        if step.stopped:
            st.caption(
                "Stopped by you while the model was writing this step: what it had written is kept (its raw reply is "
                "in the Model call section) and its tokens are counted; nothing of it was run."
            )
        if step.pending:
            render_pause(trace, position, key=key, on_decide=on_decide)
        if obs is not None:
            st.markdown(":red[**Observation — error**]" if obs.is_error else "**Observation**")
            st.text(obs.text)
            if obs.note:
                st.info(md_literal(obs.note), icon=":material/info:")
            if obs.mcp is not None:
                render_mcp_call(obs.mcp)
            render_sources(obs.sources, "Source")
            if obs.sources:
                st.caption(Knowledge(knowledge).credit(obs.note))
            searched = step.action is not None and step.action.tool == "search"
            titles = obs.similar_titles if searched else []
            if titles and on_similar is not None:
                st.caption("Similar titles — click one to search it instead and go on from here:")
                cols = st.columns(min(len(titles), 3))
                for i, title in enumerate(titles[:9]):
                    cols[i % len(cols)].button(
                        md_literal(title), key=f"{key}-similar-{i}", on_click=on_similar, args=(step.index, title)
                    )
        render_decisions(trace, position, key=key)
        if step.leaked_observation:
            st.caption("The model started writing its own Observation; that part was cut off and ignored.")
        http = obs.stats.http_requests if obs is not None else 0
        requests = f" · {plural(http, 'HTTP request')}" if http else ""
        st.caption(f"Step took {step.seconds:.2f} s{requests}")
        if model_call:
            render_call(trace, position, rebuilt, key=key)


def render_writing(writing: Writing, dialect: str) -> None:
    """The step the model is writing right now: its text streams in as it arrives."""
    doing = Saying(writing, dialect).title if writing.action else "writing…"
    with st.expander(md_literal(f"Step {writing.index} · {doing}"), expanded=True, icon=":material/edit_note:"):
        st.markdown("**Thought**")
        st.text(writing.text or "…")
        if writing.action:
            st.caption("Running the action…")
        if writing.progress is not None:  # what the tool says of how far it has got
            done = writing.progress
            fraction = min(max(done.progress / done.total, 0.0), 1.0) if done.total else None
            if fraction is not None:
                st.progress(fraction)
            st.caption(md_escape(f"Progress: {done.text}"))


def status_text(trace: Trace) -> tuple[str, str]:
    """The header of a finished turn and its sign's icon (a check mark only on a known-right answer)."""
    return trace.summary(), Verdict.of(trace).sign.icon


def settings_line(settings: dict) -> str:
    """The settings a run recorded, as one line."""
    s = settings
    tools = ", ".join(ToolSpec.label_of(t) for t in s.get("tools", [])) or "none"
    model = PROVIDERS[s["provider"]].model_label(s) if s.get("provider") else "?"
    return (
        f"{s.get('provider', '?')} · {model} · preset {s.get('prompt_version') or s.get('preset', '?')} "
        f"(dialect {s.get('dialect', '?')}) · "
        f"temperature {s.get('temperature', '?')} · max calls {s.get('max_calls', '?')} · "
        f"knowledge {s.get('knowledge', '?')} · tools {tools}"
    )


def render_status(trace: Trace, *, key: str) -> None:
    label, icon = status_text(trace)
    # An expander, not st.status: a finished status always wears a check mark (or an error sign), whatever the run.
    panel = lazy_panel(label, key=key, icon=icon)
    with panel:
        if not panel.open:
            return
        if trace.imported_from is not None:  # another tool's settings are not this app's to list
            st.caption(md_literal(f"Imported from {trace.imported_from.described}"))
        else:
            st.caption(md_literal(settings_line(trace.settings)))
        if trace.started_at:
            st.caption(md_literal(f"Started {trace.started_at}"))
        render_calls_table(trace)


# The evidence check only says where the answer's words occur, so it never wears the colour of a right answer
# (a wrong answer, such as a title the model just searched, occurs too); green is kept for an exact match with the
# expected answer.
EVIDENCE_BADGES = {
    "grounded": ("gray", ":material/format_quote:"),
    "partial": ("gray", ":material/help:"),
    "not_found": ("orange", ":material/warning:"),
}
EXPECTED_BADGES = {
    "match": ("green", Verdict.SIGNS["right"].icon),  # the one check mark: known right
    "close": ("orange", ":material/rule:"),
    "differs": ("red", ":material/cancel:"),
    "no_answer": ("gray", ":material/flag:"),
}


def _badge(message: str, color: str, icon: str, *, wrap: bool = False) -> None:
    if wrap:  # a narrow column: a coloured line that wraps, where a badge would be cut short
        st.markdown(f"{icon} :{color}[{md_literal(message)}]")
        return
    # The message quotes Wikipedia's sentence: shown literally (st.badge escapes the brackets itself).
    st.badge(md_literal(message).replace("\\[", "[").replace("\\]", "]"), icon=icon, color=color)


def render_answer(trace: Trace, *, narrow: bool = False) -> None:
    """The final answer as the chat message, the expected answer beside it when known, the evidence check and the
    sources (or the failure). ``narrow``: a column of several side by side (the answer in bold, not as a heading that
    a long answer would fill the column with; the checks as lines that wrap)."""
    verdict = Verdict.of(trace)
    expected = verdict.expected
    if trace.final_answer is not None:
        if narrow:
            st.markdown(f"**{md_literal(trace.final_answer) or '(empty answer)'}**")
        else:
            st.subheader(md_literal(trace.final_answer) or "(empty answer)", anchor=False)
        if expected is not None:
            _badge(expected.message, *EXPECTED_BADGES[expected.kind], wrap=narrow)
        g = verdict.evidence
        assert g is not None  # there is an answer
        _badge(g.message, *EVIDENCE_BADGES.get(g.kind, ("gray", ":material/info:")), wrap=narrow)
        if trace.sources:
            render_sources(trace.sources)
            st.caption(Source.CREDIT)
        return
    if trace.stop_reason == "error" or trace.error:
        st.error(md_literal(trace.error or "The run failed."), icon=":material/error:")
    if expected is not None:
        _badge(expected.message, *EXPECTED_BADGES[expected.kind], wrap=narrow)


def render_steps(
    trace: Trace,
    *,
    key: str,
    on_similar: SimilarHandler | None = None,
    on_decide: DecisionHandler | None = None,
    model_calls: bool = True,
) -> None:
    """The step panels of a run (or of the steps a running turn has finished so far)."""
    for position, (step, rebuilt) in enumerate(zip(trace.steps, CallTexts.of(trace.steps), strict=True)):
        render_step(
            trace,
            position,
            rebuilt,
            key=step_key(key, step.index),
            on_similar=on_similar,
            on_decide=on_decide,
            model_call=model_calls,
        )


def render_trace(
    trace: Trace,
    *,
    key: str,
    on_similar: SimilarHandler | None = None,
    narrow: bool = False,
    model_calls: bool = True,
) -> None:
    """A whole finished run: status header, step panels, answer (``narrow``: in a column of several; ``model_calls``
    False: without the steps' model calls, as a shared follow-up is shown)."""
    render_status(trace, key=f"{key}-status")
    render_steps(trace, key=key, on_similar=on_similar, model_calls=model_calls)
    render_answer(trace, narrow=narrow)
