"""The History page's parts: the run list with search and a prompt-version filter, one open run (panels, export,
delete, fork, use as example; a paused run's Resume opens it in Chat), the conversations (reopened in Chat), the arenas
(reopened on the Arena page), Compare (the arena's view of 2 to 4 runs) and Import. Everything is read from the history
store on each render, so every browser session sees the same history.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from react_core import (
    Arena,
    ReactLabError,
    RunExport,
    RunRecord,
    SideBySide,
    Store,
    plural,
)
from ui.arena import verbs as arena
from ui.arena.view import render_columns, render_download
from ui.chat.fork_form import render_fork
from ui.chat.job import Turn
from ui.evaluate import question_sets
from ui.history.example_offer import render_offer
from ui.settings.sample_scripts import render_save_as_script
from ui.shared import identity, state, turn_labels
from ui.shared.render import render_trace
from ui.shared.share_view import render_share_controls
from ui.shared.text import md_literal

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


def _resume(record: RunRecord) -> None:
    """Open a paused run in Chat, where its step waits for the person's decision: in its own conversation, or on
    its own when it has none. Then switch to Chat (a button's return value: a page cannot switch in a callback)."""
    if record.conversation:
        if state.open_conversation(record.conversation):
            st.switch_page("pages/chat.py")
        return
    if state.running():
        state.flash("warning", "A question is still being answered in Chat: wait for its answer, or press Stop there.")
        return
    chat = state.new_chat()
    label = turn_labels.of_saved(record.origin, record.parent_id, record.fork_step, record.trace)
    chat["turns"].append(Turn(state.next_turn_id(), record.trace, record.id, record.origin, label, record.revision))
    st.session_state.chat = chat
    st.switch_page("pages/chat.py")


def _short(text: str | None, limit: int = 90) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _record_line(r: RunRecord) -> str:
    answer = f"→ {_short(r.final_answer, 50)}" if r.final_answer is not None else f"({r.stop_reason})"
    return f"#{r.id} · {_short(r.question, 70)} {answer}"


ANY_VERSION = None  # the version filter's "every run"
META = 170  # pixels for a list row's details beside its text


def _row() -> tuple[DeltaGenerator, DeltaGenerator]:
    """A list row and the column of its text. Details and buttons follow the text at their own width and wrap under it
    on a narrow screen (a projector's 1024 pixels beside the sidebar) instead of cutting their labels, as fixed columns
    did ("Res…", "Do…")."""
    row = st.container(horizontal=True, vertical_alignment="center")
    return row, row.container(width="stretch")


def render_list(store: Store) -> None:
    search_col, version_col = st.columns([0.7, 0.3])
    query = search_col.text_input(
        "Search runs", key="history-query", placeholder="words in questions, thoughts, answers…"
    )
    used = store.run_versions()
    choices = {
        ANY_VERSION: "every prompt",
        **{v: f"{v} ({plural(n, 'run')})" for v, n in used.items()},
        "": "no saved version",
    }
    version = version_col.selectbox(
        "Prompt version",
        list(choices),
        key="history-version",
        format_func=choices.get,
        help="The prompt version each run used (name@number); runs of unsaved edits and older runs have none.",
    )
    records = store.list(query, limit=LIST_LIMIT + 1, version=version)
    if not records:
        st.info("No runs match." if query else "No runs yet: ask something in Chat.")
        return
    for r in records[:LIST_LIMIT]:
        row, text = _row()
        text.markdown(f"**#{r.id}** · " + md_literal(_short(r.question)))
        answer = md_literal(_short(r.final_answer, 60)) if r.final_answer is not None else "—"
        text.caption(f"{answer} · {md_literal(r.provider)} · {md_literal(r.created_at.replace('T', ' ')[:16])}")
        fork = " · fork" if r.parent_id else " · arena" if r.from_arena else ""
        figures = f"{plural(r.steps, 'step')} · {plural(r.tokens, 'token')}{fork}"
        row.caption(md_literal(f"{r.ended} · {figures}"), width=META)
        row.button("Open", key=f"open-{r.id}", on_click=_open, args=(r.id,))
        if r.stop_reason == "paused" and row.button("Resume", key=f"resume-{r.id}", icon=":material/play_arrow:"):
            full = store.get(r.id)
            if full is not None and not full.damaged:
                _resume(full)
    if len(records) > LIST_LIMIT:
        st.caption(f"Showing the newest {LIST_LIMIT}; search to narrow down.")


def render_open(store: Store, record: RunRecord) -> None:
    st.button("Back to the list", key="close-run", icon=":material/arrow_back:", on_click=_open, args=(None,))
    st.subheader(f"Run #{record.id}: {md_literal(_short(record.question, 120))}", anchor=False)
    origin = f"{record.origin}" + (
        f" of run #{record.parent_id} at step {record.fork_step}" if record.parent_id else ""
    )
    st.caption(md_literal(f"Saved {record.created_at.replace('T', ' ')} · {origin}"))
    if record.trace is not None and record.trace.imported_from is not None:
        st.info(
            md_literal(
                f"Imported from {record.trace.imported_from.described}. It records none of this app's settings: its "
                "tools were that tool's own, and a fork runs with your current settings."
            ),
            icon=":material/input:",
        )
    if record.damaged:
        # A row edited by hand or damaged: shown as it can be read, never exported or forked as if it were whole.
        st.error(md_literal(f"This run is damaged and cannot be shown in full: {record.damaged}"))
        with st.popover("Delete…", icon=":material/delete:"):
            st.button(f"Delete run #{record.id} for good", key="delete-run", on_click=_delete, args=(store, record.id))
        return
    if record.stop_reason == "paused" and st.button(
        "Resume in Chat", key="resume-run", icon=":material/play_arrow:", help="Its paused step waits for you there."
    ):
        _resume(record)
    if record.prompt_version:
        st.caption(md_literal(f"Prompt version {record.prompt_version}"))
    export = RunExport(record.trace, record.id, record.conversation)
    # What can be taken away: one row of buttons as wide as their labels, wrapping rather than cutting one.
    take = st.container(horizontal=True, key="run-take")
    _download(take, "Export JSON", export, "json", key="export-json")
    _download(take, "Export Markdown", export, "markdown", key="export-md")
    _download(take, "Export HTML", export, "html", key="export-html")
    _download(
        take,
        "Export ATIF",
        export,
        "atif",
        key="export-atif",
        help="The run as an agent trajectory (ATIF v1.7), for Harbor, Phoenix and other tools that read the format.",
    )
    with take.popover("Export OpenTelemetry", icon=":material/share:"):
        _otel_export(export)
    with take.popover("Save as script", icon=":material/replay:"):
        render_save_as_script(record.trace, export.stem)
    act = st.container(horizontal=True, key="run-act")  # what can be done with it
    if act.button("Present", key="present-run", icon=":material/slideshow:", help="Play it back step by step"):
        st.switch_page("pages/present.py", query_params={"run": str(record.id), "step": "0"})
    with act.popover("Use as example…", icon=":material/library_add:"):
        render_offer(record)
    with act.popover("Add to a question set…", icon=":material/playlist_add:"):
        question_sets.render_add_run(store, record.id, record.question, record.trace.final_answer)
    if identity.mode() == identity.SIGNED_IN:  # a link for people without an account is for deployments with them
        with act:
            render_share_controls(store, record.id)
    with act.popover("Delete…", icon=":material/delete:"):
        st.button(f"Delete run #{record.id} for good", key="delete-run", on_click=_delete, args=(store, record.id))
    render_trace(record.trace, key=f"h{record.id}")
    render_fork(record.id, record.trace, imported=record.imported)


def _download(
    where: DeltaGenerator,
    label: str,
    export: RunExport,
    fmt: str,
    *,
    key: str,
    help: str | None = None,
    **options: bool,
) -> None:
    """One of the run's files (``RunExport.download``), taken away without a rerun."""
    file = export.download(fmt, **options)
    where.download_button(label, file.data, file.file_name, file.mime, key=key, on_click="ignore", help=help)


def _otel_export(export: RunExport) -> None:
    """The run as OpenTelemetry spans in OTLP/JSON, for Phoenix, Jaeger, Langfuse or a collector to read."""
    st.caption(
        "The run as OpenTelemetry spans (OTLP/JSON): one agent span, a span per model call and per action. "
        "Messages are left out unless you include them."
    )
    content = st.checkbox(
        "Include messages (question, prompts, replies, tool results)", key="otel-content", value=False
    )
    try:
        _download(st, "Export OpenTelemetry (OTLP/JSON)", export, "otlp", key="export-otel", include_content=content)
    except ReactLabError as e:
        st.error(md_literal(str(e)))


def _listed(load: Callable[..., list], empty: str) -> list:
    """What ``load`` lists (the newest LIST_LIMIT), or nothing once the page has said why: the store's error, or
    ``empty``."""
    try:
        found = load(limit=LIST_LIMIT)
    except ReactLabError as e:
        st.error(md_literal(str(e)))
        return []
    if not found:
        st.info(empty)
    return found


def render_conversations(store: Store) -> None:
    """Past conversations, the one continued last first; Open makes one the Chat page's, to read and continue."""
    found = _listed(store.conversations, "No conversations yet: ask something in Chat.")
    if not found:
        return
    st.caption("Open one to read it in Chat and ask a follow-up: it continues that conversation.")
    current = st.session_state.chat["id"]
    busy = state.running()
    if busy:
        st.caption("A question is being answered in Chat: other conversations open once it is done (or stopped).")
    for c in found:
        row, text = _row()
        text.markdown(md_literal(_short(c.question)))
        if c.last_answer is not None:
            last = f"Last answer: {_short(c.last_answer, 60)}"
        else:
            last = f"Last turn: {c.last_ended}"
        text.caption(md_literal(f"{last} · {c.last_at.replace('T', ' ')[:16]}"))
        row.caption(plural(c.turns, "turn") + (" · open in Chat" if c.id == current else ""), width=META)
        if row.button("Open", key=f"chat-open-{c.id}", icon=":material/chat:", disabled=busy and c.id != current):
            if state.open_conversation(c.id):
                st.switch_page("pages/chat.py")
            st.rerun()


def render_arenas(store: Store) -> None:
    """Arenas, the newest first, one entry each; Open shows its columns again on the Arena page."""
    found = _listed(store.arenas, "No arenas yet: run one on the Arena page.")
    if not found:
        return
    for a in found:
        row, text = _row()
        text.markdown(md_literal(_short(a.question)))
        answers = " | ".join(_short(r.final_answer, 30) if r.final_answer is not None else "—" for r in a.runs)
        text.caption(md_literal(f"{answers} · {a.saved_at.replace('T', ' ')[:16]}"))
        runs = f"{plural(len(a.runs), 'column')} · runs {', '.join(f'#{r.id}' for r in a.runs)}"
        row.caption(md_literal(runs), width=META)
        opened = row.button("Open", key=f"arena-open-{a.id}", icon=":material/view_week:")
        with row:
            side = SideBySide.saved(a.runs, arena_id=a.id, saved_at=a.saved_at)
            render_download(side, key=f"arena-download-{a.id}")
        if opened:
            arena.reopen(a.id)
            st.switch_page("pages/arena.py")


def render_compare(store: Store) -> None:
    """The arena's side-by-side view of 2 to 4 runs picked from History."""
    records = store.list(limit=200)
    if len(records) < Arena.MIN_COLUMNS:
        st.info("Compare needs two runs in the history.")
        return
    labels = {r.id: _record_line(r) for r in records}
    picked = st.multiselect(
        f"Runs to compare ({Arena.MIN_COLUMNS} to {Arena.MAX_COLUMNS})",
        list(labels),
        default=sorted(list(labels)[: Arena.MIN_COLUMNS]),
        max_selections=Arena.MAX_COLUMNS,
        key="cmp-runs",
        format_func=labels.get,
    )
    if len(picked) < Arena.MIN_COLUMNS:
        st.info(f"Pick {Arena.MIN_COLUMNS} to {Arena.MAX_COLUMNS} runs.")
        return
    found = [store.get(run_id) for run_id in picked]
    if any(r is None or r.trace is None for r in found):
        st.warning("One of these runs was deleted.")
        return
    traces = [r.trace for r in found]
    side = SideBySide.saved(found)
    results = side.columns
    keys = sorted({k for t in traces for k in t.settings} - {"arena", "arena_column"})
    rows = {k: [_setting(t.settings.get(k)) for t in traces] for k in keys}
    rows = {k: values for k, values in rows.items() if len(set(values)) > 1}
    if any(r.edits for r in results):  # an edit is a difference the settings do not show
        rows["edited by hand"] = ["; ".join(e.said() for e in r.edits) or "—" for r in results]
    if rows:
        table = ["| setting | " + " | ".join(f"#{r.id}" for r in found) + " |", "|---" * (len(found) + 1) + "|"]
        table += [f"| {k} | " + " | ".join(md_literal(v) for v in values) + " |" for k, values in rows.items()]
        st.markdown("\n".join(table))
    else:
        st.caption("These runs used the same settings.")
    render_download(side, key="cmp-download")
    render_columns(traces, key="cmp", results=results)


def _setting(value: object) -> str:
    return "—" if value is None else str(value)  # a run that did not record the setting


def render_import(store: Store) -> None:
    st.caption(
        "Import a trace exported as JSON from this app (or printed by `python -m react_core ask --json`), an ATIF "
        "trajectory (Agent Trajectory Interchange Format, v1.0 to v1.7: this app's own, or one written by Harbor's "
        "agents, OpenHands, NeMo and others), or an OpenTelemetry OTLP/JSON file: this app's own export, or an agent "
        "run from another tool that follows the GenAI conventions or OpenInference (smolagents, for one). Another "
        "tool's run is shown as far as its file allows, and can be forked and run again here."
    )
    upload = st.file_uploader("JSON trace, ATIF trajectory or OTLP/JSON file", type=["json"], key="import-file")
    if st.button("Import", key="import-run", icon=":material/upload:", disabled=upload is None):
        try:
            imported = store.import_json(upload.getvalue())
        except ReactLabError as e:
            st.error(md_literal(str(e)))
            return
        state.flash("info" if imported.existing else "success", imported.message)
        _open(imported.run_id)
        st.rerun()
