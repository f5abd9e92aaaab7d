"""The Evaluate page's results: a table per strategy, the chart beside the paper's, intervals, trajectory checks and
a baseline to compare with, every question's trace in the chat's step panels, and the past evaluations to open."""

from __future__ import annotations

from typing import Any

import streamlit as st

from react_core import (
    EvalPlan,
    RunSettings,
    StrategyResults,
    ToolSpec,
    Trace,
)
from ui.classroom import view as class_view
from ui.evaluate import evaluations as ev
from ui.evaluate import question_sets as qs
from ui.evaluate import questions_table, tables
from ui.shared.render import render_trace
from ui.shared.text import md_literal


def render_results(folder: str) -> None:
    evaluation = ev.load(folder)
    if not evaluation.results:
        return
    st.subheader("Results", anchor=False)
    task = evaluation.task
    st.caption(
        f"{task.label} evaluation of {tables.when(evaluation)} · saved in {md_literal(str(evaluation.folder))} · "
        f"{task.credit}"
    )
    st.dataframe(tables.summary_frame(evaluation), hide_index=True, width="stretch", key="eval-summary")
    st.caption(
        "n: questions answered, of the number planned. finished … loop: how the episodes ended (an answer; out of "
        "model calls; the prompt outgrew the model's context window; a repeated action)."
    )
    frame, why = tables.chart(evaluation)
    if frame is not None:
        st.bar_chart(frame, stack=False, y_label=f"{task.measure} (%)", height=300)
    st.caption((why + " " if why else "") + tables.paper_caption(evaluation))
    class_view.render_submit(evaluation)
    _checks_and_baseline(evaluation)
    rows, cells = tables.records(evaluation), tables.cells(evaluation)
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


def _checks_and_baseline(evaluation: Any) -> None:
    st.subheader("Intervals and trajectory checks", anchor=False)
    cols = st.columns(3)
    cols[0].selectbox("A tool the run uses", [None, *ToolSpec.ORDER], key="eval-check-tool", format_func=_tool_name)
    cols[1].checkbox("…or never uses", key="eval-check-absent")
    cols[2].number_input("At most k steps (0: no limit)", 0, RunSettings.MAX_CALLS, 0, key="eval-check-steps")
    st.dataframe(qs.scores_frame(evaluation, qs.checks()), hide_index=True, width="stretch", key="eval-scores")
    st.caption(
        "Value [95 % interval]: a percentile bootstrap over questions "
        f"({StrategyResults.RESAMPLES:,} resamples; a question's repeated runs are resampled together). grounded: the "
        "answer occurs in a tool's evidence."
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
                    record = side.first_run(pick)
                    if record is not None:
                        trace = Trace.from_dict(record["trace"])
                        render_trace(trace, key=f"eval-{title}-{current.name}-{pick}", narrow=True)


def _tool_name(tool: str | None) -> str:
    return "(any)" if tool is None else ToolSpec.label_of(tool)


def render_past() -> None:
    found = ev.past()
    if not found:
        return
    st.subheader("Past evaluations", anchor=False)
    versions, models = tables.past_versions(found), tables.past_models(found)
    models = models if len(models) > 1 else []  # a filter by model once there are several to choose from
    cols = st.columns(2)
    version = _past_filter(cols[0], versions, "eval-past-version", "Prompt version", "Every prompt version")
    model = _past_filter(cols[1], models, "eval-past-model", "Model", "Every model")
    found = tables.with_version(found, version, model)
    st.dataframe(tables.past_frame(found), hide_index=True, width="stretch", key="eval-past-table")
    if versions or models:
        st.markdown("**By prompt version and model**")
        frame = tables.version_frame(found, version, model)
        st.dataframe(frame, hide_index=True, width="stretch", key="eval-by-version")
    folders = {str(e.folder): e for e in found}
    st.selectbox(
        "Open a past evaluation",
        list(folders),
        index=None,
        format_func=lambda f: (
            f"{tables.when(folders[f])} · {', '.join(EvalPlan.label(s) for s in folders[f].strategies)}"
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
