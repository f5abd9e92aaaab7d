"""The results of evaluations as the Evaluate page shows them, as values: the summary table, the chart beside the
paper's Table 1 and its caption, the past evaluations and their results by prompt version and model, and each
question's record with its results file. Read from the results folders (``react_core.evaluation.results``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from react_core import EvalPlan, Evaluation, StrategyResults
from ui.evaluate import tasks as eval_tasks

MIN_CHART_N = 20  # fewer questions say too little to set beside the paper's 500


def when(evaluation: Evaluation) -> str:
    return evaluation.created_at.replace("T", " ")[:16] + " UTC"


def ended_text(ended: dict[str, int]) -> str:
    return " · ".join(f"{reason} {count}" for reason, count in ended.items())


def beside_paper(evaluation: Evaluation) -> bool:
    """Whether any of the results ran on the paper's data: only then is the paper's Table 1 shown beside them."""
    return any(r.paper_data for r in evaluation.results)


def summary_frame(evaluation: Evaluation) -> pd.DataFrame:
    rows = []
    paper = beside_paper(evaluation)
    for r in evaluation.results:
        s, task = r.summary(), r.task
        rows.append(
            {
                "strategy": r.label(evaluation.results),
                "prompt version": r.version,
                "model": r.model,
                "n": s.n,
                "of": s.planned,
                **eval_tasks.scores(task, round(100 * s.em, 1), round(100 * s.f1, 1)),
                **({f"paper {task.metric} (n={task.PAPER_N})": r.paper_figure} if paper else {}),
                **{reason: s.ended.get(reason, 0) for reason in s.ENDINGS},
                "well-formed steps %": round(100 * s.well_formed, 1),
                "avg steps": round(s.avg_steps, 2),
                "avg seconds": round(s.avg_seconds, 2),
            }
        )
    return pd.DataFrame(rows)


def chart(evaluation: Evaluation) -> tuple[pd.DataFrame | None, str]:
    """EM (FEVER: accuracy) beside the paper's, n in every label; no bar for a strategy with under MIN_CHART_N
    questions."""
    rows, small = {}, []
    paper = beside_paper(evaluation)
    for r in evaluation.results:
        s = r.summary()
        if s.n < MIN_CHART_N:
            small.append(f"{r.label(evaluation.results)} (n={s.n})")
            continue
        rows[f"{r.label(evaluation.results)} (n={s.n})"] = {
            "this evaluation": round(100 * s.em, 1),
            **({f"paper, {r.task.PAPER_MODEL} (n={r.task.PAPER_N})": r.paper_figure} if paper else {}),
        }
    why = ""
    if small:
        why = (
            f"No bar for {', '.join(small)}: fewer than {MIN_CHART_N} questions say too little to set beside the "
            f"paper's {evaluation.task.PAPER_N}; the table above has the figures."
        )
    return (pd.DataFrame.from_dict(rows, orient="index") if rows else None), why


def paper_caption(evaluation: Evaluation) -> str:
    """Where the paper's column comes from, or why there is none beside these results."""
    task = evaluation.task
    if not beside_paper(evaluation):
        return (
            "No paper column: the paper's Table 1 scored its own 500 dev questions, not these, so its figures would "
            "compare nothing."
        )
    return (
        f"Paper: ReAct (Yao et al. 2022), Table 1, {task.PAPER_MODEL} on {task.PAPER_N} {task.label} dev {task.items}."
    )


def past_frame(evaluations: list[Evaluation]) -> pd.DataFrame:
    rows = []
    for e in evaluations:
        incomplete = [
            f"{EvalPlan.label(r.strategy)} {len(r.records)} of {r.planned}"
            for r in e.results
            if r.planned and len(r.records) < r.planned
        ]
        rows.append(
            {
                "when": when(e),
                "strategies": ", ".join(r.label(e.results) for r in e.results),
                "prompt versions": ", ".join(dict.fromkeys(r.version for r in e.results if r.version)),
                "models": ", ".join(dict.fromkeys(r.model for r in e.results if r.model)),
                "questions": e.planned,
                "done": "stopped: " + ", ".join(incomplete) if incomplete else "complete",
                "ended": ended_text(e.ended()),
                "folder": e.folder.name,
            }
        )
    return pd.DataFrame(rows)


def past_versions(evaluations: list[Evaluation]) -> list[str]:
    """The prompt versions the past evaluations ran (what the page's filter offers)."""
    return [v for v in Evaluation.by_version(evaluations) if v]


def past_models(evaluations: list[Evaluation]) -> list[str]:
    """The models the past evaluations ran (what the page's model filter offers)."""
    return [m for m in Evaluation.by_model(evaluations) if m]


def with_version(evaluations: list[Evaluation], version: str | None, model: str | None = None) -> list[Evaluation]:
    """The evaluations with results of ``version`` and ``model`` (every one for None)."""
    return [
        e
        for e in evaluations
        if any((version is None or r.version == version) and (model is None or r.model == model) for r in e.results)
    ]


def version_frame(evaluations: list[Evaluation], version: str | None = None, model: str | None = None) -> pd.DataFrame:
    """Past results grouped by prompt version, then model (only ``version``'s and ``model``'s when chosen): one row
    per results file."""
    rows = []
    for v, group in Evaluation.by_version(evaluations, version).items():
        for e, r in sorted(group, key=lambda pair: pair[1].model):
            if model is not None and r.model != model:
                continue
            s = r.summary()
            rows.append(
                {
                    "prompt version": v or "(none recorded)",
                    "model": r.model,
                    "strategy": EvalPlan.label(r.strategy),
                    "when": when(e),
                    "n": s.n,
                    "EM": round(100 * s.em, 1),
                    "F1": round(100 * s.f1, 1),
                    "folder": e.folder.name,
                }
            )
    columns = ["prompt version", "model", "strategy", "when", "n", "EM", "F1", "folder"]
    return pd.DataFrame(rows, columns=columns)


def records(evaluation: Evaluation) -> list[dict[str, Any]]:
    return [rec for r in evaluation.results for rec in r.records]


def cells(evaluation: Evaluation) -> list[StrategyResults]:
    """Each record's results file, in the order of ``records`` (its prompt version and model)."""
    return [r for r in evaluation.results for _ in r.records]
