"""Prompt presets: plain TOML files a person can edit, validated by the same parser that reads the model.

A preset holds ``instructions`` (with a ``{tools}`` placeholder for the enabled tools' descriptions), ``examples``
(worked trajectories in the preset's dialect), a ``question`` template (must contain ``{question}``) and a ``[tools]``
table of per-dialect tool descriptions. Shipped presets live in ``prompts/``; presets a person saves go to a user folder
and never overwrite a shipped one. Placeholders are replaced literally (no ``str.format``), so examples may contain
braces.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from react_core.base import tool_specs
from react_core.base.errors import ConfigError
from react_core.base.paths import BUILTIN_PRESETS_DIR, presets_dir, shared_data_dir
from react_core.base.tool_specs import TOOL_ORDER
from react_core.base.trace import Action, Exchange, Step, current_names
from react_core.dialects import DIALECTS, get_dialect
from react_core.dialects.base import Dialect, example_action

DEFAULT_PRESET = "paper"
MODES = ("react", "standard", "cot")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass
class Preset:
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


def preset_from_toml(text: str, name: str, *, where: str, builtin: bool = False) -> Preset:
    """A preset from its TOML text (a file's, or one kept in a person's history); ``where`` names it in errors and
    is its ``path``."""
    try:
        data = tomllib.loads(text)
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
    )


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
        return current_names(tomllib.loads(path.read_text(encoding="utf-8"))).get(key, default)
    except (OSError, tomllib.TOMLDecodeError):
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


def default_preset_for(dialect_name: str) -> str:
    """The shipped preset written in a format (the one named after the format when there are several)."""
    paths = preset_paths()
    if dialect_name in paths and paths[dialect_name][1]:
        return dialect_name
    for name, (path, builtin) in paths.items():
        # Only the format key is read: a preset that reads its examples from shared data need not be loadable here.
        if builtin and _read_key(path, "dialect") == dialect_name:
            return name
    raise ConfigError(f"No shipped preset is written in dialect {dialect_name!r}.")


def _toml_string(value: str) -> str:
    if "'''" not in value and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", value):
        return "'''\n" + value + "'''"  # a newline right after ''' is dropped by TOML, so this reads back exactly
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def dump_preset(preset: Preset) -> str:
    lines = [
        f"title = {_toml_string(preset.title or preset.name)}",
        f"dialect = {json.dumps(preset.dialect)}",
        f"mode = {json.dumps(preset.mode)}",
        f"description = {_toml_string(preset.description)}",
        f"question = {json.dumps(preset.question, ensure_ascii=False)}",
        f"instructions = {_toml_string(preset.instructions)}",
        f"examples = {_toml_string(preset.examples)}",
        "",
        "[tools]",
    ]
    lines += [f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in preset.tools.items()]
    return "\n".join(lines) + "\n"


def check_new_preset(preset: Preset, name: str) -> str:
    """The TOML text to save ``preset`` under ``name``; ConfigError when the name or the prompt is not acceptable.
    Shipped presets are never overwritten."""
    if not _NAME.match(name):
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


# -- rendering ------------------------------------------------------------------------------------------


def tools_block(preset: Preset, tool_names: list[str]) -> str:
    """The enabled tools' descriptions, numbered as in the paper, Finish last. A preset's own wording wins; a tool
    it does not describe gets its call in the preset's dialect and the tool's own description."""
    fmt = get_dialect(preset.dialect)
    descriptions = []
    for name in [t for t in TOOL_ORDER if t in tool_names] + [t for t in tool_names if t not in TOOL_ORDER]:
        spec = tool_specs.spec(name)
        fallback = fmt.render_action(example_action(name)) + (f": {spec.description}" if spec else "")
        descriptions.append(preset.tools.get(name) or fallback)
    finish = tool_specs.FINISH
    descriptions.append(
        preset.tools.get("finish") or f"{fmt.render_action(None, finish.example)}: {finish.description}"
    )
    return "\n".join(f"({i}) {d}" for i, d in enumerate(descriptions, 1))


def render_prefix(preset: Preset, tool_names: list[str]) -> str:
    """Instructions and examples: the part of the prompt that never changes during a run."""
    text = preset.instructions.replace("{tools}", tools_block(preset, tool_names)).rstrip("\n")
    text = text + "\n" if text else ""
    if preset.examples.strip():
        text += preset.examples.strip("\n") + "\n"
    return text


def render_question(preset: Preset, question: str, context: list[Exchange] | tuple[Exchange, ...] = ()) -> str:
    """The question block, after the earlier questions and answers of the conversation (for follow-ups)."""
    out = ""
    if context:
        out = (
            "Earlier in this conversation:\n"
            + "".join(
                f"Q: {' '.join(t.question.split())}\nA: {' '.join((t.answer or '(no answer)').split())}\n"
                for t in context
            )
            + "\n"
        )
    return out + preset.question.replace("{question}", question.strip())


# -- validation -----------------------------------------------------------------------------------------


@dataclass
class Problem:
    field: str
    line: int  # 1-based line within that field; 0 when the problem is the field as a whole
    message: str
    text: str = ""

    def __str__(self) -> str:
        where = f"{self.field} line {self.line}" if self.line else self.field
        return f"{where}: {self.message}" + (f" — `{self.text[:80]}`" if self.text else "")


def example_chunks(fmt: Dialect, examples: str) -> list[tuple[int, str]]:
    """The pieces of the examples a model would write (thought + action), each with its first line number.

    A piece starts at a turn header (``Thought``/``Step``) and runs until the next Observation or Question.
    """
    chunks: list[tuple[int, str]] = []
    current: list[str] | None = None
    start = 0
    for no, line in enumerate(examples.split("\n"), 1):
        if fmt.observation_header.match(line) or fmt.question_header.match(line):
            if current is not None:
                chunks.append((start, "\n".join(current)))
            current = None
        elif current is None and (fmt.turn_header.match(line) or _looks_like_action(line)):
            current, start = [line], no
        elif current is not None:
            current.append(line)
    if current is not None:
        chunks.append((start, "\n".join(current)))
    return chunks


def _looks_like_action(line: str) -> bool:
    # Act-only prompts (the paper's webact) have no thoughts: the action line starts the piece.
    return bool(re.match(r"^\s*Action\b", line, re.IGNORECASE))


def _action_line(chunk: str, thought: str | None = None) -> tuple[int, str]:
    """Where an example step's action is, as an offset from the step's first line, and the action's text on one
    line: the first line after its ``thought`` when the step parsed (the thought may span lines), else the first line
    after the step's first one (an Act-only step has no thought: then its first line)."""
    lines = chunk.split("\n")
    end, want = 0, _squash(thought or "")
    if want:
        end = next((i for i in range(len(lines)) if want in _squash(" ".join(lines[: i + 1]))), 0)
    rest = [i for i in range(end + 1, len(lines)) if lines[i].strip()]
    if not rest or (thought is not None and not want):
        return 0, lines[0].strip()
    action = [ln.strip() for ln in lines[rest[0] :] if ln.strip() and ln.strip() != "PAUSE" and ln.strip() != "```"]
    return rest[0], " ".join(action)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _action_problem(fmt: Dialect, chunk: str, action: Action | None, answer: str | None, tools: set[str]) -> str:
    """Why an example step that parses is still not one to teach: a tool that is not there, or an action not in the
    dialect's own form. A model's looser forms (``Search Pierrepont Noyes``) are read, but the model copies what the
    examples show, so they must be written as the dialect writes an action (and reads it back the same)."""
    if action is not None and action.tool not in tools:
        usable = [tool_specs.label(t) for t in TOOL_ORDER if t in tools]
        known = "is not enabled" if action.tool in TOOL_ORDER else "is not a tool"
        return f"{tool_specs.label(action.tool)} {known}: an example may call {', '.join(usable)} or Finish"
    why = fmt.unrenderable(action, answer)
    if why:
        return why
    written = fmt.render_action(action, answer)
    # What the dialect writes after the action (the pause dialect's PAUSE line) belongs at the step's end too.
    model_part = _squash(fmt.render_model_part(Step(1, thought="Go.", action=action, final_answer=answer)))
    ending = _squash(written) + model_part.rsplit(_squash(written), 1)[-1]
    if not _squash(chunk).endswith(ending):
        return f"write the action as the {fmt.name} dialect writes it: {written}"
    return ""


def validate_preset(
    preset: Preset, tools: Iterable[str] | None = None, *, since: Preset | None = None
) -> list[Problem]:
    """The preset's problems, each with its field and line. ``tools``: the tools an example step may call (default:
    every tool there is; the prompt editor passes the enabled ones). A step word for word in ``since``'s examples (the
    preset an edit started from) is not held to ``tools``: a shipped preset stays valid whatever tools are off."""
    problems: list[Problem] = []
    if preset.dialect not in DIALECTS:
        return [Problem("dialect", 0, f"unknown dialect {preset.dialect!r}; choose one of {', '.join(DIALECTS)}")]
    if preset.question.count("{question}") != 1:
        problems.append(Problem("question", 0, "must contain the {question} placeholder exactly once"))
    fmt = get_dialect(preset.dialect)
    if not fmt.native_tools and not preset.question.endswith("\n"):
        # Without it the prompt reads "Question: …?Thought 1:", the question and the first step on one line.
        problems.append(Problem("question", 0, "must end with a line break: the model's first step starts after it"))
    if preset.mode != "react":
        if "Answer:" not in preset.examples:
            problems.append(Problem("examples", 0, "a direct-answer prompt needs examples ending in `Answer: …`"))
        return problems
    if not preset.instructions.strip():
        problems.append(Problem("instructions", 0, "must not be empty"))
    allowed = set(TOOL_ORDER if tools is None else tools)
    same = since is not None and since.dialect == fmt.name
    kept = {_squash(c) for _, c in example_chunks(fmt, since.examples)} if same else set()
    chunks = example_chunks(fmt, preset.examples)
    if preset.examples.strip() and not chunks:
        problems.append(Problem("examples", 0, "no example steps found (each starts with a Thought line)"))
    for line, chunk in chunks:
        result = fmt.parse(chunk)
        if result.leaked_observation and not result.error:
            problems.append(Problem("examples", line, "an Observation is inside the model's part", chunk))
            continue
        usable = set(TOOL_ORDER) if _squash(chunk) in kept else allowed
        why = result.error or _action_problem(fmt, chunk, result.action, result.final_answer, usable)
        if why:
            offset, text = _action_line(chunk, None if result.error else result.thought)
            problems.append(Problem("examples", line + offset, why, text))
    return problems
