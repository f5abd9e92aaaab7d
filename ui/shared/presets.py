"""The presets a person can choose and save (``react_core.PresetStore``: the shipped ones, then their own lines of
versions), the version named in the settings, and the prompt the next turn uses.
"""

from __future__ import annotations

import streamlit as st

from react_core import (
    PROVIDERS,
    Preset,
    PresetStore,
    ReactLabError,
    RunSettings,
    VersionRef,
)
from ui.shared import identity, state


def store() -> PresetStore:
    """This person's presets: the shipped ones, then their own lines of versions in their history store. One per
    browser session and person: a page reads a dozen presets a run, and each new store opened the history again."""
    owner = identity.owner()
    kept = st.session_state.get("preset_store")
    if kept is None or kept.owner != owner:
        kept = st.session_state.preset_store = PresetStore(owner)
    return kept


def runnable(names_: list[str]) -> tuple[list[str], list[str]]:
    """(the presets the chosen provider can run, those it cannot: native tool calling needs a provider that can)."""
    provider = state.settings()["provider"]
    ok, not_ok = [], []
    for name in names_:
        try:
            fits = PROVIDERS[provider].speaks(store().load(name).dialect)
        except ReactLabError:
            fits = True  # shown, and the chooser says what is wrong with it
        (ok if fits else not_ok).append(name)
    return ok, not_ok


def current_name() -> str:
    """The prompt version in use, as the settings name it: ``name`` (its newest version), ``name@3`` or
    ``name@label`` (when none is named: the prompt the model's adapter learned, else the dialect's shipped preset)."""
    return RunSettings.from_dict(state.settings()).preset_ref


def current_line() -> str:
    """The name of the line of versions in use."""
    try:
        return VersionRef.parse(current_name()).name
    except ReactLabError:  # a remembered setting that is no address: ``active`` falls back and says so
        return Preset.DEFAULT


def active() -> Preset:
    """The prompt the next turn uses: the applied edit, else the named preset (the shipped paper one if that is gone
    or cannot run a chat)."""
    if st.session_state.prompt is not None:
        return st.session_state.prompt
    try:
        preset = store().load(current_name())
        if preset.mode != "react":
            raise ReactLabError(f"The {preset.name} preset is a direct-answer prompt for the evaluation, not a chat.")
        provider = state.settings()["provider"]
        if not PROVIDERS[provider].speaks(preset.dialect):
            raise ReactLabError(f"The {preset.name} preset needs native tool calling, which {provider} cannot do.")
        return preset
    except ReactLabError as e:
        state.flash("warning", f"{e} Using the {Preset.DEFAULT} preset instead.")
        st.session_state.settings = {**state.settings(), "preset": Preset.DEFAULT, "dialect": ""}
        return store().load(Preset.DEFAULT)
