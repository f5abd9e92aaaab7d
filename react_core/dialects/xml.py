"""The Gemini notebook's dialect: ``<search>entity</search>``, ``<lookup>kw</lookup>``, ``<finish>answer</finish>``.

Headers stand on their own lines (``Thought 2``, ``Action 2``, ``Observation 2``). The model is stopped on the
closing tags, so the closing tag is usually missing from its text. An input holding ``</`` cannot be written: a
closing tag is a stop sequence, so no model could have written one inside an input either. Only the closing tag closes
an action: a reply cut at its length never reached it, so it is never taken.
"""

from __future__ import annotations

import re

from react_core.base.trace import Action, Step
from react_core.dialects.base import Dialect, ParseResult, one_line
from react_core.dialects.lenient import cut_environment, line_label, normalize, strip_fences, strip_label

# "Action 2" on its own line, or "Action 2:" with the tag after it on the same line.
_ACTION_HEADER = re.compile(line_label("Action") + r"(?::|$)", re.IGNORECASE | re.MULTILINE)
_OPEN_TAG = re.compile(r"<([A-Za-z_][\w-]*+)[ \t]*+>")


class XmlFormat(Dialect):
    name = "xml"
    label = "Gemini notebook (<search>entity</search>)"
    stop = ("</search>", "</lookup>", "</finish>", "</calculator>", "\nObservation")
    aliases = {"calculate": "calculator", "wikipedia": "search"}
    question_template = "Question\n{question}\n\n"

    def read(self, text: str) -> ParseResult:
        text, leaked = cut_environment(strip_fences(normalize(text)))
        header = _ACTION_HEADER.search(text)
        tag = self._find_tag(text, header.end() if header else 0)
        if tag is None and header is not None:
            tag = self._find_tag(text, 0)  # a tag written before a stray "Action" line
        if tag is None:
            return ParseResult(
                thought=strip_label(text[: header.start()] if header else text),
                error="No action found: after your thought, write `Action k` and then a tag like "
                "<search>entity</search>.",
                leaked_observation=leaked,
            )
        end = header.start() if header and header.start() < tag.start() else tag.start()
        thought = strip_label(text[:end])
        name = tag.group(1)
        rest = text[tag.end() :]
        close = re.search(r"</\s*+" + re.escape(name) + r"\s*+>", rest, re.IGNORECASE)
        arg = rest[: close.start()] if close else rest.split("\n", 1)[0]
        return self.result(thought, name, arg, leaked, closed=close is not None)

    def _find_tag(self, text: str, start: int) -> re.Match[str] | None:
        """The first tag naming a known tool after ``start``; else the first tag at all (an unknown tool)."""
        first = None
        for m in _OPEN_TAG.finditer(text, start):
            if self.is_tool_name(m.group(1)):
                return m
            first = first or m
        return first

    def step_prefix(self, index: int) -> str:
        return f"Thought {index}\n"

    def render_action(self, action: Action | None, final_answer: str | None = None) -> str:
        if action is None:
            return f"<finish>{final_answer or ''}</finish>"
        return f"<{action.tool}>{action.input}</{action.tool}>"

    def render_model_part(self, step: Step) -> str:
        if step.action is None and step.final_answer is None:
            return self.render_unparsed(step) + "\n"
        i = step.index
        # One line, as in the examples: a line of the thought must never read as a header when fed back.
        thought = one_line(step.thought)
        return f"Thought {i}\n{thought}\n\nAction {i}\n{self.render_action(step.action, step.final_answer)}\n\n"

    def render_observation(self, index: int, text: str) -> str:
        return f"Observation {index}\n{text.strip()}\n\n"

    def why_unrenderable(self, value: str) -> str:
        if "</" in value:
            return "An input cannot hold `</`: closing tags end the model's turn, so it would never read back."
        return ""
