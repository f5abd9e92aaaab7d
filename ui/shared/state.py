"""Every piece of session state, created in one function, and the settings helpers the pages share.

Session state holds ``settings`` (RunSettings.to_dict, a plain dict, never a key), ``api_key`` (its own slot, session
only, never saved), ``prompt`` (the applied edited ``Preset``, or None for the named preset unchanged), ``chat``
(this browser session's conversation: its id and its ``Turn`` objects, each holding its ``Trace``), ``job`` (the
turn running in the background, or None), ``provider_slot`` (the session's provider, reused across turns so a script
can drive a conversation), ``flash`` (messages shown once), ``settings_lock`` (orders a session's settings changes:
``change_settings``). Widget keys vanish when their page is left, so pages copy widget values into these slots in
callbacks.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from react_core import (
    PROVIDERS,
    ModelChoice,
    ReactLabError,
    RunSettings,
    Store,
    open_history,
)
from ui.chat import job_registry as registry
from ui.chat.job import Turn
from ui.shared import identity, turn_labels

MAX_QUESTION_CHARS = 10_000
CHAT_PARAM = "chat"  # the URL query parameter holding this conversation's id
_CHAT_ID = re.compile(r"[0-9a-f]{32}")


def choose_provider() -> None:
    """The Settings page's provider changed: the connection starts afresh from what the environment gives the new
    provider (``ModelChoice.changes``), and the key typed for the old one is forgotten, so neither a Base URL, a
    model nor a key typed for one provider goes to another."""
    ss = st.session_state
    chosen = ss["set-provider"]
    if chosen == settings()["provider"]:
        return
    change_settings(lambda: ModelChoice(chosen).changes(settings()))
    ss.api_key = ""
    for field in ("model", "base_url", "model_path", "script", "api-key"):
        ss.pop(f"set-{field}", None)  # each widget shows the new provider's value when it is drawn next


def history_store() -> Store:
    """This session's history: its owner's runs, in SQLite (REACT_HISTORY_DB) or PostgreSQL (REACT_HISTORY_URL), read
    each time so that a test or a deployment can point elsewhere."""
    return open_history(identity.owner())


def init_state() -> None:
    """Create every session-state slot this app uses, once per browser session."""
    ss = st.session_state
    ss.setdefault("session_id", uuid.uuid4().hex)
    ss.setdefault("flash", [])
    if "settings" not in ss:
        store = history_store()
        status = store.status()
        if not status.writable:
            # The app works without history; the person learns once what is wrong and what to do.
            ss.flash.append(("warning", f"History: {status.reason}"))
        remembered = None
        if status.readable:
            try:
                remembered = store.last_settings()
            except ReactLabError as e:
                ss.flash.append(("warning", str(e)))
        ss.settings = RunSettings.starting(remembered).to_dict()  # then what the environment pins
    ss.setdefault("settings_lock", threading.RLock())
    ss.setdefault("api_key", "")
    ss.setdefault("prompt", None)
    ss.setdefault("draft", None)
    ss.setdefault("job", None)
    ss.setdefault("held", None)  # text typed in the chat box while the run above waited (ui.chat.chat_box)
    ss.setdefault("next_turn_id", 1)
    if "chat" not in ss:
        ss.chat = load_conversation(st.query_params.get(CHAT_PARAM)) or new_chat()
    ss.setdefault("provider_slot", {"signature": None, "provider": None})
    ss.setdefault("history_open", None)
    ss.setdefault("warm", None)  # the on-device warm-up of the prompt in use (ui.chat.warmup), and what it warmed
    ss.setdefault("warm_key", None)
    ss.setdefault("eval_job", None)  # the Evaluate page's background evaluation (ui.evaluate.job.EvalJob)
    ss.setdefault("boot_job", None)  # the Evaluate page's background bootstrap (ui.evaluate.bootstrap_job.BootstrapJob)
    ss.setdefault("eval_open", None)  # the results folder the Evaluate page shows (a running or past evaluation)
    ss.setdefault("arena_job", None)  # the Arena page's running or last arena (ui.arena.job.ArenaJob)
    ss.setdefault("arena_open", None)  # the id of a saved arena the Arena page shows (reopened from History)
    ss.setdefault("arena_form", {})  # the Arena page's question and columns, kept while another page is shown
    ss.setdefault("arena_form_runs", {})  # the full run that last drew each of them (ui.arena.verbs.init says why)
    # This session's full runs (a fragment's redraw is not one): "was it drawn in the last run?" is answered by it.
    ss.full_runs = ss.get("full_runs", 0) + 1


def new_chat() -> dict[str, Any]:
    chat = {"id": uuid.uuid4().hex, "turns": []}
    st.query_params[CHAT_PARAM] = chat["id"]  # a reload of this page comes back to this conversation
    return chat


RESTORING = "Restoring your conversation…"


def restoring_notice() -> DeltaGenerator | None:
    """Say that the conversation the address names is being restored, when a new browser session (a reload) is about
    to read it: until the page is drawn (which the caller then empties this for), a slow first render showed only an
    empty chat, as if the conversation were gone. None when there is nothing to restore."""
    if "chat" in st.session_state or not _CHAT_ID.fullmatch(st.query_params.get(CHAT_PARAM, "")):
        return None
    notice = st.empty()
    notice.info(RESTORING, icon=":material/history:")
    return notice


def keep_chat_in_url() -> None:
    """Put this session's conversation in the address on every page, on every render.

    Streamlit's frontend keeps only the query parameters bound to widgets when the sidebar (st.navigation) changes
    page, and ``st.switch_page`` without ``query_params`` clears them all: the ``?chat=`` that ``new_chat`` set is
    gone after any page change, and a reload then started an empty chat. Setting it again on every page (only when it
    is missing or stale, so an ordinary rerun sends nothing) means a reload on any page, at any moment, comes back to
    the conversation. Other parameters (History's ``?run=``) are left as they are."""
    chat_id = st.session_state.chat["id"]
    if st.query_params.get(CHAT_PARAM) != chat_id:
        st.query_params[CHAT_PARAM] = chat_id


def load_conversation(chat_id: str | None) -> dict[str, Any] | None:
    """A conversation of this person's as the Chat page holds it: its turns from history and, if it is still running
    in this process, its live turn (made this session's job). None when there is no such conversation of theirs."""
    if not chat_id or not _CHAT_ID.fullmatch(chat_id):
        return None
    try:
        records = history_store().conversation_turns(chat_id)
    except ReactLabError:
        records = []
    job = registry.find(chat_id, identity.owner())
    if not records and job is None:
        return None
    turns = []
    for record in records:
        if record.trace is None or record.damaged:
            continue
        label = turn_labels.of_saved(record.origin, record.parent_id, record.fork_step, record.trace)
        turns.append(Turn(next_turn_id(), record.trace, record.id, record.origin, label, record.revision))
    if job is not None and not job.done:
        st.session_state.job = job
    elif job is not None:
        registry.forget(job)  # it finished while nobody watched: its run came back from history above
    return {"id": chat_id, "turns": turns}


def open_conversation(chat_id: str) -> bool:
    """Make a past conversation this session's chat (from the History page), so a follow-up continues it: same
    conversation id, its earlier turns as context. Refused while another conversation's turn is running."""
    ss = st.session_state
    if chat_id == ss.chat["id"]:
        return True
    if running():
        flash("warning", "A question is still being answered in Chat: wait for its answer, or press Stop there first.")
        return False
    chat = load_conversation(chat_id)
    if chat is None:
        flash("error", "That conversation is not in your history.")
        return False
    ss.chat = chat
    st.query_params[CHAT_PARAM] = chat_id
    return True


def settings() -> dict[str, Any]:
    return st.session_state.settings


def update_settings(**changes: Any) -> None:
    """Change settings for the next turn and remember them (never a key) for the next session."""
    change_settings(lambda: changes)


def change_settings(read_changes: Callable[[], dict[str, Any]]) -> None:
    """``update_settings`` with the changes read from the widgets inside the session's settings lock.

    Streamlit's fast reruns start a new script thread for a widget change while the previous run's thread may still
    be in its callback, writing the previous value to the history store: two threads of one session then change and
    remember settings at once, and the slower write (the older value) used to win. Under one lock per session, each
    change reads the widgets' newest values and is remembered before the next change starts, so the last one wins.
    """
    with st.session_state.settings_lock:
        st.session_state.settings = {**st.session_state.settings, **read_changes()}
        try:
            history_store().remember_settings(st.session_state.settings)
        except ReactLabError as e:
            flash("warning", f"Settings are in use but could not be remembered: {e}")


def flash(kind: str, text: str) -> None:
    """A message shown once, at the top of the next page render (kind: info, warning, error, success)."""
    st.session_state.flash.append((kind, text))


def show_flash() -> None:
    messages, st.session_state.flash = st.session_state.flash, []
    for kind, text in messages:
        getattr(st, kind, st.info)(text)


def next_turn_id() -> int:
    n = st.session_state.next_turn_id
    st.session_state.next_turn_id = n + 1
    return n


def running() -> bool:
    job = st.session_state.get("job")
    return job is not None and not job.done


def demo_notice() -> str:
    """The demo model's notice when the next turn will use it ('' otherwise); decided without building anything."""
    s = settings()
    return PROVIDERS[s["provider"]].notice_for_settings(s)
