"""The Settings page: provider, model, key, base URL, temperature, max calls, step mode, knowledge, tools (MCP
servers' too), and the prompt.

Every change applies to the next turn and is remembered (without the key) in the history store. The API key lives
in its own session-state slot for this browser session only. Rendering only: binding in ui.shared.bind, the prompt
editor in ui.settings.prompt_editor.
"""

from __future__ import annotations

import streamlit as st

from react_core import (
    PROVIDERS,
    RunSettings,
    Step,
    ToolSpec,
)
from ui.settings.mcp_view import render_mcp_settings, tools_from_checkboxes
from ui.settings.prompt_editor import render_prompt_editor
from ui.settings.server_files import (
    render_adapter,
    render_knowledge,
    render_model_file,
    render_script,
    render_wiki_endpoint,
)
from ui.settings.versions import render_versions
from ui.shared import identity, presets, state
from ui.shared.bind import bound, seed
from ui.shared.export_settings import render_export_settings


def _on_key() -> None:
    st.session_state.api_key = st.session_state["set-api-key"].strip()


def _tools() -> dict[str, list[str]]:
    return {"tools": tools_from_checkboxes(state.settings().get("tools", []))}


st.header("Settings", anchor=False)
state.show_flash()
s = state.settings()
model_col, run_col = st.columns(2)

with model_col:
    st.subheader("Model", anchor=False)
    seed("set-provider", s["provider"])
    st.selectbox(
        "Provider",
        list(PROVIDERS),
        key="set-provider",
        format_func=lambda p: PROVIDERS[p].choice,
        on_change=state.choose_provider,
    )
    provider = PROVIDERS[state.settings()["provider"]]
    if "model" in provider.options:
        bound(st.text_input, "Model", "model", placeholder=provider.default_model or "the provider's default")
    if provider.key_vars:
        seed("set-api-key", st.session_state.api_key)
        st.text_input("API key", key="set-api-key", type="password", on_change=_on_key)
        where_else = (
            f"Setting {' or '.join(provider.key_vars)} in the server's environment works too."
            if identity.lends_server_keys()
            else "This public demo does not lend the server's own keys: bring yours."
        )
        st.caption("Kept for this browser session only: never saved in settings, history or exports. " + where_else)
    if "base_url" in provider.options:
        bound(st.text_input, "Base URL", "base_url", placeholder="the provider's own API")
        if provider.key_vars and identity.own_endpoints():
            st.caption("A Base URL you set gets only the API key you typed above, never the server's.")
    if "script" in provider.options:
        render_script()
    if "model_path" in provider.options:
        render_model_file()
    if "adapter" in provider.options:
        render_adapter()
    if provider.constrained:
        bound(
            st.checkbox,
            "Only well-formed steps (grammar)",
            "grammar",
            bool,
            help="Constrain decoding to one thought and one action of the dialect naming an enabled tool, so every "
            "step parses. Hosted models have no such control.",
        )

with run_col:
    st.subheader("Run", anchor=False)
    bound(
        st.slider,
        "Temperature",
        "temperature",
        float,
        seed_value=float(s.get("temperature", 0.0)),
        min_value=0.0,
        max_value=2.0,
        step=0.05,
    )
    bound(
        st.slider,
        "Max model calls",
        "max_calls",
        int,
        seed_value=int(s.get("max_calls", 8)),
        min_value=1,
        max_value=RunSettings.MAX_CALLS,
        step=1,
    )
    bound(
        st.selectbox,
        "When the steps end without an answer",
        "early_stopping",
        seed_value=s.get("early_stopping", "force"),
        options=list(RunSettings.EARLY_STOPPING),
        format_func=RunSettings.EARLY_STOPPING.get,
        help="A run that repeats itself or spends its model calls ends with no answer (the paper's environment). "
        "Asking once more takes one call beyond the budget, with only Finish allowed, as LangChain's "
        '"generate" early stopping does; the run then says it answered only when asked.',
    )
    bound(
        st.multiselect,
        "Step mode: pause",
        "pause_before",
        lambda chosen: [b for b in Step.BREAKPOINTS if b in chosen],
        options=list(Step.BREAKPOINTS),
        format_func=lambda b: Step.BREAKPOINTS[b],
        placeholder="off: runs go to the end",
        help="Stop the agent at these points for your decision (the Chat page's Step mode switch).",
    )
    st.subheader("Knowledge and tools", anchor=False)
    render_knowledge(s.get("knowledge", "wikipedia"))
    cols = st.columns(len(ToolSpec.ORDER))
    for col, tool in zip(cols, ToolSpec.ORDER, strict=True):
        seed(f"set-tool-{tool}", tool in s.get("tools", []))
        col.checkbox(ToolSpec.label_of(tool), key=f"set-tool-{tool}", on_change=state.change_settings, args=(_tools,))
    with st.expander("Advanced"):
        bound(st.number_input, "Sentences a Search returns", "sentences", int, min_value=1, max_value=50)
        render_wiki_endpoint()

    with st.expander("MCP servers' tools"):
        render_mcp_settings()
    render_export_settings()

st.subheader("Prompt", anchor=False)
render_prompt_editor()
render_versions(presets.current_line())
