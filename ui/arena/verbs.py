"""The Arena page's verbs and column editors: the columns (2 to 4) kept in their widgets' session-state keys, Figure 1
(the paper's four methods on the chosen model, on the paper's budget), the gold answer of a known question filled in,
Run (an ``ArenaJob``), Stop per column, and an arena reopened from History.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from react_core import (
    PROVIDERS,
    Adapter,
    Arena,
    EvalPlan,
    ModelChoice,
    ReactLabError,
    RunSettings,
    Variant,
)
from ui.arena.job import ArenaJob, ColumnSpec
from ui.shared import export_settings, identity, live_refresh, presets, state

QUESTION_KEY = "arena-question"
GOLD_KEY = "arena-gold"
FILLED_KEY = "arena-gold-filled"  # the gold answer the page filled in (not the person's own), to replace it
COUNT_KEY = "arena-n"
FIELDS = ("strategy", "preset", "provider", "model", "temperature", "max_calls", "adapter")


def key(field: str, i: int) -> str:
    return f"arena-{field}-{i}"


def editor_keys() -> list[str]:
    """The column editors' widget keys (drawn only while no arena runs)."""
    return [key(f, i) for i in range(Arena.MAX_COLUMNS) for f in FIELDS]


def init() -> None:
    """The editors' values: as the person left them, else the person's settings, ReAct with their prompt. Streamlit
    forgets a widget's value once a run has not drawn it (another page, or this one while an arena runs), and may
    then hand back an older value of its key (one set before its widget was first drawn: columns 3 and 4 of Figure 1
    came back as ReAct), so each value is kept in ``arena_form`` with the full run that drew it, and put back whenever
    that run was not the last one."""
    ss = st.session_state
    ss.setdefault(COUNT_KEY, Arena.MIN_COLUMNS)
    for k, value in ss.arena_form.items():
        if ss.arena_form_runs.get(k) != ss.full_runs - 1:
            ss[k] = value
    for i in range(Arena.MAX_COLUMNS):
        _column_defaults(i)


def remember(drawn: list[str]) -> None:
    """Keep the values of the widgets this run drew, for the next run that does not find them current; and of those
    the last run drew and this one did not, the value they came with (a change sent with the click on Run)."""
    ss = st.session_state
    for k in [QUESTION_KEY, GOLD_KEY, *editor_keys()]:
        if k in drawn and k in ss:
            ss.arena_form[k] = ss[k]
            ss.arena_form_runs[k] = ss.full_runs
        elif ss.arena_form_runs.get(k) == ss.full_runs - 1 and k in ss:
            ss.arena_form[k] = ss[k]


def _column_defaults(i: int) -> None:
    ss, s = st.session_state, state.settings()
    current = presets.current_name()
    ss.setdefault(key("strategy", i), "react")
    ss.setdefault(key("preset", i), current if current in preset_names("react") else Variant("react").preset_name())
    ss.setdefault(key("provider", i), s["provider"])
    ss.setdefault(key("model", i), s.get("model", ""))
    ss.setdefault(key("temperature", i), float(s.get("temperature", 0.0)))
    ss.setdefault(key("max_calls", i), int(s.get("max_calls", EvalPlan.defaults().max_calls)))
    ss.setdefault(key("adapter", i), s.get("adapter") or "")


def preset_names(strategy: str) -> list[str]:
    """The prompts a strategy can run: this person's presets of its mode (shipped, then their own; a name runs its
    newest version), then each saved version of a line that has several, by its address (``paper@2``)."""
    store = presets.store()
    names = store.names(mode=EvalPlan.ROLE_MODES[strategy])
    addresses = []
    for name in store.with_several_versions(names):
        addresses += store.addresses(name)
    return names + addresses


def question_changed() -> None:
    """A known HotpotQA question brings its gold answer (the one a chat run of it is checked against), so the columns
    are scored without typing it; a gold answer the person typed stays theirs."""
    ss = st.session_state
    typed = str(ss.get(GOLD_KEY, "")).strip()
    if typed and typed != ss.get(FILLED_KEY):
        return
    question = str(ss.get(QUESTION_KEY, "")).strip()
    found = (RunSettings.from_dict(state.settings()).expected_answer(question) or "") if question else ""
    ss[GOLD_KEY] = ss[FILLED_KEY] = found


def strategy_changed(i: int) -> None:
    """A new strategy takes the paper's prompt for it unless the prompt chosen already fits."""
    strategy = st.session_state[key("strategy", i)]
    if st.session_state[key("preset", i)] not in preset_names(strategy):
        st.session_state[key("preset", i)] = Variant(strategy).preset_name()


def add_column() -> None:
    st.session_state[COUNT_KEY] = min(Arena.MAX_COLUMNS, st.session_state[COUNT_KEY] + 1)


def remove_column() -> None:
    st.session_state[COUNT_KEY] = max(Arena.MIN_COLUMNS, st.session_state[COUNT_KEY] - 1)


def _fill(variants: list[Variant]) -> None:
    """The editors set to these columns."""
    ss = st.session_state
    ss[COUNT_KEY] = len(variants)
    for i, v in enumerate(variants):
        s = v.settings
        ss[key("strategy", i)], ss[key("preset", i)], ss[key("adapter", i)] = v.strategy, s.preset, s.adapter
        ss[key("provider", i)], ss[key("model", i)] = s.provider, s.model
        ss[key("temperature", i)], ss[key("max_calls", i)] = s.temperature, s.max_calls


def base_and_fine_tuned() -> None:
    """ReAct on the on-device model twice, side by side: the base model with the paper's 6-shot prompt, and the
    fine-tuned model (the shipped adapter) with the zero-shot prompt it learned (the paper's Figure 3, on a
    question), on the paper's budget: Figure 1's ReAct column on each."""
    _fill([Variant.figure_one(RunSettings(provider="local", adapter=adapter))[-1] for adapter in ("none", "")])


def figure_one() -> None:
    """The paper's Figure 1 (``Variant.figure_one``): Standard, CoT, Act and ReAct, each with the paper's prompt (or the
    one the model's adapter learned), on the first column's model, greedy as the paper decoded, Act and ReAct with the
    paper's 7 model calls (not the chat's budget; each column's Max model calls changes it)."""
    ss = st.session_state
    first = {"provider": ss[key("provider", 0)], "model": ss[key("model", 0)], "adapter": ss[key("adapter", 0)]}
    _fill(Variant.figure_one(RunSettings.from_dict({**state.settings(), **first})))


def columns() -> list[dict[str, Any]]:
    ss = st.session_state
    for i in range(ss[COUNT_KEY]):
        # A field whose widget the last run did not draw (Max model calls of a Standard column) is forgotten with it.
        _column_defaults(i)
    return [{f: ss[key(f, i)] for f in FIELDS} for i in range(ss[COUNT_KEY])]


def render_editor(i: int) -> None:
    """One column's variant: strategy, prompt, provider, model, temperature."""
    st.selectbox(
        "Strategy",
        Arena.STRATEGIES,
        key=key("strategy", i),
        format_func=EvalPlan.label,
        on_change=strategy_changed,
        args=(i,),
    )
    names = preset_names(st.session_state[key("strategy", i)])
    if st.session_state[key("preset", i)] not in names:
        st.session_state[key("preset", i)] = names[0] if names else ""
    st.selectbox(
        "Prompt",
        names,
        key=key("preset", i),
        help="A shipped preset or one you saved (its newest version), or a saved version by its address (name@3).",
    )
    st.selectbox("Provider", list(PROVIDERS), key=key("provider", i), format_func=lambda p: PROVIDERS[p].label)
    st.text_input(
        "Model", key=key("model", i), placeholder=PROVIDERS[st.session_state[key("provider", i)]].default_model
    )
    st.number_input("Temperature", min_value=0.0, max_value=2.0, step=0.1, key=key("temperature", i))
    strategy = st.session_state[key("strategy", i)]
    if not EvalPlan.needs([strategy]).agent:
        st.caption(f"{Variant(strategy).budget().capitalize()}: this strategy answers at once.")
    else:
        st.number_input(
            "Max model calls",
            min_value=1,
            max_value=RunSettings.MAX_CALLS,
            key=key("max_calls", i),
            help=f"This column's budget of steps. Figure 1 sets the paper's {EvalPlan.defaults().max_calls}; a new "
            "column starts from Settings'.",
        )
    if "adapter" in PROVIDERS[st.session_state[key("provider", i)]].options and not identity.own_endpoints():
        current = st.session_state[key("adapter", i)]
        options = {setting: Adapter.setting_label(setting) for setting in ("", "none")}  # the shipped one, none
        options |= {str(a.path): a.title for a in Adapter.found() if not a.is_default}  # the others here (v7 beside v8)
        options.setdefault(current, Path(current).name)  # the person's own file, from Settings
        st.selectbox("Adapter", list(options), key=key("adapter", i), format_func=options.get)


def run() -> None:
    """Start every column (callback of Run)."""
    ss = st.session_state
    question = str(ss.get(QUESTION_KEY, "")).strip()
    if not question:
        state.flash("warning", "Type a question for the arena first.")
        return
    if len(question) > state.MAX_QUESTION_CHARS:
        state.flash("warning", f"A question is at most {state.MAX_QUESTION_CHARS:,} characters.")
        return
    if ss.arena_job is not None and not ss.arena_job.done:
        return
    base = state.settings()
    specs = []
    try:
        for c in columns():
            settings = {
                **base,
                **ModelChoice(c["provider"]).changes(base),  # a Base URL set for one provider is not another's
                "model": c["model"].strip(),
                "temperature": float(c["temperature"]),
                "max_calls": int(c["max_calls"]),
                "preset": c["preset"],
                "dialect": "",
                **({"adapter": c["adapter"]} if "adapter" in PROVIDERS[c["provider"]].options else {}),
            }
            own_key = ss.api_key if c["provider"] == base["provider"] else ""
            specs.append(ColumnSpec(c["strategy"], settings, presets.store().load(c["preset"]), api_key=own_key))
        gold = str(ss.get(GOLD_KEY, "")).strip()
        job = ArenaJob(question, specs, identity.allowance(), gold=gold, export=export_settings.chosen())
    except ReactLabError as e:
        state.flash("error", str(e))
        return
    ss.arena_open = None
    ss.arena_job = job.start()


def stop(column: int) -> None:
    job = st.session_state.arena_job
    if job is not None:
        job.stop(column)


def close() -> None:
    """Back to the editors from a reopened or finished arena."""
    ss = st.session_state
    if ss.arena_job is not None and ss.arena_job.done:
        ss.arena_job = None
    ss.arena_open = None


def reopen(arena_id: str) -> None:
    """Show a saved arena on the Arena page (from History)."""
    st.session_state.arena_open = arena_id


def refresh_seconds(job: ArenaJob) -> float:
    """The running arena's redraw interval (ui/shared/live_refresh.py): slower when a column's model computes here."""
    return live_refresh.refresh_seconds(c.settings["provider"] for c in job.columns)
