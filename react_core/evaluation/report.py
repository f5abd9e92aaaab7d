"""Results as a Markdown table beside the paper's Table 1 (``eval-report``, ``eval-table``). UI-free.

Columns: strategy, the prompt version it ran (``paper@2``), the model when the results come from several, n, EM and
F1 (FEVER: accuracy), well-formed steps, how the episodes ended (a count per stop reason: ``finished``,
``max_calls``, ``context``, ``loop``), average steps and seconds, the paper's figure in the task's column. Results of
both tasks make a table each, under the task's name.
"""

from __future__ import annotations

from pathlib import Path

from react_core.evaluation.paper import STRATEGY_LABELS
from react_core.evaluation.results import Evaluation, StrategyResults, load_file
from react_core.evaluation.strategies import STRATEGIES
from react_core.evaluation.summary import Summary
from react_core.evaluation.tasks import HOTPOTQA, TASKS, Task

__all__ = ["header_rows", "load_groups", "markdown_table", "missing_row", "row"]


def header_rows(models: bool = False, task: Task = HOTPOTQA) -> list[str]:
    columns = ["strategy", "prompt version", *(["model"] if models else []), "n", task.metric]
    columns += (["F1"] if task.f1 else []) + ["well-formed steps", *Summary.ENDINGS, "avg steps", "avg seconds"]
    columns.append(f"paper {task.metric} ({Task.PAPER_MODEL}, n={Task.PAPER_N})")
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def row(r: StrategyResults, groups: list[StrategyResults] = (), models: bool = False) -> str:
    s, task = r.summary(), r.task
    cells = [
        r.label(groups),
        r.version or "—",
        *([r.model or "—"] if models else []),
        str(s.n),
        f"{100 * s.em:.1f}",
    ]
    cells += ([f"{100 * s.f1:.1f}"] if task.f1 else []) + [f"{100 * s.well_formed:.1f}%"]
    cells += [str(s.ended.get(reason, 0)) for reason in Summary.ENDINGS]
    figure = r.paper_figure  # beside the paper's own data only: a person's questions are not what it scored
    cells += [f"{s.avg_steps:.2f}", f"{s.avg_seconds:.1f}", "—" if figure is None else str(figure)]
    return "| " + " | ".join(cells) + " |"


def missing_row(strategy: str, models: bool = False, task: Task = HOTPOTQA) -> str:
    blanks = ["—", *(["—"] if models else []), "not run"] + ["—"] * ((5 if task.f1 else 4) + len(Summary.ENDINGS))
    return f"| {STRATEGY_LABELS[strategy]} | " + " | ".join(blanks) + f" | {task.paper[strategy]} |"


def markdown_table(groups: list[StrategyResults], *, every_strategy: bool = False, task: Task | None = None) -> str:
    """One row per group, in the paper's order; with ``every_strategy``, a "not run" row for each strategy of
    the paper's table that has no results, so the table always has its seven rows. Results of both tasks make two
    tables, each under its task's name; ``task``: the table's when there are no results yet."""
    tasks = list(dict.fromkeys(r.task for r in groups)) or [task or HOTPOTQA]
    if len(tasks) > 1:
        return "\n\n".join(
            f"**{t.label}**\n\n" + markdown_table([r for r in groups if r.task == t], every_strategy=every_strategy)
            for t in sorted(tasks, key=lambda t: list(TASKS).index(t.name))
        )
    ordered = sorted(groups, key=lambda r: (STRATEGIES.index(r.strategy) if r.strategy in STRATEGIES else 99, r.name))
    models = len({r.model for r in groups}) > 1  # a model column only where the results come from several
    rows = header_rows(models, tasks[0])
    present = {r.strategy for r in groups}
    for strategy in STRATEGIES:
        rows += [row(r, groups, models) for r in ordered if r.strategy == strategy]
        if every_strategy and strategy not in present:
            rows.append(missing_row(strategy, models, tasks[0]))
    rows += [row(r, groups, models) for r in ordered if r.strategy not in STRATEGIES]
    return "\n".join(rows)


def load_groups(paths: list[Path]) -> list[StrategyResults]:
    """Results files and evaluation folders, as the table's rows."""
    groups: list[StrategyResults] = []
    for path in paths:
        groups += Evaluation.load(path).results if path.is_dir() else load_file(path)
    return groups
