"""The History page's parts: the run list with search, one open run (panels, export, delete, fork), the conversations
(reopened in Chat), Compare and Import. Everything is read from the history store on each render, so every browser
session sees the same history. Depends on streamlit, the engine's history/export modules, ui.render and ui.fork_form.
"""

from __future__ import annotations

import streamlit as st

from react_core import (
    STOP_REASONS,
    ReactLabError,
    RunRecord,
    Store,
    call_records,
    file_stem,
    plural,
    to_json,
    to_markdown,
)
from ui import question_sets, state
from ui.fork_form import render_fork
from ui.render import render_answer, render_status, render_step, render_trace
from ui.text import md_literal

LIST_LIMIT = 50
RUN_PARAM = "run"  # /history?run=N opens run N (of this person's)


def _open(run_id: int | None) -> None:
    st.session_state.history_open = run_id


def _delete(store: Store, run_id: int) -> None:
    try:
        store.delete(run_id)
    except ReactLabError as e:
        state.flash("error", str(e))
        return
    st.session_state.history_open = None
    state.flash("success", f"Deleted run #{run_id}.")


def _short(text: str | None, limit: int = 90) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _record_line(r: RunRecord) -> str:
    answer = f"→ {_short(r.final_answer, 50)}" if r.final_answer is not None else f"({r.stop_reason})"
    return f"#{r.id} · {_short(r.question, 70)} {answer}"


def render_list(store: Store) -> None:
    query = st.text_input("Search runs", key="history-query", placeholder="words in questions, thoughts, answers…")
    records = store.list(query, limit=LIST_LIMIT + 1)
    if not records:
        st.info("No runs match." if query else "No runs yet: ask something in Chat.")
        return
    for r in records[:LIST_LIMIT]:
        num, text, meta, action = st.columns([0.07, 0.6, 0.2, 0.13], vertical_alignment="center")
        num.markdown(f"**#{r.id}**")
        text.markdown(md_literal(_short(r.question)))
        answer = md_literal(_short(r.final_answer, 60)) if r.final_answer is not None else "—"
        text.caption(f"{answer} · {md_literal(r.provider)} · {md_literal(r.created_at.replace('T', ' ')[:16])}")
        ended = STOP_REASONS.get(r.stop_reason or "", "Unfinished")
        fork = " · fork" if r.parent_id else ""
        meta.caption(md_literal(f"{ended} · {plural(r.steps, 'step')} · {plural(r.tokens, 'token')}{fork}"))
        action.button("Open", key=f"open-{r.id}", on_click=_open, args=(r.id,))
    if len(records) > LIST_LIMIT:
        st.caption(f"Showing the newest {LIST_LIMIT}; search to narrow down.")


def render_open(store: Store, record: RunRecord) -> None:
    st.button("Back to the list", key="close-run", icon=":material/arrow_back:", on_click=_open, args=(None,))
    st.subheader(f"Run #{record.id}: {md_literal(_short(record.question, 120))}", anchor=False)
    origin = f"{record.origin}" + (
        f" of run #{record.parent_id} at step {record.fork_step}" if record.parent_id else ""
    )
    st.caption(md_literal(f"Saved {record.created_at.replace('T', ' ')} · {origin}"))
    if record.damaged:
        # A row edited by hand or damaged: shown as it can be read, never exported or forked as if it were whole.
        st.error(md_literal(f"This run is damaged and cannot be shown in full: {record.damaged}"))
        with st.popover("Delete…", icon=":material/delete:"):
            st.button(f"Delete run #{record.id} for good", key="delete-run", on_click=_delete, args=(store, record.id))
        return
    stem = file_stem(record.trace, record.id)
    a, b, c, d = st.columns(4)
    a.download_button(
        "Export JSON", to_json(record.trace), f"{stem}.json", "application/json", key="export-json", on_click="ignore"
    )
    b.download_button(
        "Export Markdown", to_markdown(record.trace), f"{stem}.md", "text/markdown", key="export-md", on_click="ignore"
    )
    with c.popover("Delete…", icon=":material/delete:"):
        st.button(f"Delete run #{record.id} for good", key="delete-run", on_click=_delete, args=(store, record.id))
    with d.popover("Add to a question set…", icon=":material/playlist_add:"):
        question_sets.render_add_run(store, record.id, record.question, record.trace.final_answer)
    render_trace(record.trace, key=f"h{record.id}")
    render_fork(record.id, record.trace)


def render_conversations(store: Store) -> None:
    """Past conversations, the one continued last first; Open makes one the Chat page's, to read and continue."""
    try:
        found = store.conversations(limit=LIST_LIMIT)
    except ReactLabError as e:
        st.error(md_literal(str(e)))
        return
    if not found:
        st.info("No conversations yet: ask something in Chat.")
        return
    st.caption("Open one to read it in Chat and ask a follow-up: it continues that conversation.")
    current = st.session_state.chat["id"]
    busy = state.running()
    if busy:
        st.caption("A question is being answered in Chat: other conversations open once it is done (or stopped).")
    for c in found:
        text, meta, action = st.columns([0.67, 0.2, 0.13], vertical_alignment="center")
        text.markdown(md_literal(_short(c.question)))
        if c.last_answer is not None:
            last = f"Last answer: {_short(c.last_answer, 60)}"
        else:
            last = f"Last turn: {STOP_REASONS.get(c.last_stop_reason or '', 'Unfinished')}"
        text.caption(md_literal(f"{last} · {c.last_at.replace('T', ' ')[:16]}"))
        meta.caption(plural(c.turns, "turn") + (" · open in Chat" if c.id == current else ""))
        if action.button("Open", key=f"chat-open-{c.id}", icon=":material/chat:", disabled=busy and c.id != current):
            if state.open_conversation(c.id):
                st.switch_page("pages/chat.py")
            st.rerun()


def render_compare(store: Store) -> None:
    records = store.list(limit=200)
    if len(records) < 2:
        st.info("Compare needs two runs in the history.")
        return
    labels = {r.id: _record_line(r) for r in records}
    ids = list(labels)
    pick_l, pick_r = st.columns(2)
    left_id = pick_l.selectbox("Left run", ids, index=1, key="cmp-left", format_func=labels.get)
    right_id = pick_r.selectbox("Right run", ids, index=0, key="cmp-right", format_func=labels.get)
    left, right = store.get(left_id), store.get(right_id)
    if left is None or right is None or left.trace is None or right.trace is None:
        st.warning("One of these runs was deleted.")
        return
    lt, rt = left.trace, right.trace
    diff = [k for k in sorted(set(lt.settings) | set(rt.settings)) if lt.settings.get(k) != rt.settings.get(k)]
    if diff:
        rows = ["| setting | left | right |", "|---|---|---|"]
        rows += [
            f"| {k} | {md_literal(str(lt.settings.get(k)))} | {md_literal(str(rt.settings.get(k)))} |" for k in diff
        ]
        st.markdown("\n".join(rows))
    else:
        st.caption("Both runs used the same settings.")
    for col, trace in zip(st.columns(2), (lt, rt), strict=True):
        with col:
            st.markdown(f"**{md_literal(_short(trace.question, 120))}**")
            render_status(trace)
            render_answer(trace)
    sides = []
    for trace in (left.trace, right.trace):
        positions = {s.index: i for i, s in enumerate(trace.steps)}
        sides.append((trace, positions, call_records.texts(trace.steps)))
    for index in sorted(set(sides[0][1]) | set(sides[1][1])):
        for col, (trace, positions, rebuilt), side in zip(st.columns(2), sides, "lr", strict=True):
            with col:
                if index in positions:
                    i = positions[index]
                    render_step(trace, i, rebuilt[i], key=f"cmp-{side}-{index}")
                else:
                    st.caption(f"Step {index}: —")


def render_import(store: Store) -> None:
    st.caption("Import a trace exported as JSON from this app (or printed by `python -m react_core ask --json`).")
    upload = st.file_uploader("JSON trace", type=["json"], key="import-file")
    if st.button("Import", key="import-run", icon=":material/upload:", disabled=upload is None):
        try:
            imported = store.import_json(upload.getvalue())
        except ReactLabError as e:
            st.error(md_literal(str(e)))
            return
        state.flash("info" if imported.existing else "success", imported.message)
        _open(imported.run_id)
        st.rerun()
