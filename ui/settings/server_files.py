"""The Settings page's fields that name something on the server: the scripted provider's script, the on-device model
file, the offline pack and the MediaWiki API URL.

In local mode the person is the operator and types a path or a URL. In public demo and signed-in modes these are the
operator's (the engine refuses anything else: ``react_core.base.visitor_rule``), so the page offers only the
operator's choices, by file name, and says why; a visitor may upload a script of their own, kept in their session.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from react_core import (
    Adapter,
    Knowledge,
    ReactLabError,
    RunSettings,
    SampleScript,
    Script,
    offered_files,
    plural,
)
from ui.settings.sample_scripts import render_format, render_samples, use_sample
from ui.shared import identity, state
from ui.shared.bind import bound, seed
from ui.shared.text import md_literal

BUNDLED_MODEL = "the bundled Gemma 3 270M"
OPERATORS = "In this deployment the server's files and endpoints are the operator's to choose"


def _name(path: str) -> str:
    return Path(path).name if path else BUNDLED_MODEL


def _choose(label: str, field: str, choices: list[str], current: str, format_func=_name, **kw) -> None:
    """A choice among the operator's values, shown by file name; none chosen while the setting is none of them."""
    key = f"set-{field}"
    seed(key, current if current in choices else None)
    st.selectbox(
        label,
        choices,
        key=key,
        format_func=format_func,
        on_change=lambda: state.update_settings(**{field: st.session_state[key] or ""}),
        **kw,
    )


def _on_upload() -> None:
    upload = st.session_state.get("set-script-upload")
    if upload is None:
        return
    try:
        outputs = Script.upload(upload.getvalue()).outputs
    except ReactLabError as e:
        st.session_state.script_upload_problem = f"{upload.name}: {e}"
        return
    st.session_state.script_upload_problem = ""
    st.session_state.pop("set-script", None)  # the path field no longer shows the script in use
    state.update_settings(script=outputs)


def _on_choose_script() -> None:
    """A visitor's choice among the operator's scripts: a sample brings a prompt of its dialect (``use_sample``)."""
    path = st.session_state.get("set-script") or ""
    if SampleScript.at(path) is not None:
        use_sample(path)
    else:
        state.update_settings(script=path)


def render_script() -> None:
    """The scripted provider's script: a path (local mode) or one of the operator's (visitor modes), or an upload."""
    current = state.settings().get("script") or ""
    uploaded = isinstance(current, list)
    box, help_ = st.columns([0.8, 0.2], vertical_alignment="bottom")
    with help_:
        render_format()
    if identity.own_endpoints():
        choices = offered_files("script")
        if choices:
            seed("set-script", current if not uploaded and current in choices else None)
            box.selectbox(
                "Script (JSON array of model outputs)",
                choices,
                key="set-script",
                format_func=SampleScript.label_of,
                placeholder="your uploaded script" if uploaded else "choose a script",
                on_change=_on_choose_script,
            )
        st.caption(
            f"{OPERATORS}: choose the operator's script or a sample, or upload your own (kept in this session only)."
        )
    else:
        seed("set-script", "" if uploaded else current)
        box.text_input(
            "Script (JSON array of model outputs)",
            key="set-script",
            placeholder="your uploaded script" if uploaded else "",
            on_change=lambda: state.update_settings(script=st.session_state["set-script"].strip()),
        )
        render_samples()
    st.file_uploader(
        f"Upload a script (JSON, up to {Script.MAX_BYTES // 1000:,} kB)",
        type=["json"],
        key="set-script-upload",
        on_change=_on_upload,
    )
    if st.session_state.get("script_upload_problem"):
        st.error(md_literal(st.session_state.script_upload_problem))
    elif uploaded:
        st.caption(f"In use: your uploaded script ({plural(len(current), 'output')}).")


def render_model_file() -> None:
    """The on-device model's GGUF file: typed (local mode) or the bundled one or the operator's (visitor modes)."""
    if not identity.own_endpoints():
        bound(st.text_input, "Model file (GGUF)", "model_path", placeholder=BUNDLED_MODEL)
        return
    choices = offered_files("model_path")
    if len(choices) > 1:
        _choose("Model file (GGUF)", "model_path", choices, state.settings().get("model_path") or "")
    st.caption(f"{OPERATORS}: the model file is {BUNDLED_MODEL} or one the operator offers.")


def render_adapter() -> None:
    """The on-device model's LoRA adapter: the shipped one (the default), none, or a file (local mode: typed; visitor
    modes: the operator's). The model label, the notice and the default prompt follow the choice."""
    current = state.settings().get("adapter") or ""
    choices = offered_files("adapter")
    if identity.own_endpoints():
        choices = [c for c in choices if c != "shipped"]
        _choose("Adapter (fine-tuned LoRA)", "adapter", choices, current, format_func=Adapter.setting_label)
        st.caption(f"{OPERATORS}: the adapter is the shipped one, none, or one the operator offers.")
        return
    own = current not in ("", "shipped", "none")
    options = ["", "none", "own"]
    key = "set-adapter-kind"
    seed(key, "own" if own else ("none" if current == "none" else ""))
    kind = st.radio(
        "Adapter (fine-tuned LoRA)",
        options,
        key=key,
        horizontal=True,
        format_func=lambda o: {"": Adapter.setting_label(""), "none": "none", "own": "your own file"}[o],
        on_change=lambda: state.update_settings(
            adapter={"": "", "none": "none"}.get(st.session_state[key], st.session_state.get("set-adapter-path", ""))
        ),
        help="An adapter teaches the small on-device model a method (Fine-tune page, `python -m react_core "
        "finetune`). Its own prompt becomes the default preset.",
    )
    if kind == "own":
        _found_adapters(current)
        seed("set-adapter-path", current if own else "")
        st.text_input(
            "Adapter file (.gguf)",
            key="set-adapter-path",
            on_change=lambda: state.update_settings(adapter=st.session_state["set-adapter-path"].strip()),
        )


def _found_adapters(current: str) -> None:
    """Local mode: the adapters on this machine besides the default (the other shipped ones, those the Fine-tune page
    or ``finetune`` wrote), one choice each; choosing one fills in its path below."""
    found = {str(a.path): a for a in Adapter.found() if not a.is_default}
    if not found:
        return
    key = "set-adapter-found"
    st.session_state[key] = current if current in found else None  # follows a path typed below too

    def picked() -> None:
        chosen = st.session_state[key]
        if chosen:
            st.session_state["set-adapter-path"] = chosen
            state.update_settings(adapter=chosen)

    st.selectbox(
        "On this machine",
        list(found),
        key=key,
        placeholder="choose one, or type a file's path below",
        format_func=lambda p: f"{found[p].title} · {Path(p).parent.name}",
        on_change=picked,
    )


def _knowledge() -> dict[str, str]:
    kind = st.session_state["set-knowledge-kind"]
    path = (st.session_state.get("set-knowledge-path") or "").strip()
    return {"knowledge": "wikipedia" if kind == "wikipedia" else Knowledge.of_pack(path).spec}


def render_knowledge(knowledge: str) -> None:
    """Live Wikipedia or an offline pack: a pack file typed (local mode) or one of the operator's (visitor modes)."""
    visitor = identity.own_endpoints()
    packs = Knowledge.offered_packs() if visitor else []
    seed("set-knowledge-kind", "wikipedia" if knowledge == "wikipedia" else "pack")
    path = Knowledge(knowledge).pack_text
    seed("set-knowledge-path", (path if path in packs else packs[0]) if visitor else path)
    kind = st.radio(
        "Knowledge source",
        ["wikipedia", "pack"],
        key="set-knowledge-kind",
        format_func=lambda k: "Live Wikipedia" if k == "wikipedia" else "Offline pack (SQLite file)",
        horizontal=True,
        on_change=state.change_settings,
        args=(_knowledge,),
    )
    if kind != "pack":
        return
    if visitor:
        st.selectbox(
            "Pack file",
            packs,
            key="set-knowledge-path",
            format_func=_name,
            placeholder="choose a pack",
            on_change=state.change_settings,
            args=(_knowledge,),
        )
        st.caption(f"{OPERATORS}: choose one of the operator's packs.")
        return
    typed = st.text_input("Pack file", key="set-knowledge-path", on_change=state.change_settings, args=(_knowledge,))
    if typed and not Path(typed).is_file():
        st.warning("No file there yet. Build one with `python -m react_core pack build …`.")


def render_wiki_endpoint() -> None:
    """The MediaWiki API URL and the Wikipedia language: typed in local mode. In visitor modes the URL is the
    operator's (REACT_WIKI_URL): the language is the visitor's when the operator set none."""
    if not identity.own_endpoints():
        bound(st.text_input, "MediaWiki API URL", "wiki_url", placeholder="English Wikipedia")
    elif RunSettings.from_env().wiki_url:  # the operator's (REACT_WIKI_URL)
        st.caption(f"{OPERATORS}: Search and Lookup read the operator's wiki.")
        return
    else:
        st.caption(f"{OPERATORS}: Search and Lookup read Wikipedia, in the language you choose.")
    bound(st.text_input, "Wikipedia language", "wiki_language", placeholder="en")
