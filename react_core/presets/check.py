"""Checking a preset with the same parser that reads the model: every example step must read back as an action of
an enabled tool, written as the dialect writes it, or a final answer; the question template must hold
``{question}`` once and end its line."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from react_core.base import tool_specs
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import Action, Step
from react_core.dialects import DIALECTS, get_dialect
from react_core.dialects.base import Dialect, ParseResult
from react_core.presets.preset import MAX_DYNAMIC, Preset

__all__ = ["Problem", "check_action", "example_chunks", "validate_preset"]


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
        usable = [tool_specs.ToolSpec.label_of(t) for t in tool_specs.ordered_tools(tools)]
        # A name an MCP server's tool could have is a tool, just not one enabled here (the preset's [run] tools).
        known = "is not enabled" if tool_specs.is_tool_name(action.tool) else "is not a tool"
        return f"{tool_specs.ToolSpec.label_of(action.tool)} {known}: an example may call {', '.join(usable)} or Finish"
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
    the built-in ones and the MCP tools the preset's own ``[run] tools`` enable; the prompt editor passes the enabled
    ones). A step word for word in ``since``'s examples (the preset an edit started from) is not held to ``tools``: a
    shipped preset stays valid whatever tools are off."""
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
        if not (preset.examples.strip() or preset.instructions.strip()):
            problems.append(Problem("examples", 0, "a direct-answer prompt needs examples or instructions"))
        elif preset.examples.strip() and "Answer:" not in preset.examples:
            # A fine-tuned model's prompt has none (it learned the shape); examples there must show it.
            problems.append(Problem("examples", 0, "a direct-answer prompt's examples must end in `Answer: …`"))
        return problems
    if not preset.instructions.strip() and (not preset.examples.strip() or preset.dynamic_examples):
        # The paper's FEVER prompts carry their instructions in their first lines, as its notebook sends them; a
        # chosen subset of examples (dynamic examples) could lose those lines.
        why = "must not be empty, unless every example is sent and they open with them"
        problems.append(Problem("instructions", 0, why))
    if not 0 <= preset.dynamic_examples <= MAX_DYNAMIC:
        problems.append(Problem("dynamic_examples", 0, f"must be a whole number from 0 (off) to {MAX_DYNAMIC}"))
    allowed = set([*ToolSpec.ORDER, *(preset.run_tools or ())] if tools is None else tools)
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
        usable = set(ToolSpec.ORDER) if _squash(chunk) in kept else allowed
        why = result.error or _action_problem(fmt, chunk, result.action, result.final_answer, usable)
        if why:
            offset, text = _action_line(chunk, None if result.error else result.thought)
            problems.append(Problem("examples", line + offset, why, text))
    return problems


def check_action(fmt: Dialect, text: str, tools: Iterable[str]) -> tuple[ParseResult, Problem | None]:
    """An action a person typed (step mode's Edit action), read by the dialect's own parser and held to the rules of
    an example step: an enabled tool or Finish, written as the dialect writes it. The problem reads as the prompt
    editor's do."""
    result = fmt.parse(text)
    why = result.error
    if not why and result.action is None and result.final_answer is None:
        why = "no action found"
    if not why:
        why = _action_problem(fmt, text, result.action, result.final_answer, set(tools))
    return result, (Problem("action", 1, why, text.strip()) if why else None)
