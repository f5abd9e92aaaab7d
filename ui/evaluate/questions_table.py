"""The Evaluate page's tables of questions (every question answered; a baseline's newly passing and failing ones) and
their CSV download.

The cells hold text from outside (a person's question set, the model's predictions), so a table is downloaded with
the app's own button, each cell made safe for a spreadsheet (``react_core.csv_text``); Streamlit's own download and
copy in the table's toolbar are off (``client.disableDataExport`` in ``.streamlit/config.toml``): they write cells
as they are, and a spreadsheet runs a cell such as ``=HYPERLINK(…)`` as a formula.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from react_core import EvalPlan, Evaluation, csv_text
from ui.evaluate import question_sets as qs
from ui.evaluate import tables
from ui.evaluate import tasks as eval_tasks


def question_rows(evaluation: Evaluation) -> list[dict[str, Any]]:
    """One row per question answered, file by file: how it ran, its answer against the gold one, and its checks."""
    rows, cells = tables.records(evaluation), tables.cells(evaluation)
    checked = qs.check_columns(evaluation, qs.checks())
    return [
        {
            "strategy": EvalPlan.label(r["strategy"]),
            "prompt version": cell.version,
            "model": cell.model,
            "id": r["id"],
            "question": r["question"],
            "gold": r["gold"],
            "prediction": r["prediction"],
            **eval_tasks.scores(evaluation.task, r["em"], r["f1"]),
            "steps": r["steps"],
            "ended": r["stop_reason"],
            **checks,
        }
        for r, cell, checks in zip(rows, cells, checked, strict=True)
    ]


def render_download(rows: Sequence[Mapping[str, Any]], file_name: str, *, key: str, columns: Sequence[str] = ()):
    """The app's CSV of a table: a cell a spreadsheet would run as a formula starts with a single quote."""
    st.download_button(
        "Download as CSV",
        csv_text(rows, columns),
        file_name,
        "text/csv",
        key=key,
        icon=":material/download:",
        on_click="ignore",
        help="Cells that a spreadsheet would read as a formula (starting with =, +, -, @) start with ' instead.",
    )
