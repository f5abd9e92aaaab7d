"""Widgets bound to the settings dict: seeded from it, written back to it by a callback, on every page visit.

Streamlit forgets a widget's key when its page is left, so each widget's key is re-seeded from the plain settings dict
before the widget is drawn, and a change goes back into the dict (and is remembered) at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from ui.shared import state


def seed(key: str, value: Any) -> None:
    """Give a widget its value from our state unless the person is mid-edit on this page."""
    if key not in st.session_state:
        st.session_state[key] = value


def _commit(field: str, key: str, convert: Callable[[Any], Any]) -> None:
    state.change_settings(lambda: {field: convert(st.session_state[key])})


def bound(widget: Callable[..., Any], label: str, field: str, convert: Callable[[Any], Any] = lambda v: v, **kw):
    """``widget(label, ...)`` showing ``settings[field]``; a change updates the settings for the next turn."""
    key = f"set-{field}"
    seed(key, kw.pop("seed_value", state.settings().get(field)))
    return widget(label, key=key, on_change=_commit, args=(field, key, convert), **kw)
