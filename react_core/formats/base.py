"""What every action format (dialect) shares: the parse result, the contract, and the lenient clean-up.

A format owns its action syntax, its parser, its stop sequences, how a past step is written back into the prompt
and how an observation is fed back. The parsers never raise on model text: any string gives a ParseResult, with
``error`` set when no action or final answer could be read. Depends only on ``react_core.trace``.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from typing import Any

from react_core import tool_specs
from react_core.trace import Action, Step

# Canonical tool names and the argument name each takes in call-style dialects.
TOOL_PARAMS = {name: spec.param for name, spec in tool_specs.SPECS.items()}
FINISH = tool_specs.FINISH.name

# Model text longer than this is not worth reading in full; the cap keeps every parser linear and fast.
MAX_PARSE_CHARS = 20_000
MAX_INPUT_CHARS = 2_000

_LABELS = r"(?:Thought|Action|Observation|Final Answer|Answer|Question|Step|Action Input)"
# "**Thought 1:**", "*Action*:", "__Observation__" at the start of a line -> the bare label. Only there: an input
# such as Search[*Thought*] keeps its asterisks.
_BOLD_LABEL = re.compile(
    r"^([ \t]*)(\*{1,2}|_{2})[ \t]*(" + _LABELS + r"(?:[ \t]*\d+)?[ \t]*:?)[ \t]*\2",
    re.IGNORECASE | re.MULTILINE,
)
# "**Action 1: Search[x]**" (the whole line in bold) -> "Action 1: Search[x]".
_BOLD_LINE = re.compile(
    r"^([ \t]*)(\*{1,2}|_{2})(" + _LABELS + r"\b[^\n]*?)(?:\2)?[ \t]*$", re.IGNORECASE | re.MULTILINE
)
# [ \t] rather than \s: a \s* that can run across newlines makes this quadratic on blank-line floods.
_FENCE_LINE = re.compile(r"^[ \t]*```[\w-]*[ \t]*$", re.MULTILINE)
# A line where the model started writing the environment's part: its own Observation (a leak) or a new Question.
_OBSERVATION_LINE = re.compile(r"^[ \t>*_#]*Observation\b", re.IGNORECASE | re.MULTILINE)
_QUESTION_LINE = re.compile(r"^[ \t>*_#]*(?:Question|Claim)\b[ \t\d]*(?::|$)", re.IGNORECASE | re.MULTILINE)
# A "Thought 2:" label a model repeated at the start of a later line of the same thought.
_THOUGHT_LABEL_LINE = re.compile(
    r"^[ \t]*Thought\b(?:[ \t]*\d+[ \t]*:?|[ \t]*:|[ \t]*$)[ \t]*", re.IGNORECASE | re.MULTILINE
)
# Where a multi-line final answer stops: the model went on to write another step.
_NEXT_STEP_LINE = re.compile(
    r"^[ \t]*(?:(?:Thought|Action|Step)\b[ \t]*\d*[ \t]*[:.]?[ \t]*$|(?:Thought|Action)\b[ \t]*\d*[ \t]*:)",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass
class ParseResult:
    thought: str = ""
    action: Action | None = None
    final_answer: str | None = None
    error: str | None = None
    leaked_observation: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The stable shape printed by ``python -m react_core parse``."""
        return {
            "thought": self.thought,
            "action": self.action.to_dict() if self.action else None,
            "final_answer": self.final_answer,
            "error": self.error,
        }


def example_action(tool: str) -> Action:
    """The tool called with its example input, as error messages and tool lists show it."""
    return Action(tool, tool_specs.example(tool))


def normalize(text: str) -> str:
    """Undo the harmless sloppiness of models: CRLF, markdown bold around labels, NUL bytes."""
    text = text[:MAX_PARSE_CHARS].replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = _BOLD_LABEL.sub(r"\1\3", text)
    return _BOLD_LINE.sub(r"\1\3", text)


def cut_environment(text: str, start: int = 0) -> tuple[str, bool]:
    """Cut where the model began writing an Observation (a leak, flagged) or invented a new Question.

    Only lines after ``start`` count, so a format can protect text it already read. A question the model restated
    at the very beginning of its reply is protected too: it is before the thought, not after the action.
    """
    first = _QUESTION_LINE.search(text, start)
    if first and not text[start : first.start()].strip():
        newline = text.find("\n", first.end())
        start = len(text) if newline < 0 else newline + 1
    cut = len(text)
    leaked = False
    m = _OBSERVATION_LINE.search(text, start)
    if m:
        cut, leaked = m.start(), True
    q = _QUESTION_LINE.search(text, start)
    if q and q.start() < cut:
        cut, leaked = q.start(), False
    return text[:cut], leaked


def strip_fences(text: str) -> str:
    return _FENCE_LINE.sub("", text)


def clean_input(value: str) -> str:
    """An action input as a tool should see it: one line of trimmed text, quotes and backticks removed."""
    value = " ".join(value.split())
    # Strip every matching pair (```x``` or "'x'"), so cleaning twice changes nothing.
    while len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'`":
        value = value[1:-1].strip()
    return value[:MAX_INPUT_CHARS]


def strip_label(thought: str, label: str = "Thought") -> str:
    """Remove a leading "Thought 3:" (or "Thought 3" on its own line) that the model repeated.

    For the default label, "Thought k:" labels at the start of later lines go too: a model that wrote two thoughts
    in a row wrote one longer thought.
    """
    t = thought.strip()
    # "Thought 3:", "Thought:", "Thought 3" or "Thought" alone on its line; not "Thought experiments show …".
    m = re.match(r"^" + label + r"\b(?:[ \t]*\d+[ \t]*:?|[ \t]*:|[ \t]*(?=\n)|[ \t]*$)\s*", t, re.IGNORECASE)
    if m:
        t = t[m.end() :]
    if label == "Thought":
        t = _THOUGHT_LABEL_LINE.sub("", t)
    return t.strip()


def answer_text(text: str) -> str:
    """A final answer written after a label: everything up to a line where the model began another step.

    The rest of the label's own line is always part of the answer (``Answer: Thought`` answers "Thought").
    """
    first_newline = text.find("\n")
    m = _NEXT_STEP_LINE.search(text, first_newline + 1) if first_newline >= 0 else None
    return (text[: m.start()] if m else text).strip()


def balanced_span(
    text: str, start: int, opening: str, closing: str, *, stop_at_newline: bool = False, limit: int | None = None
) -> str:
    """The text from ``start`` to the ``closing`` that balances the first ``opening`` (quoted text and escapes
    respected). Unbalanced: to the end of the text (or of the line with ``stop_at_newline``, or ``limit`` chars)."""
    depth, quote, i = 0, "", start
    end = len(text) if limit is None else min(len(text), start + limit)
    while i < end:
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
        elif c == "\n" and depth == 0 and stop_at_newline:
            break
        i += 1
    return text[start:i]


def parse_python(source: str) -> ast.expr:
    """``source`` as one Python expression tree, for literal reading only (nothing is ever compiled or run).

    The compiler's warnings (an invalid escape such as ``"a\\ b"``) are silenced: they would reach the person's log,
    or raise under ``-W error``, for what is only a model's sloppy string.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, mode="eval").body


class ActionFormat:
    """The contract of a dialect. Subclasses set the class attributes and implement ``parse`` and rendering."""

    name: str = ""
    label: str = ""
    # Sent to the provider and enforced locally. The first ones matter most: providers cap how many they take.
    stop: tuple[str, ...] = ()
    # Names a model may write for a tool, mapped to the canonical name (case-insensitive).
    aliases: dict[str, str] = {}
    # Replies are native tool calls and requests a conversation (the ``tools`` format); only providers with
    # ``native_tools`` can run it.
    native_tools: bool = False
    # How the question is introduced in the prompt (a preset may override it); must contain {question}.
    question_template: str = "Question: {question}\n"
    # Line patterns used to split few-shot examples into the pieces a model writes (see prompts.example_chunks).
    observation_header = re.compile(r"^\s*Observation\b", re.IGNORECASE)
    question_header = re.compile(r"^\s*(?:Question|Claim)\b", re.IGNORECASE)
    turn_header = re.compile(r"^\s*Thought\b", re.IGNORECASE)

    def resolve(self, tool: str) -> str:
        t = tool.strip().lower()
        return self.aliases.get(t, t)

    def is_tool_name(self, word: str) -> bool:
        """Whether a word names a tool this dialect knows (canonical name or alias)."""
        return self.resolve(word) in TOOL_PARAMS

    def result(self, thought: str, tool: str, arg: str, leaked: bool, *, answer: str | None = None) -> ParseResult:
        """The ParseResult for a (tool, argument) the model wrote.

        ``answer`` is the final answer as the dialect reads it when it differs from the cleaned argument (dialects
        whose answers may span lines). An empty answer or an empty input for a known tool is a mistake the model
        hears about, not an action to run.
        """
        name = self.resolve(tool)
        if name == FINISH:
            final = clean_input(arg) if answer is None else answer.strip()
            if not final:
                return ParseResult(
                    thought=thought,
                    leaked_observation=leaked,
                    error=f"The answer is empty: write {self.render_action(None, 'your answer')}.",
                )
            return ParseResult(thought=thought, final_answer=final, leaked_observation=leaked)
        value = clean_input(arg)
        if not value and name in TOOL_PARAMS:
            return ParseResult(
                thought=thought,
                leaked_observation=leaked,
                error=f"The {name} input is empty: write {self.render_action(example_action(name))}.",
            )
        return ParseResult(thought=thought, action=Action(tool=name, input=value), leaked_observation=leaked)

    # -- reading the model ---------------------------------------------------------------------------
    def parse(self, text: str) -> ParseResult:
        raise NotImplementedError

    # -- writing the prompt --------------------------------------------------------------------------
    def step_prefix(self, index: int) -> str:
        """What the prompt ends with, so the model continues with its thought for step ``index``."""
        raise NotImplementedError

    def render_action(self, action: Action | None, final_answer: str | None = None) -> str:
        """The action in this dialect's syntax, as a model would write it."""
        raise NotImplementedError

    def render_model_part(self, step: Step) -> str:
        """The part of a step the model wrote: step prefix, thought, action (or final answer)."""
        raise NotImplementedError

    def render_observation(self, index: int, text: str) -> str:
        """How an observation is fed back after the model's part of step ``index``."""
        raise NotImplementedError

    def render_step(self, step: Step) -> str:
        """A finished step as it appears in the next prompt. Ends with a newline."""
        out = self.render_model_part(step)
        if step.observation is not None:
            out += self.render_observation(step.index, step.observation.text)
        return out

    def reminder(self, tools: list[str]) -> str:
        """Restates the expected format for an error observation, listing only the tools that exist."""
        forms = [self.render_action(example_action(t)) for t in tools]
        forms.append(self.render_action(None, tool_specs.FINISH.example))
        return "Write one thought, then exactly one action: " + ", ".join(forms) + "."
