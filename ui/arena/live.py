"""The Arena page's running columns as they change: the steps being written, redrawn on a timer by a fragment. The rest
(the columns' headers with their Stop, the rows of finished steps, the footers) is the page's, drawn once each time it
changes: a full rerun when a column finishes a step or ends.
"""

from __future__ import annotations

import streamlit as st

from react_core import Trace
from ui.arena.job import ArenaJob, ArenaView
from ui.arena.view import render_writing_row


def column_traces(job: ArenaJob, view: ArenaView) -> list[Trace]:
    """Each column's run as it stands: its trace once it has ended, else the steps done so far."""
    return [
        live.trace or Trace(job.question, settings={**spec.settings, "strategy": spec.strategy}, steps=live.steps)
        for spec, live in zip(job.columns, view.live, strict=True)
    ]


def drawn(view: ArenaView) -> tuple:
    """What the page's full run drew of a running arena, in short: the steps done, the columns ended or stopping."""
    return (
        tuple(len(live.steps) for live in view.live),
        tuple(r is not None for r in view.results),
        tuple(view.stopping),
    )


def live_arena(seen: tuple) -> None:
    """The steps being written, redrawn on a timer; a full rerun draws what else changed since ``seen`` (a step done,
    a column ended), once (redrawing every column's steps once a second made a watched Figure 1 take 1.3x as long as
    an unwatched one), and the arena's end."""
    job = st.session_state.arena_job
    if job is None:
        return
    view = job.view()
    if view.done or drawn(view) != seen:
        st.rerun()
    render_writing_row(column_traces(job, view), [live.writing for live in view.live])
