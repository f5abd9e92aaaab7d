"""The ReAct paper's HotpotQA dialect: ``Thought 3: …``, ``Action 3: Search[High Plains]``, ``Observation 3: …``.

Tools are written ``Search[entity]``, ``Lookup[keyword]``, ``Calculator[expression]`` and ``Finish[answer]``; the
model is stopped on ``\\nObservation``. The dialect has no escapes: an input whose brackets do not balance in a way
the reader can tell apart from text after the call cannot be written (``unrenderable`` says so). A call is closed by
its balancing ``]``; a sloppy call without brackets (``Search: Django``) by the end of its line.
"""

from __future__ import annotations

import re

from react_core.base.trace import Action, Step
from react_core.dialects.base import Dialect, ParseResult, one_line
from react_core.dialects.lenient import cut_environment, line_label, normalize, strip_fences, strip_label

_ACTION_LINE = re.compile(line_label("Action") + r":[ \t]*+(.*)$", re.IGNORECASE | re.MULTILINE)
# "Action 3" alone on its line with the call on the next one.
_ACTION_HEADER = re.compile(line_label("Action") + r":?+[ \t]*+\n[ \t]*+(\S.*)$", re.IGNORECASE | re.MULTILINE)
# A model that forgot the "Action k:" label but wrote a known tool call at the start of a line.
_BARE_CALL = re.compile(
    r"^[ \t]*+((?:Search|Lookup|Finish|Calculator|Calculate)[ \t]*+\[.*)$", re.IGNORECASE | re.MULTILINE
)
# An "Action 3" header left at the end of the thought when the call itself was found on the next line.
_TRAILING_HEADER = re.compile(r"(?:^|\n)[ \t]*+Action\b(?:[ \t]*+\d++)?+[ \t]*+:?+[ \t]*+\n?+$", re.IGNORECASE)
_CALL = re.compile(r"^([A-Za-z_][\w-]*+)[ \t]*+\[(.*)$", re.DOTALL)
_COLON_CALL = re.compile(r"^([A-Za-z_][\w-]*+)[ \t]*+:[ \t]*+(.+)$")
_SPACE_CALL = re.compile(r"^([A-Za-z_][\w-]*+)[ \t]++(.+)$")


def bracket_input(line: str) -> str:
    """The input of ``Tool[input]`` from the text after the opening bracket (one line).

    Brackets inside the input are fine when balanced (``Search[[1] list]``). Text after the call is ignored
    (``Search[A] and then [B]``), unless the closing brackets after the balanced one open nothing, which means the
    input itself held an unbalanced ``]`` (``Search[a]b]``). Without any ``]`` the rest of the line is the input.
    """
    depth = 1
    for i, c in enumerate(line):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                rest = line[i + 1 :]
                last = rest.rfind("]")
                if last >= 0 and "[" not in rest[:last]:
                    return line[: i + 1 + last]
                return line[:i]
    last = line.rfind("]")
    return line[:last] if last >= 0 else line


def bracket_closes(line: str) -> bool:
    """Whether the text after a call's opening bracket holds the ``]`` that balances it (``Finish[Par`` does not)."""
    depth = 1
    for c in line:
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return True
    return False


class PaperFormat(Dialect):
    name = "paper"
    label = "ReAct paper (Search[entity])"
    stop = ("\nObservation",)
    aliases = {"calculate": "calculator", "calc": "calculator", "wikipedia": "search"}
    question_template = "Question: {question}\n"

    def read(self, text: str) -> ParseResult:
        text, leaked = cut_environment(strip_fences(normalize(text)))
        m = _ACTION_LINE.search(text)
        if m and not m.group(1).strip():
            m = _ACTION_HEADER.search(text, m.start()) or m
        m = m or _BARE_CALL.search(text)
        if not m:
            return ParseResult(
                thought=strip_label(text),
                error="No action found: after your thought, write a line like `Action 1: Search[entity]`.",
                leaked_observation=leaked,
            )
        thought = strip_label(_TRAILING_HEADER.sub("", text[: m.start()]))
        body = m.group(1).strip()
        call = _CALL.match(body)
        if call:
            line = call.group(2).split("\n", 1)[0]
            tool, arg, closed = call.group(1), bracket_input(line), bracket_closes(line)
        else:
            first_line = body.split("\n", 1)[0]
            # Sloppy forms of a known tool: "Search: Django", "Search Django".
            space = _SPACE_CALL.match(first_line)
            loose = _COLON_CALL.match(first_line) or (space if space and self.is_tool_name(space.group(1)) else None)
            if not loose:
                shown = one_line(body)[:80]
                return ParseResult(
                    thought=thought,
                    error=f"Could not read the action `{shown}`: write it as Tool[input], like Search[entity]."
                    if shown
                    else "The action is empty: write it as Tool[input], like Search[entity].",
                    leaked_observation=leaked,
                )
            # One line is the whole call: the line's end closes it.
            tool, arg, closed = loose.group(1), loose.group(2), m.end() < len(text)
        return self.result(thought, tool, arg, leaked, closed=closed)

    def step_prefix(self, index: int) -> str:
        return f"Thought {index}:"

    def render_action(self, action: Action | None, final_answer: str | None = None) -> str:
        if action is None:
            return f"Finish[{final_answer or ''}]"
        return f"{action.tool.capitalize()}[{action.input}]"

    def render_model_part(self, step: Step) -> str:
        if step.action is None and step.final_answer is None:
            return self.render_unparsed(step)
        i = step.index
        return (
            f"Thought {i}: {one_line(step.thought)}\nAction {i}: {self.render_action(step.action, step.final_answer)}\n"
        )

    def render_observation(self, index: int, text: str) -> str:
        return f"Observation {index}: {one_line(text)}\n"

    def why_unrenderable(self, value: str) -> str:
        if "[" in value or "]" in value:
            return (
                "Paper-style actions put the input between brackets and have no escapes: these brackets would not "
                f"read back as written ({value[:60]!r})."
            )
        return ""
