"""The minimal-loop dialect: ``Action: wikipedia: Django``, then ``PAUSE``; ``Answer: …`` ends the run.

``wikipedia`` is an alias of search and ``calculate`` of calculator. The model is stopped on ``PAUSE``, so no input
can hold that word. An action is one line, closed by its line's end; an answer may span lines (``read_answer``).
"""

from __future__ import annotations

import re

from react_core.base.trace import Action, Step
from react_core.dialects.base import Dialect, ParseResult, one_line
from react_core.dialects.lenient import (
    cut_environment,
    line_label,
    normalize,
    read_answer,
    strip_fences,
    strip_label,
)

_ACTION = re.compile(line_label("Action") + r":[ \t]*+(.*)$", re.IGNORECASE | re.MULTILINE)
_TOOL_ARG = re.compile(r"^([A-Za-z_][\w-]*+)[ \t]*+:[ \t]*+(.*)$")
_TOOL_SPACE_ARG = re.compile(r"^([A-Za-z_][\w-]*+)[ \t]++(.+)$")
_ANSWER = re.compile(r"^[ \t]*+(?:Final[ \t]++)?Answer[ \t]*+:", re.IGNORECASE | re.MULTILINE)
_DISPLAY = {"search": "wikipedia", "calculator": "calculate"}


class PauseFormat(Dialect):
    name = "pause"
    label = "Minimal loop (Action: wikipedia: x / PAUSE)"
    stop = ("PAUSE", "\nObservation")
    aliases = {"wikipedia": "search", "calculate": "calculator", "wiki": "search", "answer": "finish"}
    question_template = "Question: {question}\n"

    def read(self, text: str) -> ParseResult:
        text, leaked = cut_environment(strip_fences(normalize(text)))
        # PAUSE ends the model's turn (it is the stop sequence): whatever follows is not the model's to write.
        pause = text.find("PAUSE")
        if pause >= 0:
            text = text[:pause]
        action_m, answer_m = _ACTION.search(text), _ANSWER.search(text)
        if answer_m and (not action_m or answer_m.start() < action_m.start()):
            answer, ended = read_answer(text[answer_m.end() :], self.stop)
            thought = strip_label(text[: answer_m.start()])
            return self.result(thought, "finish", answer, leaked, answer=answer, closed=ended)
        if not action_m:
            return ParseResult(
                thought=strip_label(text),
                leaked_observation=leaked,
                error="No action found: write `Action: wikipedia: entity` then PAUSE, or `Answer: …`.",
            )
        thought = strip_label(text[: action_m.start()])
        body = action_m.group(1).strip()
        m = _TOOL_ARG.match(body)
        if not m:
            # "Action: wikipedia Django": the colon forgotten after a tool this dialect knows.
            m = _TOOL_SPACE_ARG.match(body)
            if m and not self.is_tool_name(m.group(1)):
                m = None
        if not m:
            return ParseResult(
                thought=thought,
                leaked_observation=leaked,
                error="Could not read the action: write it as `Action: tool: input`, like `Action: wikipedia: entity`.",
            )
        return self.result(thought, m.group(1), m.group(2), leaked, closed=action_m.end() < len(text))

    def step_prefix(self, index: int) -> str:
        return "Thought:"

    def render_action(self, action: Action | None, final_answer: str | None = None) -> str:
        if action is None:
            return f"Answer: {final_answer or ''}"
        return f"Action: {_DISPLAY.get(action.tool, action.tool)}: {action.input}"

    def render_model_part(self, step: Step) -> str:
        if step.action is None and step.final_answer is None:
            return self.render_unparsed(step)
        thought = one_line(step.thought)
        if step.action is None:
            return f"Thought: {thought}\n{self.render_action(None, step.final_answer)}\n"
        return f"Thought: {thought}\n{self.render_action(step.action)}\nPAUSE\n"

    def render_observation(self, index: int, text: str) -> str:
        return f"\nObservation: {one_line(text)}\n\n"

    def reminder(self, tools: list[str]) -> str:
        forms = ", ".join(f"`Action: {_DISPLAY.get(t, t)}: input`" for t in tools)
        return f"Write one thought, then exactly one action ({forms}) followed by PAUSE, or `Answer: …`."

    def title_of(self, tool: str, value: str) -> str:
        return super().title_of(tool, value).removeprefix("Action: ")

    def why_unrenderable(self, value: str) -> str:
        if "PAUSE" in value:
            return "An input cannot hold the word PAUSE: it ends the model's turn, so the input would be cut there."
        return ""
