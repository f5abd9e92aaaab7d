"""The AdalFlow-style dialect: function calls such as ``search(query="Django")`` and ``finish(answer="…")``.

A step is written ``Step k`` / ``Thought: …`` / ``Action: search(query="…")`` / ``Observation: …``. Arguments are
read with ``ast`` literal parsing only: a call, a name, an attribute or any other non-literal is a parse error and
nothing is ever evaluated. Strings are written as JSON literals (also valid Python), so any input reads back exactly.
"""

from __future__ import annotations

import ast
import json
import re

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
    if len(args) != 1:
        name = call.func.id.lower()
        param = TOOL_PARAMS.get(name, "input")
        raise ValueError(f'{call.func.id} takes exactly one argument, like {name}({param}="…")')
    try:
        return call.func.id, _literal(args[0])
    except LITERAL_ERRORS:
        raise ValueError("arguments must be literals (a quoted string or a number); nothing is evaluated") from None


class FunctionFormat(Dialect):
    name = "function"
    label = "Function calls (search(query=…))"
    stop = ("\nObservation",)
    aliases = {"calculate": "calculator", "wikipedia": "search", "final_answer": "finish"}
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
        return f"{action.tool}({TOOL_PARAMS.get(action.tool, 'input')}={_quote(action.input)})"

    def render_model_part(self, step: Step) -> str:
        if step.action is None and step.final_answer is None:
            return self.render_unparsed(step)
        head = f"Step {step.index}\nThought: {one_line(step.thought)}\n"
        return head + f"Action: {self.render_action(step.action, step.final_answer)}\n"

    def render_observation(self, index: int, text: str) -> str:
        return f"Observation: {one_line(text)}\n\n"
