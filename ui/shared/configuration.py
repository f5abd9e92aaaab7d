"""What the operator configured that the app cannot run with, found before a session draws anything: one clear message
on the page (and in the server's log) instead of a guess. Each rule lives where its variable is read; this only asks
them all at start."""

from __future__ import annotations

import logging

import streamlit as st

from react_core import ReactLabError, RunSettings
from ui.shared import identity
from ui.shared.text import md_literal

log = logging.getLogger(__name__)


def problem() -> str:
    """Why the app cannot start as configured ('' when it can)."""
    try:
        identity.calls_per_minute()  # the public demo's limits on model calls
        identity.total_calls_per_minute()
        RunSettings.from_env()  # REACT_BASE_URL without the provider it belongs to
    except ReactLabError as e:  # a setting the operator got wrong (each rule says which)
        return str(e)
    return ""


def render() -> None:
    """The one page a misconfigured app shows."""
    why = problem()
    log.error("ReAct Lab cannot start as configured: %s", why)
    st.error(md_literal(f"ReAct Lab cannot start: {why} The operator must fix this first."), icon=":material/error:")
