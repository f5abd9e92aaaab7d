"""A chat conversation as the history holds it: the runs saved with one conversation id, read as the turns a person saw.

A Retry is saved as a run of its own; in the chat it took the failed turn's place. ``turns`` applies that one rule, so
a reopened conversation and the History page's list of conversations count and show the same turns.
"""

from __future__ import annotations

from dataclasses import dataclass

from react_core.base.trace import ended
from react_core.history.records import RunRecord

__all__ = ["ConversationSummary", "conversation_turns", "summary"]


@dataclass(frozen=True)
class ConversationSummary:
    """One conversation for a list: its id, the first question, how many turns, the last turn's outcome and when."""

    id: str
    question: str
    turns: int
    last_answer: str | None
    last_stop_reason: str | None
    last_at: str
    first_run: int
    last_run: int

    @property
    def last_ended(self) -> str:
        """How the last turn ended, said to a person (``Answered``, ``Failed``, … ``Unfinished``)."""
        return ended(self.last_stop_reason)


def conversation_turns(records: list[RunRecord]) -> list[RunRecord]:
    """The runs of one conversation (oldest first) as its turns: a retry replaces the failed turn it retried (the
    latest earlier turn with the same question that ended in an error), wherever that turn stands; a retry of a turn
    that was never saved (it failed before its first step) is a turn of its own."""
    out: list[RunRecord] = []
    for r in records:
        if r.origin == "retry":
            earlier = range(len(out) - 1, -1, -1)
            failed = next((i for i in earlier if out[i].question == r.question and out[i].stop_reason == "error"), None)
            if failed is not None:
                out[failed] = r
                continue
        out.append(r)
    return out


def summary(conversation: str, records: list[RunRecord]) -> ConversationSummary | None:
    shown = conversation_turns(records)
    if not shown:
        return None
    last = shown[-1]
    return ConversationSummary(
        id=conversation,
        question=shown[0].question,
        turns=len(shown),
        last_answer=last.final_answer,
        last_stop_reason=last.stop_reason,
        last_at=max(r.created_at for r in records),
        first_run=min(r.id for r in records),
        last_run=max(r.id for r in records),
    )
