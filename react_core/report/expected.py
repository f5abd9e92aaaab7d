"""The answer a question is known to have, and how a run's answer compares with it.

An expected answer is known for every evaluation question (HotpotQA's gold answer; the harness records it) and for a
chat question that is, word for word, one of the questions the offline pack behind the run's knowledge setting was
built from (the pack itself for ``pack:PATH``; the default pack while it stands in for unreachable Wikipedia). That is
where the Chat page's example questions come from. It is recorded in the trace (``Trace.expected_answer``), so
History and the exports show it too. The comparison is HotpotQA's exact match (``react_core.base.answers``), with token
F1 beside it when they differ: only an exact match is called a match. UI-free: never imports streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from react_core.base.answers import exact_match, f1_score
from react_core.base.trace import Trace
from react_core.knowledge import standing_pack


@dataclass(frozen=True)
class AnswerCheck:
    kind: str  # match | close (some words in common) | differs | no_answer (the run gave none)
    expected: str
    verdict: str  # e.g. "exact match", "not an exact match (word overlap F1 0.67)"
    f1: float = 0.0

    @property
    def message(self) -> str:
        return f"Expected answer: «{self.expected}» · {self.verdict}"


def expected_answer_for(question: str, settings: Mapping[str, Any]) -> str | None:
    """The pack's answer to ``question`` when the pack answering this knowledge setting holds it exactly; else None.
    Never raises (``standing_pack`` answers None for a setting it cannot use)."""
    pack = standing_pack(
        str(settings.get("knowledge") or "wikipedia"),
        wiki_url=settings.get("wiki_url") or None,
        language=settings.get("wiki_language") or None,
    )
    find = getattr(pack, "question_for", None)
    found = find(question) if callable(find) else None
    return found.answer if found is not None else None


def check_expected(trace: Trace) -> AnswerCheck | None:
    """The run's answer against the expected one; None when no answer is expected."""
    expected = trace.expected_answer
    if expected is None:
        return None
    if trace.final_answer is None:
        # A paused run (step mode) has not ended: saying it gave no answer would be wrong while it waits for you.
        verdict = "not answered yet: the run is paused" if trace.stop_reason == "paused" else "this run gave no answer"
        return AnswerCheck("no_answer", expected, verdict)
    if exact_match(trace.final_answer, expected):
        return AnswerCheck("match", expected, "exact match", 1.0)
    f1 = f1_score(trace.final_answer, expected)
    if f1 > 0:
        return AnswerCheck("close", expected, f"not an exact match (word overlap F1 {f1:.2f})", f1)
    return AnswerCheck("differs", expected, "no match")
