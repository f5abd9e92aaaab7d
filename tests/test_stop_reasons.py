"""Every stop reason has one wording for people, shown the same way in the chat header, exports and transcripts."""

from __future__ import annotations

import pytest

from react_core.base.trace import STOP_REASONS, Step, Trace
from react_core.cli.main import ending_lines
from react_core.report.exports import summary_line, to_markdown
from react_core.report.signs import SIGNS
from ui.shared.render import status_text


@pytest.mark.parametrize("reason", list(STOP_REASONS))
def test_each_stop_reason_is_said_the_same_way_everywhere(reason):
    trace = Trace(question="q", steps=[Step(index=1, thought="t")], stop_reason=reason)
    label = STOP_REASONS[reason]
    assert summary_line(trace).startswith(f"{label} · 1 step · ")
    header, icon = status_text(trace)
    assert header == summary_line(trace)
    assert icon != SIGNS["right"].icon  # no expected answer: nothing here is known right
    assert label in to_markdown(trace).replace("\\", "")
    assert label in ending_lines(trace)  # the last lines ``ask`` prints


def test_context_overflow_is_its_own_reason_not_a_spent_budget():
    assert "context" in STOP_REASONS and STOP_REASONS["context"] != STOP_REASONS["max_calls"]
