"""A class's assignments, from the evaluation's side: an assignment's questions as a dataset file, an evaluation's
results made into submissions (each prompt version's exact match, grounded answers and trajectory checks against the
assignment's reference runs, with its runs), and the board's best version per student. The store keeps them
(``react_core.history.assignments``); this module says what goes in and how a board reads. UI-free.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from react_core.base.trace import Trace
from react_core.evaluation.repeats import base_id, common_questions
from react_core.evaluation.results import ASSIGNMENT_NOTE, StrategyResults
from react_core.report.checks import grounded, reference_checks

__all__ = ["Board", "write_assignment_file"]


def write_assignment_file(assignment: Any, folder: str | Path) -> Path:
    """The assignment's questions as a JSONL file in ``folder/questions`` (what an evaluation reads), and a note in
    ``folder`` naming the assignment (``Evaluation.assignment``), so its results can be submitted to it later."""
    folder = Path(folder)
    path = folder / "questions" / "assignment.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    items = [{k: q[k] for k in ("id", "question", "answer")} for q in assignment.questions]
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in items), encoding="utf-8")
    (folder / ASSIGNMENT_NOTE).write_text(
        json.dumps({"token": assignment.token, "name": assignment.name}), encoding="utf-8"
    )
    return path


def _rate(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


class Board:
    """An assignment's board: its submissions (the store's ``Submission``), read by student; what a submission holds
    (``submission_of`` a results file) and the reference runs it is checked against (``references_from``)."""

    def __init__(self, submissions: list[Any]) -> None:
        self.submissions = list(submissions)

    @staticmethod
    def references_from(results: StrategyResults, questions: list[dict[str, str]]) -> dict[str, Any]:
        """Reference runs for an assignment's questions, from a results file of the teacher's: question id -> the
        first run of each question both hold (the same id and question), as a trace dict."""
        shared = set(common_questions(results.records, questions))
        out: dict[str, Any] = {}
        for record in results.records:
            qid = base_id(record["id"])
            if qid in shared and qid not in out:
                out[qid] = record["trace"]
        return out

    @staticmethod
    def submission_of(results: StrategyResults, references: dict[str, Any]) -> dict[str, Any]:
        """One results file (a prompt version on a model) as a submission: its version and model, EM and grounded
        rates, each reference check's pass rate (over the questions with a reference), and its runs, one per question
        (the first of repeated runs)."""
        runs, seen = [], set()
        for record in results.records:
            qid = base_id(record["id"])
            if qid in seen:
                continue
            seen.add(qid)
            trace = Trace.from_dict(record["trace"])
            checks = reference_checks(trace, Trace.from_dict(references[qid])) if qid in references else {}
            runs.append(
                {
                    "id": qid,
                    "question": record.get("question", trace.question),
                    "gold": record.get("gold", ""),
                    "prediction": record.get("prediction"),
                    "em": float(record.get("em", 0.0)),
                    "grounded": grounded(trace),
                    "checks": checks,
                    "trace": record["trace"],
                }
            )
        names = list(dict.fromkeys(name for r in runs for name in r["checks"]))
        return {
            "version": results.version or results.name,
            "model": results.model,
            "em": _rate([r["em"] for r in runs]),
            "grounded": _rate([float(r["grounded"]) for r in runs]),
            "checks": {n: _rate([float(r["checks"][n]) for r in runs if n in r["checks"]]) for n in names},
            "runs": runs,
        }

    @staticmethod
    def submitter(submission: Any) -> str:
        """Whose a submission is: the student's account (two students with the same display name are two)."""
        return submission.owner or submission.student

    def best(self) -> list[Any]:
        """Each student's best submission: the highest exact match, then the most grounded answers, then the latest;
        students in the order they first submitted."""
        best: dict[str, Any] = {}
        for s in self.submissions:
            who = self.submitter(s)
            kept = best.get(who)
            if kept is None or (s.em, s.grounded, s.id) > (kept.em, kept.grounded, kept.id):
                best[who] = s
        return list(best.values())

    def versions_of(self, submission: Any) -> int:
        """How many versions the student of ``submission`` submitted."""
        return sum(1 for s in self.submissions if self.submitter(s) == self.submitter(submission))
