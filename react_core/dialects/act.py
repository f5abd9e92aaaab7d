"""The ReAct paper's Act-only baseline: the paper dialect without thoughts (``Action 1: Search[…]``).

The prompt ends with ``Action k:`` and the model writes only the action. Used by the evaluation's ``act`` strategy
(the paper's webact prompt).
"""

from __future__ import annotations

import re

from react_core.base import tool_specs
from react_core.base.trace import Step
from react_core.dialects.base import ParseResult, example_action
from react_core.dialects.paper import PaperFormat

# One blank run before an optional "*" run, possessive: two adjacent runs would backtrack on long blank replies.
_LABELLED = re.compile(r"^\s*+(?:\*++\s*+)?Action\b", re.IGNORECASE)


class ActFormat(PaperFormat):
    name = "act"
    label = "ReAct paper, Act-only (no thoughts)"
    thinks = False
    turn_header = re.compile(r"^\s*Action\b", re.IGNORECASE)

    def read(self, text: str) -> ParseResult:
        # The prompt ended in "Action k:", so the reply normally starts with the call itself.
        result = super().read(text if _LABELLED.match(text) else "Action: " + text.lstrip())
        result.thought = ""
        return result

    def step_prefix(self, index: int) -> str:
        return f"Action {index}:"

    def render_model_part(self, step: Step) -> str:
        if step.action is None and step.final_answer is None:
            return self.render_unparsed(step)
        return f"Action {step.index}: {self.render_action(step.action, step.final_answer)}\n"

    def reminder(self, tools: list[str]) -> str:
        forms = [self.render_action(example_action(t)) for t in tools]
        finish = self.render_action(None, tool_specs.FINISH.example)
        return "Write exactly one action: " + ", ".join([*forms, finish]) + "."
