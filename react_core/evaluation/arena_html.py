"""An arena as one self-contained HTML file, the way the Arena page shows it: the question (and the gold answer), 2 to
4 columns side by side, each with its variant's label, its steps lined up row by row with the first row where the
columns' actions differ marked, and its answer, checks, scores, steps, tokens and time.

Built from the single-run export's own pieces (``react_core.report.html``): the same escaping (everything a run
holds, variant labels included, is character data), the same policy that allows no script and no request, the same
step sections with their sources and model calls in ``<details>``. The columns are one CSS grid, so a row's steps
stay side by side; a wide arena scrolls sideways rather than squeezing its columns, and on a phone one column fills
the screen. The rules of the arena (``Arena.line_up``, ``Variant.label``, ``ColumnResult.figures``) come from
``evaluation.arena``, where the columns part (their actions, or a person's edit) from ``evaluation.parting``. UI-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from react_core.base import call_records
from react_core.base.errors import ConfigError
from react_core.base.text import plural
from react_core.evaluation.arena import Arena, ColumnResult, Variant
from react_core.evaluation.parting import Parting
from react_core.report.exports import file_stem
from react_core.report.html import STYLE, answer_section, esc, page, para, settings_line, step_section

__all__ = ["ARENA_STYLE", "SideBySide"]

# Added to the single-run stylesheet: the grid of columns and the colours of the marks.
ARENA_STYLE = (
    STYLE
    + """
body.arena{max-width:none;margin:1.5rem auto;padding:0 1.5rem}
.scroll{overflow-x:auto;padding-bottom:0.5rem;margin-top:1rem}
.grid{display:grid;column-gap:1rem;align-items:start}
.grid>*{min-width:0}
.cols-1{grid-template-columns:minmax(min(20rem,85vw),60rem)}
.cols-2{grid-template-columns:repeat(2,minmax(min(20rem,85vw),1fr))}
.cols-3{grid-template-columns:repeat(3,minmax(min(20rem,85vw),1fr))}
.cols-4{grid-template-columns:repeat(4,minmax(min(20rem,85vw),1fr))}
.column{border-bottom:2px solid #d1d9e0;padding-bottom:0.4rem;align-self:stretch}
.column h2{font-size:1.05rem}
.wide{grid-column:1/-1}
.differ{margin:1rem 0 0;padding:0.3rem 0.7rem;background:#fff1e5;border-left:4px solid #bc4c00;font-weight:600}
.differ>span{position:sticky;left:0.7rem}
.edited{color:#bc4c00;font-weight:600;margin:0.8rem 0 0}
.first-difference>.step{border:2px solid #bc4c00}
.gap{color:#59636e;margin:1rem 0;padding:0.8rem 1rem;border:1px dashed #d1d9e0;border-radius:8px}
.badge{border-radius:6px;padding:0.15rem 0.5rem}
.badge.grounded,.badge.match{background:#dafbe1;color:#116329}
.badge.partial,.badge.close,.badge.yes_no{background:#fff8c5;color:#7d4e00}
.badge.not_found,.badge.differs{background:#ffebe9;color:#a40e26}
.figures{font-weight:600;color:#1f2328}
"""
)


@dataclass(frozen=True)
class SideBySide:
    """Runs side by side, as the Arena page shows them and as one HTML file: an arena's columns (2 to 4; a saved one
    may have kept fewer, as a column that failed before its first step is not saved) or runs picked to compare."""

    columns: Sequence[ColumnResult]
    arena_id: str | None = None
    saved_at: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(self.columns))  # kept as they were given, whoever holds the list

    @classmethod
    def saved(cls, runs: Sequence[Any], *, arena_id: str | None = None, saved_at: str | None = None) -> SideBySide:
        """Runs from the history (an arena's, in column order, or runs picked to compare) as columns, each scored and
        with its run number."""
        columns = [ColumnResult.of(r.trace, i, history_id=r.id, record=r) for i, r in enumerate(runs)]
        return cls(columns, arena_id, saved_at)

    def to_html(self) -> str:
        """The columns as one HTML document (a ``str``; encode it as UTF-8). Raises ConfigError for none or more than
        four."""
        return _page(self.columns, self.arena_id, self.saved_at)

    def file_name(self) -> str:
        """A file name for the download: ``react-arena-<id>-<question>.html``."""
        return file_stem(self.columns[0].trace, self.arena_id, kind="arena") + ".html"


def _page(results: Sequence[ColumnResult], arena_id: str | None, saved_at: str | None) -> str:
    if not 1 <= len(results) <= Arena.MAX_COLUMNS:
        raise ConfigError(f"An arena has {Arena.MIN_COLUMNS} to {Arena.MAX_COLUMNS} columns (got {len(results)}).")
    traces = [r.trace for r in results]
    n = len(traces)
    parting = Parting.first([t.steps for t in traces], [r.edits for r in results])
    differ = parting.row if parting is not None else None
    names = [f"#{r.history_id}" if r.history_id is not None else f"column {i + 1}" for i, r in enumerate(results)]
    body = [*_header(results, arena_id, saved_at, parting, names), f'<main class="scroll"><div class="grid cols-{n}">']
    for i, result in enumerate(results):
        body.append(_column_head(result, i, own_question=len({t.question for t in traces}) > 1))
    rebuilt = [call_records.CallTexts.of(t.steps) for t in traces]
    for k, row in enumerate(Arena.line_up([t.steps for t in traces])):
        if parting is not None and k == differ:
            mark = f"▼ {parting.said(names)}"
            body.append(f'<p class="differ wide" id="first-difference"><span>{esc(mark)}</span></p>')
        for i, step in enumerate(row):
            if step is None:
                body.append(f'<div class="cell"><p class="gap">{esc(f"Step {k + 1}: —")}</p></div>')
                continue
            cls = "cell first-difference" if k == differ else "cell"
            cell = step_section(traces[i], k, rebuilt[i][k], anchor=f"c{i + 1}-step-")
            edited = "".join(
                para(f"✎ {e.part.capitalize()} {e.how}", "edited") for e in results[i].edits if e.index == step.index
            )
            body.append(f'<div class="{cls}">{edited}{cell}</div>')
    for i, result in enumerate(results):
        answer = answer_section(result.trace, anchor=f"c{i + 1}-answer", badges=True)
        body.append(f'<div class="cell">{answer}{para(result.figures(), "meta figures")}</div>')
    body.append("</div></main>")
    return page(f"Arena: {traces[0].question}", body, style=ARENA_STYLE, body_class="arena")


def _header(
    results: Sequence[ColumnResult],
    arena_id: str | None,
    saved_at: str | None,
    parting: Parting | None,
    names: list[str],
) -> list[str]:
    traces = [r.trace for r in results]
    out = [f"<header><h1>{esc(traces[0].question)}</h1>"]
    golds = {t.expected_answer for t in traces}
    if len(golds) == 1 and None not in golds:
        out.append(para(f"Gold answer: {golds.pop()}", "meta final"))
    where = [f"Arena {arena_id}" if arena_id else "Side by side", plural(len(results), "column")]
    if saved_at:
        where.append(f"saved {saved_at.replace('T', ' ')}")
    ids = [r.history_id for r in results if r.history_id is not None]
    if ids:
        where.append("runs " + ", ".join(f"#{i}" for i in ids))
    out.append(para(" · ".join(where) + " · exported from ReAct Lab"))
    if parting is not None:
        out.append(para(parting.said(names)))
    elif any(t.steps for t in traces):
        out.append(para(Parting.SAME_ACTIONS))
    out.append("</header>")
    return out


def _column_head(result: ColumnResult, i: int, *, own_question: bool) -> str:
    """A column's label, how its run ended, its run number, its question (when the columns' differ) and settings."""
    trace = result.trace
    out = [f'<section class="column" id="column-{i + 1}"><h2>{esc(f"{i + 1}. {Variant.label(trace.settings)}")}</h2>']
    out.append(para(trace.summary()))
    if own_question:
        out.append(para(f"Question: {trace.question}"))
    if result.history_id is not None:
        out.append(para(f"Run #{result.history_id}"))
    out.append(f"<details><summary>Settings</summary>{para(settings_line(trace.settings))}</details></section>")
    return "".join(out)
