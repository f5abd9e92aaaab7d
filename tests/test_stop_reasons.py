"""Every stop reason has one wording for people, shown the same way in the chat header, exports and transcripts."""

from __future__ import annotations

import pytest

from react_core.base.trace import STOP_REASONS, Step, Trace
from react_core.cli.main import ending_lines
from react_core.history import open_history
from react_core.report.exports import to_markdown
from react_core.report.signs import Verdict
from ui.shared.render import status_text


@pytest.mark.parametrize("reason", list(STOP_REASONS))
def test_each_stop_reason_is_said_the_same_way_everywhere(reason, tmp_path):
    trace = Trace(question="q", steps=[Step(index=1, thought="t")], stop_reason=reason)
    label = STOP_REASONS[reason]
    store = open_history(url="", path=tmp_path / "h.sqlite")
    store.save(trace, conversation="c1")
    [record] = store.list()
    assert record.ended == label and store.conversations()[0].last_ended == label  # History's lists
    assert trace.summary().startswith(f"{label} · 1 step · ")
    header, icon = status_text(trace)
    assert header == trace.summary()
    assert icon != Verdict.SIGNS["right"].icon  # no expected answer: nothing here is known right
    assert label in to_markdown(trace).replace("\\", "")
    assert label in ending_lines(trace)  # the last lines ``ask`` prints


def test_a_run_without_a_stop_reason_is_unfinished_everywhere():
    from react_core.history.conversations import ConversationSummary
    from react_core.history.records import RunRecord

    trace = Trace(question="q", steps=[Step(index=1, thought="t")])
    assert trace.summary().startswith("Unfinished · ")
    record = RunRecord(1, "", "q", None, None, "", "", "", 1, 0, 0.0, "chat", "c", None, None)
    assert (
        record.ended == "Unfinished"
        and ConversationSummary("c", "q", 1, None, None, "", 1, 1).last_ended == record.ended
    )


def test_context_overflow_is_its_own_reason_not_a_spent_budget():
    assert "context" in STOP_REASONS and STOP_REASONS["context"] != STOP_REASONS["max_calls"]
