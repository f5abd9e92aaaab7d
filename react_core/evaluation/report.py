"""Results files as a Markdown table beside the paper's Table 1 (``python -m react_core eval-report``). UI-free."""

from __future__ import annotations

from pathlib import Path

from react_core.evaluation.harness import read_results, summarize
from react_core.evaluation.paper import PAPER_HOTPOTQA_EM, PAPER_MODEL, STRATEGY_LABELS
from react_core.evaluation.strategies import STRATEGIES


def markdown_table(paths: list[Path]) -> str:
    by_strategy: dict[str, dict[str, dict]] = {}
    for path in paths:
        for r in read_results(path):
            by_strategy.setdefault(r.get("strategy", "?"), {})[r["id"]] = r  # the latest line for an id wins
    rows = [
        "| strategy | n | EM | F1 | well-formed steps | ended with an answer | avg steps | avg seconds | "
        f"paper EM ({PAPER_MODEL}) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for strategy in [s for s in STRATEGIES if s in by_strategy] + [s for s in by_strategy if s not in STRATEGIES]:
        s = summarize(by_strategy[strategy].values())
        rows.append(
            f"| {STRATEGY_LABELS.get(strategy, strategy)} | {s.n} | {100 * s.em:.1f} | {100 * s.f1:.1f} | "
            f"{100 * s.well_formed:.1f}% | {100 * s.finished:.1f}% | {s.avg_steps:.2f} | {s.avg_seconds:.1f} | "
            f"{PAPER_HOTPOTQA_EM.get(strategy, '—')} |"
        )
    return "\n".join(rows)
