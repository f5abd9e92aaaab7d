"""Prompt presets: plain TOML files a person can edit, validated by the same parser that reads the model.

A preset holds ``instructions`` (with a ``{tools}`` placeholder for the enabled tools' descriptions), ``examples``
(worked trajectories in the preset's dialect), a ``question`` template (must contain ``{question}``) and a ``[tools]``
table of per-dialect tool descriptions. Shipped presets live in ``prompts/``; presets a person saves go to a user folder
and never overwrite a shipped one. Placeholders are replaced literally (no ``str.format``), so examples may contain
braces.
"""

from __future__ import annotations

import copy
import functools
import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from react_core.base.errors import ConfigError
from react_core.base.nesting import TooDeep, loads_toml
from react_core.base.paths import BUILTIN_PRESETS_DIR, presets_dir, shared_data_dir
from react_core.base.recorded_settings import current_names
from react_core.base.tool_specs import ToolSpec, is_tool_name, ordered_tools
from react_core.dialects import DIALECTS

__all__ = [
    "MAX_DYNAMIC",
    "MODES",
    "NAME",
    "Preset",
    "dump_preset",
    "list_presets",
    "load_preset",
    "load_preset_file",
    "preset_dialect",
    "preset_from_toml",
    "preset_paths",
]

MAX_DYNAMIC = 20  # dynamic examples a version may ask for (``dynamic_examples = k``)

MODES = ("react", "standard", "cot")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass
class Preset:
    DEFAULT: ClassVar[str] = "paper"  # the shipped preset a run falls back on, written in the dialect of that name
    MAX_DYNAMIC: ClassVar[int] = MAX_DYNAMIC

    name: str
    dialect: str
    instructions: str
    examples: str = ""
    question: str = ""
    tools: dict[str, str] = field(default_factory=dict)
    title: str = ""
    description: str = ""
    builtin: bool = False
    path: str = ""
    # "react": an agent prompt (Thought/Action/Observation). "standard" and "cot": direct-answer prompts used by the
    # evaluation strategies of the paper (Answer: … / Thought: … Answer: …); they are not offered for chat.
    mode: str = "react"
    # The version of its line this prompt is (``react_core.presets.versions``): 1 for a shipped preset, the saved
    # number for a person's own; 0 for a prompt that is no saved version (an unsaved edit, a file given by path).
    version: int = 0
    # Where examples taken from runs came from: an example's question line -> the run id ("Use as example").
    example_sources: dict[str, int] = field(default_factory=dict)
    # Dynamic examples (``react_core.presets.dynamic``): for each question, the k examples most like it replace the
    # fixed set; 0 = every example, always.
    dynamic_examples: int = 0
    # The rest of the agent setup a version keeps (the ``[run]`` table): the tools enabled and whether decoding is
    # constrained by the dialect's grammar. None: the version does not say (a shipped preset), the settings decide.
    # The stop sequences are the dialect's.
    run_tools: list[str] | None = None
    grammar: bool | None = None

    @property
    def ref(self) -> str:
        """The version's address (``name@3``), or '' when this prompt is no saved version."""
        return f"{self.name}@{self.version}" if self.version else ""

    def with_setup(self, tools: Iterable[str], grammar: bool) -> Preset:
        """This prompt keeping the agent setup ``tools`` and ``grammar``, as a saved version keeps it."""
        return replace(self, run_tools=ordered_tools(tools), grammar=bool(grammar))

    def runs_as(self, tools: Iterable[str], grammar: bool) -> bool:
        """Whether settings with ``tools`` and ``grammar`` run this version as it says; a version that does not say
        runs as the settings' defaults do (every built-in tool, the grammar on: ``RunSettings``)."""
        kept = self.run_tools if self.run_tools is not None else list(ToolSpec.ORDER)
        wanted = self.grammar if self.grammar is not None else True
        return ordered_tools(tools) == ordered_tools(kept) and bool(grammar) == wanted

    @classmethod
    def default_for(cls, dialect_name: str) -> str:
        """The name of the shipped preset written in a dialect (the one named after the dialect when there are
        several)."""
        paths = preset_paths()
        if dialect_name in paths and paths[dialect_name][1]:
            return dialect_name
        for name, (path, builtin) in paths.items():
            # Only the dialect key is read: a preset that reads its examples from shared data need not be loadable.
            if builtin and _read_key(path, "dialect") == dialect_name:
                return name
        raise ConfigError(f"No shipped preset is written in dialect {dialect_name!r}.")

    def __post_init__(self) -> None:
        if not self.question:
            self.question = DIALECTS[self.dialect].question_template if self.dialect in DIALECTS else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dialect": self.dialect,
            "title": self.title,
            "description": self.description,
            "instructions": self.instructions,
            "examples": self.examples,
            "question": self.question,
            "tools": dict(self.tools),
            "builtin": self.builtin,
            "path": self.path,
            "mode": self.mode,
            "version": self.version,
            "example_sources": dict(self.example_sources),
            "dynamic_examples": self.dynamic_examples,
            "run_tools": None if self.run_tools is None else list(self.run_tools),
            "grammar": self.grammar,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Preset:
        keys = (
            "name",
            "dialect",
            "instructions",
            "examples",
            "question",
            "tools",
            "title",
            "description",
            "builtin",
            "path",
            "mode",
            "version",
            "example_sources",
            "dynamic_examples",
            "run_tools",
            "grammar",
        )
        d = current_names(d)
        return cls(**{k: d[k] for k in keys if k in d})


# -- files ----------------------------------------------------------------------------------------------


def _read_examples_from(ref: str) -> str:
    """``react-prompts/prompts_naive.json#webthink_simple6``: the paper's prompts, read in place, never copied."""
    rel, _, key = ref.partition("#")
    path = shared_data_dir() / rel
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data[key]
    except (OSError, ValueError, KeyError) as e:
        raise ConfigError(
            f"This preset reads {ref} from the shared data folder ({path}), which is not available ({e}). "
            "Set REACT_SHARED_DATA to the folder holding react-prompts/."
        ) from None


def load_preset_file(path: str | Path, *, builtin: bool = False) -> Preset:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"Cannot read preset {path}: {e.strerror or e}.") from None
    return preset_from_toml(text, path.stem, where=str(path), builtin=builtin)


@functools.lru_cache(maxsize=128)
def _parsed(text: str) -> dict[str, Any]:
    return loads_toml(text)  # a file nested hundreds of levels deep is refused, never a RecursionError


def _toml(text: str) -> dict[str, Any]:
    """The TOML text parsed, once per text: a page lists a dozen presets on every run (a copy, never the cached one)."""
    return copy.deepcopy(_parsed(text))


def preset_from_toml(text: str, name: str, *, where: str, builtin: bool = False) -> Preset:
    """A preset from its TOML text (a file's, or one kept in a person's history); ``where`` names it in errors and
    is its ``path``."""
    try:
        data = _toml(text)
    except TooDeep as e:
        raise ConfigError(f"Preset {where} was refused: {e}.") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"Preset {where} is not valid TOML: {e}.") from None
    data = current_names(data)
    fmt = data.get("dialect")
    if fmt not in DIALECTS:
        raise ConfigError(f"Preset {where} needs dialect = one of {', '.join(DIALECTS)} (got {fmt!r}).")
    mode = data.get("mode", "react")
    if mode not in MODES:
        raise ConfigError(f"Preset {where} has mode {mode!r}; use one of {', '.join(MODES)}.")
    examples = data.get("examples", "")
    sources = data.get("example_sources", {})
    if not isinstance(sources, dict) or not all(type(v) is int and v > 0 for v in sources.values()):
        raise ConfigError(f"Preset {where} has example_sources that are not question = run id.")
    dynamic = data.get("dynamic_examples", 0)
    if type(dynamic) is not int or not 0 <= dynamic <= MAX_DYNAMIC:
        raise ConfigError(
            f"Preset {where} has dynamic_examples = {dynamic!r}; use a whole number from 0 to {MAX_DYNAMIC}."
        )
    run_tools, grammar = _run_table(data.get("run", {}), where)
    if data.get("examples_from"):
        examples = _read_examples_from(data["examples_from"])
    return Preset(
        name=name,
        dialect=fmt,
        instructions=data.get("instructions", ""),
        examples=examples,
        question=data.get("question", ""),
        tools={k: str(v) for k, v in data.get("tools", {}).items()},
        title=data.get("title", name),
        description=data.get("description", ""),
        builtin=builtin,
        path=where,
        mode=mode,
        version=1 if builtin else 0,
        example_sources={str(k): int(v) for k, v in sources.items()},
        dynamic_examples=dynamic,
        run_tools=run_tools,
        grammar=grammar,
    )


def _run_table(run: Any, where: str) -> tuple[list[str] | None, bool | None]:
    """The ``[run]`` table's tools and grammar (None where it does not say)."""
    if not isinstance(run, dict):
        raise ConfigError(f"Preset {where} has a run key that is not a [run] table.")
    tools, grammar = run.get("tools"), run.get("grammar")
    if tools is not None and not (isinstance(tools, list) and all(is_tool_name(t) for t in tools)):
        raise ConfigError(
            f"Preset {where} has [run] tools that are not among {', '.join(ToolSpec.ORDER)} or an MCP server's tools "
            "(server_tool, e.g. git_git_status)."
        )
    if grammar is not None and not isinstance(grammar, bool):
        raise ConfigError(f"Preset {where} has [run] grammar = {grammar!r}; use true or false.")
    return (None if tools is None else list(tools)), grammar


def preset_paths() -> dict[str, tuple[Path, bool]]:
    """Every preset by name: shipped ones first; a user preset never shadows a shipped name."""
    found: dict[str, tuple[Path, bool]] = {p.stem: (p, True) for p in sorted(BUILTIN_PRESETS_DIR.glob("*.toml"))}
    user = presets_dir()
    if user.is_dir():
        for p in sorted(user.glob("*.toml")):
            found.setdefault(p.stem, (p, False))
    return found


def list_presets(mode: str | None = None) -> list[str]:
    """Preset names; with ``mode``, only those of that mode (the chat offers the ``react`` ones)."""
    paths = preset_paths()
    if mode is None:
        return list(paths)
    return [name for name, (path, _builtin) in paths.items() if _read_key(path, "mode", "react") == mode]


def _read_key(path: Path, key: str, default: str = "") -> str:
    try:
        return current_names(_toml(path.read_text(encoding="utf-8"))).get(key, default)
    except (OSError, ValueError):  # unreadable, not UTF-8, not TOML, nested too deep: it is listed, and says why
        return default


def load_preset(name_or_path: str) -> Preset:
    """A preset by name (shipped or saved) or by path to a .toml file."""
    paths = preset_paths()
    if name_or_path in paths:
        path, builtin = paths[name_or_path]
        return load_preset_file(path, builtin=builtin)
    if name_or_path.endswith(".toml") and Path(name_or_path).is_file():
        return load_preset_file(name_or_path)
    raise ConfigError(f"Unknown preset {name_or_path!r}: choose one of {', '.join(paths)} or give a .toml path.")


def preset_dialect(name: str) -> str:
    """The dialect a shipped or saved preset is written in ('' when there is no such preset)."""
    found = preset_paths().get(name)
    return _read_key(found[0], "dialect") if found else ""


def _toml_string(value: str) -> str:
    if "'''" not in value and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", value):
        return "'''\n" + value + "'''"  # a newline right after ''' is dropped by TOML, so this reads back exactly
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _key(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def dump_preset(preset: Preset) -> str:
    lines = [
        f"title = {_toml_string(preset.title or preset.name)}",
        f"dialect = {json.dumps(preset.dialect)}",
        f"mode = {json.dumps(preset.mode)}",
        f"description = {_toml_string(preset.description)}",
        f"question = {json.dumps(preset.question, ensure_ascii=False)}",
        f"instructions = {_toml_string(preset.instructions)}",
        f"examples = {_toml_string(preset.examples)}",
        *([f"dynamic_examples = {int(preset.dynamic_examples)}"] if preset.dynamic_examples else []),
        "",
    ]
    if preset.run_tools is not None or preset.grammar is not None:
        lines += ["# The agent setup this version runs with (picked in Settings, these become the settings).", "[run]"]
        if preset.run_tools is not None:
            lines.append(f"tools = {json.dumps(list(preset.run_tools))}")
        if preset.grammar is not None:
            lines.append(f"grammar = {'true' if preset.grammar else 'false'}")
        lines.append("")
    lines += [
        "[tools]",
    ]
    lines += [f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in preset.tools.items()]
    if preset.example_sources:
        lines += ["", "# Examples taken from runs: an example's question line = the run's id in History."]
        lines += ["[example_sources]"]
        lines += [f"{_key(k)} = {int(v)}" for k, v in preset.example_sources.items()]
    return "\n".join(lines) + "\n"
