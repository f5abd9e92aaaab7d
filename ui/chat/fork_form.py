"""The History page's fork form: edit one step's Thought or Observation and run again from there.

The form shows the settings the fork will use: the run's own (``ui.chat.run_settings.of_run``), unless the person ticks
"Use my current settings instead", which lists what changes and refuses another dialect. The fork starts a
conversation of its own in Chat.
"""

from __future__ import annotations

import streamlit as st

from react_core import Trace
from ui.chat import run_settings, turns
from ui.shared.render import step_title
from ui.shared.text import md_literal


def _settings_table(rows: dict[str, str], changed: list[str]) -> str:
    lines = ["| Setting | Value |", "|---|---|"]
    for name, value in rows.items():
        mark = " ✎" if name in changed else ""
        lines.append(f"| {name}{mark} | {md_literal(value)} |")
    return "\n".join(lines)


IMPORTED_NOTE = (
    "This run was imported from a file, so the prompt it ran with (“{name}”) is not one of yours here: a fork of it "
    "runs with the {stand_in} preset instead, and the steps after the fork may differ for that reason too. Its steps "
    "before the fork are kept as they are."
)


def render_fork(run_id: int, trace: Trace, *, imported: bool = False) -> None:
    steps = trace.steps
    if not steps:
        return
    st.subheader("Fork", anchor=False)
    st.caption(
        "Edit one step's Thought or Observation and run again from there. The fork opens as a new conversation in "
        "Chat and is saved as a fork of this run."
    )
    own = run_settings.of_run(trace)
    by_index = {s.index: s for s in steps}
    k = st.selectbox(
        "Step", list(by_index), key=f"fork-step-{run_id}", format_func=lambda i: step_title(by_index[i], own.dialect)
    )
    step = by_index[k]
    fields = ["thought", "observation"] if step.observation is not None else ["thought"]
    field = st.radio("Edit its", fields, key=f"fork-field-{run_id}", horizontal=True, format_func=str.capitalize)
    original = step.thought if field == "thought" or step.observation is None else step.observation.text
    text = st.text_area(f"New {field}", value=original, key=f"fork-text-{run_id}-{k}-{field}", height=150)

    foreign = trace.imported_from is not None  # it has no settings of this app's to run with
    mine = foreign or st.checkbox(
        "Use my current settings instead",
        key=f"fork-current-{run_id}",
        help="Your settings from the Settings page, instead of the ones this run used.",
    )
    start = run_settings.current() if mine else own
    changed = [] if foreign else run_settings.differences(own, start)
    clash = run_settings.dialect_clash(own, start)
    if foreign:
        st.markdown("It runs with **your current settings**: the imported run has none of this app's.")
        st.caption(md_literal(own.note))
    elif not mine:
        st.markdown("It runs with **this run's own settings**:")
        if own.note:
            name = str(trace.settings.get("prompt_version") or trace.settings.get("preset") or "?")
            note = IMPORTED_NOTE.format(name=name, stand_in=own.preset.name) if imported else own.note
            st.warning(md_literal(note), icon=":material/warning:")
    elif changed:
        st.markdown(f"It runs with **your current settings** (✎: not the run's own): {md_literal(', '.join(changed))}.")
    else:
        st.markdown("It runs with **your current settings**, the same as this run's own.")
    st.markdown(_settings_table(run_settings.describe(start), changed))
    if clash:
        st.error(md_literal(clash), icon=":material/block:")
    if st.button(
        f"Re-run from step {k}", key="fork-run", icon=":material/call_split:", type="primary", disabled=bool(clash)
    ):
        if turns.fork(run_id, trace, k, field, text, start):
            st.switch_page("pages/chat.py")
        st.rerun()
