"""Keeping the chosen prompt warm on the on-device model, and saying so.

When the app starts, and whenever the prompt the next turn would use changes (another preset, an applied edit, other
tools), its fixed prefix is got ready in the background (``RunSettings.warm_up``): the first question's first thought
then waits only for the question's own tokens, and in a new chat the first example question shown is read ahead as far
as it can be before it is asked (its last, partial block of 64 tokens is left for the click). A render never waits for
it, and a question asked meanwhile waits for the warm-up in the engine instead of reading the prefix a second time.
Providers that have nothing to prepare (hosted APIs) are left alone.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from react_core import PROVIDERS, RunSettings
from ui.chat.examples import chat_examples
from ui.shared import identity, presets, state

STATES = {
    "loading": "loading the model",
    "waiting": "waiting for the model",
    "warming": "reading the preset's instructions and examples",
}


def keep_warm() -> None:
    """Start a warm-up when the prompt the next turn would use is not the one warmed last in this session. In a new
    chat the warm-up reads on into the first example question the Chat page shows: the likeliest first click."""
    s = state.settings()
    if not PROVIDERS[s["provider"]].warms:
        return
    prompt = presets.active()
    likely = _likely_question(s)
    key = hashlib.sha256(
        repr((s.get("provider"), s.get("model_path"), prompt.to_dict(), s.get("tools"), likely)).encode()
    )
    if st.session_state.warm_key == key.hexdigest():
        return
    st.session_state.warm_key = key.hexdigest()
    # Under the session's key rules, as the turn will be: a visitor's model file only among the operator's.
    st.session_state.warm = identity.allowance().build(lambda: RunSettings.from_dict(s).warm_up(prompt, likely))


def _likely_question(settings: dict) -> str:
    """The first example question of a chat with nothing asked yet ('' otherwise)."""
    chat = st.session_state.get("chat")
    if not chat or chat["turns"] or st.session_state.get("job") is not None:
        return ""
    examples, _note = chat_examples(settings, chat["id"])
    return examples[0] if examples else ""


def render_warm_status() -> None:
    """A line in the sidebar while the warm-up runs (redrawn until it is done), or why it failed."""
    handle = st.session_state.get("warm")
    if handle is None:
        return
    if handle.finished:
        if handle.state == "failed":
            st.caption(f"The on-device model could not get the prompt ready: {handle.error}")
        return
    st.fragment(_progress, run_every=0.5)()


def _progress() -> None:
    handle = st.session_state.get("warm")
    if handle is None or handle.finished:
        return
    doing = STATES.get(handle.state, handle.state)
    percent = f" · {handle.progress:.0%}" if handle.state == "warming" else ""
    st.caption(f"Getting the on-device model ready: {doing}{percent}. A question asked now starts when it is done.")
