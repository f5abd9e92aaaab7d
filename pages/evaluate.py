"""The Evaluate page: score strategies on HotpotQA or FEVER as the ReAct paper did, beside the paper's Table 1.

Pick a dataset (its task, HotpotQA or FEVER, comes with it, and with the task its prompts), a size and strategies,
and how they run (the paper's budget, tools, prompts and CoT-SC samples unless changed here), and the models (the
one in Settings unless others are chosen: versions × models × a set); the key and knowledge source come from
Settings. The run goes on in the background (ui.evaluate.job) with a progress bar and Stop. Results, past ones
included, are read from their folder: a table per strategy with how the episodes ended, a chart of EM (FEVER:
accuracy) beside the paper's, and every question's trace in the chat's step panels. Rendering only: the setup's
parts are in ui.evaluate.setup_view, the results' in ui.evaluate.results_view, the verbs and frames in
ui.evaluate.evaluations.
"""

from __future__ import annotations

import streamlit as st

from react_core import (
    EvalPlan,
    Task,
    figure3_table,
)
from ui.evaluate import bootstrap as bootstrap_view
from ui.evaluate import evaluations as ev
from ui.evaluate import models as eval_models
from ui.evaluate import question_sets as qs
from ui.evaluate import results_view, setup_view
from ui.evaluate import tasks as eval_tasks
from ui.evaluate.job import EvalJob
from ui.shared import state
from ui.shared.text import md_literal

REFRESH_SECONDS = 0.5


@st.fragment(run_every=REFRESH_SECONDS)
def _progress(job: EvalJob) -> None:
    snap = job.snapshot()
    if snap["finished"]:
        st.rerun()
    st.progress(snap["done"] / snap["total"] if snap["total"] else 0.0, text=md_literal(ev.progress_label(snap)))
    st.button("Stop", icon=":material/stop_circle:", on_click=job.cancel, disabled=snap["cancelling"], key="eval-stop")


st.header("Evaluate", anchor=False)
state.show_flash()
st.caption(
    "Score prompting strategies on HotpotQA or FEVER the way the ReAct paper did: exact match and F1 after SQuAD "
    "normalisation for HotpotQA's questions, accuracy of the label (SUPPORTS, REFUTES, NOT ENOUGH INFO) for FEVER's "
    "claims. " + " ".join(t.credit for t in Task.ALL.values())
)
setup_view.your_questions()
datasets = [*eval_tasks.datasets(), *qs.choices()]
if not datasets:
    st.error(f"No HotpotQA or FEVER files found in {md_literal(str(Task.shared_data()))}: set REACT_SHARED_DATA.")
    st.stop()
job: EvalJob | None = st.session_state.eval_job
busy = job is not None and not job.done
if st.session_state.get("eval-dataset") not in datasets:
    st.session_state.pop("eval-dataset", None)
names = {d: eval_tasks.name(d) for d in datasets}  # read now, in this run: not later, outside it
st.selectbox("Dataset", datasets, key="eval-dataset", format_func=lambda d: names.get(d, d))
eval_tasks.follow()
if not qs.is_set(st.session_state.get("eval-dataset")):
    task = eval_tasks.chosen()
    st.checkbox(f"Only the paper's 500 {task.items} (for {task.dev_file})", key="eval-500")
cols = st.columns(3)
cols[0].number_input("Questions", min_value=1, max_value=10_000, value=10, key="eval-limit")
cols[1].number_input(
    "Runs per question", min_value=1, max_value=EvalPlan.MAX_REPETITIONS, value=1, key="eval-repetitions"
)
if st.session_state.get("eval-repetitions", 1) > 1:
    cols[2].number_input(
        "Temperature (repeated runs)", min_value=0.05, max_value=2.0, value=0.7, key="eval-temperature"
    )
chosen = st.multiselect(
    "Strategies", EvalPlan.STRATEGIES, default=["cot", "react"], key="eval-strategies", format_func=EvalPlan.label
)
setup_view.how_they_run(chosen)
eval_models.render()
setup_view.model_caption()
st.button(
    "Run evaluation", icon=":material/play_arrow:", type="primary", disabled=busy, on_click=ev.start, key="eval-run"
)
bootstrap_view.render()
if busy:
    _progress(job)
elif job is not None and str(job.plan.out_dir) == ev.opened():
    message = ev.ending(job.snapshot())
    if message:
        kind, text = message
        getattr(st, kind)(md_literal(text), icon=":material/error:" if kind == "error" else ":material/stop_circle:")
if ev.opened():
    results_view.render_results(ev.opened())
results_view.render_past()
with st.expander("Figure 3: prompted and fine-tuned", icon=":material/model_training:"):
    st.caption(
        "The paper's Figure 3 in small: Standard, CoT, Act and ReAct, each with the paper's 6-shot prompt on the base "
        "model and with its own fine-tuned adapter (Fine-tune page), on the 200 shared dev questions none of them "
        "trained on. `python -m react_core figure3` trains what is missing and regenerates it (hours on 2 cores)."
    )
    table = figure3_table()
    st.markdown(table) if table else st.caption("No Figure 3 results on this machine yet: docs/evaluation.md has ours.")
