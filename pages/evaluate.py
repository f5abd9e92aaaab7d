"""The Evaluate page: score strategies on HotpotQA as the ReAct paper did, beside the paper's Table 1.

Pick a dataset, a size and strategies; the run goes on in the background (ui.jobs.evaluation) with a progress bar and
Stop; then a table per strategy, a bar chart of EM next to the paper's, and every question's trace in the chat's
step panels. Rendering only.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from react_core.evaluation.paper import PAPER_HOTPOTQA_EM, PAPER_MODEL, STRATEGY_LABELS
from react_core.evaluation.strategies import PAPER_SC_SAMPLES, STRATEGIES
from react_core.paths import shared_data_dir
from ui import state
from ui.jobs.evaluation import EvalJob, EvalRequest
from ui.render import render_trace
from ui.text import md_literal

REFRESH_SECONDS = 0.5
PAPER_500 = "react_paper_eval_500_indices.json"


def _datasets() -> dict[str, Path]:
    folder = shared_data_dir() / "hotpotqa"
    return {p.name: p for p in sorted(folder.glob("*.json")) if p.name != PAPER_500} if folder.is_dir() else {}


def _start(dataset: Path, use_500: bool, limit: int, strategies: list[str], samples: int) -> None:
    if state.running() or (st.session_state.eval_job and not st.session_state.eval_job.done):
        state.flash("warning", "Something is already running; wait for it or stop it first.")
        return
    if not strategies:
        state.flash("warning", "Choose at least one strategy.")
        return
    indices = str(dataset.parent / PAPER_500) if use_500 else None
    request = EvalRequest(
        dataset=str(dataset),
        strategies=strategies,
        limit=limit,
        settings=dict(state.settings()),
        samples=samples,
        indices=indices,
        api_key=st.session_state.api_key,
    )
    st.session_state.eval_job = EvalJob(request).start()


@st.fragment(run_every=REFRESH_SECONDS)
def _progress(job: EvalJob) -> None:
    snap = job.snapshot()
    if snap["finished"]:
        st.rerun()
    position = snap["strategies"].index(snap["strategy"]) + 1 if snap["strategy"] in snap["strategies"] else 1
    label = f"{STRATEGY_LABELS.get(snap['strategy'], snap['strategy'])} ({position} of {len(snap['strategies'])}) · "
    st.progress(
        snap["done"] / snap["total"] if snap["total"] else 0.0,
        text=f"{label}{snap['done']} of {snap['total']} questions",
    )
    st.button("Stop", icon=":material/stop_circle:", on_click=job.cancel, disabled=snap["cancelling"], key="eval-stop")


def _summary_table(snap: dict) -> pd.DataFrame:
    rows = []
    for strategy in snap["strategies"]:
        s = snap["summaries"].get(strategy)
        if s is None:
            continue
        rows.append(
            {
                "strategy": STRATEGY_LABELS[strategy],
                "n": s["n"],
                "EM": round(100 * s["em"], 1),
                "F1": round(100 * s["f1"], 1),
                f"paper EM ({PAPER_MODEL})": PAPER_HOTPOTQA_EM[strategy],
                "finished %": round(100 * s["finished"], 1),
                "well-formed steps %": round(100 * s["well_formed"], 1),
                "avg steps": round(s["avg_steps"], 2),
                "avg seconds": round(s["avg_seconds"], 2),
            }
        )
    return pd.DataFrame(rows)


def _results(snap: dict) -> None:
    table = _summary_table(snap)
    if table.empty:
        return
    st.subheader("Results", anchor=False)
    st.dataframe(table, hide_index=True, width="stretch")
    chart = table.set_index("strategy")[["EM", f"paper EM ({PAPER_MODEL})"]].rename(columns={"EM": "this run"})
    st.bar_chart(chart, stack=False, y_label="exact match (%)", height=300)
    st.caption(
        f"Paper: ReAct (Yao et al. 2022), Table 1, {PAPER_MODEL} on 500 HotpotQA dev questions. Results "
        f"saved in {md_literal(snap['out_dir'])}."
    )
    records = [r for strategy in snap["strategies"] for r in snap["results"].get(strategy, [])]
    st.subheader("Questions", anchor=False)
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "strategy": STRATEGY_LABELS[r["strategy"]],
                    "id": r["id"],
                    "question": r["question"],
                    "gold": r["gold"],
                    "prediction": r["prediction"],
                    "EM": r["em"],
                    "F1": r["f1"],
                    "steps": r["steps"],
                    "stop": r["stop_reason"],
                }
                for r in records
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    labels = [f"{STRATEGY_LABELS[r['strategy']]} · {r['id']} · {r['question'][:80]}" for r in records]
    choice = st.selectbox(
        "Open a question's trace",
        range(len(records)),
        index=None,
        format_func=lambda i: labels[i],
        placeholder="Choose a question",
        key="eval-open",
    )
    if choice is not None:
        r = records[choice]
        st.caption(f"Gold answer: {md_literal(r['gold'])} · EM {r['em']:.0f} · F1 {r['f1']:.2f}")
        render_trace(r["trace"], key=f"eval-{r['strategy']}-{r['id']}")


state.require_app()
st.header("Evaluate", anchor=False)
state.show_flash()
st.caption(
    "Score prompting strategies on HotpotQA the way the ReAct paper did: exact match and F1 after SQuAD "
    "normalisation. Questions and Wikipedia paragraphs: HotpotQA (CC BY-SA 4.0)."
)
datasets = _datasets()
if not datasets:
    st.error(f"No HotpotQA files found in {md_literal(str(shared_data_dir() / 'hotpotqa'))}: set REACT_SHARED_DATA.")
    st.stop()
job: EvalJob | None = st.session_state.eval_job
with st.form("evaluate"):
    name = st.selectbox("Dataset", list(datasets), key="eval-dataset")
    use_500 = st.checkbox("Only the paper's 500 questions (for hotpot_dev_v1_simplified.json)", key="eval-500")
    limit = st.number_input("Questions", min_value=1, max_value=7405, value=10, key="eval-limit")
    strategies = st.multiselect(
        "Strategies",
        STRATEGIES,
        default=["cot", "react"],
        key="eval-strategies",
        format_func=lambda s: STRATEGY_LABELS[s],
    )
    samples = st.number_input("CoT-SC samples", min_value=1, max_value=50, value=PAPER_SC_SAMPLES, key="eval-samples")
    if st.form_submit_button("Run evaluation", icon=":material/play_arrow:", type="primary"):
        _start(datasets[name], use_500, int(limit), list(strategies), int(samples))
        st.rerun()
st.caption("Runs with the provider, knowledge source and temperature from Settings.")
if job is not None:
    snap = job.snapshot()
    if not snap["finished"]:
        _progress(job)
    elif snap["error"]:
        st.error(md_literal(snap["error"]), icon=":material/error:")
    _results(snap)
