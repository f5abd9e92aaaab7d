"""The Evaluate page's bootstrap: build few-shot examples from the model's own right and grounded runs of train
questions, score candidate sets on dev, and keep the best as the person's own preset (``BootstrapPlan.run``, the
same as ``python -m react_core bootstrap``; the teacher and the student are both the model chosen in Settings here,
the command line can take another teacher). It runs in the background (``ui.evaluate.bootstrap_job``) with a progress
bar and Stop; a stopped bootstrap resumes where it stopped. Its folder sits under the person's evaluations, in
``bootstrap/``.
"""

from __future__ import annotations

import re
from typing import Any

import streamlit as st

from react_core import (
    BootstrapPlan,
    EvalPlan,
    Evaluation,
    ReactLabError,
    RunSettings,
)
from ui.evaluate import evaluations as ev
from ui.evaluate import question_sets
from ui.evaluate import tasks as eval_tasks
from ui.evaluate.bootstrap_job import BootstrapJob
from ui.shared import export_settings, identity, presets, state
from ui.shared.text import md_literal

REFRESH_SECONDS = 0.5
PHASES = {"teacher": "the teacher on the train questions", "dev-start": "the starting prompt on dev"}


def phase_label(snap: dict[str, Any]) -> str:
    phase = snap["phase"]
    name = PHASES.get(phase) or (f"candidate {phase.rsplit('-', 1)[-1]} on dev" if phase else "")
    if snap["cancelling"]:
        return "Stopping after the question under way…"
    if not name:
        return "Preparing: reading the questions and getting the model ready…"
    return f"Bootstrap: {name}, {snap['done']} of {snap['total']} questions done"


def start() -> None:
    ss = st.session_state
    if state.running() or any(j is not None and not j.done for j in (ss.eval_job, ss.boot_job)):
        state.flash("warning", "Something is already running; wait for it or stop it first.")
        return
    folder = Evaluation.new_folder(ev.root() / "bootstrap")
    choice = ss.get("eval-dataset") or ""
    try:
        if question_sets.is_set(choice):
            dataset = question_sets.dataset_file(choice, folder / "source")
        else:
            dataset = eval_tasks.datasets()[choice]
    except (ReactLabError, KeyError) as e:
        state.flash("error", f"Cannot read the questions: {e}")
        return
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", (ss.get("boot-name") or "").strip()).strip("-.") or "bootstrapped"
    plan = BootstrapPlan(
        dataset=str(dataset),
        start=ss.get("boot-start") or "paper",
        out=str(folder / f"{name}.toml"),
        settings=RunSettings.from_dict(state.settings()),
        train=int(ss.get("boot-train", 20)),
        dev=int(ss.get("boot-dev", 20)),
        k=int(ss.get("boot-k", 3)),
        candidates=int(ss.get("boot-candidates", 8)),
        seed=int(ss.get("boot-seed", 0)),
        work_dir=str(folder / "work"),
        max_calls=int(ss.get("eval-max-calls", EvalPlan.defaults().max_calls)),
        tools=list(ss.get("eval-tools", EvalPlan.defaults().tools)),
    )
    _run(plan)


def _run(plan: BootstrapPlan) -> None:
    ss = st.session_state
    ss.boot_job = BootstrapJob(plan, identity.allowance(), api_key=ss.api_key, export=export_settings.chosen()).start()


def resume() -> None:
    job = st.session_state.boot_job
    if job is not None and job.done:
        _run(job.plan)


def keep(result: Any) -> None:
    """Save the bootstrapped prompt as the next version of the person's line named after its file (with its dev
    score as the version's note)."""
    try:
        ref = result.keep(presets.store())
    except (OSError, ReactLabError) as e:
        state.flash("error", f"Not saved: {e}")
        return
    state.flash("success", f"Saved as your prompt version {ref}; choose it as a prompt above or in Settings.")


@st.fragment(run_every=REFRESH_SECONDS)
def _progress(job: BootstrapJob) -> None:
    snap = job.snapshot()
    if snap["finished"]:
        st.rerun()
    st.progress(snap["done"] / snap["total"] if snap["total"] else 0.0, text=md_literal(phase_label(snap)))
    st.button("Stop", icon=":material/stop_circle:", on_click=job.cancel, disabled=snap["cancelling"], key="boot-stop")


def render() -> None:
    with st.expander("Bootstrap examples from runs", icon=":material/auto_awesome:"):
        st.caption(
            "Runs the model on the first questions of the dataset above (train), keeps the runs that were right "
            "(exact match) and grounded, tries sets of them as the prompt's examples on the next questions (dev) "
            "and keeps the best set. Dev questions never become examples; the rest of the dataset is never run."
        )
        choices = ev.preset_choices("react")
        first = choices.index("paper") if "paper" in choices else 0
        st.selectbox("Starting prompt", choices, index=first, key="boot-start")
        cols = st.columns(5)
        cols[0].number_input("Train", 1, 500, 20, key="boot-train")
        cols[1].number_input("Dev", 1, 500, 20, key="boot-dev")
        cols[2].number_input("k examples", 1, 8, 3, key="boot-k")
        cols[3].number_input("Candidate sets", 1, 50, 8, key="boot-candidates")
        cols[4].number_input("Seed", 0, 10_000, 0, key="boot-seed")
        st.text_input("New preset's name", value="bootstrapped", key="boot-name")
        job: BootstrapJob | None = st.session_state.boot_job
        busy = job is not None and not job.done
        st.button("Bootstrap", icon=":material/play_arrow:", disabled=busy, on_click=start, key="boot-run")
        if busy:
            _progress(job)
        elif job is not None:
            _ending(job)


def _ending(job: BootstrapJob) -> None:
    snap = job.snapshot()
    result = snap["result"]
    if snap["error"]:
        st.error(md_literal(snap["error"]), icon=":material/error:")
    elif result is not None and result.out is not None:
        st.success(md_literal(result.message))
        st.button("Keep as my preset", key="boot-keep", on_click=keep, args=(result,))
    elif result is not None:
        st.warning(md_literal(result.message))
    if snap["error"] or (result is not None and result.stopped):
        st.button("Resume", key="boot-resume", on_click=resume, icon=":material/replay:")
