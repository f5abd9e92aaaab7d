"""The Class page's parts, and the Evaluate page's "Submit to the assignment".

A teacher hands out one of their question sets as an assignment (optionally with reference runs: the results of one of
their own evaluations of it), and gets a link; each student who opens the link joins, runs their own prompt versions
on it from the Evaluate page (the dataset ``Assignment: NAME``) and submits the versions they choose; the board lists
each student's best version, for the assignment's owner only. Every verb is the history store's
(``react_core.history.assignments``), which scopes each query to its owner; this module gathers input and draws what
the store returns.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from react_core import (
    Assignment,
    Board,
    Evaluation,
    ReactLabError,
    StrategyResults,
    Trace,
    plural,
)
from ui.evaluate.question_sets import ASSIGNMENT_PREFIX
from ui.shared import identity, state
from ui.shared.render import render_trace
from ui.shared.share_view import app_link
from ui.shared.text import md_literal

ASSIGNMENT_PARAM, SUBMISSION_PARAM = "assignment", "submission"  # /class?assignment=TOKEN, /class?submission=ID
CLASS_PAGE = "class"


def link(token: str) -> str:
    return app_link(CLASS_PAGE, **{ASSIGNMENT_PARAM: token})


def student_name() -> str:
    """How a submission names its student on the board: the signed-in person as they would recognise themselves."""
    return identity.person() if identity.mode() == identity.SIGNED_IN else "you"


# -- the teacher's ---------------------------------------------------------------------------------------------


def _hand_out(sets: dict[str, Any], references: dict[str, Any]) -> None:
    ss = st.session_state
    chosen = sets.get(ss.get("class-set") or "")
    if chosen is None:
        state.flash("warning", "Choose one of your question sets first.")
        return
    name = (ss.get("class-name") or "").strip() or chosen.name
    reference = references.get(ss.get("class-reference") or "")
    refs = Board.references_from(reference, chosen.questions) if reference is not None else {}
    try:
        made = state.history_store().create_assignment(name, chosen.questions, refs)
    except ReactLabError as e:
        state.flash("error", f"Not handed out: {e}")
        return
    with_refs = f", with {plural(len(refs), 'reference run')}" if refs else ""
    state.flash("success", f"Handed out {name!r} ({plural(len(made.questions), 'question')}{with_refs}).")


def render_hand_out(sets: list[Any], evaluations: list[Any]) -> None:
    """Choose a question set (and a reference), name the assignment, hand it out."""
    by_name = {s.name: s for s in sets}
    if not by_name:
        st.info("Keep a question set first (Evaluate page, Your own questions): an assignment hands one out.")
        return
    st.selectbox("Question set", list(by_name), key="class-set")
    st.text_input("Assignment name", key="class-name", placeholder="the set's name")
    references = {
        f"{e.created_at.replace('T', ' ')[:16]} · {r.version or r.name} · {r.model} · {e.folder.name}/{r.name}": r
        for e in evaluations
        for r in e.results
    }
    st.selectbox(
        "Reference runs (optional)",
        list(references),
        index=None,
        key="class-reference",
        placeholder="none: no trajectory checks",
        help="Your own evaluation of these questions: each student's run is checked against its run of the same "
        "question (the tools it used, its number of steps, the pages it read).",
    )
    st.button(
        "Hand out", key="class-hand-out", icon=":material/assignment:", on_click=_hand_out, args=(by_name, references)
    )


def board_frame(submissions: list[Any]) -> pd.DataFrame:
    """Each student's best version, one row each: what a teacher compares first (the scores and the checks, in view
    on a laptop's page), then what it ran on (further right, where a wide board scrolls)."""
    rows, board = [], Board(submissions)
    for s in board.best():
        row = {
            "student": s.student,
            "best version": s.version,
            "EM %": round(100 * s.em, 1),
            "grounded %": round(100 * s.grounded, 1),
        }
        row |= {f"{name} %": round(100 * rate, 1) for name, rate in s.checks.items()}
        row |= {"model": s.model, "questions": s.questions}
        row |= {"versions submitted": board.versions_of(s), "run": f"#{s.id}"}
        rows.append(row)
    return pd.DataFrame(rows)


def render_board(a: Assignment) -> None:
    """One of the teacher's assignments: its link and its board, each best version openable."""
    st.markdown(
        f"**{md_literal(a.name)}** · {plural(len(a.questions), 'question')}"
        + (f" · {plural(len(a.references), 'reference run')}" if a.references else "")
    )
    st.caption("The link to give the class (each student signs in, then opens it):")
    st.code(link(a.token), language=None)
    submissions = state.history_store().board(a.token)
    if not submissions:
        st.caption("No submissions yet.")
        return
    frame = board_frame(submissions)
    st.dataframe(frame, hide_index=True, width="stretch", key=f"class-board-{a.token[:8]}")
    for s in Board(submissions).best():
        if st.button(f"Open {s.student}'s runs ({s.version})", key=f"class-open-{s.id}"):
            st.query_params[SUBMISSION_PARAM] = str(s.id)
            st.rerun()


# -- a student's -------------------------------------------------------------------------------------------------


def render_joined(a: Assignment) -> None:
    """An assignment this person joined: how to run it, and their own submissions (nobody else's)."""
    st.markdown(f"**{md_literal(a.name)}** · {plural(len(a.questions), 'question')}")
    st.caption(
        md_literal(
            f"Run your prompt versions on it from the Evaluate page (Dataset: Assignment: {a.name}), then submit the "
            "versions you choose under the results. Only the teacher sees what you submit; nothing else of yours."
        )
    )
    if st.button("Evaluate it", key=f"class-evaluate-{a.token[:8]}", icon=":material/analytics:"):
        st.session_state["eval-dataset"] = ASSIGNMENT_PREFIX + a.token
        st.switch_page("pages/evaluate.py")
    mine = state.history_store().my_submissions(a.token)
    if mine:
        st.dataframe(board_frame(mine).drop(columns=["student"]), hide_index=True, width="stretch")


def render_submission(submission_id: str) -> None:
    """One submission's runs, question by question, for its student or the assignment's owner (the store decides)."""
    found = state.history_store().submission(submission_id) if submission_id.isdigit() else None
    if found is None:
        st.warning("This submission is not one you can open.")
        return
    st.subheader(md_literal(f"{found.student} · {found.version} · {found.model}"), anchor=False)
    rows = [
        {
            "id": r["id"],
            "question": r["question"],
            "prediction": r.get("prediction"),
            "EM": r["em"],
            "grounded": r["grounded"],
            **r.get("checks", {}),
        }
        for r in found.runs
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="class-runs")
    pick = st.selectbox(
        "Open a question's run",
        range(len(found.runs)),
        index=None,
        key="class-run",
        format_func=lambda i: f"{found.runs[i]['id']} · {found.runs[i]['question'][:80]}",
    )
    if pick is not None:
        trace = Trace.from_dict(found.runs[pick]["trace"])
        render_trace(trace, key=f"class-{found.id}-{pick}")


# -- the Evaluate page's ------------------------------------------------------------------------------------------


def _submit(token: str, r: StrategyResults) -> None:
    store = state.history_store()
    a = store.assignment(token)
    if a is None:
        state.flash("error", "That assignment is gone, or its link was never opened here.")
        return
    made = Board.submission_of(r, a.references)
    try:
        n = store.submit(token, student=student_name(), **made)
    except ReactLabError as e:
        state.flash("error", f"Not submitted: {e}")
        return
    state.flash("success", f"Submitted {made['version']} to {a.name!r} (submission #{n}).")


def render_submit(evaluation: Evaluation) -> None:
    """Under an evaluation of an assignment: submit each version's results to it."""
    ran = evaluation.assignment
    if ran is None:
        return
    st.markdown(f"**Submit to the assignment {md_literal(ran['name'])}**")
    st.caption("The teacher sees what you submit (its scores and runs), nothing else of yours; submit your best.")
    for r in evaluation.results:
        label = f"Submit {r.version or r.name}" + (f" · {r.model}" if r.model else "")
        st.button(label, key=f"class-submit-{r.name}", on_click=_submit, args=(ran["token"], r))
