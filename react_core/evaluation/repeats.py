"""Repetitions, 95 % intervals and baselines for an evaluation's results.

Repetitions: a question run n times is n result lines with ids ``ID#1`` … ``ID#n`` (``repeated``), so a results file
resumes by line as before and ``base_id`` gives the question back.

Intervals: a percentile bootstrap over *questions* (``RESAMPLES`` resamples from a fixed seed, so the same results
always give the same interval). Each resample draws as many questions as there are, with replacement, and takes the
mean of their runs; repetitions of one question are resampled together, because they are not independent. The same
method for EM, F1 and the grounded-answer rate.

Baselines: a question *passes* when at least half of its runs are exact matches. Against a baseline (another
results file of the same questions), ``compare`` lists the questions that newly pass and newly fail. Only questions
in common are compared: the same id *and* the same question, since a person's own sets number their rows alike
(``line-2`` of one set is not ``line-2`` of another); ``common_questions`` says which, so a baseline with none in
common is never offered. UI-free.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from react_core.base.trace import Trace
from react_core.evaluation.data import Question
from react_core.report.checks import Checks, run_checks

__all__ = [
    "Comparison",
    "LEVEL",
    "RESAMPLES",
    "SEED",
    "Score",
    "Scores",
    "base_id",
    "bootstrap_interval",
    "by_question",
    "common_questions",
    "compare_results",
    "passes",
    "record_checks",
    "repeated",
    "score_results",
]

RESAMPLES = 2000
SEED = 0
LEVEL = 0.95


def repeated(questions: list[Question], n: int) -> list[Question]:
    """Each question ``n`` times in a row (ids ``ID#1`` …); the questions themselves when ``n`` is 1."""
    if n <= 1:
        return questions
    return [replace(q, id=f"{q.id}#{r}") for q in questions for r in range(1, n + 1)]


def base_id(record_id: str) -> str:
    head, sep, tail = str(record_id).rpartition("#")
    return head if sep and tail.isdigit() else str(record_id)


def bootstrap_interval(
    groups: list[list[float]], *, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float]:
    """The 95 % percentile-bootstrap interval of the mean over ``groups`` (one list of values per question)."""
    means = [sum(g) / len(g) for g in groups if g]
    if not means:
        return (0.0, 0.0)
    rng = random.Random(seed)
    n = len(means)
    stats = sorted(sum(rng.choices(means, k=n)) / n for _ in range(resamples))
    tail = (1 - LEVEL) / 2
    low = stats[int(tail * (resamples - 1))]
    high = stats[int(round((1 - tail) * (resamples - 1)))]
    return (low, high)


@dataclass
class Score:
    value: float
    low: float
    high: float

    def text(self) -> str:
        return f"{self.value * 100:.1f} [{self.low * 100:.1f}, {self.high * 100:.1f}]"


@dataclass
class Scores:
    """EM, F1 and grounded-answer rate with their intervals, and the trajectory checks' pass rates."""

    questions: int
    runs: int
    em: Score
    f1: Score
    grounded: Score
    checks: dict[str, float] = field(default_factory=dict)

    def line(self) -> str:
        return (
            f"EM {self.em.text()}  F1 {self.f1.text()}  grounded {self.grounded.text()}  "
            f"(95 % bootstrap intervals; {self.questions} questions, {self.runs} runs)"
        )


def by_question(records: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        grouped.setdefault(base_id(r["id"]), []).append(r)
    return grouped


def record_checks(record: dict[str, Any], checks: Checks | None = None) -> dict[str, bool]:
    return run_checks(Trace.from_dict(record["trace"]), checks)


def score_results(records: Iterable[dict[str, Any]], checks: Checks | None = None) -> Scores:
    """The scores of one strategy's results (several runs of a question count as one question)."""
    grouped = by_question(records)
    verdicts = {qid: [record_checks(r, checks) for r in runs] for qid, runs in grouped.items()}

    def metric(get: Any) -> Score:
        groups = [[float(get(r, v)) for r, v in zip(grouped[q], verdicts[q], strict=True)] for q in grouped]
        flat = [x for g in groups for x in g]
        low, high = bootstrap_interval(groups)
        return Score(sum(flat) / len(flat) if flat else 0.0, low, high)

    all_verdicts = [v for vs in verdicts.values() for v in vs]
    names = list(all_verdicts[0]) if all_verdicts else []
    rates = {n: sum(v[n] for v in all_verdicts) / len(all_verdicts) for n in names}
    return Scores(
        questions=len(grouped),
        runs=len(all_verdicts),
        em=metric(lambda r, v: r["em"]),
        f1=metric(lambda r, v: r["f1"]),
        grounded=metric(lambda r, v: v["grounded"]),
        checks=rates,
    )


def passes(runs: list[dict[str, Any]]) -> bool:
    return sum(r["em"] for r in runs) * 2 >= len(runs) > 0


@dataclass
class Comparison:
    """This run against a baseline, question by question (ids of questions both answered)."""

    newly_pass: list[str]
    newly_fail: list[str]
    both_pass: int
    both_fail: int
    only_here: list[str]  # questions the baseline did not answer
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> question, gold, the two answers

    @property
    def shared(self) -> int:
        """How many questions both answered (the ones compared)."""
        return len(self.rows)


def _said(record: dict[str, Any]) -> str:
    return " ".join(str(record.get("question", "")).split()).casefold()


def common_questions(baseline: Iterable[dict[str, Any]], current: Iterable[dict[str, Any]]) -> list[str]:
    """The ids of the questions both answered: the same id and the same question (records that name no question,
    from before results kept it, match by id)."""
    base, here = by_question(baseline), by_question(current)
    return [
        q
        for q, runs in here.items()
        if q in base and (not _said(runs[0]) or not _said(base[q][0]) or _said(runs[0]) == _said(base[q][0]))
    ]


def compare_results(baseline: Iterable[dict[str, Any]], current: Iterable[dict[str, Any]]) -> Comparison:
    baseline, current = list(baseline), list(current)
    base, here = by_question(baseline), by_question(current)
    common = set(common_questions(baseline, current))
    newly_pass, newly_fail, rows = [], [], {}
    same_pass = same_fail = 0
    for qid, runs in here.items():
        if qid not in common:
            continue
        before, now = passes(base[qid]), passes(runs)
        if now and not before:
            newly_pass.append(qid)
        elif before and not now:
            newly_fail.append(qid)
        elif now:
            same_pass += 1
        else:
            same_fail += 1
        rows[qid] = {
            "question": runs[0].get("question", ""),
            "gold": runs[0].get("gold", ""),
            "baseline": base[qid][0].get("prediction"),
            "now": runs[0].get("prediction"),
        }
    only = [q for q in here if q not in common]
    return Comparison(newly_pass, newly_fail, same_pass, same_fail, only, rows)
