"""LangChain's chat zero-shot dialect: ``Action:`` then a JSON blob ``{"action": …, "action_input": …}``.

It reads what LangChain's JSON ReAct parsers (``ReActJsonSingleInputOutputParser``, ``JSONAgentOutputParser`` over
``parse_json_markdown``) and smolagents' ``parse_json_blob`` read:
- the blob fenced or bare, after ``Action:``, after a thought with no ``Action:`` line, or on its own;
- ``{"action": "Final Answer", "action_input": …}`` as well as a ``Final Answer: …`` line (whichever comes first);
- raw newlines and tabs inside strings, text before and after the blob, a list of blobs (the first is run);
- a blob missing its closing quote, brackets or fence (closed as LangChain's partial parser closes them);
- a Python dict literal (single quotes, trailing comma), read with ``ast.literal_eval`` only: nothing is evaluated;
- an ``action_input`` that is an object: the tool's named argument (query, keyword, expression, answer) when the
  object has it, else the value of a one-entry object, else the object's JSON text;
- smolagents' other key names (``tool``/``name`` for the action, ``tool_input``/``arguments``/… for the input), and
  the older ``Action: Search`` / ``Action Input: …`` pair.
The model is stopped on ``Observation:``; an Observation it wrote anyway is cut and the step flagged. A blob is closed
when it decodes as written (not closed by the fallbacks); a ``Final Answer:`` line when a line after it shows its end.
"""

from __future__ import annotations

import ast
import json
import re

from react_core.base import tool_specs
from react_core.base.trace import Action
from react_core.dialects.base import FINISH, TOOL_PARAMS, LangChainSteps, ParseResult, takes_json, whole_object
from react_core.dialects.lenient import (
    LITERAL_ERRORS,
    balanced_span,
    cut_environment,
    input_from_value,
    line_label,
    normalize,
    parse_python,
    read_answer,
    strip_fences,
    strip_label,
)

_ACTION = re.compile(line_label("Action") + ":", re.IGNORECASE | re.MULTILINE)
_FINAL = re.compile(r"^[ \t]*+Final[ \t]++Answer[ \t]*+:", re.IGNORECASE | re.MULTILINE)
_ACTION_INPUT = re.compile(line_label(r"Action[ \t]++Input") + r":[ \t]*+(.*)$", re.IGNORECASE | re.MULTILINE)
# Where a blob starts when no "Action:" line introduces it: an object whose first key names the action.
_BLOB_START = re.compile(r"""\{\s*+["']?+(?:action|tool|tool_name|name)["']?+\s*+:""", re.IGNORECASE)
_CLOSING_FENCE = re.compile(r"^[ \t]*+```", re.MULTILINE)
_NAME_KEYS = ("action", "tool", "tool_name", "name")
_INPUT_KEYS = ("action_input", "tool_input", "input", "arguments", "args", "parameters")
# strict=False: a raw newline or tab inside a string is a slip, not a reason to refuse the blob.
_DECODER = json.JSONDecoder(strict=False)
_MAX_BLOB_CHARS = 5_000
_CLOSERS = {"{": "}", "[": "]"}


def read_blob_closed(body: str) -> tuple[object, bool]:
    """The JSON value at the start of ``body`` (text after it is ignored), and whether it was closed as written.
    Raises ValueError with the reason.

    Fallbacks, in order: a Python dict literal; the blob closed where its closing quote, brackets or fence are
    missing; the same cut back to its last complete string (prose written after an unclosed blob). Only the first
    two read a blob that was closed as written.
    """
    try:
        return _DECODER.raw_decode(body)[0], True
    except (ValueError, RecursionError) as e:
        error = str(e)
    region = body[:_MAX_BLOB_CHARS]
    try:
        # Literals only: a dict written with single quotes or a trailing comma.
        return ast.literal_eval(parse_python(balanced_span(region, 0, "{", "}"))), True
    except LITERAL_ERRORS:
        pass
    fence = _CLOSING_FENCE.search(region)
    region = region[: fence.start()] if fence else region
    closed, last_string_end = _closed(region)
    for candidate in (closed, _closed(region[:last_string_end])[0] if last_string_end else None):
        if candidate is None:
            continue
        try:
            return _DECODER.raw_decode(candidate)[0], False
        except (ValueError, RecursionError):
            continue
    raise ValueError(error)


def _closed(text: str) -> tuple[str | None, int]:
    """``text`` with an unterminated string and unclosed brackets closed (None when a bracket is mismatched), and
    the offset just after the last string that was closed."""
    stack: list[str] = []
    in_string = escaped = False
    last_string_end = 0
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string, last_string_end = False, i + 1
        elif c == '"':
            in_string = True
        elif c in _CLOSERS:
            stack.append(_CLOSERS[c])
        elif c in "}]" and (not stack or stack.pop() != c):
            return None, last_string_end
    out = text
    if in_string:
        out = (out[:-1] if escaped else out) + '"'
    out = out.rstrip()
    if out.endswith(","):
        out = out[:-1]
    return out + "".join(reversed(stack)), last_string_end


class JsonFormat(LangChainSteps):
    name = "json"
    label = "LangChain JSON blob"
    stop = ("Observation:",)
    aliases = {"final answer": "finish", "final_answer": "finish", "calculate": "calculator", "wikipedia": "search"}
    question_template = "Question: {question}\n"

    def read(self, text: str) -> ParseResult:
        text, leaked = cut_environment(normalize(text))
        action_m, final_m = _ACTION.search(text), _FINAL.search(text)
        blob_m = None if action_m else _BLOB_START.search(text)
        start = action_m or blob_m
        if final_m and (not start or final_m.start() < start.start()):
            answer, ended = read_answer(text[final_m.end() :], self.stop)
            thought = strip_label(text[: final_m.start()])
            return self.result(thought, "finish", answer, leaked, answer=answer, closed=ended)
        if blob_m:
            thought = strip_label(strip_fences(text[: blob_m.start()]))
            return self._blob(thought, text[blob_m.start() :], leaked, "The JSON blob")
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
        return self._blob(thought, body[brace:], leaked, "The JSON blob after Action:")

    def _blob(self, thought: str, body: str, leaked: bool, what: str) -> ParseResult:
        try:
            blob, closed = read_blob_closed(body)
        except ValueError as e:
            return ParseResult(thought=thought, error=f"{what} is not valid JSON ({e}).", leaked_observation=leaked)
        tool = next((blob[k] for k in _NAME_KEYS if isinstance(blob, dict) and isinstance(blob.get(k), str)), None)
        if tool is None:
            return ParseResult(
                thought=thought, error='The JSON blob needs an "action" key naming the tool.', leaked_observation=leaked
            )
        raw = next((blob[k] for k in _INPUT_KEYS if k in blob), "")
        name = self.resolve(tool)
        arg = input_from_value(raw, TOOL_PARAMS.get(name, "input"), whole=whole_object(name, raw))
        if arg is None:
            return ParseResult(thought=thought, error='"action_input" is too long to read.', leaked_observation=leaked)
        return self.result(thought, tool, arg, leaked, answer=arg, closed=closed)

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
        return self.result(thought, tool, m.group(1), leaked, closed=m.end() < len(body))

    def render_action(self, action: Action | None, final_answer: str | None = None) -> str:
        if action is None:
            return f"Final Answer: {final_answer or ''}"
        blob = {"action": tool_specs.ToolSpec.label_of(action.tool), "action_input": _object_or_text(action)}
        return "Action:\n```\n" + json.dumps(blob, ensure_ascii=False, indent=2) + "\n```"

    def title_of(self, tool: str, value: str) -> str:
        name = "Final Answer" if tool == FINISH else tool_specs.ToolSpec.label_of(tool)
        return f"{name} · {json.dumps(value, ensure_ascii=False)}"


def _object_or_text(action: Action) -> object:
    """An MCP tool's JSON arguments written as the object they are; any other input as its text."""
    if takes_json(action.tool):
        try:
            value = json.loads(action.input)
        except ValueError:
            return action.input
        if isinstance(value, dict):
            return value
    return action.input
