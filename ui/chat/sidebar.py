"""The sidebar: what the next turn will use (provider, model, dialect, knowledge, tools, temperature and the budget of
model calls), New chat, and the demo-model note.

Reads session state only; never builds a provider (that would load an SDK or the on-device model on every page render).
"""

from __future__ import annotations

import streamlit as st

from react_core import (
    DIALECTS,
    PROVIDERS,
    Knowledge,
    LiveTarget,
    ToolSpec,
)
from ui.chat import turns, warmup
from ui.shared import identity, presets, state
from ui.shared.text import md_literal


def render_sidebar() -> None:
    s = state.settings()
    preset = presets.active()
    fmt = DIALECTS.get(preset.dialect)
    provider = PROVIDERS[s["provider"]]
    with st.sidebar:
        st.markdown(
            "\n".join(
                [
                    f"- **Provider:** {md_literal(provider.label)}",
                    f"- **Model:** {md_literal(provider.model_label(s))}",
                    f"- **Dialect:** {md_literal(fmt.label if fmt else preset.dialect)}",
                    f"- **Preset:** {md_literal(preset.ref or preset.name)}",
                    f"- **Knowledge:** {md_literal(Knowledge.of(s).label(visitor=identity.own_endpoints()))}",
                    f"- **Tools:** {md_literal(', '.join(ToolSpec.label_of(t) for t in s.get('tools', [])) or 'none')}",
                    f"- **Temperature:** {float(s.get('temperature', 0)):g} · **at most** {s.get('max_calls')} model "
                    "calls",
                ]
            )
        )
        notice = state.demo_notice()
        if notice:
            st.warning(notice, icon=":material/smart_toy:")
        warmup.render_warm_status()
        if LiveTarget.problem():
            # The details (the endpoint, the error) are the operator's, in the server's log; a visitor learns only
            # that the export is failing, and that their run is not affected by it.
            st.caption(":material/cloud_off: The last run could not be sent to the OpenTelemetry endpoint.")
        if st.button(
            "New chat", key="new-chat", icon=":material/add_comment:", on_click=turns.new_chat, width="stretch"
        ):
            # Pressed on another page, nothing there changes: say that it happened, and where the new chat is.
            st.toast("Started a new chat.", icon=":material/add_comment:")
            st.page_link("pages/chat.py", label="Go to the new chat", icon=":material/chat:")
        if state.running():
            st.caption("A question is being answered…")
        st.caption(md_literal(identity.describe()))
        if identity.mode() == identity.SIGNED_IN:
            st.button("Sign out", key="sign-out", icon=":material/logout:", on_click=st.logout, width="stretch")


def render_sign_in() -> None:
    """The page a signed-in deployment shows to someone who has not signed in yet."""
    st.header("ReAct Lab", anchor=False)
    st.write(
        "Sign in to chat with ReAct agents, inspect every step and keep your own history. "
        "Your runs, saved presets and settings are visible to you alone."
    )
    st.button("Sign in", key="sign-in", icon=":material/login:", type="primary", on_click=st.login)
