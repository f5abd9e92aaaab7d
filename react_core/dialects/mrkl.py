"""LangChain's MRKL (zero-shot) dialect, also the hub prompt ``hwchase17/react`` and LlamaIndex's ReAct agent:
``Thought: …``, ``Action: Search``, ``Action Input: High Plains``, ``Observation: …``, ``Final Answer: …``.

Read as LangChain's ``MRKLOutputParser`` and ``ReActSingleInputOutputParser`` read it. The input is everything after
``Action Input:`` up to the end of the reply or a line that starts another step, so it may span lines or sit in a
code fence (even one opened on the label's line); a last line that is the first letters of ``Observation`` is not
part of it. As LangChain passes it on, it keeps its lines and its fence (a tool from an MCP server may run code),
except for Search, Lookup and Calculator, whose input is one line of text: theirs is joined into one line, a fence
around it dropped. An input that is a JSON object (LlamaIndex writes ``{"query": "…"}``) gives the tool's named
argument; a JSON string literal is decoded. ``Action:`` without ``Action Input:`` is an error that restates the
dialect, and so is a reply with both an action and a final answer, as LangChain refuses it. The model is stopped on
``\\nObservation:``.

An input or a final answer may span lines, so only a line after it shows that it is complete (another step's label,
or the first letters of ``Observation``), or, for a JSON object, its closing brace: a reply cut at its length without
one is not taken.
"""

from __future__ import annotations

import json
import re

from react_core.base import tool_specs
from react_core.base.trace import Action
from react_core.dialects.base import FINISH, TOOL_PARAMS, LangChainSteps, ParseResult, takes_json, whole_object
from react_core.dialects.json_blob import read_blob_closed
from react_core.dialects.lenient import (
    clean_block,
    clean_input,
    cut_environment,
    input_from_value,
    line_label,
    normalize,
    read_answer,
    strip_fences,
    strip_label,
)

_ACTION = re.compile(line_label("Action") + r":[ \t]*+", re.IGNORECASE | re.MULTILINE)
# "Action Input:", also numbered as LangChain's own reader allows ("Action 1 Input 1:").
_INPUT_LABEL = r"Action" + r"(?:[ \t]*+\d++)?+[ \t]*+Input(?:[ \t]*+\d++)?+[ \t]*+:[ \t]*+"
_ACTION_INPUT = re.compile(r"^[ \t]*+" + _INPUT_LABEL, re.IGNORECASE | re.MULTILINE)
_INLINE_INPUT = re.compile(_INPUT_LABEL, re.IGNORECASE)
_FINAL = re.compile(r"^[ \t]*+(?:Final[ \t]++)?Answer[ \t]*+:", re.IGNORECASE | re.MULTILINE)
# The tool's name: the first word of the action line ("Search (looks things up)" names Search).
_TOOL_WORD = re.compile(r"[^\s()\[\]{}:,]++")
# A code fence opened on the Action Input line itself ("Action Input: ```python"): moved to a line of its own, where
# fences are dropped, so the input is the fence's content.
_FENCE_ON_INPUT_LINE = re.compile(r"^([ \t]*+" + _INPUT_LABEL + r")(```[\w-]*+[ \t]*+)$", re.IGNORECASE | re.MULTILINE)
# The line after an empty "Action:" (the tool written on the next line, as LangChain's reader allows).
_NEXT_LINE = re.compile(r"\s*+([^\n]*+)")
_FORMAT = "write `Action: Search` and on the next line `Action Input: entity`, or `Final Answer: …`"
_BOTH = (
    "Your reply holds both an action and a final answer: write one or the other. Either the action, then wait for "
    "its Observation, or the final answer alone."
)


def _input_value(raw: str, param: str, tool: str = "") -> tuple[str | None, bool]:
    """The tool input from the text after ``Action Input:`` (JSON objects and strings decoded; None: too long), and
    whether a JSON object closed it (what follows a closed object is not read)."""
    raw = raw.strip()
    if raw.startswith("{"):
        try:
            blob, closed = read_blob_closed(raw)
        except ValueError:
            return raw, False
        return input_from_value(blob, param, whole=whole_object(tool, blob)), closed
    if raw.startswith('"'):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return raw, False
        return (value if isinstance(value, str) else raw), False
    return raw, False


def _keeps_lines(tool: str) -> bool:
    """Whether the tool's input keeps its lines and fences as LangChain's parsers pass them on (a tool from an MCP
    server may run code): all but Search, Lookup and Calculator, whose input is one line of text (a title, a word,
    an expression), so theirs is joined into one line and a fence around it dropped."""
    return tool not in tool_specs.ToolSpec.ORDER and tool != FINISH


def _thought(text: str) -> str:
    return strip_label(strip_fences(text))


class MrklFormat(LangChainSteps):
    name = "mrkl"
    label = "LangChain MRKL (Action: / Action Input:)"
    stop = ("\nObservation:",)
    aliases = {"final answer": "finish", "final_answer": "finish", "calculate": "calculator", "wikipedia": "search"}
    question_template = "Question: {question}\n"

    def read(self, text: str) -> ParseResult:
        # Fences are dropped from everything but a multi-line tool's input (``_keeps_lines``), which keeps them.
        text = _FENCE_ON_INPUT_LINE.sub("\\1\n\\2", normalize(text))
        text, leaked = cut_environment(text)
        action_m, final_m = _ACTION.search(text), _FINAL.search(text)
        if final_m and action_m and _INLINE_INPUT.search(text, action_m.end()) is not None:
            # An action and a final answer in one reply, in either order: LangChain's parsers refuse it, and so do we.
            first = min(final_m.start(), action_m.start())
            return ParseResult(thought=_thought(text[:first]), error=_BOTH, leaked_observation=leaked)
        if final_m and (not action_m or final_m.start() < action_m.start()):
            answer, ended = read_answer(strip_fences(text[final_m.end() :]), self.stop)
            thought = _thought(text[: final_m.start()])
            return self.result(thought, FINISH, answer, leaked, answer=answer, closed=ended)
        if not action_m:
            return ParseResult(thought=_thought(text), error=f"No action found: {_FORMAT}.", leaked_observation=leaked)
        thought = _thought(text[: action_m.start()])
        start, end = action_m.end(), text.find("\n", action_m.end())
        end = len(text) if end < 0 else end
        if not text[start:end].strip() and end < len(text):  # "Action:" alone, the tool on the next line
            following = _NEXT_LINE.match(text, end)
            if not _INLINE_INPUT.match(following.group(1)):
                start, end = following.start(1), following.end(1)
        line = text[start:end]
        inline = _INLINE_INPUT.search(line)  # "Action: Search Action Input: x" on one line
        if inline:
            tool_text, rest = line[: inline.start()], text[start + inline.end() :]
        else:
            tool_text = line
            m = _ACTION_INPUT.search(text, start)
            rest = text[m.end() :] if m else None
        tool = self._tool(tool_text)
        if not tool:
            return ParseResult(thought=thought, error=f"The action is empty: {_FORMAT}.", leaked_observation=leaked)
        if rest is None:
            return ParseResult(
                thought=thought,
                error=f"`Action: {tool}` has no `Action Input:` line: {_FORMAT}.",
                leaked_observation=leaked,
            )
        name = self.resolve(tool)
        lines = _keeps_lines(name)
        raw, ended = read_answer(rest if lines else strip_fences(rest), self.stop)
        value, blob_closed = _input_value(raw, TOOL_PARAMS.get(name, "input"), name)
        if value is None:
            return ParseResult(
                thought=thought, error="The Action Input is too long to read.", leaked_observation=leaked
            )
        return self.result(thought, tool, value, leaked, answer=value, closed=ended or blob_closed)

    def input_text(self, tool: str, value: str) -> str:
        return clean_block(value) if _keeps_lines(self.resolve(tool)) else clean_input(value)

    def _tool(self, text: str) -> str:
        """The tool named on the action line: the whole line when it is a known name ("Final Answer"), else its first
        word, without the backticks, quotes or bold a model may put around it."""
        name = text.strip().strip("`*\"'").strip()
        if self.is_tool_name(name):
            return name
        word = _TOOL_WORD.search(name)
        return word.group(0).strip("`*\"'") if word else ""

    def render_action(self, action: Action | None, final_answer: str | None = None) -> str:
        if action is None:
            return f"Final Answer: {final_answer or ''}"
        written = action.input if takes_json(action.tool) else self._written_input(action.input)
        return f"Action: {tool_specs.ToolSpec.label_of(action.tool)}\nAction Input: {written}"

    @staticmethod
    def _written_input(value: str) -> str:
        # An input the reader would decode (a JSON object or string) is written as a JSON string, so it reads back.
        return json.dumps(value, ensure_ascii=False) if value.startswith(("{", '"')) else value

    def title_of(self, tool: str, value: str) -> str:
        if tool == FINISH:
            return f"Final Answer: {value}"
        return f"{tool_specs.ToolSpec.label_of(tool)}: {value}"

    def reminder(self, tools: list[str]) -> str:
        forms = [
            f"`Action: {tool_specs.ToolSpec.label_of(t)}` / `Action Input: {tool_specs.example(t)}`" for t in tools
        ]
        return "Write one thought, then exactly one action: " + ", ".join(forms) + ", or `Final Answer: …`."
