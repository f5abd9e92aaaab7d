"""Every piece of session state, created in one function, and the settings helpers the pages share.

Session state holds plain dicts: ``settings`` (RunSettings.to_dict, never a key), ``api_key`` (its own slot, session
only, never saved), ``prompt`` (the applied edited preset as a dict, or None for the named preset unchanged), ``chat``
(this browser session's conversation), ``job`` (the turn running in the background, or None), ``provider_slot`` (the
session's provider, reused across turns so a script can drive a conversation), ``flash`` (messages shown once). Widget
keys vanish when their page is left, so pages copy widget values into these dicts in callbacks.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import streamlit as st

from react_core.environment import setting_defaults
from react_core.errors import ConfigError, ReactLabError
from react_core.history import HistoryStore
from react_core.providers import provider_class
from react_core.settings import RunSettings, default_provider

MAX_QUESTION_CHARS = 10_000


def initial_settings(env: Mapping[str, str] | None = None, remembered: Mapping[str, Any] | None = None) -> dict:
    """Built-in defaults, then the last settings remembered in the history store, then the settings the environment
    pins for a deployment or a test (``react_core.environment``)."""
    settings = RunSettings().to_dict()
    if remembered:
        candidate = {**settings, **{k: v for k, v in remembered.items() if k in settings}}
        try:
            RunSettings.from_dict(candidate).check()
            settings = candidate
        except (ReactLabError, TypeError, ValueError):
            pass  # remembered settings from an older version that no longer validate: start from defaults
    pinned = setting_defaults(env)
    settings.update(pinned)
    if "provider" not in pinned and not (remembered and remembered.get("provider")):
        settings["provider"] = default_provider(env)
    return settings


def history_store() -> HistoryStore:
    """The store at REACT_HISTORY_DB (read each time, so a test or deployment can point elsewhere)."""
    return HistoryStore()


def init_state() -> None:
    """Create every session-state slot this app uses, once per browser session."""
    ss = st.session_state
    if "settings" not in ss:
        remembered = None
        try:
            remembered = history_store().last_settings()
        except ReactLabError as e:
            ss.setdefault("flash", []).append(("warning", str(e)))
        ss.settings = initial_settings(remembered=remembered)
    ss.setdefault("api_key", "")
    ss.setdefault("prompt", None)
    ss.setdefault("draft", None)
    ss.setdefault("chat", new_chat())
    ss.setdefault("job", None)
    ss.setdefault("provider_slot", {"signature": None, "provider": None})
    ss.setdefault("flash", [])
    ss.setdefault("history_open", None)
    ss.setdefault("next_turn_id", 1)
    ss.setdefault("eval_job", None)  # the Evaluate page's background evaluation (ui.jobs.evaluation.EvalJob)
    ss.setdefault("eval_open", None)  # the results folder the Evaluate page shows (a running or past evaluation)


def require_app() -> None:
    """Pages run inside app.py's navigation, which sets up the session first. A fresh server's very first request
    for a page URL can reach the page file before app.py has ever run (Streamlit then still reads pages/ as a
    legacy multipage folder): start from app.py, which routes explicitly from then on."""
    if "settings" not in st.session_state:
        st.switch_page("app.py")


def new_chat() -> dict[str, Any]:
    return {"id": uuid.uuid4().hex, "turns": []}


def settings() -> dict[str, Any]:
    return st.session_state.settings


def update_settings(**changes: Any) -> None:
    """Change settings for the next turn and remember them (never a key) for the next session."""
    st.session_state.settings = {**st.session_state.settings, **changes}
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
    cls = provider_class(s["provider"])
    return cls.demo_notice if cls.demo_for(s) else ""


def preset_name() -> str:
    """The named preset in use (the shipped preset of the format when none is named)."""
    from react_core.prompts import DEFAULT_PRESET, default_preset_for

    s = settings()
    return s.get("preset") or default_preset_for(s.get("format") or DEFAULT_PRESET)


def active_preset():
    """The prompt the next turn uses: the applied edit, else the named preset (shipped paper if that is gone)."""
    from react_core.prompts import DEFAULT_PRESET, Preset, load_preset

    if st.session_state.prompt:
        return Preset.from_dict(st.session_state.prompt)
    try:
        preset = load_preset(preset_name())
        if preset.mode != "react":
            raise ConfigError(f"The {preset.name} preset is a direct-answer prompt for the evaluation, not a chat.")
        return preset
    except ReactLabError as e:
        flash("warning", f"{e} Using the {DEFAULT_PRESET} preset instead.")
        st.session_state.settings = {**settings(), "preset": DEFAULT_PRESET, "format": ""}
        return load_preset(DEFAULT_PRESET)
