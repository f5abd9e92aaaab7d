"""The Evaluate page's task: the shared datasets it offers (HotpotQA's questions, FEVER's claims), the task each holds,
and the prompts that follow it. A person's own question sets are HotpotQA-style (questions and answers).

Choosing a dataset of another task sets each role's prompt to that task's own (the paper's FEVER prompts for
FEVER's claims): a HotpotQA prompt would ask a claim for a name, not a label. Prompts chosen by hand stay while the
task does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from react_core import Task
from ui.evaluate import question_sets

TASK_KEY = "eval-task"  # the task the prompts were last set for


def datasets() -> dict[str, Path]:
    """The shared dataset files by name: each task's folder, without the paper's list of rows."""
    return Task.shared_files()


def task_of(choice: str | None) -> Task:
    path = None if question_sets.is_set(choice) else datasets().get(choice or "")
    return Task.of(path) if path is not None else Task.HOTPOTQA


def chosen() -> Task:
    """The task of the dataset chosen on the page."""
    return task_of(st.session_state.get("eval-dataset"))


def name(choice: str) -> str:
    """A dataset as the select shows it: a FEVER file says it holds claims, an assignment its name."""
    if question_sets.is_set(choice):
        return question_sets.label(choice)
    task = task_of(choice)
    return choice if task is Task.HOTPOTQA else f"{choice} ({task.label} {task.items})"


def paper_defaults(task: Task) -> dict[str, Any]:
    """The prompt of each role as the paper ran the task."""
    return {f"eval-preset-{role}": preset for role, preset in task.presets.items()}


def follow() -> None:
    """Called before the prompt selects are drawn: a dataset of another task sets the task's own prompts."""
    ss = st.session_state
    task = chosen()
    if ss.get(TASK_KEY) != task.name:
        ss.update(paper_defaults(task))
        ss[TASK_KEY] = task.name


def scores(task: Task, em: float, f1: float) -> dict[str, float]:
    """A table's score columns: EM and F1, or FEVER's accuracy alone (its F1 is the same figure)."""
    return {task.metric: em, **({"F1": f1} if task.f1 else {})}
