"""The Evaluate page's own questions, repetitions, trajectory checks and baselines: the verbs and the tables.

A person's question sets live in their history (``Store.question_sets``), checked on upload by the engine's rules
(``react_core.QuestionSets``: a refusal names the line and the reason). An evaluation of a set gets the set as a
JSONL file in its own results folder, so the folder says which questions it ran, as for the shared files. Scores with
95 % intervals, the trajectory checks and the comparison with a baseline are the engine's (``StrategyResults.scores``,
``checked``, ``compare``); here they become tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from react_core import (
    Checks,
    EvalPlan,
    Evaluation,
    QuestionSets,
    ReactLabError,
    StrategyResults,
    plural,
)
from ui.shared import state

SET_PREFIX = "Your set: "
ASSIGNMENT_PREFIX = "Assignment: "  # then the assignment's token (``label`` shows its name)


def saved_sets() -> list[Any]:
    try:
        return state.history_store().question_sets()
    except ReactLabError:
        return []  # no usable history: the page offers the shared files only


def joined() -> list[Any]:
    try:
        return state.history_store().joined_assignments()
    except ReactLabError:
        return []


def choices() -> list[str]:
    """The person's own sets, then the assignments they joined (by token: two may share a name)."""
    return [SET_PREFIX + s.name for s in saved_sets()] + [ASSIGNMENT_PREFIX + a.token for a in joined()]


def is_set(choice: str | None) -> bool:
    """Whether a dataset choice is a person's own questions: a set of theirs, or an assignment they joined."""
    return bool(choice) and str(choice).startswith((SET_PREFIX, ASSIGNMENT_PREFIX))


def label(choice: str) -> str:
    """A dataset choice as the select shows it: ``Assignment: Week 3`` for an assignment's token."""
    if str(choice).startswith(ASSIGNMENT_PREFIX):
        token = choice[len(ASSIGNMENT_PREFIX) :]
        name = next((a.name for a in joined() if a.token == token), "(gone)")
        return ASSIGNMENT_PREFIX + name
    return choice


def dataset_file(choice: str, folder: Path) -> Path:
    """A set chosen on the page, written beside the evaluation's results (in ``questions/``, so it is never read as
    a results file) for the engine to read; an assignment's also leaves a note naming it, for its submissions."""
    sets = QuestionSets(state.history_store())
    if choice.startswith(ASSIGNMENT_PREFIX):
        return sets.write_assignment(choice[len(ASSIGNMENT_PREFIX) :], folder)
    return sets.write_file(choice[len(SET_PREFIX) :], folder / "questions")


def keep_upload() -> None:
    """'Keep this set': check the uploaded file and keep it under its name, or say which line is wrong and why."""
    ss = st.session_state
    upload = ss.get("qset-file")
    if upload is None:
        state.flash("warning", "Choose a CSV or JSONL file first.")
        return
    name = (ss.get("qset-name") or "").strip() or Path(upload.name).stem
    try:
        questions = QuestionSets(state.history_store()).save_upload(name, upload.getvalue(), upload.name)
    except QuestionSets.Error as e:
        state.flash("error", f"Refused: {e}")
        return
    except ReactLabError as e:
        state.flash("error", f"Could not keep the set: {e}")
        return
    state.flash("success", f"Kept {len(questions)} questions as {name!r}; choose it under Dataset.")
    ss["eval-dataset"] = SET_PREFIX + name


def delete_set() -> None:
    """'Delete': the chosen set of the person's own is gone (evaluations already run on it keep their results)."""
    ss = st.session_state
    name = ss.get("qset-delete")
    try:
        gone = bool(name) and state.history_store().delete_question_set(name)
    except ReactLabError as e:
        state.flash("error", f"Could not delete the set: {e}")
        return
    if not gone:
        state.flash("warning", "Choose one of your sets to delete.")
        return
    if ss.get("eval-dataset") == SET_PREFIX + name:
        ss["eval-dataset"] = None
    ss["qset-delete"] = None
    state.flash("success", f"Deleted the set {name!r}; evaluations run on it keep their results.")


def render_add_run(store: Any, run_id: int, question: str, answer: str | None) -> None:
    """History's "Add to a question set": the run's question with its answer, corrected where it was wrong."""
    names = [s.name for s in saved_sets()]
    st.text_input("Set", value=names[0] if names else "my questions", key=f"add-set-name-{run_id}")
    st.text_input("The right answer", value=answer or "", key=f"add-set-answer-{run_id}")
    st.caption("Correct the answer if the run got it wrong: the set keeps it as the gold answer.")
    st.button("Add", key=f"add-set-{run_id}", on_click=_add_run, args=(store, run_id, question))


def _add_run(store: Any, run_id: int, question: str) -> None:
    ss = st.session_state
    name = (ss.get(f"add-set-name-{run_id}") or "").strip()
    try:
        answer = ss.get(f"add-set-answer-{run_id}") or ""
        size = QuestionSets(store).add_run(name, question, answer, run_id=run_id)
    except ReactLabError as e:
        state.flash("error", f"Not added: {e}")
        return
    count = plural(size, "question")
    state.flash("success", f"Added run #{run_id} to {name!r} ({count}); evaluate it on the Evaluate page.")


def checks() -> Checks:
    ss = st.session_state
    tool = ss.get("eval-check-tool") or ""
    return Checks(
        tool=tool, tool_absent=bool(ss.get("eval-check-absent")), max_steps=int(ss.get("eval-check-steps") or 0)
    )


def scores_frame(evaluation: Evaluation, chosen: Checks) -> pd.DataFrame:
    """Per strategy: EM, F1 and grounded rate with 95 % intervals, then each trajectory check's pass rate."""
    return _checked(str(evaluation.folder), _counts(evaluation), _key(chosen), evaluation)[0]


def check_columns(evaluation: Evaluation, chosen: Checks) -> list[dict[str, bool]]:
    """Each result's checks, file by file in file order (as ``ui.evaluate.tables.records`` lists them)."""
    return _checked(str(evaluation.folder), _counts(evaluation), _key(chosen), evaluation)[1]


def _counts(evaluation: Evaluation) -> tuple:
    """What identifies the results read (files only grow: a result line is appended, never changed)."""
    return tuple((str(r.path), r.name, len(r.records)) for r in evaluation.results)


def _key(chosen: Checks) -> tuple[str, bool, int]:
    return (chosen.tool, chosen.tool_absent, chosen.max_steps)


@st.cache_data(max_entries=32, show_spinner=False)
def _checked(
    folder: str, counts: tuple, key: tuple[str, bool, int], _evaluation: Evaluation
) -> tuple[pd.DataFrame, list[dict[str, bool]]]:
    """Scores and checks of the results the page read (``_evaluation``, not hashed: ``counts`` stands for it),
    computed once per new result or change of the checks asked (the grounding check reads every observation)."""
    chosen, evaluation = Checks(*key), _evaluation
    rows = []
    for r in evaluation.results:
        s = r.scores(chosen)
        row = {
            "strategy": EvalPlan.label(r.strategy, r.name),
            "prompt version": r.version,
            "model": r.model,
            "questions": s.questions,
            "runs": s.runs,
            "EM": s.em.text(),
            "F1": s.f1.text(),
            "grounded": s.grounded.text(),
        }
        row.update({f"{name} %": round(100 * rate, 1) for name, rate in s.checks.items()})
        rows.append(row)
    per_record = [checked for r in evaluation.results for checked in r.checked(chosen)]
    return pd.DataFrame(rows), per_record


def result_name(r: StrategyResults, model: bool = False) -> str:
    """A results file in a few words: its strategy, the prompt version it ran when known, and with ``model`` (an
    evaluation of several models, or results from elsewhere) the model it ran on."""
    parts = [EvalPlan.label(r.strategy, r.name), r.version, r.model if model else ""]
    return " · ".join(p for p in parts if p)


def several_models(evaluation: Evaluation) -> bool:
    return len({r.model for r in evaluation.results}) > 1


def baselines(current: Evaluation, past: list[Evaluation]) -> dict[str, StrategyResults]:
    """Results that can serve as a baseline: any cell of this evaluation when it holds several (another prompt
    version or model on the same questions), then this person's other evaluations, each named with its model and how
    many questions it has in common with this evaluation. Results with none in common are not offered: compared,
    they would say "0 newly pass, 0 newly fail" about questions never asked of both."""
    found = {}
    here = [rec for r in current.results for rec in r.records]
    own = current.results if len(current.results) > 1 else []
    for e, rs in [(current, own), *((p, p.results) for p in past if p.folder != current.folder)]:
        for r in rs:
            shared = len(r.in_common(here))
            if not shared:
                continue
            when = e.created_at.replace("T", " ")[:16]
            name = result_name(r, model=e is not current or several_models(current))
            found[f"{when} · {name} · {plural(shared, 'question')} in common · {e.folder.name}/{r.name}"] = r
    return found


def comparison(baseline: StrategyResults, current: StrategyResults) -> tuple[Any, pd.DataFrame]:
    c = current.compare(baseline)
    rows = [{"change": "newly passes", "id": q, **c.rows[q]} for q in c.newly_pass]
    rows += [{"change": "newly fails", "id": q, **c.rows[q]} for q in c.newly_fail]
    return c, pd.DataFrame(rows, columns=["change", "id", "question", "gold", "baseline", "now"])


def comparison_line(name: str, c: Any) -> str:
    """``name``'s changes against the baseline, on how many questions in common, and those the baseline lacks."""
    if not c.shared:
        return f"**{name}**: no question in common with the baseline, so nothing to compare."
    lacking = f"; {plural(len(c.only_here), 'question')} not in the baseline" if c.only_here else ""
    return (
        f"**{name}**: {len(c.newly_pass)} newly pass, {len(c.newly_fail)} newly fail ({c.both_pass} pass in both, "
        f"{c.both_fail} fail in both) · on {plural(c.shared, 'question')} in common{lacking}"
    )
