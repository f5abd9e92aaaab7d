"""The Arena page: one question, 2 to 4 columns (strategy, prompt, provider, model, temperature), one Run; the columns
stream side by side like the chat, each with its own Stop, their steps lined up row by row with the first difference
marked, and each column's answer, badges, scores, steps, tokens and time below it. An arena saved earlier reopens here
from History. Rendering only: the verbs live in ui.arena.verbs, the drawing in ui.arena.view.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from react_core import Arena, ReactLabError, SideBySide
from ui.arena import verbs as arena
from ui.arena.live import column_traces, drawn, live_arena
from ui.arena.view import render_columns, render_download
from ui.shared import state
from ui.shared.text import md_literal


def draw(job, view, live=None) -> None:
    render_columns(
        column_traces(job, view),
        key="arena",
        results=view.results,
        writing=[column.writing for column in view.live],
        on_stop=arena.stop,
        stopping=view.stopping,
        live=live,
    )
    if job.crash:
        st.error(md_literal(job.crash), icon=":material/error:")


def reopened(arena_id: str) -> None:
    try:
        found = state.history_store().arena(arena_id)
    except ReactLabError as e:
        st.error(md_literal(str(e)))
        return
    if found is None:
        st.warning("This arena is no longer in your history.")
        return
    st.subheader(md_literal(found.question), anchor=False)
    st.caption(
        md_literal(
            f"Arena saved {found.saved_at.replace('T', ' ')} · runs " + ", ".join(f"#{r.id}" for r in found.runs)
        )
    )
    side = SideBySide.saved(found.runs, arena_id=found.id, saved_at=found.saved_at)
    render_download(side, key="arena-download")
    render_columns([r.trace for r in side.columns], key=f"arena-{arena_id}", results=side.columns)


st.header("Arena", anchor=False)
arena.init()
state.show_flash()
ss = st.session_state
job = ss.arena_job
running = job is not None and not job.done

if ss.arena_open and not running:
    st.button("Back to the arena", key="arena-close", icon=":material/arrow_back:", on_click=arena.close)
    reopened(ss.arena_open)
    st.stop()

st.caption(
    "One question, 2 to 4 variants side by side: a strategy (the paper's Standard, CoT, Act, ReAct), a prompt, a "
    "provider and model, a temperature. Each column is saved to History as a run of this arena."
)
st.text_area("Question", key=arena.QUESTION_KEY, height=80, on_change=arena.question_changed)
st.text_input(
    "Gold answer (optional)",
    key=arena.GOLD_KEY,
    help="Scores each column: EM and F1. Filled in for a known HotpotQA question (the offline pack's or the shared "
    "data's), as the chat finds its expected answer.",
)
with st.expander("Columns", expanded=not running and job is None):
    if running:
        # Not drawn while the arena runs: each of the page's reruns (one per step done, one per column ended) would
        # redraw some 30 editors in the browser, on the cores the on-device model computes on. Their values are kept
        # (``arena.remember``) and the editors come back with them when the arena ends.
        st.caption("The columns can be changed when the arena has ended; each column's header says what it runs.")
    else:
        a, b, c = st.columns(3)
        a.button(
            "Figure 1",
            key="arena-figure-one",
            icon=":material/view_week:",
            on_click=arena.figure_one,
            help="Standard, CoT, Act and ReAct with the paper's prompts, on the first column's model, greedy, Act and "
            "ReAct with the paper's 7 model calls (change them in their columns).",
        )
        a.button(
            "Base vs fine-tuned",
            key="arena-base-tuned",
            icon=":material/compare:",
            on_click=arena.base_and_fine_tuned,
            help="ReAct on the on-device model twice: the base model with the paper's 6-shot prompt, and with the "
            "shipped adapter and the zero-shot prompt it learned (the paper's Figure 3, on one question).",
        )
        b.button(
            "Add a column",
            key="arena-add",
            icon=":material/add:",
            on_click=arena.add_column,
            disabled=ss[arena.COUNT_KEY] >= Arena.MAX_COLUMNS,
        )
        c.button(
            "Remove the last column",
            key="arena-remove",
            icon=":material/remove:",
            on_click=arena.remove_column,
            disabled=ss[arena.COUNT_KEY] <= Arena.MIN_COLUMNS,
        )
        for i, col in enumerate(st.columns(ss[arena.COUNT_KEY])):
            with col:
                st.markdown(f"**Column {i + 1}**")
                arena.render_editor(i)
arena.remember([arena.QUESTION_KEY, arena.GOLD_KEY, *([] if running else arena.editor_keys())])
st.button("Run", key="arena-run", type="primary", icon=":material/play_arrow:", on_click=arena.run, disabled=running)

if running:
    view = job.view()
    draw(job, view, partial(st.fragment(live_arena, run_every=arena.refresh_seconds(job)), drawn(view)))
elif job is not None:
    st.subheader(md_literal(job.question), anchor=False)
    view = job.view()
    draw(job, view)
    finished = [r for r in view.results if r is not None]
    clear, download = st.columns(2)
    clear.button("Clear", key="arena-clear", icon=":material/close:", on_click=arena.close)
    if finished:
        with download:
            render_download(SideBySide(finished, arena_id=job.arena.id), key="arena-download")
