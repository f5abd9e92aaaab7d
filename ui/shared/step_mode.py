"""Step mode on the page: the switch and breakpoints, the paused step's panel with the person's choices (Run, Edit
action, Write observation, Regenerate and pick, Stop), and the decisions a step records.

The panel draws what the engine reports (``Step.pending``, ``Step.offered``, ``Step.interventions``) and hands each
choice to ``on_decide`` as a ``Decision``; the verb (``ui.chat.turns.decide``) starts the job that resumes the run.
Text from the model is shown with ``st.text``/``st.code``, never interpreted.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from react_core import (
    Alternative,
    CallTexts,
    Decision,
    Saying,
    Step,
    Trace,
)
from ui.shared import state
from ui.shared.inspector import render_call
from ui.shared.mcp_ask_view import render_question
from ui.shared.text import md_literal

DecisionHandler = Callable[[Decision], None]
SWITCH_KEY = "chat-step-mode"


# -- the switch ---------------------------------------------------------------------------------------------------


def _switched() -> None:
    on = st.session_state[SWITCH_KEY]
    state.update_settings(pause_before=list(Step.BREAKPOINTS) if on else [])


def _chosen(key: str) -> None:
    state.update_settings(pause_before=[b for b in Step.BREAKPOINTS if b in st.session_state[key]])


def render_breakpoints(key: str) -> None:
    """The three breakpoints as a multiselect bound to the ``pause_before`` setting (empty: step mode is off)."""
    st.session_state[key] = list(state.settings().get("pause_before", []))
    st.multiselect(
        "Pause",
        list(Step.BREAKPOINTS),
        key=key,
        format_func=lambda b: Step.BREAKPOINTS[b],
        on_change=_chosen,
        args=(key,),
        placeholder="choose where the run stops for you",
    )


def render_switch() -> None:
    """The Chat page's Step mode switch: on, the run stops at the chosen breakpoints for your decision."""
    on = bool(state.settings().get("pause_before"))
    st.session_state[SWITCH_KEY] = on
    st.toggle(
        "Step mode",
        key=SWITCH_KEY,
        on_change=_switched,
        help="Stop the agent before it acts: before every tool call, on an unreadable step, before Finish, before a "
        "destructive tool call (Run approves it), and when an MCP server asks you something (you answer it). Run, "
        "edit the action, write the observation yourself, or regenerate the step.",
    )
    if on:
        render_breakpoints("chat-breakpoints")


# -- a paused step --------------------------------------------------------------------------------------------------


def render_pause(trace: Trace, position: int, *, key: str, on_decide: DecisionHandler | None) -> None:
    """What the paused step would do and the person's choices (none where the run cannot be resumed from here)."""
    step = trace.steps[position]
    dialect = trace.settings.get("dialect", "paper")
    st.warning(md_literal(f"Paused {paused_where(trace)}: waiting for you."), icon=":material/pause:")
    st.markdown("**Raw reply**")
    st.code(step.raw_output or "(empty)", language=None, wrap_lines=True)
    call = step.tool_call_text
    if call:
        st.markdown("**The tool call that would run**")
        st.code(call, language=None, wrap_lines=True)
    if step.pending == "input":  # the server asks the person something: answering is the decision
        render_question(step, key=key, on_decide=on_decide)
        return
    if step.pending == "destructive":
        st.caption(
            "Its MCP server does not declare this tool read-only: it may change or delete things. Run approves "
            "this one call."
        )
    if step.offered:
        _render_offered(trace, position, key=key, on_decide=on_decide)
    if on_decide is None:
        st.caption("Resume it in Chat to decide what it does next.")
        return
    run, stop = st.columns(2)
    run.button("Run", key=f"{key}-run", icon=":material/play_arrow:", on_click=on_decide, args=(Decision("run"),))
    stop.button(
        "Stop",
        key=f"{key}-stop",
        icon=":material/stop:",
        on_click=on_decide,
        args=(Decision("stop"),),
        help="End the run for good, this step not run: a stopped run cannot be resumed.",
    )
    edit, observe, regenerate = st.tabs(["Edit action", "Write observation", "Regenerate"])
    with edit, st.form(f"{key}-edit", border=False):
        _draft(
            draft_key(key, "edit"),
            Saying(step, dialect).text if step.action or step.final_answer is not None else "",
        )
        st.text_input("Action", key=draft_key(key, "edit"), help="Checked by the dialect's own parser.")
        st.form_submit_button(
            "Run the edited action", key=f"{key}-edit-go", on_click=_typed, args=(on_decide, "edit", key)
        )
    with observe:
        if step.pending == "finish":
            st.caption("A Finish step has no observation: edit its action to a tool call instead.")
        else:
            with st.form(f"{key}-observe", border=False):
                _draft(draft_key(key, "observe"), "")
                st.text_area(
                    "Observation", key=draft_key(key, "observe"), help="Marked in the trace as written by you."
                )
                st.form_submit_button(
                    "Use this observation", key=f"{key}-observe-go", on_click=_typed, args=(on_decide, "observe", key)
                )
    with regenerate, st.form(f"{key}-regenerate", border=False):
        k, t = st.columns(2)
        k.number_input(
            "Alternatives",
            1,
            Decision.MAX_ALTERNATIVES,
            Decision.DEFAULT_ALTERNATIVES,
            key=f"{key}-k",
            help="Each is a model call.",
        )
        t.slider("Temperature", 0.0, 2.0, Decision.DEFAULT_TEMPERATURE, 0.1, key=f"{key}-temperature")
        st.form_submit_button("Regenerate", key=f"{key}-regenerate-go", on_click=_regenerate, args=(on_decide, key))


def paused_where(trace: Trace) -> str:
    """Where the run waits, for a person: at one of its breakpoints, or where they pressed Pause here."""
    pending = trace.steps[-1].pending if trace.steps else ""
    if pending in trace.settings.get("pause_before", []):
        return Step.BREAKPOINTS.get(pending, pending)
    return "where you asked"


def draft_key(key: str, kind: str) -> str:
    """The text a person types for a paused step's ``edit`` or ``observe`` (``key``: the step panel's)."""
    return f"{key}-{kind}-text"


def keep_draft(key: str, kind: str, text: str) -> None:
    """Kept beyond the form: while the decision runs the panel is not drawn (Streamlit then forgets its widgets), and a
    refused edit comes back with the text as typed (in a callback: the field shows it when it is drawn next)."""
    st.session_state.setdefault("step_drafts", {})[draft_key(key, kind)] = text
    st.session_state[draft_key(key, kind)] = text


def _typed(on_decide: DecisionHandler, kind: str, key: str) -> None:
    text = st.session_state.get(draft_key(key, kind), "")
    keep_draft(key, kind, text)
    on_decide(Decision(kind, text=text))


def _draft(text_key: str, default: str) -> None:
    if text_key not in st.session_state:
        st.session_state[text_key] = st.session_state.get("step_drafts", {}).get(text_key, default)


def _regenerate(on_decide: DecisionHandler, key: str) -> None:
    k, temperature = st.session_state[f"{key}-k"], st.session_state[f"{key}-temperature"]
    on_decide(Decision("regenerate", k=int(k), temperature=float(temperature)))


def _render_offered(trace: Trace, position: int, *, key: str, on_decide: DecisionHandler | None) -> None:
    """The alternatives drawn for the step, side by side, each with its action and its own Model call section."""
    step = trace.steps[position]
    dialect = trace.settings.get("dialect", "paper")
    st.markdown("**Alternatives** — pick the one to go on with")
    for n, (column, alt) in enumerate(zip(st.columns(len(step.offered)), step.offered, strict=True), 1):
        with column:
            st.markdown(f"**Alternative {n}** · temperature {alt.temperature:g}")
            st.text(alt.thought or "(no thought)")
            st.code(_said(alt, dialect), language=None, wrap_lines=True)
            if on_decide is not None:
                st.button(f"Pick {n}", key=f"{key}-pick-{n}", on_click=on_decide, args=(Decision("pick", number=n),))
            _render_alternative_call(trace, position, alt, key=f"{key}-alt-{n}")


def _said(alt: Alternative, dialect: str) -> str:
    if alt.error:
        return f"(unreadable) {alt.error}"
    return Saying(alt, dialect).text


def _render_alternative_call(trace: Trace, position: int, alt: Alternative, *, key: str) -> None:
    """An alternative's Model call section, drawn as the step's own is: in the run as if it had been picked."""
    as_if = trace.as_if_picked(position, alt)
    render_call(as_if, position, CallTexts.of(as_if.steps)[position], key=key)


# -- what was decided ---------------------------------------------------------------------------------------------


def render_decisions(trace: Trace, position: int, *, key: str) -> None:
    """Every decision a person took on the step, with the alternatives drawn, each with its Model call."""
    step = trace.steps[position]
    dialect = trace.settings.get("dialect", "paper")
    for i, note in enumerate(step.interventions):
        where = Step.BREAKPOINTS.get(note.at, note.at)
        line = f"Decided by {note.by} ({where}): {note.kind}"
        if note.before != note.after:
            line += f" — was {_short(note.before)}, became {_short(note.after)}"
        st.caption(md_literal(line), help=None)
        for n, alt in enumerate(note.alternatives, 1):
            mark = " (picked)" if n == note.picked else " (not taken)"
            said = f"Alternative {n}{mark} at temperature {alt.temperature:g}: {_said(alt, dialect)}"
            with st.popover(md_literal(said), width="stretch"):
                _render_alternative_call(trace, position, alt, key=f"{key}-d{i}-{n}")


def _short(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
