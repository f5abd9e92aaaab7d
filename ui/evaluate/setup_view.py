"""The Evaluate page's setup: how the chosen strategies run (budget, tools, samples, prompts, versions, pace), where
the model comes from, and a person's own question sets."""

from __future__ import annotations

import streamlit as st

from react_core import (
    PROVIDERS,
    EvalPlan,
    Knowledge,
    RunSettings,
    ToolSpec,
)
from ui.evaluate import evaluations as ev
from ui.evaluate import question_sets as qs
from ui.shared import identity, state
from ui.shared.text import md_literal


def how_they_run(chosen: list[str]) -> None:
    """Budget, tools, samples and prompts: shown for the strategies that use them, the paper's unless changed."""
    for key, value in ev.paper_setup().items():
        st.session_state.setdefault(key, value)
    st.markdown("**How they run**")
    cols = st.columns([1, 2, 1])  # the tools' chips need room: three in a third of the page were cut short
    if ev.uses_agent(chosen):
        cols[0].number_input("Max model calls (Act, ReAct)", 1, RunSettings.MAX_CALLS, key="eval-max-calls")
        cols[1].multiselect("Tools (Act, ReAct)", ToolSpec.ORDER, key="eval-tools", format_func=ToolSpec.label_of)
    if ev.samples(chosen):
        cols[2].number_input("CoT-SC samples", 1, 50, key="eval-samples")
    roles = ev.roles(chosen)
    for col, role in zip(st.columns(max(1, len(roles))), roles, strict=False):
        col.selectbox(f"Prompt: {role}", ev.preset_choices(role), key=f"eval-preset-{role}")
    if ev.compares_versions(chosen):
        _versions(chosen)
    _pace()
    paper = EvalPlan.defaults()
    st.caption(
        f"The paper's setup: at most {paper.max_calls} model calls with Search and Lookup, its own 6-shot prompts, "
        f"{paper.samples} CoT-SC samples at temperature {paper.sc_temperature}, greedy decoding otherwise. Every "
        "results file records what was used."
    )
    st.button("Back to the paper's setup", key="eval-reset", on_click=ev.reset_to_paper)


def _pace() -> None:
    """How fast a hosted model is asked: questions at once, within calls a minute for the key."""
    cols, pace = st.columns(3), EvalPlan.defaults()
    cols[0].number_input("Questions at once", 1, 64, pace.concurrency, key="eval-at-once", help=ev.AT_ONCE_HELP)
    cols[1].number_input("Calls per minute", 1.0, 100_000.0, pace.rpm, step=10.0, key="eval-rpm", help=ev.RPM_HELP)


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


def model_caption() -> None:
    s = state.settings()
    provider, knowledge = PROVIDERS[s["provider"]], Knowledge.of(s).label(visitor=identity.own_endpoints())
    st.caption(
        f"Model and knowledge come from Settings: {md_literal(provider.label)} · "
        f"{md_literal(provider.model_label(s))} · {md_literal(knowledge)}. "
        "Change them there, or choose other models above; the budget, tools and prompts above are the evaluation's "
        "own, not the chat's."
    )


def your_questions() -> None:
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
