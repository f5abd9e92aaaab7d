"""Prompt versions: how one is addressed (``name@3``, ``name@label``, or ``name`` for the newest), and a version as one
TOML file to export and import.

A line of versions has a name (a preset's name); each save adds the next number and never changes an earlier one; a
shipped preset is version 1 of its own line. Labels (``lesson-step-2``, ``best-on-gemma``) point at one version of a
line and can be moved. This module is the one home of that address syntax: the store, the app and the command line
all read an address with ``VersionRef.parse``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

from react_core.base.errors import ConfigError
from react_core.base.nesting import TooDeep, loads_toml
from react_core.presets.check import Problem, validate_preset
from react_core.presets.preset import NAME, Preset, dump_preset, preset_from_toml

__all__ = [
    "LABEL",
    "MAX_NUMBER",
    "VersionRef",
    "check_label",
    "check_name",
    "export_version",
    "field_line",
    "file_problem",
    "import_version",
]

# A label starts with a letter, so ``name@3`` is always a number and ``name@v3`` always a label.
LABEL = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
MAX_NUMBER = 1_000_000_000
_NUMBER = re.compile(r"[1-9][0-9]{0,9}")  # ASCII digits only: str.isdigit() also takes "٣" and "²"


@dataclass(frozen=True)
class VersionRef:
    """An address: a line's ``name`` and either a ``number``, a ``label`` or neither (the newest version)."""

    name: str
    number: int | None = None
    label: str = ""

    def __str__(self) -> str:
        if self.number is not None:
            return f"{self.name}@{self.number}"
        return f"{self.name}@{self.label}" if self.label else self.name

    @property
    def choice(self) -> str:
        """What the address names after its line: the number as text, the label, or '' (the newest)."""
        return str(self.number) if self.number is not None else self.label

    @classmethod
    def parse(cls, text: str) -> VersionRef:
        """``name``, ``name@3`` or ``name@label`` as a VersionRef; ConfigError for anything else."""
        if not isinstance(text, str):
            raise ConfigError("A prompt version is written name, name@3 or name@label.")
        name, at, tail = text.strip().partition("@")
        check_name(name)
        if not at:
            return cls(name)
        if _NUMBER.fullmatch(tail):
            number = int(tail)
            if number > MAX_NUMBER:
                raise ConfigError(f"Version {tail[:20]} of {name!r} is past the last possible version.")
            return cls(name, number=number)
        if tail[:1].isdigit() or tail[:1] == "-":
            raise ConfigError(f"{text.strip()[:80]!r}: a version number is 1 or more, written in digits.")
        return cls(name, label=check_label(tail))

    @classmethod
    def of(cls, name: str, choice: str | int = "") -> VersionRef:
        """Line ``name``'s version ``choice`` (a number or a label; '' for the newest), checked."""
        return cls.parse(f"{name}@{choice}") if choice != "" else cls(check_name(name))


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ConfigError(
            f"{str(name)[:80]!r} is not a prompt name: letters, digits, '-', '_' or '.', up to 64 characters, "
            "starting with a letter or digit."
        )
    return name


def check_label(label: str) -> str:
    if not isinstance(label, str) or not LABEL.fullmatch(label):
        raise ConfigError(
            f"{str(label)[:80]!r} is not a label: a letter, then letters, digits, '-', '_' or '.', up to 64 characters."
        )
    return label


# -- one version as one file ------------------------------------------------------------------------------------


def export_version(preset: Preset, ref: str) -> str:
    """A version as one TOML file: the preset as ``dump_preset`` writes it, headed by the address it came from."""
    return f"# ReAct Lab prompt version {ref}\n" + dump_preset(preset)


def import_version(text: str | bytes, name: str, tools=None) -> Preset:
    """A version file read and checked as a save is checked; ConfigError with the reason and the file's line."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ConfigError(f"The file is not UTF-8 text (byte {e.start}).") from None
    check_name(name)
    try:
        loads_toml(text)
    except TooDeep as e:
        raise ConfigError(f"The file was not imported: {e}.") from None
    except tomllib.TOMLDecodeError as e:  # its message names the line and the column
        raise ConfigError(f"The file was not imported: it is not valid TOML: {e}.") from None
    try:
        preset = preset_from_toml(text, name, where="file")
    except ConfigError as e:
        raise ConfigError(f"The file was not imported: it {str(e).removeprefix('Preset file ')}") from None
    problems = validate_preset(preset, tools)
    if problems:
        raise ConfigError(f"The file was not imported: {file_problem(text, problems[0])}")
    return preset


def file_problem(text: str, problem: Problem) -> str:
    """A problem of one field said at the file's line (the field's line within its value, counted from the file)."""
    start = field_line(text, problem.field)
    if not start or not problem.line:
        return f"line {start}: {problem}" if start else str(problem)
    return f"line {start + problem.line - 1}: {problem.message}" + (f" — `{problem.text[:80]}`" if problem.text else "")


def field_line(text: str, key: str) -> int:
    """The file line where the value of top-level ``key`` starts (the line after an opening ``'''``/``\"\"\"`` that
    ends its own line, as TOML drops that first newline); 0 when the key is not there."""
    for no, line in enumerate(text.split("\n"), 1):
        m = re.match(rf"\s*{re.escape(key)}\s*=\s*(.*)$", line)
        if m:
            value = m.group(1).rstrip()
            return no + 1 if value in ("'''", '"""') else no
        if line.lstrip().startswith("["):  # a table: the top-level keys are behind us
            break
    return 0
