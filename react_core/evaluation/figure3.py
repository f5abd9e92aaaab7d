"""The paper's Figure 3 in small: Standard, CoT, Act and ReAct, each prompted (the paper's 6-shot prompts on the base
model) and fine-tuned (the method's own adapter, trained on its own gold trajectories of the HotpotQA train questions,
answering its zero-shot prompt), on held-out dev questions none of them trained on.

Each of the eight cells is an evaluation of its own (``EvalPlan.run``: resumable, one results file a cell) in one
folder; ``figure`` reads the folder back as EM and F1 with 95 % bootstrap intervals
(``repeats.score_results``), ``section`` writes it for docs/evaluation.md between its markers. Training the adapters
is the command line's job (``figure3``), not this module's: here an adapter is a file. ``measure_adapter`` runs the
fine-tuned ReAct cell alone for an adapter of one's own (a recipe's candidate), as the shipped one is measured, and
keeps its figures in its manifest (the command's ``--adapter``, the Fine-tune page's Measure). UI-free.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from react_core.base.paths import PROJECT_ROOT
from react_core.evaluation import results
from react_core.evaluation.paper import STRATEGY_LABELS
from react_core.evaluation.repeats import Scores, score_results
from react_core.evaluation.run import EvalPlan
from react_core.evaluation.strategies import DEFAULT_PRESETS
from react_core.loop.settings import RunSettings

__all__ = [
    "BEGIN",
    "Cell",
    "DEFAULT_DIR",
    "DOC",
    "END",
    "METHODS",
    "TUNED_PRESETS",
    "VARIANTS",
    "candidate_dir",
    "cell_minutes",
    "cell_records",
    "cells",
    "figure3_scores",
    "figure3_table",
    "held_out_scores",
    "markdown",
    "measure_adapter",
    "plan_for",
    "record_scores",
    "run_cells",
    "section",
]

METHODS = ("standard", "cot", "act", "react")
VARIANTS = ("prompted", "fine-tuned")
TUNED_PRESETS = {m: f"tuned-{m}" for m in METHODS}  # the zero-shot prompt each method's adapter learned
BEGIN = "<!-- figure3:begin (written by python -m react_core figure3; edits between the markers are lost) -->"
END = "<!-- figure3:end -->"
DOC = PROJECT_ROOT / "docs" / "evaluation.md"
DEFAULT_DIR = PROJECT_ROOT / "results" / "figure3"  # where ``figure3`` writes unless told, and the page reads


@dataclass(frozen=True)
class Cell:
    method: str
    variant: str
    adapter: str  # "none" for a prompted cell, the adapter file for a fine-tuned one

    @property
    def name(self) -> str:
        return f"{self.variant}-{self.method}"

    @property
    def preset(self) -> str:
        return DEFAULT_PRESETS[self.method] if self.variant == "prompted" else TUNED_PRESETS[self.method]


def cells(adapters: dict[str, str]) -> list[Cell]:
    """The eight cells, prompted first; ``adapters``: each method's adapter file for its fine-tuned cell."""
    return [Cell(m, "prompted", "none") for m in METHODS] + [Cell(m, "fine-tuned", adapters[m]) for m in METHODS]


def plan_for(cell: Cell, base: RunSettings, datasets: list[str], out_dir: Path, limit: int | None) -> EvalPlan:
    return EvalPlan(
        datasets=datasets,
        strategies=[cell.method],
        out_dir=str(out_dir),
        settings=base.updated(provider="local", model_path="", adapter=cell.adapter),
        limit=limit,
        presets={cell.method: cell.preset},
        names={cell.method: cell.name},
        reuse=False,
    )


def run_cells(
    adapters: dict[str, str],
    base: RunSettings,
    datasets: list[str],
    out_dir: Path,
    *,
    limit: int | None = None,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
    only: set[str] | None = None,
) -> bool:
    """Every cell (or those named in ``only``) into ``out_dir`` (a cell already done is not run again); False when
    stopped."""
    for cell in cells(adapters):
        if only is not None and cell.name not in only:
            continue
        run = plan_for(cell, base, datasets, out_dir, limit).run(on_progress=on_progress)
        if run.stopped:
            return False
    return True


def candidate_dir(adapter: Path) -> Path:
    """Where a ReAct adapter of one's own is measured unless told: a folder named by the adapter's own, never
    ``DEFAULT_DIR``, whose results were made with the shipped adapter (a resume there is refused)."""
    return DEFAULT_DIR.with_name(f"figure3-{Path(adapter).resolve().parent.name}")


def record_scores(found: dict[str, str], out_dir: Path, wanted: set[str]) -> list[str]:
    """Each fine-tuned cell's held-out scores (``found``: each method's adapter file; ``wanted``: the cells run) into
    its adapter's manifest (``scores``), where the notice, the Fine-tune page and Settings read them. Returns the
    methods whose adapter got them."""
    from react_core.providers.adapters import read_manifest, write_manifest

    recorded = []
    for method, adapter in found.items():
        records = results.read_results(results.result_path(out_dir, f"fine-tuned-{method}"))
        manifest = read_manifest(Path(adapter)) if adapter and f"fine-tuned-{method}" in wanted else None
        if records and manifest is not None:
            manifest.scores = held_out_scores(records)
            write_manifest(Path(adapter), manifest)
            recorded.append(method)
    return recorded


def measure_adapter(
    adapter: Path,
    *,
    out_dir: Path | None = None,
    limit: int | None = None,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
    cancel: threading.Event | None = None,
    provider: Any = None,
) -> bool:
    """A ReAct adapter measured as the shipped one is: Figure 3's fine-tuned ReAct cell (the 200 dev questions none
    trained on, the offline pack of their paragraphs, greedy, at most 7 calls, its zero-shot prompt) into ``out_dir``
    (default ``candidate_dir``). A whole cell's figures go into the adapter's manifest. False when stopped: the same
    call resumes. ``provider`` stands in for the on-device model (tests)."""
    from react_core.evaluation import table
    from react_core.knowledge.default_pack import hotpotqa_sources
    from react_core.knowledge.spec import pack_spec

    datasets = [str(p) for p in hotpotqa_sources()]
    out = Path(out_dir) if out_dir else candidate_dir(adapter)
    base = RunSettings(knowledge=pack_spec(table.ensure_pack(out, datasets)))
    cell = Cell("react", "fine-tuned", str(adapter))
    run = plan_for(cell, base, datasets, out, limit).run(on_progress=on_progress, cancel=cancel, provider=provider)
    if run.stopped:
        return False
    if not limit:
        record_scores({"react": str(adapter)}, out, {cell.name})
    return True


def figure3_scores(out_dir: Path) -> dict[tuple[str, str], Scores]:
    """The scores of each cell there are results for, by (method, variant)."""
    return {(method, variant): score_results(records) for method, variant, records in cell_records(out_dir)}


def cell_records(out_dir: Path) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(method, variant, results) of each cell there are results for, in the table's order."""
    found = []
    for variant in VARIANTS:
        for method in METHODS:
            records = results.read_results(results.result_path(out_dir, f"{variant}-{method}"))
            if records:
                found.append((method, variant, records))
    return found


def cell_minutes(out_dir: Path) -> dict[str, float]:
    """The model and tool time each cell's questions took (its results' ``seconds``), in minutes, by cell name."""
    return {
        f"{variant}-{method}": sum(float(r.get("seconds") or 0) for r in records) / 60
        for method, variant, records in cell_records(out_dir)
    }


def markdown(scores: dict[tuple[str, str], Scores]) -> str:
    rows = [
        "| method | prompted EM | prompted F1 | fine-tuned EM | fine-tuned F1 | n |",
        "|---|---|---|---|---|---|",
    ]
    for method in METHODS:
        p, f = scores.get((method, "prompted")), scores.get((method, "fine-tuned"))
        n = max((s.questions for s in (p, f) if s), default=0)
        rows.append(
            f"| {STRATEGY_LABELS[method]} | {p.em.text() if p else '—'} | {p.f1.text() if p else '—'} "
            f"| {f.em.text() if f else '—'} | {f.f1.text() if f else '—'} | {n} |"
        )
    return "\n".join(rows)


def figure3_table(out_dir: Path = DEFAULT_DIR) -> str:
    """The table of a Figure 3 folder's results ('' when there are none), for the Evaluate page."""
    scores = figure3_scores(Path(out_dir))
    return markdown(scores) if scores else ""


def section(scores: dict[tuple[str, str], Scores], description: str) -> str:
    return f"{BEGIN}\n{description}\n\n{markdown(scores)}\n{END}"


def held_out_scores(records: list[dict[str, Any]]) -> dict[str, Any]:
    """What a fine-tuned cell measured, as its adapter's manifest keeps it (``scores``): EM and F1 with intervals,
    how many episodes finished, how many answers were grounded in what the run read (yes/no answers cannot be: they
    are counted apart), and the sentences the app shows (the on-device notice's, the Fine-tune page's)."""
    from react_core.base.trace import Trace
    from react_core.report.grounding import check_grounding

    s = score_results(records)
    kinds = [check_grounding(Trace.from_dict(r["trace"])).kind for r in records]
    answered = sum(1 for k in kinds if k != "no_answer")
    yes_no = kinds.count("yes_no")
    grounded = kinds.count("grounded")
    finished = sum(1 for r in records if r["stop_reason"] == "finished")
    # Answers asked for after the steps ended without one (``early_stopping="generate"``): counted apart.
    asked = sum(1 for r in records if r["stop_reason"] == "answered_at_stop")
    em, f1 = round(100 * s.em.value, 1), round(100 * s.f1.value, 1)
    low, high = round(100 * s.em.low, 1), round(100 * s.em.high, 1)
    of_spans = round(100 * grounded / max(1, answered - yes_no))
    return {
        "n": s.questions,
        "em": em,
        "em_interval": [low, high],
        "f1": f1,
        "f1_interval": [round(100 * s.f1.low, 1), round(100 * s.f1.high, 1)],
        "finished": finished,
        **({"answered_at_stop": asked} if asked else {}),
        "answered": answered,
        "yes_no_answers": yes_no,
        "grounded_answers": grounded,
        "notice": f"right on about {em:.0f} % of {s.questions} held-out HotpotQA questions (exact match)",
        "summary": (
            f"EM {em} (95 % interval {low}–{high}), F1 {f1} on {s.questions} held-out HotpotQA dev "
            f"questions; {finished} of {s.questions} episodes finished"
            + (f" ({asked} more answered when asked after their steps ended)" if asked else "")
            + f"; {grounded} of the {answered - yes_no} "
            f"answers that are not yes/no ({of_spans} %) grounded in what the run read"
        ),
    }
