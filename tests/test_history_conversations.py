"""A person's past conversations, on both backends (SQLite and a real PostgreSQL server): listed newest first with the
first question, the number of turns (a retry counts as the turn it replaced), the last answer and when; each owner's
theirs alone."""

from __future__ import annotations

from react_core.base.trace import Step, Trace
from react_core.history.conversations import conversation_turns
from react_core.history.records import RunRecord


def _trace(question: str, answer: str | None = "yes") -> Trace:
    steps = [Step(1, thought="Done.", final_answer=answer)] if answer is not None else [Step(1, thought="Hm.")]
    return Trace(
        question=question,
        settings={"provider": "scripted", "dialect": "paper"},
        steps=steps,
        final_answer=answer,
        stop_reason="finished" if answer is not None else "error",
        error=None if answer is not None else "The provider failed.",
    )


def test_conversations_are_listed_newest_first_each_owner_their_own(open_store):
    ann, bob = open_store("ann@example.org"), open_store("bob@example.org")
    ann.save(_trace("Where is Paris?", "France"), conversation="a1")
    ann.save(_trace("Who wrote Emma?", None), conversation="a2")  # failed ...
    ann.save(_trace("And its population?", "2 million"), conversation="a1")
    ann.save(_trace("Who wrote Emma?", "Jane Austen"), conversation="a2", origin="retry")  # ... and retried
    ann.save(_trace("imported"))  # in no conversation
    bob.save(_trace("Bob's question", "no"), conversation="a1")  # the same conversation id from someone else

    got = ann.conversations()
    assert [(c.id, c.question, c.turns, c.last_answer) for c in got] == [
        ("a2", "Who wrote Emma?", 1, "Jane Austen"),
        ("a1", "Where is Paris?", 2, "2 million"),
    ]
    assert got[1].last_at and got[1].first_run == 1 and got[1].last_run == 3
    assert [(c.id, c.question, c.turns) for c in bob.conversations()] == [("a1", "Bob's question", 1)]
    assert open_store("carol@example.org").conversations() == []
    assert [c.id for c in ann.conversations(limit=1)] == ["a2"]
    # A conversation shown again: its turns, the retry in the failed turn's place.
    assert [(r.question, r.trace.final_answer) for r in ann.conversation_turns("a2")] == [
        ("Who wrote Emma?", "Jane Austen")
    ]
    assert [r.question for r in ann.conversation_turns("a1")] == ["Where is Paris?", "And its population?"]


def _rec(n: int, question: str, stop: str, origin: str = "chat") -> RunRecord:
    return RunRecord(n, "", question, None, stop, "", "", "", 1, 0, 0.0, origin, "c", None, None)


def test_a_retry_replaces_the_failed_turn_it_retried_and_nothing_else():
    # Q2 failed before its first step (never saved), so its retry is a turn of its own: it must not replace Q1.
    assert [r.id for r in conversation_turns([_rec(1, "Q1", "finished"), _rec(2, "Q2", "finished", "retry")])] == [1, 2]
    # An older failed turn retried after a later question keeps its place.
    records = [_rec(1, "Q1", "error"), _rec(2, "Q2", "finished"), _rec(3, "Q1", "finished", "retry")]
    assert [r.id for r in conversation_turns(records)] == [3, 2]
