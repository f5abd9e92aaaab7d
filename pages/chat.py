"""The Chat page: the conversation with a step panel per step, the live turn, Stop, Retry and the chat input.

A turn runs in a background job (ui.chat.job); while it runs, a fragment redraws it a few times a second, so the
thought streams in and the rest of the page stays usable. Rendering only: the verbs live in ui.chat.turns.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from react_core import DIALECTS, provider_class
from ui.chat import chat_box, run_settings, turns
from ui.chat.examples import chat_examples
from ui.chat.job import Turn, TurnJob
from ui.history.view import RUN_PARAM
from ui.shared import state
from ui.shared.render import render_answer, render_status, render_steps, render_writing
from ui.shared.step_mode import render_switch
from ui.shared.text import md_literal

LIVE_REFRESH_SECONDS = 0.3
# Until a turn's first text is on the screen the fragment looks three times as often (the wait for the first thought
# is the one a person notices), then a full rerun sets it back: redrawing a growing turn so often would take CPU
# from the on-device model on a small machine.
FIRST_TEXT_REFRESH_SECONDS = 0.1


def render_turn(turn: Turn, running: str = "") -> None:
    """A turn of the conversation, running (``running``: what its header says meanwhile) or finished: the one drawing
    of a turn, so a finished run looks as it did while it ran, with its buttons, answer and History link added."""
    trace = turn.trace
    with st.chat_message("user"):
        st.text(turn.question)
    with st.chat_message("assistant"):
        if turn.label:
            st.caption(md_literal(turn.label))
        if running:
            st.status(running, state="running", expanded=False)
        else:
            render_status(trace)
        render_steps(
            trace,
            key=turn.key,
            on_similar=None if turn.running else partial(turns.ask_similar, turn.id),
            on_decide=None if turn.running else partial(turns.decide, turn.id),
        )
        if turn.writing:
            render_writing(turn.writing, trace.settings.get("dialect", "paper"))
        if turn.running:
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


def live_turn(waiting_for_text: bool = False) -> None:
    """The running turn, redrawn on a timer; a full rerun once it is done moves it into the conversation (and once
    its first text is drawn, when the timer was the quicker one for the wait before it)."""
    job = st.session_state.job
    if job is None:
        return
    if job.done:
        st.rerun()
    turn = job.view()
    render_turn(turn, running_label(job, turn))
    if waiting_for_text and has_text(turn):
        st.rerun()


def has_text(turn: Turn) -> bool:
    return bool(turn.writing or turn.trace.steps)


def running_label(job: TurnJob, turn: Turn) -> str:
    """What a running turn's header says: the step it is on, or what it waits for."""
    step = turn.writing.index if turn.writing else len(turn.trace.steps) + 1
    model = job.model_status()
    if job.cancelling:
        label = "Stopping…"
    elif job.pausing:
        label = f"Pausing once step {step} is written…"
    elif job.preparing:
        label = provider_class(job.request.settings["provider"]).preparing or "Getting ready…"
    elif model is not None and model.state == "warming":
        label = "Waiting for the on-device model to finish reading the preset…"
    else:
        label = f"Thinking… step {step} of {job.max_index}"
    if model is not None and model.slow:  # say why it takes so long, instead of leaving it to wonder
        label += f" · the model is {model.describe()}"
    return label


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
    waiting = not has_text(job.view())
    st.fragment(live_turn, run_every=FIRST_TEXT_REFRESH_SECONDS if waiting else LIVE_REFRESH_SECONDS)(waiting)
    render_controls(job)

state.show_flash()
chat_box.render()
