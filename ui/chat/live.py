"""The Chat page's running turn as it changes: its header and the step being written, redrawn on a timer by a
fragment. Its finished steps are not here: the page draws them once each (``pages/chat.py``, ``render_turn``).
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from react_core import PROVIDERS
from ui.chat.job import Turn, TurnJob
from ui.shared import live_refresh
from ui.shared.render import render_writing

# The running turn's header wears a still icon, not st.status's spinner: the spinner is a CSS animation the browser
# redraws at its frame rate for as long as the turn runs, most of what a watched page cost the on-device model's cores
# between redraws (docs/benchmarks.md, chat page); the label and the step being written show that it runs.
RUNNING_ICON = ":material/hourglass_top:"


def refresh_seconds(job: TurnJob, waiting_for_text: bool) -> float:
    """The running turn's redraw interval (ui/shared/live_refresh.py): quick until its first text is drawn, then
    slower when its model computes here (a full rerun sets it back once the first text is on the screen)."""
    return live_refresh.refresh_seconds([job.request.settings["provider"]], waiting_for_text=waiting_for_text)


def live_turn(header: DeltaGenerator, drawn: int, waiting_for_text: bool = False) -> None:
    """The running turn's header and the step being written, redrawn on a timer. Its ``drawn`` finished steps are the
    page's, drawn once (redrawing them a few times a second took the on-device model's cores: a watched turn took
    1.8x as long as an unwatched one); a full rerun draws each new one, once, and moves the turn into the
    conversation once it is done (and sets the timer back once its first text is drawn)."""
    job = st.session_state.job
    if job is None:
        return
    if job.done:
        st.rerun()
    turn = job.view()
    if len(turn.trace.steps) != drawn:
        st.rerun()
    header.expander(running_label(job, turn), icon=RUNNING_ICON, expanded=False)
    if turn.writing:
        render_writing(turn.writing, turn.trace.settings.get("dialect", "paper"))
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
        label = PROVIDERS[job.request.settings["provider"]].preparing or "Getting ready…"
    elif model is not None and model.state == "warming":
        label = "Waiting for the on-device model to finish reading the preset…"
    else:
        label = f"Thinking… step {step} of {job.max_index}"
    if model is not None and model.slow:  # say why it takes so long, instead of leaving it to wonder
        label += f" · the model is {model.describe()}"
    return label
