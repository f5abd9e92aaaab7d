"""Scripts for the scripted provider in the app. Settings: the shipped sample scripts to pick from (each the offline
example of one dialect), and the script format beside the box; picking a sample also picks its dialect's shipped preset
when the prompt in use speaks another dialect (a paper-dialect script read by the mrkl parser would be all unreadable
steps), and says which question it answers. History: "Save as script", a run's model replies as a script file, so a
run recorded once with a hosted model replays offline in class.
"""

from __future__ import annotations

import streamlit as st

from react_core import DIALECTS, Preset, SampleScript, Script, Trace
from ui.settings.prompt_editor import choose
from ui.shared import presets, state
from ui.shared.text import md_literal

SAMPLE_KEY = "set-script-sample"


def use_sample(path: str) -> None:
    """Make the sample at ``path`` the script, with a prompt of its dialect; say what to ask."""
    sample = SampleScript.at(path)
    if sample is None:
        return
    state.update_settings(script=str(sample.path))
    st.session_state["set-script"] = str(sample.path)  # the path box (local mode) shows it
    switched = ""
    if presets.active().dialect != sample.dialect:
        preset = Preset.default_for(sample.dialect)
        choose(preset)
        st.session_state["set-preset"] = preset
        switched = f" The {preset} preset is in use now: the sample is written in its dialect."
    state.flash("success", f"Sample script chosen: ask “{sample.question}” in Chat.{switched}")


def _on_pick() -> None:
    path = st.session_state.get(SAMPLE_KEY)
    st.session_state[SAMPLE_KEY] = None
    if path:
        use_sample(path)


def render_samples() -> None:
    """A list of the shipped samples; choosing one makes it the script (local mode: visitors choose among the
    operator's scripts, samples included, in the script's own list)."""
    labels = {str(s.path): s.label for s in SampleScript.all()}
    if not labels:
        return
    st.selectbox(
        "Sample scripts (the offline examples, in every dialect)",
        list(labels),
        index=None,
        key=SAMPLE_KEY,
        format_func=labels.get,
        placeholder="Choose a sample to replay",
        on_change=_on_pick,
    )


def render_format() -> None:
    with st.popover("Script format", icon=":material/data_object:"):
        st.markdown(Script.FORMAT)


def render_save_as_script(trace: Trace, stem: str) -> None:
    """The run's model replies as a script file, how to replay it, and what a replay will not repeat."""
    script = Script.from_run(trace)
    outputs, notes = script.outputs, script.notes
    dialect = str(trace.settings.get("dialect") or "paper")
    label = DIALECTS[dialect].label if dialect in DIALECTS else dialect
    preset = str(trace.settings.get("prompt_version") or trace.settings.get("preset") or dialect)
    st.caption(
        md_literal(
            f"The run's model replies ({len(outputs)}) as a script: choose Scripted in Settings, "
            f"upload it, use the {preset} prompt ({label}) and ask the same question. It replays offline, with no "
            "model and no key; the tools run again, so Search reads the knowledge source of the day."
        )
    )
    for note in notes:
        st.warning(md_literal(note), icon=":material/warning:")
    st.download_button(
        "Download the script (JSON)",
        script.json,
        f"{stem}.script.json",
        "application/json",
        key="export-script",
        on_click="ignore",
        disabled=not outputs,
    )
