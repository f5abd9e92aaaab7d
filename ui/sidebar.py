"""The sidebar: what the next turn will use (provider, model, format, knowledge), New chat, and the demo-model note.

Reads session state only; never builds a provider (that would load an SDK or the on-device model on every page
render). Depends on streamlit, ui.state and ui.turns.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from react_core.formats import FORMATS
from react_core.tools.registry import display_name
from ui import state, turns
from ui.render import md_literal

PROVIDER_NAMES = {"local": "On-device (llama.cpp)", "openai": "OpenAI", "gemini": "Gemini", "scripted": "Scripted"}


def _model_label() -> str:
    s = state.settings()
    if s.get("model"):
        return s["model"]
    slot = st.session_state.provider_slot
    provider = slot.get("provider")
    if provider is not None and (slot.get("signature") or (None,))[0] == s["provider"] and provider.model:
        return provider.model
    return "Gemma 3 270M" if s["provider"] == "local" and not s.get("model_path") else "provider default"


def render_sidebar() -> None:
    s = state.settings()
    preset = state.active_preset()
    fmt = FORMATS.get(preset.format)
    knowledge = s.get("knowledge", "")
    knowledge_label = "Wikipedia (live)" if knowledge == "wikipedia" else f"offline pack {Path(knowledge[5:]).name}"
    with st.sidebar:
        st.markdown(
            "\n".join(
                [
                    f"- **Provider:** {md_literal(PROVIDER_NAMES.get(s['provider'], s['provider']))}",
                    f"- **Model:** {md_literal(_model_label())}",
                    f"- **Format:** {md_literal(fmt.label if fmt else preset.format)}",
                    f"- **Preset:** {md_literal(preset.name)}",
                    f"- **Knowledge:** {md_literal(knowledge_label)}",
                    f"- **Tools:** {md_literal(', '.join(display_name(t) for t in s.get('tools', [])) or 'none')}",
                ]
            )
        )
        if state.is_demo():
            st.warning(state.DEMO_NOTE, icon=":material/smart_toy:")
        st.button("New chat", key="new-chat", icon=":material/add_comment:", on_click=turns.new_chat, width="stretch")
        if state.running():
            st.caption("A question is being answered…")
