"""The one side-by-side view: 2 to 4 runs as columns, their steps lined up row by row, the first row where their
actions differ marked, and a footer per column (answer, grounding and expected-answer badges, EM and F1 when a gold
answer is known, steps, tokens, time). The Arena page draws a running or reopened arena with it, History's Compare
draws the runs a person picked with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from react_core import (
    Arena,
    CallTexts,
    ColumnResult,
    Parting,
    SideBySide,
    Trace,
    Variant,
    Writing,
)
from ui.shared.render import render_answer, render_status, render_step, render_writing
from ui.shared.text import md_literal


def render_footer(result: ColumnResult) -> None:
    render_answer(result.trace, narrow=True)
    st.caption(md_literal(result.figures()))
    if result.history_id is not None:
        st.caption(f"Saved to History as run #{result.history_id}")
    if result.save_error:
        st.warning(md_literal(result.save_error), icon=":material/warning:")


def render_download(side: SideBySide, *, key: str) -> None:
    """Download HTML: the whole arena as one self-contained file (``SideBySide.to_html``). Built when it is clicked, on
    Streamlit's download thread, so a list of arenas costs nothing until one is taken away."""
    st.download_button(
        "Download HTML",
        side.to_html,
        side.file_name(),
        "text/html",
        key=key,
        icon=":material/download:",
        on_click="ignore",
        help="The whole arena as one HTML file that opens offline: every column's steps, sources and model calls.",
    )


def render_writing_row(traces: Sequence[Trace], writing: Sequence[Writing | None]) -> None:
    """The steps the columns' models are writing, side by side."""
    if any(w is not None for w in writing):
        for i, col in enumerate(st.columns(len(traces))):
            w = writing[i]
            if w is not None:
                with col:
                    render_writing(w, str(traces[i].settings.get("dialect", "paper")))


def render_columns(
    traces: Sequence[Trace],
    *,
    key: str,
    results: Sequence[ColumnResult | None] = (),
    writing: Sequence[Writing | None] = (),
    on_stop: Callable[[int], None] | None = None,
    stopping: Sequence[bool] = (),
    live: Callable[[], None] | None = None,
) -> None:
    """Runs side by side. While an arena runs, ``results`` is None for a column still going, ``writing`` its step being
    written and ``on_stop`` its Stop; the first difference is then sought only in the rows every column has reached.
    ``live`` draws the steps being written instead (the running arena's fragment, redrawn on its timer)."""
    n = len(traces)
    results = list(results) or [None] * n
    writing = list(writing) or [None] * n
    stopping = list(stopping) or [False] * n
    running = [r is None for r in results]
    for i, col in enumerate(st.columns(n)):
        with col:
            st.markdown(f"**{i + 1}. {md_literal(Variant.label(traces[i].settings))}**")
            if running[i]:
                if on_stop is not None:
                    st.button(
                        "Stopping…" if stopping[i] else "Stop",
                        key=f"{key}-stop-{i}",
                        icon=":material/stop_circle:",
                        on_click=on_stop,
                        args=(i,),
                        disabled=stopping[i],
                    )
            else:
                render_status(traces[i], key=f"{key}-{i}-status")
    steps = [t.steps for t in traces]
    if any(running):
        reached = min(len(s) for s in steps)
        steps = [s[:reached] for s in steps]
    edits = [r.edits if r is not None else [] for r in results]
    parting = Parting.first(steps, edits)
    names = [
        f"#{r.history_id}" if r is not None and r.history_id is not None else f"column {i + 1}"
        for i, r in enumerate(results)
    ]
    rebuilt = [CallTexts.of(t.steps) for t in traces]
    edited: list[dict[int, list]] = [{} for _ in traces]
    for i, found in enumerate(edits):
        for e in found:
            edited[i].setdefault(e.index, []).append(e)
    for k, row in enumerate(Arena.line_up([t.steps for t in traces])):
        # An edit is read in the step: the row where one parts the columns opens in every column, the edited part
        # beside what the others recorded there, each panel under a line saying which it is (so the row stays level).
        at_edit = parting is not None and k == parting.row and bool(parting.edits)
        if parting is not None and k == parting.row:
            st.markdown(f":orange[**▼ {md_literal(parting.said(names))}**]")
        for i, col in enumerate(st.columns(n)):
            with col:
                if row[i] is not None:
                    made = edited[i].get(row[i].index, [])
                    for edit in made:  # on the step itself, where it was made
                        st.caption(md_literal(f"✎ {edit.part.capitalize()} {edit.how}"))
                    if at_edit and not made:
                        parts = dict.fromkeys(e.part for _, e in parting.edits)
                        st.caption(md_literal(" and ".join(parts).capitalize() + " as this run recorded it"))
                    render_step(
                        traces[i], k, rebuilt[i][k], key=f"{key}-{i}-s{k + 1}", open_errors=False, expanded=at_edit
                    )
                elif not running[i]:
                    st.caption(f"Step {k + 1}: —")
    if live is not None:
        live()
    else:
        render_writing_row(traces, writing)
    if parting is None and not any(running) and n > 1 and any(steps):
        st.caption(Parting.SAME_ACTIONS)
    for i, col in enumerate(st.columns(n)):
        with col:
            if results[i] is not None:
                render_footer(results[i])
            elif stopping[i]:
                st.caption("Stopping…")
            else:
                st.caption("Running…")
