"""Where a person's presets are kept, in one place: the shipped ones first, then their own, which never shadow a
shipped name.

A person's own presets are TOML files in the presets folder (``REACT_PRESETS_DIR``) for the one local person and the
command line (owner ''), and rows of their own history for everyone else (signed in, or a public-demo visitor), so
they are theirs alone and follow them to any replica. Either way a saved preset is checked by the dialect's parser
first (``check_new_preset``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from react_core.base.errors import ConfigError, ReactLabError
from react_core.base.paths import BUILTIN_PRESETS_DIR, presets_dir
from react_core.presets.check import validate_preset
from react_core.presets.preset import (
    NAME,
    Preset,
    dump_preset,
    list_presets,
    load_preset,
    preset_from_toml,
    preset_paths,
)

IN_HISTORY = "history:"  # the ``path`` of a preset read from a person's history


class PresetStore:
    def __init__(self, owner: str = "") -> None:
        self.owner = owner

    @property
    def in_history(self) -> bool:
        return self.owner != ""

    def _history(self):
        from react_core.history import open_history

        return open_history(self.owner)

    def names(self, mode: str | None = "react") -> list[str]:
        """Every preset of this mode (every mode with None) this person may choose: shipped first, then their own."""
        if not self.in_history:
            return list_presets(mode=mode)
        paths = preset_paths()
        shipped = [n for n in list_presets(mode=mode) if paths[n][1]]
        own = []
        try:
            for saved in self._history().presets():
                try:
                    preset = preset_from_toml(saved.toml, saved.name, where=IN_HISTORY + saved.name)
                except ConfigError:
                    continue  # a saved preset that no longer reads is skipped, not fatal
                if mode is None or preset.mode == mode:
                    own.append(saved.name)
        except ReactLabError:
            pass  # history unavailable: the shipped presets are still there
        return shipped + [n for n in own if n not in shipped]

    def load(self, name: str) -> Preset:
        """A preset by name: one of this person's own, or a shipped one."""
        if not self.in_history:
            return load_preset(name)
        saved = self._history().get_preset(name)
        if saved is not None:
            return preset_from_toml(saved.toml, saved.name, where=IN_HISTORY + saved.name)
        preset = load_preset(name)
        if not preset.builtin:
            raise ConfigError(f"Unknown preset {name!r}.")  # a file in the local presets folder: not this person's
        return preset

    def save(self, preset: Preset, name: str) -> str:
        """Save as this person's own preset under ``name``; returns where it went, for the message."""
        if self.in_history:
            self._history().save_preset(name, check_new_preset(preset, name))
            return "your presets in your history"
        return str(save_user_preset(preset, name))


def check_new_preset(preset: Preset, name: str) -> str:
    """The TOML text to save ``preset`` under ``name``; ConfigError when the name or the prompt is not acceptable.
    Shipped presets are never overwritten."""
    if not NAME.match(name):
        raise ConfigError("A preset name uses letters, digits, '-', '_' or '.', up to 64 characters.")
    if name in {p.stem for p in BUILTIN_PRESETS_DIR.glob("*.toml")}:
        raise ConfigError(f"{name!r} is a shipped preset; choose another name.")
    problems = validate_preset(preset)
    if problems:
        raise ConfigError(f"The preset has problems and was not saved: {problems[0]}")
    return dump_preset(replace(preset, name=name, builtin=False))


def save_user_preset(preset: Preset, name: str) -> Path:
    """Save under a new name in the user presets folder; shipped presets are never overwritten."""
    text = check_new_preset(preset, name)
    folder = presets_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path
