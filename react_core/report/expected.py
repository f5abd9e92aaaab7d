"""The answer a question is known to have, and how a run's answer compares with it.

An expected answer is known for every evaluation question (HotpotQA's gold answer; the harness records it) and for any
other run's question (the chat's, an arena's, ``ask``'s) that is, word for word, a known HotpotQA question: one of the
questions the offline pack behind the run's knowledge setting was built from (the pack itself for ``pack:PATH``; the
default pack while it stands in for unreachable Wikipedia; the Chat page's example questions come from it), else one
of the shared data's HotpotQA files (``REACT_SHARED_DATA``/hotpotqa: the dev set and the training questions), whatever
the knowledge setting. It is recorded in the trace (``Trace.expected_answer``), so History and the exports show it too.
The comparison is HotpotQA's exact match (``react_core.base.answers``), with token F1 beside it when they differ: only
an exact match is called a match. UI-free: never imports streamlit.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from react_core.base.answers import exact_match, f1_score
from react_core.base.paths import shared_data_dir
from react_core.base.trace import Trace
from react_core.knowledge.setting import Knowledge

__all__ = ["AnswerCheck", "check_expected", "expected_answer_for", "score_line"]


@dataclass(frozen=True)
class AnswerCheck:
    kind: str  # match | close (some words in common) | differs | no_answer (the run gave none)
    expected: str
    verdict: str  # e.g. "exact match", "not an exact match (word overlap F1 0.67)"
    f1: float = 0.0

    @property
    def message(self) -> str:
        return f"Expected answer: «{self.expected}» · {self.verdict}"

    @property
    def scores(self) -> str:
        """``EM 1 · F1 1.00``: HotpotQA's two scores of the run's answer (none: EM 0 · F1 0.00)."""
        return score_line(1.0 if self.kind == "match" else 0.0, self.f1)


def score_line(em: float, f1: float) -> str:
    """Exact match and F1 as every page and the command line write them: ``EM 1 · F1 0.67``."""
    return f"EM {em:.0f} · F1 {f1:.2f}"


def expected_answer_for(question: str, settings: Mapping[str, Any]) -> str | None:
    """The gold answer of ``question`` when it is a known HotpotQA question, word for word (surrounding blanks aside):
    the pack answering this knowledge setting holds it, else the shared data's HotpotQA files do; else None. Never
    raises (``Knowledge.standing_pack`` answers None for a setting it cannot use; unreadable files are skipped)."""
    pack = Knowledge.of(settings).standing_pack()
    find = getattr(pack, "question_for", None)
    found = find(question) if callable(find) else None
    if found is not None:
        return found.answer
    return _shared_answers().get(question.strip())


_lock = threading.Lock()
_loaded: dict[tuple, dict[str, str]] = {}  # the files' names and times -> question -> answer (the last read only)


def _shared_answers() -> dict[str, str]:
    """Question -> gold answer over the shared data's HotpotQA files (read once, again when one changes)."""
    files = sorted((shared_data_dir() / "hotpotqa").glob("*.json"))
    stamp = tuple((str(f), _mtime(f)) for f in files)
    with _lock:
        if stamp not in _loaded:
            answers: dict[str, str] = {}
            for f in files:
                for question, answer in _pairs(f):
                    answers.setdefault(question, answer)
            _loaded.clear()
            _loaded[stamp] = answers
        return _loaded[stamp]


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _pairs(path: Path) -> list[tuple[str, str]]:
    """A HotpotQA file's (question, answer) pairs; none for a file that is not one (the paper's list of indices)."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(rows, list):
        return []
    return [
        (r["question"].strip(), r["answer"])
        for r in rows
        if isinstance(r, dict) and isinstance(r.get("question"), str) and isinstance(r.get("answer"), str)
    ]


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
