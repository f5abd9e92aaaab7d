"""The AdalFlow-style dialect: function calls such as ``search(query="Django")`` and ``finish(answer="…")``.

A step is written ``Step k`` / ``Thought: …`` / ``Action: search(query="…")`` / ``Observation: …``. Arguments are
read with ``ast`` literal parsing only: a call, a name, an attribute or any other non-literal is a parse error and
nothing is ever evaluated. Strings are written as JSON literals (also valid Python), so any input reads back exactly.

An MCP tool takes a JSON object of arguments, and function-call-trained models write those as keywords:
``demo_add(a=2, b=40)`` is the input ``{"a": 2, "b": 40}`` (each value a literal: a string, a number, ``True``,
``False``, ``None``, or a list or dict of those), and such an input is written back the same way. The one-text form
(``demo_add(input="{…}")``) reads as before.
"""

from __future__ import annotations

import ast
import json
import keyword
import re

from react_core.base import tool_specs
from react_core.base.trace import Action, Step
from react_core.dialects.base import TOOL_PARAMS, Dialect, ParseResult, one_line
from react_core.dialects.lenient import (
    LITERAL_ERRORS,
    MAX_INPUT_CHARS,
    NUM,
    balanced_span,
    cut_environment,
    line_label,
    normalize,
    number_text,
    parse_python,
    strip_fences,
    strip_label,
)

_ACTION = re.compile(line_label("Action") + r":[ \t]*+(.*)$", re.IGNORECASE | re.MULTILINE)
_BARE_CALL = re.compile(r"^[ \t]*+((?:search|lookup|calculator|finish)[ \t]*+\(.*)$", re.IGNORECASE | re.MULTILINE)
ALIASES = {"calculate": "calculator", "wikipedia": "search", "final_answer": "finish"}
_STEP_LINE = re.compile(r"^\s*+Step\b" + NUM + r"[.:]?+[ \t]*+\n?+", re.IGNORECASE)


def _quote(value: str) -> str:
    # JSON's double-quoted strings are valid Python literals, and read back by ast.literal_eval exactly.
    return json.dumps(value, ensure_ascii=False)


def _literal(node: ast.expr) -> str:
    value = ast.literal_eval(node)
    text = value if isinstance(value, str) else number_text(value)
    if text is None:
        raise ValueError("an argument must be a quoted string or a number")
    return text


def _json_value(value: object) -> bool:
    """Whether a literal is a JSON value (no tuple, set, bytes, complex or non-string key anywhere in it)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(isinstance(k, str) for k in item):
                return False
            stack += item.values()
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return False
        elif not isinstance(item, str | int | bool) and item is not None:
            return False
    return True


def _keywords(call: ast.Call) -> str:
    """A call's keyword arguments as the JSON object an MCP tool takes."""
    arguments = {}
    for kw in call.keywords:
        try:
            value = ast.literal_eval(kw.value)
        except LITERAL_ERRORS:
            raise ValueError("arguments must be literals; nothing is evaluated") from None
        if not _json_value(value):
            raise ValueError(f"{kw.arg}= must be a string, a number, True, False, None, or a list or dict of those")
        arguments[kw.arg] = value
    return json.dumps(arguments, ensure_ascii=False)


def _takes_keywords(call: ast.Call) -> bool:
    """A call of an MCP tool with its arguments as keywords (several, or one that is not its one-text argument)."""
    name = call.func.id.lower()  # type: ignore[attr-defined]
    if call.args or not call.keywords or name in tool_specs.BUILTIN or name in ALIASES:
        return False
    spec = tool_specs.spec(name)
    if len(call.keywords) > 1:
        return True
    return spec is not None and spec.schema is not None and call.keywords[0].arg != spec.param


def read_call(source: str) -> tuple[str, str]:
    """(tool, argument) from a call like ``search(query="x")``; raises ValueError with a message for the model."""
    source = source.strip().strip("`").strip()
    try:
        call = parse_python(source)
    except LITERAL_ERRORS as e:
        raise ValueError(f"`{source[:80]}` is not a function call ({type(e).__name__})") from None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise ValueError('the action must be a call of a tool by its name, like search(query="entity")')
    args = list(call.args) + [kw.value for kw in call.keywords]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        raise ValueError("* and ** arguments are not allowed")
    if _takes_keywords(call):
        return call.func.id, _keywords(call)
    if len(args) != 1:
        name = call.func.id.lower()
        param = TOOL_PARAMS.get(name, "input")
        raise ValueError(f'{call.func.id} takes exactly one argument, like {name}({param}="…")')
    try:
        return call.func.id, _literal(args[0])
    except LITERAL_ERRORS:
        raise ValueError("arguments must be literals (a quoted string or a number); nothing is evaluated") from None


def _literal_text(value: object) -> str:
    """A JSON value as the Python literal that reads back as it (strings as JSON literals, ``True``, ``None``)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_quote(k)}: {_literal_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal_text(v) for v in value) + "]"
    return _quote(value) if isinstance(value, str) else repr(value)


def _as_keywords(action: Action) -> str | None:
    """An MCP tool's JSON object input as keyword arguments (``a=2, b=40``), when they read back as exactly that
    input; None for any other input (written as its one text)."""
    if action.tool in tool_specs.BUILTIN or not action.input.startswith("{"):
        return None
    try:
        value = json.loads(action.input)
    except ValueError:
        return None
    if not isinstance(value, dict) or not value or json.dumps(value, ensure_ascii=False) != action.input:
        return None
    if not all(k.isidentifier() and not keyword.iskeyword(k) for k in value):
        return None
    spec = tool_specs.spec(action.tool)
    if len(value) == 1 and (spec is None or spec.schema is None or spec.param in value):
        return None  # one keyword reads back as the one text
    return ", ".join(f"{k}={_literal_text(v)}" for k, v in value.items())


class FunctionFormat(Dialect):
    name = "function"
    label = "Function calls (search(query=…))"
    stop = ("\nObservation",)
    aliases = ALIASES
    question_template = "Question: {question}\n"
    turn_header = re.compile(r"^\s*(?:Step|Thought)\b", re.IGNORECASE)

    def read(self, text: str) -> ParseResult:
        text, leaked = cut_environment(strip_fences(normalize(text)))
        m = _ACTION.search(text) or _BARE_CALL.search(text)
        if not m:
            return ParseResult(
                thought=self._thought(text),
                leaked_observation=leaked,
                error='No action found: after your thought, write a line like `Action: search(query="entity")`.',
            )
        thought = self._thought(text[: m.start()])
        try:
            # The call, extended over following lines until its parentheses balance.
            call = balanced_span(text, m.start(1), "(", ")", stop_at_newline=True, limit=MAX_INPUT_CHARS + 200)
            tool, arg = read_call(call)
        except ValueError as e:
            return ParseResult(thought=thought, error=f"Could not read the action: {e}.", leaked_observation=leaked)
        # The call parsed, so its parentheses balance: it is closed.
        return self.result(thought, tool, arg, leaked, answer=arg, closed=True)

    @staticmethod
    def _thought(text: str) -> str:
        return strip_label(_STEP_LINE.sub("", text, count=1))

    def step_prefix(self, index: int) -> str:
        return f"Step {index}\nThought:"

    def render_action(self, action: Action | None, final_answer: str | None = None) -> str:
        if action is None:
            return f"finish(answer={_quote(final_answer or '')})"
        keywords = _as_keywords(action)
        if keywords is not None:
            return f"{action.tool}({keywords})"
        return f"{action.tool}({TOOL_PARAMS.get(action.tool, 'input')}={_quote(action.input)})"

    def render_model_part(self, step: Step) -> str:
        if step.action is None and step.final_answer is None:
            return self.render_unparsed(step)
        head = f"Step {step.index}\nThought: {one_line(step.thought)}\n"
        return head + f"Action: {self.render_action(step.action, step.final_answer)}\n"

    def render_observation(self, index: int, text: str) -> str:
        return f"Observation: {one_line(text)}\n\n"
