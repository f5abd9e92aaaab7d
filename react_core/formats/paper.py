"""The ReAct paper's HotpotQA dialect: ``Thought 3: …``, ``Action 3: Search[High Plains]``, ``Observation 3: …``.

Tools are written ``Search[entity]``, ``Lookup[keyword]``, ``Calculator[expression]`` and ``Finish[answer]``; the
model is stopped on ``\\nObservation``. Imports only the format base and the trace.
"""

from __future__ import annotations

import re

from react_core.formats.base import (
    ActionFormat,
    ParseResult,
    clean_input,
    cut_environment,
    finish_or_action,
    normalize,
    strip_fences,
    strip_label,
)
from react_core.trace import Action, Step

_ACTION_LINE = re.compile(r"^[ \t]*Action\b[ \t]*\d*[ \t]*:[ \t]*(.*)$", re.IGNORECASE | re.MULTILINE)
# A model that forgot the "Action k:" label but wrote a known tool call at the start of a line.
_BARE_CALL = re.compile(r"^[ \t]*((?:Search|Lookup|Finish|Calculator)[ \t]*\[.*)$", re.IGNORECASE | re.MULTILINE)
_CALL = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*\[(.*)$", re.DOTALL)
_COLON_CALL = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.+)$")


def _one_line(text: str) -> str:
    return " ".join(text.split())


class PaperFormat(ActionFormat):
    name = "paper"
    label = "ReAct paper (Search[entity])"
    stop = ("\nObservation",)
    aliases = {"calculate": "calculator", "calc": "calculator", "wikipedia": "search"}
    question_template = "Question: {question}\n"

    def parse(self, text: str) -> ParseResult:
        text, leaked = cut_environment(strip_fences(normalize(text)))
        m = _ACTION_LINE.search(text) or _BARE_CALL.search(text)
        if not m:
            return ParseResult(
                thought=strip_label(text),
                error="No action found: after your thought, write a line like `Action 1: Search[entity]`.",
                leaked_observation=leaked,
            )
        thought = strip_label(text[: m.start()])
        body = m.group(1).strip()
        call = _CALL.match(body)
        if call:
            tool, rest = call.group(1), call.group(2)
            # The input runs to the last "]" on the line: entities may contain brackets, text may follow it.
            first_line = rest.split("\n", 1)[0]
            arg = first_line[: first_line.rfind("]")] if "]" in first_line else first_line
        else:
            colon = _COLON_CALL.match(body.split("\n", 1)[0])
            if not colon:
                return ParseResult(
                    thought=thought,
                    error=f"Could not read the action `{_one_line(body)[:80]}`: write it as Tool[input].",
                    leaked_observation=leaked,
                )
            tool, arg = colon.group(1), colon.group(2)
        action, final = finish_or_action(self.resolve(tool), clean_input(arg))
        return ParseResult(thought=thought, action=action, final_answer=final, leaked_observation=leaked)

    def step_prefix(self, index: int) -> str:
        return f"Thought {index}:"

    def render_action(self, action: Action | None, final_answer: str | None = None) -> str:
        if action is None:
            return f"Finish[{final_answer or ''}]"
        return f"{action.tool.capitalize()}[{action.input}]"

    def render_model_part(self, step: Step) -> str:
        i = step.index
        if step.action is None and step.final_answer is None:
            return f"Thought {i}: {_one_line(step.thought)}\nAction {i}: (none)\n"
        return (
            f"Thought {i}: {_one_line(step.thought)}\n"
            f"Action {i}: {self.render_action(step.action, step.final_answer)}\n"
        )

    def render_observation(self, index: int, text: str) -> str:
        return f"Observation {index}: {_one_line(text)}\n"
