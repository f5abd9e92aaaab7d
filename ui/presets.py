"""The presets a person can choose and save: the shipped ones, and their own.

In local mode a saved preset is a TOML file in the presets folder (``REACT_PRESETS_DIR``), as before. When people sign
in, or in public demo mode, each person's saved presets live in their own history (``Store.save_preset``), so they
are theirs alone and follow them to any replica. A saved preset never shadows a shipped one.
"""

from __future__ import annotations

import streamlit as st

from react_core import (
    DEFAULT_PRESET,
    ConfigError,
    Preset,
    ReactLabError,
    check_new_preset,
    default_preset_for,
    list_presets,
    load_preset,
    preset_from_toml,
    preset_paths,
    save_user_preset,
    speaks,
)
from ui import identity, state

STORE_PREFIX = "history:"  # the ``path`` of a preset read from the person's history


def _in_store() -> bool:
    return identity.mode() != identity.LOCAL


def runnable(names_: list[str]) -> tuple[list[str], list[str]]:
    """(the presets the chosen provider can run, those it cannot: native tool calling needs a provider that can)."""
    provider = state.settings()["provider"]
    ok, not_ok = [], []
    for name in names_:
        try:
            fits = speaks(provider, load(name).dialect)
        except ReactLabError:
            fits = True  # shown, and the chooser says what is wrong with it
        (ok if fits else not_ok).append(name)
    return ok, not_ok


def names(mode: str = "react") -> list[str]:
    """Every preset of this mode the person may choose: shipped first, then their own."""
    if not _in_store():
        return list_presets(mode=mode)
    paths = preset_paths()
    shipped = [n for n in list_presets(mode=mode) if paths[n][1]]
    own = []
    try:
        for saved in state.history_store().presets():
            try:
                if preset_from_toml(saved.toml, saved.name, where=STORE_PREFIX + saved.name).mode == mode:
                    own.append(saved.name)
            except ConfigError:
                continue  # a saved preset that no longer reads is skipped, not fatal
    except ReactLabError:
        pass
    return shipped + [n for n in own if n not in shipped]


def load(name: str) -> Preset:
    """A preset by name: the person's own (from their history) or a shipped one."""
    if _in_store():
        saved = state.history_store().get_preset(name)
        if saved is not None:
            return preset_from_toml(saved.toml, saved.name, where=STORE_PREFIX + saved.name)
        preset = load_preset(name)
        if not preset.builtin:
            raise ConfigError(f"Unknown preset {name!r}.")  # another person's file: not this person's
        return preset
    return load_preset(name)


def save(preset: Preset, name: str) -> str:
    """Save as the person's own preset; returns where it went (for the message)."""
    if _in_store():
        state.history_store().save_preset(name, check_new_preset(preset, name))
        return "your presets in your history"
    return str(save_user_preset(preset, name))


def current_name() -> str:
    """The named preset in use (the shipped preset of the dialect when none is named)."""
    s = state.settings()
    return s.get("preset") or default_preset_for(s.get("dialect") or DEFAULT_PRESET)


def active() -> Preset:
    """The prompt the next turn uses: the applied edit, else the named preset (the shipped paper one if that is gone
    or cannot run a chat)."""
    if st.session_state.prompt is not None:
        return st.session_state.prompt
    try:
        preset = load(current_name())
        if preset.mode != "react":
            raise ConfigError(f"The {preset.name} preset is a direct-answer prompt for the evaluation, not a chat.")
        provider = state.settings()["provider"]
        if not speaks(provider, preset.dialect):
            raise ConfigError(f"The {preset.name} preset needs native tool calling, which {provider} cannot do.")
        return preset
    except ReactLabError as e:
        state.flash("warning", f"{e} Using the {DEFAULT_PRESET} preset instead.")
        st.session_state.settings = {**state.settings(), "preset": DEFAULT_PRESET, "dialect": ""}
        return load_preset(DEFAULT_PRESET)
