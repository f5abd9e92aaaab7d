"""Where a person's prompts are kept, in one place: the shipped presets, then their own lines of versions in their
history store.

Each person's prompts are lines of immutable versions (``react_core.presets.versions``) in the history store of their
owner: '' for the one local person and the command line, their own for everyone else (signed in, or a public-demo
visitor), so they are theirs alone and follow them to any replica. A shipped preset is version 1 of its own line and
is never stored; saving an edit of it adds version 2. Preset files that the local app saved before versions existed
(the presets folder, ``REACT_PRESETS_DIR``) are adopted once as version 1 of their lines, and the presets a signed-in
person saved became version 1 of theirs when the store migrated. Every save is checked by the dialect's parser first.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from react_core.base.errors import ConfigError, ReactLabError
from react_core.base.paths import BUILTIN_PRESETS_DIR, presets_dir
from react_core.history.status import HistoryError
from react_core.presets.check import validate_preset
from react_core.presets.diff import VersionDiff, diff_versions
from react_core.presets.preset import Preset, dump_preset, list_presets, load_preset, preset_from_toml, preset_paths
from react_core.presets.versions import (
    VersionRef,
    check_label,
    check_name,
    export_version,
    import_version,
)

__all__ = ["IN_HISTORY", "PresetStore", "SHIPPED_NOTE", "check_new_preset", "shipped_names"]

IN_HISTORY = "history:"  # the ``path`` of a preset read from a person's history
SHIPPED_NOTE = "shipped with ReAct Lab"
_adopted: set[tuple[str, str]] = set()  # (presets folder, history) pairs whose files were adopted in this process


def shipped_names() -> set[str]:
    return {p.stem for p in BUILTIN_PRESETS_DIR.glob("*.toml")}


class PresetStore:
    def __init__(self, owner: str = "") -> None:
        self.owner = owner
        self._store = None  # the history store, opened once per PresetStore

    @property
    def in_history(self) -> bool:
        """Signed in (or a demo visitor): no files of the machine are theirs."""
        return self.owner != ""

    @property
    def reads_files(self) -> bool:
        """Whether a preset may be a path to a .toml file: the operator's own work only (local mode, the command
        line), never a visitor's, whoever's store this is (``keys.visitor``: the job's rules)."""
        from react_core.providers.keys import visitor

        return not self.in_history and not visitor()

    def _history(self):
        from react_core.history import open_history

        if self._store is None:
            store = open_history(self.owner)
            if not self.in_history:
                self._adopt_files(store)
            self._store = store
        return self._store

    def _adopt_files(self, store) -> None:
        """The local presets folder's files (saved before versions) as version 1 of their lines, once."""
        folder = presets_dir()
        key = (str(folder), store.where)
        if key in _adopted or not folder.is_dir():
            return
        lines = store.version_lines()
        for path in sorted(folder.glob("*.toml")):
            if path.stem in lines or path.stem in shipped_names():
                continue
            try:
                check_name(path.stem)
                text = path.read_text(encoding="utf-8")
                preset_from_toml(text, path.stem, where=str(path))  # only a file that reads becomes a version
                store.save_version(path.stem, text, note="adopted from the presets folder")
            except (ConfigError, OSError, UnicodeDecodeError):
                continue  # a file that cannot be a line stays a file; the rest are adopted
        _adopted.add(key)

    # -- reading --------------------------------------------------------------------------------------------

    def names(self, mode: str | None = "react") -> list[str]:
        """Every line of this mode (every mode with None) this person may choose: shipped first, then their own."""
        paths = preset_paths()
        shipped = [n for n in list_presets(mode=mode) if paths[n][1]]
        try:
            lines = self._history().version_lines()
        except ReactLabError:
            return shipped if self.in_history else list_presets(mode=mode)  # history unavailable: files still read
        own = []
        for name in lines:
            if name in shipped:
                continue
            try:
                preset = self.load(name)
            except ReactLabError:
                continue  # a saved version that no longer reads is skipped, not fatal
            if mode is None or preset.mode == mode:
                own.append(name)
        return shipped + own

    def load(self, ref: str) -> Preset:
        """A version by its address: ``name`` (the newest of its line), ``name@3`` or ``name@label``. Locally a path to
        a .toml file is read as it is (the command line's ``--preset path.toml``)."""
        if self.reads_files and isinstance(ref, str) and ref.endswith(".toml") and Path(ref).is_file():
            return load_preset(ref)
        r = VersionRef.parse(ref)
        shipped = r.name in shipped_names()
        try:
            history = self._history()
            number = self._number(history, r, shipped)
            saved = None if shipped and number == 1 else history.get_version(r.name, number)
        except HistoryError:
            if r.label or r.number not in (None, 1) or (not self.reads_files and not shipped):
                raise
            return load_preset(r.name)  # history unavailable: a shipped preset (or a local file) still reads
        if shipped and number == 1:
            return load_preset(r.name)
        if saved is None:
            raise ConfigError(f"There is no prompt version {r.name}@{number}.")
        preset = preset_from_toml(saved.toml, r.name, where=f"{IN_HISTORY}{saved.ref}")
        return replace(preset, version=number)

    def _number(self, history, r: VersionRef, shipped: bool) -> int:
        if r.number is not None:
            return r.number
        if r.label:
            labels = history.labels(r.name)
            if r.label not in labels:
                raise ConfigError(f"Line {r.name!r} has no label {r.label!r}.")
            return labels[r.label]
        newest = history.version_lines().get(r.name)
        if newest is None and not shipped:
            raise ConfigError(f"Unknown preset {r.name!r}.")
        return newest or 1

    def with_several_versions(self, names: list[str]) -> list[str]:
        """Those of ``names`` whose line has more than one version (a shipped one and a save, or two saves), found
        with one question to the history instead of one a line."""
        try:
            newest = self._history().version_lines()
        except ReactLabError:
            return []
        return [name for name in names if newest.get(name, 0) >= 2]

    def versions(self, name: str) -> list[tuple[int, str, str]]:
        """Line ``name``'s versions, oldest first, as (number, saved at, note); a shipped line starts with its
        version 1, the shipped file."""
        out = [(1, "", SHIPPED_NOTE)] if name in shipped_names() else []
        try:
            saved = self._history().versions(name)
        except ReactLabError:
            saved = []
        return out + [(v.number, v.saved_at, v.note) for v in saved]

    def addresses(self, name: str, *, labels: bool = False) -> list[str]:
        """The address of each version of line ``name``, oldest first (``paper@1``, ``paper@2``); with ``labels``,
        then each of its labels' (``paper@best``)."""
        choices: list[str | int] = [n for n, _, _ in self.versions(name)]
        choices += list(self.labels(name)) if labels else []
        return [str(VersionRef.of(name, choice)) for choice in choices]

    def labels(self, name: str) -> dict[str, int]:
        try:
            return self._history().labels(name)
        except ReactLabError:
            return {}

    def diff(self, left: str, right: str) -> VersionDiff:
        """What changed from version ``left`` to version ``right`` (addresses)."""
        return diff_versions(self.load(left), self.load(right), left, right)

    def export(self, ref: str) -> tuple[str, str]:
        """(a file name, the version as one TOML file)."""
        preset = self.load(ref)
        at = preset.ref or str(VersionRef.parse(ref))
        return f"{at.replace('@', '-v')}.toml", export_version(preset, at)

    # -- writing --------------------------------------------------------------------------------------------

    def save_version(self, preset: Preset, name: str, *, note: str = "") -> str:
        """Add ``preset`` as the next version of line ``name`` (a new line when there is none); returns its address.
        Checked by the dialect's parser first; nothing already saved changes."""
        check_name(name)
        problems = validate_preset(preset)
        if problems:
            raise ConfigError(f"The prompt has problems and was not saved: {problems[0]}")
        text = dump_preset(replace(preset, name=name, builtin=False))
        first = 2 if name in shipped_names() else 1
        return self._history().save_version(name, text, first=first, note=note).ref

    def save_new(self, preset: Preset, name: str) -> str:
        """Start a new line ``name`` with ``preset`` as its version 1; a shipped or existing name is refused."""
        check_new_preset(preset, name)
        if name in self._history().version_lines():
            raise ConfigError(f"{name!r} is already one of your prompts; save a new version of it instead.")
        return self.save_version(preset, name)

    def move_label(self, name: str, label: str, number: int) -> None:
        """Point ``label`` at version ``number`` of line ``name`` (which must exist)."""
        check_label(label)
        if number not in {n for n, _, _ in self.versions(name)}:
            raise ConfigError(f"There is no prompt version {name}@{number}.")
        self._history().move_label(name, label, number)

    def remove_label(self, name: str, label: str) -> bool:
        """Take ``label`` off line ``name``; False when the line has no such label. Its versions stay."""
        return self._history().remove_label(name, label.strip())

    def import_file(self, data: str | bytes, name: str) -> str:
        """A version file (``export``) read, checked and saved as the next version of line ``name``."""
        preset = import_version(data, name)
        return self.save_version(preset, name, note="imported from a file")


def check_new_preset(preset: Preset, name: str) -> str:
    """The TOML text to save ``preset`` under the new name ``name``; ConfigError when the name or the prompt is not
    acceptable. Shipped presets are never overwritten."""
    check_name(name)
    if name in shipped_names():
        raise ConfigError(f"{name!r} is a shipped preset; choose another name, or save a new version of it.")
    problems = validate_preset(preset)
    if problems:
        raise ConfigError(f"The preset has problems and was not saved: {problems[0]}")
    return dump_preset(replace(preset, name=name, builtin=False))
