"""The Evaluate page: score strategies on HotpotQA or FEVER as the ReAct paper did, beside the paper's Table 1.

Pick a dataset (its task, HotpotQA or FEVER, comes with it, and with the task its prompts), a size and strategies,
and how they run (the paper's budget, tools, prompts and CoT-SC samples unless changed here), and the models (the
one in Settings unless others are chosen: versions × models × a set); the key and knowledge source come from
Settings. The run goes on in the background (ui.evaluate.job) with a progress bar and Stop. Results, past ones
included, are read from their folder: a table per strategy with how the episodes ended, a chart of EM (FEVER:
accuracy) beside the paper's, and every question's trace in the chat's step panels. Rendering only; the verbs and
frames are in ui.evaluate.evaluations.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from react_core import (
    HOSTED_CONCURRENCY,
    HOSTED_RPM,
    MAX_CALLS_LIMIT,
    MAX_REPETITIONS,
    PAPER_REACT_STEPS,
    PAPER_SC_SAMPLES,
    RESAMPLES,
    SC_TEMPERATURE,
    STRATEGIES,
    STRATEGY_LABELS,
    TASKS,
    TOOL_ORDER,
    Trace,
    figure3_table,
    knowledge_label,
    model_label,
    provider_class,
    shared_data_dir,
    tool_label,
)
from ui.classroom import view as class_view
from ui.evaluate import bootstrap as bootstrap_view
from ui.evaluate import evaluations as ev
from ui.evaluate import models as eval_models
from ui.evaluate import question_sets as qs
from ui.evaluate import questions_table
from ui.evaluate import tasks as eval_tasks
from ui.evaluate.job import EvalJob
from ui.shared import identity, state
from ui.shared.render import render_trace
from ui.shared.text import md_literal

REFRESH_SECONDS = 0.5


@st.fragment(run_every=REFRESH_SECONDS)
def _progress(job: EvalJob) -> None:
    snap = job.snapshot()
    if snap["finished"]:
        st.rerun()
    st.progress(snap["done"] / snap["total"] if snap["total"] else 0.0, text=md_literal(ev.progress_label(snap)))
    st.button("Stop", icon=":material/stop_circle:", on_click=job.cancel, disabled=snap["cancelling"], key="eval-stop")


def _how_they_run(chosen: list[str]) -> None:
    """Budget, tools, samples and prompts: shown for the strategies that use them, the paper's unless changed."""
    for key, value in ev.paper_setup().items():
        st.session_state.setdefault(key, value)
    st.markdown("**How they run**")
    cols = st.columns([1, 2, 1])  # the tools' chips need room: three in a third of the page were cut short
    if ev.uses_agent(chosen):
        cols[0].number_input("Max model calls (Act, ReAct)", 1, MAX_CALLS_LIMIT, key="eval-max-calls")
        cols[1].multiselect("Tools (Act, ReAct)", TOOL_ORDER, key="eval-tools", format_func=tool_label)
    if ev.samples(chosen):
        cols[2].number_input("CoT-SC samples", 1, 50, key="eval-samples")
    roles = ev.roles(chosen)
    for col, role in zip(st.columns(max(1, len(roles))), roles, strict=False):
        col.selectbox(f"Prompt: {role}", ev.preset_choices(role), key=f"eval-preset-{role}")
    if ev.compares_versions(chosen):
        _versions(chosen)
    _pace()
    st.caption(
        f"The paper's setup: at most {PAPER_REACT_STEPS} model calls with Search and Lookup, its own 6-shot prompts, "
        f"{PAPER_SC_SAMPLES} CoT-SC samples at temperature {SC_TEMPERATURE}, greedy decoding otherwise. Every results "
        "file records what was used."
    )
    st.button("Back to the paper's setup", key="eval-reset", on_click=ev.reset_to_paper)


def _pace() -> None:
    """How fast a hosted model is asked: questions at once, within calls a minute for the key."""
    cols = st.columns(3)
    cols[0].number_input("Questions at once", 1, 64, HOSTED_CONCURRENCY, key="eval-at-once", help=ev.AT_ONCE_HELP)
    cols[1].number_input("Calls per minute", 1.0, 100_000.0, HOSTED_RPM, step=10.0, key="eval-rpm", help=ev.RPM_HELP)


def _versions(chosen: list[str]) -> None:
    """Versions × a set: each chosen prompt version runs the same questions, into a results file of its own."""
    options = ev.version_choices(chosen)
    ss = st.session_state
    ss["eval-versions"] = [v for v in ss.get("eval-versions") or [] if v in options]
    st.multiselect(
        "Compare prompt versions (each runs the questions; instead of the prompt above)",
        options,
        key="eval-versions",
        placeholder="Choose versions: name@3, or a label",
        help="Save versions of a prompt in Settings. A label is run (and recorded) as the version it points at now.",
    )


def _model_caption() -> None:
    s = state.settings()
    st.caption(
        f"Model and knowledge come from Settings: {md_literal(provider_class(s['provider']).label)} · "
        f"{md_literal(model_label(s))} · {md_literal(knowledge_label(s, visitor=identity.own_endpoints()))}. "
        "Change them there, or choose other models above; the budget, tools and prompts above are the evaluation's "
        "own, not the chat's."
    )


def _results(folder: str) -> None:
    evaluation = ev.load(folder)
    if not evaluation.results:
        return
    st.subheader("Results", anchor=False)
    task = evaluation.task
    st.caption(
        f"{task.label} evaluation of {ev.when(evaluation)} · saved in {md_literal(str(evaluation.folder))} · "
        f"{task.credit}"
    )
    st.dataframe(ev.summary_frame(evaluation), hide_index=True, width="stretch", key="eval-summary")
    st.caption(
        "n: questions answered, of the number planned. finished … loop: how the episodes ended (an answer; out of "
        "model calls; the prompt outgrew the model's context window; a repeated action)."
    )
    frame, why = ev.chart(evaluation)
    if frame is not None:
        st.bar_chart(frame, stack=False, y_label=f"{task.measure} (%)", height=300)
    st.caption((why + " " if why else "") + ev.paper_caption(evaluation))
    class_view.render_submit(evaluation)
    _checks_and_baseline(evaluation)
    rows, cells = ev.records(evaluation), ev.cells(evaluation)
    st.subheader("Questions", anchor=False)
    table = questions_table.question_rows(evaluation)
    st.dataframe(table, hide_index=True, width="stretch")
    questions_table.render_download(table, f"{evaluation.folder.name}-questions.csv", key="eval-questions-csv")
    several = qs.several_models(evaluation)
    labels = [
        f"{qs.result_name(cell, model=several)} · {r['id']} · {r['question'][:80]}"
        for r, cell in zip(rows, cells, strict=True)
    ]
    choice = st.selectbox(
        "Open a question's trace",
        range(len(rows)),
        index=None,
        format_func=lambda i: labels[i],
        placeholder="Choose a question",
        key="eval-open",
    )
    if choice is not None:
        r = rows[choice]
        st.caption(f"{task.metric} {r['em']:.0f}" + (f" · F1 {r['f1']:.2f}" if task.f1 else ""))
        # The gold answer shows beside the model's (results written before traces recorded it have it only here).
        trace = Trace.from_dict(r["trace"])  # read from the results file
        trace.expected_answer = trace.expected_answer or r["gold"]
        render_trace(trace, key=f"eval-{cells[choice].name}-{r['id']}")


def _past() -> None:
    found = ev.past()
    if not found:
        return
    st.subheader("Past evaluations", anchor=False)
    versions, models = ev.past_versions(found), ev.past_models(found)
    models = models if len(models) > 1 else []  # a filter by model once there are several to choose from
    cols = st.columns(2)
    version = _past_filter(cols[0], versions, "eval-past-version", "Prompt version", "Every prompt version")
    model = _past_filter(cols[1], models, "eval-past-model", "Model", "Every model")
    found = ev.with_version(found, version, model)
    st.dataframe(ev.past_frame(found), hide_index=True, width="stretch", key="eval-past-table")
    if versions or models:
        st.markdown("**By prompt version and model**")
        frame = ev.version_frame(found, version, model)
        st.dataframe(frame, hide_index=True, width="stretch", key="eval-by-version")
    folders = {str(e.folder): e for e in found}
    st.selectbox(
        "Open a past evaluation",
        list(folders),
        index=None,
        format_func=lambda f: (
            f"{ev.when(folders[f])} · {', '.join(STRATEGY_LABELS.get(s, s) for s in folders[f].strategies)}"
        ),
        placeholder="Choose an evaluation",
        key="eval-past",
        on_change=ev.open_past,
    )


def _past_filter(col: Any, options: list[str], key: str, title: str, every: str) -> str | None:
    """A select keeping the past evaluations with results of one option (none drawn when there is nothing to pick)."""
    if not options:
        return None
    if st.session_state.get(key) not in options:
        st.session_state[key] = None
    return col.selectbox(title, options, index=None, key=key, placeholder=every)


def _your_questions() -> None:
    with st.expander("Your own questions", icon=":material/upload_file:"):
        st.caption(
            "A CSV file with the columns question and answer (and id if you like), or JSON lines with those keys. "
            "A file with a problem is refused whole, with the line and the reason; your sets are yours alone."
        )
        st.file_uploader("Question set (CSV or JSONL)", type=["csv", "jsonl"], key="qset-file")
        st.text_input("Name", key="qset-name", placeholder="the file's name")
        st.button("Keep this set", key="qset-keep", on_click=qs.keep_upload)
        names = [s.name for s in qs.saved_sets()]
        if names:
            pick, delete = st.columns([0.75, 0.25], vertical_alignment="bottom")
            pick.selectbox("One of your sets", names, index=None, key="qset-delete", placeholder="choose a set")
            delete.button("Delete", key="qset-delete-button", icon=":material/delete:", on_click=qs.delete_set)


def _checks_and_baseline(evaluation: Any) -> None:
    st.subheader("Intervals and trajectory checks", anchor=False)
    cols = st.columns(3)
    cols[0].selectbox("A tool the run uses", [None, *TOOL_ORDER], key="eval-check-tool", format_func=_tool_name)
    cols[1].checkbox("…or never uses", key="eval-check-absent")
    cols[2].number_input("At most k steps (0: no limit)", 0, MAX_CALLS_LIMIT, 0, key="eval-check-steps")
    st.dataframe(qs.scores_frame(evaluation, qs.checks()), hide_index=True, width="stretch", key="eval-scores")
    st.caption(
        f"Value [95 % interval]: a percentile bootstrap over questions ({RESAMPLES:,} resamples; a question's "
        "repeated runs are resampled together). grounded: the answer occurs in a tool's evidence."
    )
    options = qs.baselines(evaluation, ev.past())
    base = st.selectbox(
        "Compare with a baseline",
        list(options),
        index=None,
        key="eval-baseline",
        placeholder="Choose results with questions in common" if options else "No results share these questions",
        help="Only results that answered some of the same questions (same id and question) are offered.",
    )
    if base is None:
        return
    for current in evaluation.results:
        if current is options[base]:
            continue  # a version of this evaluation chosen as the baseline: the others are compared with it
        c, table = qs.comparison(options[base], current)
        name = md_literal(qs.result_name(current, model=qs.several_models(evaluation)))
        st.markdown(qs.comparison_line(name, c))
        st.dataframe(table, hide_index=True, width="stretch", key=f"eval-compare-{current.name}")
        questions_table.render_download(
            table.to_dict("records"),
            f"{current.name}-changes.csv",
            key=f"eval-compare-csv-{current.name}",
            columns=list(table.columns),
        )
        changed = [*c.newly_pass, *c.newly_fail]
        pick = st.selectbox("Open both traces", changed, index=None, key=f"eval-both-{current.name}")
        if pick is not None:
            left, right = st.columns(2)
            for col, side, title in ((left, options[base], "baseline"), (right, current, "now")):
                with col:
                    st.caption(md_literal(f"{title}: {qs.result_name(side, model=True)}"))
                    record = qs.first_run(side.records, pick)
                    if record is not None:
                        trace = Trace.from_dict(record["trace"])
                        render_trace(trace, key=f"eval-{title}-{current.name}-{pick}", narrow=True)


def _tool_name(tool: str | None) -> str:
    return "(any)" if tool is None else tool_label(tool)


st.header("Evaluate", anchor=False)
state.show_flash()
st.caption(
    "Score prompting strategies on HotpotQA or FEVER the way the ReAct paper did: exact match and F1 after SQuAD "
    "normalisation for HotpotQA's questions, accuracy of the label (SUPPORTS, REFUTES, NOT ENOUGH INFO) for FEVER's "
    "claims. " + " ".join(t.credit for t in TASKS.values())
)
_your_questions()
datasets = [*eval_tasks.datasets(), *qs.choices()]
if not datasets:
    st.error(f"No HotpotQA or FEVER files found in {md_literal(str(shared_data_dir()))}: set REACT_SHARED_DATA.")
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
cols[1].number_input("Runs per question", min_value=1, max_value=MAX_REPETITIONS, value=1, key="eval-repetitions")
if st.session_state.get("eval-repetitions", 1) > 1:
    cols[2].number_input(
        "Temperature (repeated runs)", min_value=0.05, max_value=2.0, value=0.7, key="eval-temperature"
    )
chosen = st.multiselect(
    "Strategies", STRATEGIES, default=["cot", "react"], key="eval-strategies", format_func=STRATEGY_LABELS.get
)
_how_they_run(chosen)
eval_models.render()
_model_caption()
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
    _results(ev.opened())
_past()
with st.expander("Figure 3: prompted and fine-tuned", icon=":material/model_training:"):
    st.caption(
        "The paper's Figure 3 in small: Standard, CoT, Act and ReAct, each with the paper's 6-shot prompt on the base "
        "model and with its own fine-tuned adapter (Fine-tune page), on the 200 shared dev questions none of them "
        "trained on. `python -m react_core figure3` trains what is missing and regenerates it (hours on 2 cores)."
    )
    table = figure3_table()
    st.markdown(table) if table else st.caption("No Figure 3 results on this machine yet: docs/evaluation.md has ours.")
