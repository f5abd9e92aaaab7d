"""LangChain's chat zero-shot dialect: ``Action:`` then a JSON blob ``{"action": …, "action_input": …}``.

The blob may be fenced or bare; ``Final Answer: …`` (or ``{"action": "Final Answer", …}``) ends the run. The older
``Action: Search`` / ``Action Input: …`` pair is read too, and so is a blob written as a Python dict literal (single
quotes, trailing comma), read with ``ast.literal_eval`` only: nothing is evaluated. The model is stopped on
``Observation:``. Imports only the format base and the trace.
"""

from __future__ import annotations

import ast
import json
import re

from react_core.formats.base import (
    ActionFormat,
    ParseResult,
    answer_text,
    balanced_span,
    cut_environment,
    normalize,
    parse_python,
    strip_label,
)
from react_core.trace import Action, Step

_ACTION = re.compile(r"^[ \t]*Action\b[ \t]*:", re.IGNORECASE | re.MULTILINE)
_FINAL = re.compile(r"^[ \t]*Final[ \t]+Answer[ \t]*:", re.IGNORECASE | re.MULTILINE)
_ACTION_INPUT = re.compile(r"^[ \t]*Action[ \t]+Input[ \t]*:[ \t]*(.*)$", re.IGNORECASE | re.MULTILINE)
# strict=False: a raw newline inside a string is a slip, not a reason to refuse the blob.
_DECODER = json.JSONDecoder(strict=False)
_DISPLAY = {"search": "Search", "lookup": "Lookup", "calculator": "Calculator"}
_MAX_BLOB_CHARS = 5_000


def _input_text(value: object) -> str | None:
    """The tool input from ``action_input``: a string, a number, or a one-entry object like {"query": "…"}."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, dict) and len(value) == 1:
        return _input_text(next(iter(value.values())))
    return None


def read_blob(body: str) -> object:
    """The JSON value at the start of ``body``; a Python dict literal as a fallback. Raises ValueError."""
    try:
        return _DECODER.raw_decode(body)[0]
    except (ValueError, RecursionError) as e:
        error = e
    candidate = balanced_span(body[:_MAX_BLOB_CHARS], 0, "{", "}")
    try:
        # Literals only: a dict written with single quotes or a trailing comma.
        return ast.literal_eval(parse_python(candidate))
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError, SystemError):  # see function_call
        raise ValueError(str(error)) from None


class JsonFormat(ActionFormat):
    name = "json"
    label = "LangChain JSON blob"
    stop = ("Observation:",)
    aliases = {"final answer": "finish", "final_answer": "finish", "calculate": "calculator", "wikipedia": "search"}
    question_template = "Question: {question}\n"

    def parse(self, text: str) -> ParseResult:
        text, leaked = cut_environment(normalize(text))
        action_m, final_m = _ACTION.search(text), _FINAL.search(text)
        if final_m and (not action_m or final_m.start() < action_m.start()):
            answer = answer_text(text[final_m.end() :])
            return self.result(strip_label(text[: final_m.start()]), "finish", answer, leaked, answer=answer)
        if not action_m:
            return ParseResult(
                thought=strip_label(text),
                error="No action found: write `Action:` followed by a JSON blob "
                '{"action": "Search", "action_input": "entity"}, or `Final Answer: …`.',
                leaked_observation=leaked,
            )
        thought = strip_label(text[: action_m.start()])
        body = text[action_m.end() :]
        # From the first brace: a fenced blob, a bare one, or the first of a list of actions (the one to run now).
        brace = body.find("{")
        if brace < 0:
            return self._legacy(thought, body, leaked)
        try:
            blob = read_blob(body[brace:])
        except ValueError as e:
            return ParseResult(
                thought=thought,
                error=f"The JSON blob after Action: is not valid JSON ({e}).",
                leaked_observation=leaked,
            )
        if not isinstance(blob, dict) or not isinstance(blob.get("action"), str):
            return ParseResult(
                thought=thought, error='The JSON blob needs an "action" key naming the tool.', leaked_observation=leaked
            )
        arg = _input_text(blob.get("action_input", ""))
        if arg is None:
            return ParseResult(thought=thought, error='"action_input" must be a string.', leaked_observation=leaked)
        return self.result(thought, blob["action"], arg, leaked, answer=arg)

    def _legacy(self, thought: str, body: str, leaked: bool) -> ParseResult:
        """``Action: Search`` then ``Action Input: Django`` (LangChain's older text format)."""
        tool = body.split("\n", 1)[0].strip()
        m = _ACTION_INPUT.search(body)
        if not tool or not m:
            return ParseResult(
                thought=thought,
                error='After `Action:` write a JSON blob {"action": "Search", "action_input": "entity"}.',
                leaked_observation=leaked,
            )
        return self.result(thought, tool, m.group(1), leaked)

    def step_prefix(self, index: int) -> str:
        return "Thought:"

    def render_action(self, action: Action | None, final_answer: str | None = None) -> str:
        if action is None:
            return f"Final Answer: {final_answer or ''}"
        blob = {"action": _DISPLAY.get(action.tool, action.tool), "action_input": action.input}
        return "Action:\n```\n" + json.dumps(blob, ensure_ascii=False, indent=2) + "\n```"

    def render_model_part(self, step: Step) -> str:
        thought = " ".join(step.thought.split())
        if step.action is None and step.final_answer is None:
            return f"Thought: {thought}\nAction: (none)\n"
        return f"Thought: {thought}\n{self.render_action(step.action, step.final_answer)}\n"

    def render_observation(self, index: int, text: str) -> str:
        return f"Observation: {' '.join(text.split())}\n"
