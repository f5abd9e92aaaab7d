"""The sign a run's header wears: the one home of which outcome gets which mark.

A class reads a check mark as "right", so the check mark is kept for a run whose answer is known right (it matches
the expected answer exactly). An answer nobody checked, an answer whose words occur in the evidence, a paused run
and a stopped run each get their own sign. ``icon`` is the app's (Material Symbols), ``symbol`` the command line's
and the exports'. UI-free: never imports streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from react_core.base.trace import Trace
from react_core.report.expected import AnswerCheck, check_expected
from react_core.report.grounding import Grounding, check_grounding

__all__ = ["Sign", "Verdict", "run_sign"]


@dataclass(frozen=True)
class Sign:
    kind: str
    icon: str
    symbol: str
    meaning: str


def run_sign(trace: Trace) -> Sign:
    """The sign for how ``trace`` ended."""
    return _sign(trace, check_expected(trace), None)


def _sign(trace: Trace, expected: AnswerCheck | None, evidence: Grounding | None) -> Sign:
    reason = trace.stop_reason
    if reason == "paused":
        return Verdict.SIGNS["paused"]
    if reason == "cancelled":
        return Verdict.SIGNS["stopped"]
    if reason == "error" or (trace.error and trace.final_answer is None):
        return Verdict.SIGNS["failed"]
    if trace.final_answer is None:
        return Verdict.SIGNS["no_answer"]
    if expected is not None:
        return Verdict.SIGNS["right" if expected.kind == "match" else "not_expected"]
    evidence = evidence or check_grounding(trace)
    return Verdict.SIGNS["grounded" if evidence.kind == "grounded" else "answered"]


@dataclass(frozen=True)
class Verdict:
    """What is said of how a run ended, as its header and its answer show it: its ``sign``, the expected answer's
    check (``expected``: None when no answer is known for the question) and the evidence check (``evidence``: None
    when the run gave no answer)."""

    SIGNS: ClassVar[dict[str, Sign]] = {
        s.kind: s
        for s in (
            Sign("right", ":material/check_circle:", "✓", "right: the expected answer matched"),
            Sign("not_expected", ":material/cancel:", "✗", "answered, not the expected answer"),
            Sign(
                "grounded", ":material/format_quote:", "❝", "answered; the answer occurs in the evidence (not checked)"
            ),
            Sign("answered", ":material/chat_bubble:", "•", "answered; nothing checked it"),
            Sign("paused", ":material/pause_circle:", "⏸", "paused: waiting for you"),
            Sign("stopped", ":material/stop_circle:", "■", "stopped by you"),
            Sign("no_answer", ":material/block:", "∅", "no answer"),
            Sign("failed", ":material/error:", "!", "failed"),
        )
    }

    sign: Sign
    expected: AnswerCheck | None
    evidence: Grounding | None

    @classmethod
    def of(cls, trace: Trace) -> Verdict:
        expected = check_expected(trace)
        evidence = check_grounding(trace) if trace.final_answer is not None else None
        return cls(_sign(trace, expected, evidence), expected, evidence)
