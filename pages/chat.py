"""The Chat page: the conversation with a step panel per step, the live turn, Stop, Retry and the chat input.

A turn runs in a background job (ui.chat.job); while it runs, the page draws its finished steps once and a fragment
redraws only its header and the step being written a few times a second, so the thought streams in, the rest of the
page stays usable and the on-device model keeps the cores. Rendering only: the verbs live in ui.chat.turns.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from react_core import DIALECTS
from ui.chat import chat_box, run_settings, turns
from ui.chat.examples import chat_examples
from ui.chat.job import Turn, TurnJob
from ui.chat.live import has_text, live_turn, refresh_seconds
from ui.history.view import RUN_PARAM
from ui.shared import state
from ui.shared.render import render_answer, render_status, render_steps
from ui.shared.step_mode import render_switch
from ui.shared.text import md_literal


def render_turn(turn: Turn, live: Callable[[DeltaGenerator], None] | None = None) -> None:
    """A turn of the conversation, running or finished: the one drawing of a turn, so a finished run looks as it did
    while it ran, with its buttons, answer and History link added. A running turn's finished steps are drawn here,
    once; ``live`` draws the rest (its header, into the container it is handed, and the step being written)."""
    trace = turn.trace
    with st.chat_message("user"):
        st.text(turn.question)
    with st.chat_message("assistant"):
        if turn.label:
            st.caption(md_literal(turn.label))
        header = st.container() if live is not None else None
        if header is None:
            render_status(trace, key=f"{turn.key}-status")
        render_steps(
            trace,
            key=turn.key,
            on_similar=None if turn.running else partial(turns.ask_similar, turn.id),
            on_decide=None if turn.running else partial(turns.decide, turn.id),
        )
        if header is not None:
            live(header)
            return
        render_answer(trace)
        if trace.stop_reason == "error":
            render_retry(turn)
        if turn.history_id:
            st.page_link(
                "pages/history.py",
                label=f"Saved to History as run #{turn.history_id}",
                icon=":material/history:",
                query_params={RUN_PARAM: str(turn.history_id)},
            )


def render_retry(turn: Turn) -> None:
    """Retry goes on with the run's own settings; when the session's differ (a model changed since the failure), a
    second button goes on with them, or says why it cannot (another dialect would retitle the steps)."""
    own, mine = run_settings.of_run(turn.trace), run_settings.current()
    changed = run_settings.differences(own, mine)
    left, right = st.columns(2)
    left.button(
        "Retry",
        key=f"retry-{turn.id}",
        icon=":material/refresh:",
        on_click=turns.retry,
        args=(turn.id,),
        help="Go on from where it stopped, with this run's own settings.",
    )
    if changed:
        clash = run_settings.dialect_clash(own, mine)
        right.button(
            "Retry with my current settings",
            key=f"retry-current-{turn.id}",
            icon=":material/tune:",
            on_click=turns.retry,
            args=(turn.id, True),
            disabled=bool(clash),
            help=clash or f"Go on from where it stopped, with your settings: {', '.join(changed)} differ.",
        )


def render_controls(job: TurnJob) -> None:
    """Stop ends the run for good; Pause here leaves it waiting at the step being written, to decide on and resume."""
    row = st.container(horizontal=True)
    row.button(
        "Stop",
        key="stop",
        icon=":material/stop_circle:",
        on_click=turns.stop,
        disabled=job.cancelling,
        help="End the run for good: what the model has written so far is kept, but a stopped run cannot be resumed. "
        "To decide at this step and go on, use Pause here.",
    )
    refused = pause_refused(job.request.dialect)
    row.button(
        "Pause here",
        key="pause-here",
        icon=":material/pause_circle:",
        on_click=turns.pause_here,
        disabled=job.cancelling or job.pausing or bool(refused),
        help=refused
        or "Stop at the step the model is writing, before its action runs: the run waits for you as in step mode "
        "(Run, edit the action, write the observation) and can be resumed.",
    )


def pause_refused(dialect: str) -> str:
    """Why Pause here cannot be taken in this dialect ('' when it can)."""
    if dialect in DIALECTS and DIALECTS[dialect].native_tools:
        return "The tools dialect's replies may hold several calls at once: Pause here works in the text dialects."
    return ""


st.header("Chat", anchor=False)
render_switch()
chat = st.session_state.chat
job = st.session_state.job
if not chat["turns"] and job is None:
    st.caption("Ask a question. Each step of the agent (Thought → Action → Observation) gets its own panel.")
    examples, knowledge_note = chat_examples(state.settings(), chat["id"])
    if knowledge_note:
        st.info(md_literal(knowledge_note), icon=":material/cloud_off:")
    for i, example in enumerate(examples):
        st.button(example, key=f"example-{i}", icon=":material/lightbulb:", on_click=turns.ask, args=(example,))

for turn in chat["turns"]:
    if job is not None and job.request.replaces_turn == turn.id:
        continue  # being retried: the live turn shows its steps
    render_turn(turn)

if job is not None:
    running = job.view()
    waiting = not has_text(running)
    live = st.fragment(live_turn, run_every=refresh_seconds(job, waiting))
    render_turn(running, partial(live, drawn=len(running.trace.steps), waiting_for_text=waiting))
    render_controls(job)

state.show_flash()
chat_box.render()
