"""The live prompt editor: preset/dialect chooser, instructions and few-shot examples as separate fields, the
question template, validation by the run's own parser, a token count, Reset to preset, Save as new version (of the
preset in use) and Save as new preset (a new line of versions); the version chooser is ui.settings.versions'.

A valid edit is applied at once (``session_state.prompt``); an invalid one is kept as a draft with its problems listed,
and runs keep using the last valid prompt. Nothing saved is ever overwritten: a save adds a version
(``react_core.PresetStore``).
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from react_core import (
    DIALECTS,
    PROVIDERS,
    Preset,
    PromptEdit,
    ReactLabError,
    Trace,
    VersionRef,
    md_escape,
)
from ui.settings.mcp_sign_in_view import persons_servers
from ui.settings.versions import render_version_chooser
from ui.shared import presets, state
from ui.shared.bind import seed
from ui.shared.text import md_literal

FIELDS = {
    "instructions": "edit-instructions",
    "examples": "edit-examples",
    "question": "edit-question",
    "dynamic_examples": "edit-dynamic",
}


def _named() -> Preset:
    return presets.store().load(presets.current_name())


def _editor_values() -> dict[str, str]:
    """What the editor shows: the unapplied draft, else the prompt in use."""
    if st.session_state.draft:
        return st.session_state.draft
    active = presets.active()
    return {f: getattr(active, f) for f in FIELDS}


def _candidate(values: dict[str, str]) -> Preset:
    base = _named()
    if all(values[f] == getattr(base, f) for f in FIELDS):
        return base
    # Where examples taken from runs came from, kept while their example is still there.
    applied = st.session_state.prompt
    known = {**base.example_sources, **(applied.example_sources if applied is not None else {})}
    sources = {q: run for q, run in known.items() if q in values["examples"]}
    name = f"{base.name} (edited)"
    return replace(base, **values, name=name, builtin=False, path="", version=0, example_sources=sources)


def _set_editor(values: dict[str, str]) -> None:
    for f, key in FIELDS.items():
        st.session_state[key] = values[f]


def _edit(candidate: Preset) -> PromptEdit:
    """The edit checked against the enabled tools, from the preset it started from."""
    return PromptEdit(candidate, state.settings().get("tools", []), since=_named())


def _on_edit() -> None:
    values = {f: st.session_state[key] for f, key in FIELDS.items()}
    candidate = _candidate(values)
    if _edit(candidate).problems:
        st.session_state.draft = values  # kept, shown with its problems; the last valid prompt stays in use
        return
    st.session_state.draft = None
    st.session_state.prompt = None if candidate.path else candidate  # unchanged: the named preset


def _on_choose() -> None:
    choose(st.session_state["set-preset"])


def choose(ref: str) -> None:
    """Use version ``ref`` (a line's name for its newest) from the next turn, discarding unsaved edits."""
    state.change_settings(lambda: {"preset": ref, "dialect": ""})
    st.session_state.prompt = st.session_state.draft = None
    st.session_state.pop("set-version", None)  # the version chooser shows the new choice
    base = presets.store().load(ref)
    _set_editor({f: getattr(base, f) for f in FIELDS})
    # A version that keeps its agent setup brings it along: its tools and grammar become the settings.
    setup = {"tools": base.run_tools, "grammar": base.grammar}
    if base.run_tools:
        # An MCP tool whose server this configuration lacks is refused, said, and left off (never dropped unsaid).
        lacking, why = persons_servers().refused(base.run_tools)
        if lacking:
            state.flash("warning", md_escape(why))
            setup["tools"] = [t for t in base.run_tools if t not in lacking]
    changes = {k: v for k, v in setup.items() if v is not None}
    if changes:
        state.update_settings(**changes)
        for key in [k for k in st.session_state if str(k).startswith("set-tool-")] + ["set-grammar"]:
            st.session_state.pop(key, None)  # the widgets show the new settings


def _with_setup(preset: Preset) -> Preset:
    """``preset`` with the agent setup in use (tools, grammar), as a saved version keeps it."""
    s = state.settings()
    return preset.with_setup(s.get("tools", []), bool(s.get("grammar")))


def _same_setup(base: Preset) -> bool:
    """Whether the settings run ``base`` as it says (a version that does not say: as the defaults do)."""
    s = state.settings()
    return base.runs_as(s.get("tools", []), bool(s.get("grammar")))


def use_as_example(trace: Trace, run_id: int) -> None:
    """Append a run to the examples of the prompt in use, written in its dialect and checked by its parser; the edit
    is applied (unsaved) and the editor shows it. Says so, or why not, on the next page drawn."""
    try:
        edited = PromptEdit(presets.active()).with_run(trace, run_id)
    except ReactLabError as e:
        state.flash("error", str(e))
        return
    st.session_state.prompt, st.session_state.draft = edited, None
    _set_editor({f: getattr(edited, f) for f in FIELDS})
    state.flash(
        "success",
        f"Run #{run_id} is now the last example of your prompt (unsaved): save it as a version in Settings.",
    )


def _on_reset() -> None:
    st.session_state.prompt = st.session_state.draft = None
    base = _named()
    _set_editor({f: getattr(base, f) for f in FIELDS})


def _saved(ref: str, message: str) -> None:
    line = VersionRef.parse(ref).name
    state.update_settings(preset=line, dialect="")
    st.session_state.prompt = st.session_state.draft = None
    st.session_state["set-preset"] = line
    st.session_state.pop("set-version", None)
    state.flash("success", message)


def _on_save() -> None:
    """Save as a new preset: a new line whose version 1 is this prompt."""
    name = st.session_state.get("save-name", "").strip()
    values = {f: st.session_state[key] for f, key in FIELDS.items()}
    try:
        ref = presets.store().save_new(_with_setup(_candidate(values)), name)
    except ReactLabError as e:
        state.flash("error", str(e))
        return
    st.session_state["save-name"] = ""
    _saved(ref, f"Saved as preset {name!r}, version {ref}; it is now in use.")


def _on_save_version() -> None:
    """Save as a new version of the line in use; the versions already saved never change."""
    values = {f: st.session_state[key] for f, key in FIELDS.items()}
    line = presets.current_line()
    try:
        ref = presets.store().save_version(_with_setup(_candidate(values)), line)
    except ReactLabError as e:
        state.flash("error", str(e))
        return
    _saved(ref, f"Saved as {ref}; it is now in use.")


def _preset_label(name: str) -> str:
    try:
        p = presets.store().load(name)
    except ReactLabError:
        return name
    # The preset's own title first: several presets share a dialect (paper and hotpotqa-react both write
    # Search[entity]), and two options that read alike cannot be told apart.
    fmt = DIALECTS.get(p.dialect)
    dialect = fmt.label if fmt else p.dialect
    title = p.title if p.title and p.title != dialect else ""
    return f"{name} — " + (f"{title} · " if title else "") + dialect + ("" if p.builtin else " (yours)")


def render_prompt_editor() -> None:
    # The direct-answer presets are the evaluation's, not the chat's; the tools preset needs a provider that can.
    names, unspoken = presets.runnable(presets.store().names("react"))
    current = presets.current_line()
    if current not in names:
        names.append(current)
    seed("set-preset", current)
    labels = {name: _preset_label(name) for name in names}  # read now, in this run: not later, outside it
    st.selectbox(
        "Preset (dialect)",
        names,
        key="set-preset",
        format_func=lambda name: labels.get(name, name),
        on_change=_on_choose,
        help="Choosing a preset discards unsaved prompt edits.",
    )
    render_version_chooser(current, choose)
    if unspoken:
        label = PROVIDERS[state.settings()["provider"]].label
        st.caption(
            md_literal(
                f"Not offered: {', '.join(unspoken)}. It calls tools natively, which {label} cannot do; choose Gemini "
                "or OpenAI in the provider menu above to use it."
            )
        )
    named = _named()
    if named.description:
        st.caption(md_literal(named.description))
    values = _editor_values()
    for f, key in FIELDS.items():
        seed(key, values[f])
    st.text_area(
        "Instructions",
        key=FIELDS["instructions"],
        height=180,
        on_change=_on_edit,
        help="{tools} is replaced by the descriptions of the enabled tools.",
    )
    st.text_area("Few-shot examples", key=FIELDS["examples"], height=320, on_change=_on_edit)
    st.number_input(
        "Dynamic examples: the k most like each question (0: all of them, always)",
        key=FIELDS["dynamic_examples"],
        min_value=0,
        max_value=Preset.MAX_DYNAMIC,
        step=1,
        on_change=_on_edit,
        help="For each question, the k examples whose questions are most like it (BM25) replace the fixed set; the "
        "run records which were chosen, and its Model call shows them.",
    )
    # A text area, not a text input: an input drops line breaks, and the template ends with the one that puts the
    # model's first step on a line of its own (the xml dialect's template holds two more).
    st.text_area(
        "Question template",
        key=FIELDS["question"],
        height=68,
        on_change=_on_edit,
        help="Must contain {question} exactly once and end with a line break.",
    )
    shown = {f: st.session_state[key] for f, key in FIELDS.items()}
    candidate = _candidate(shown)
    edit = _edit(candidate)
    problems, tokens = edit.problems, edit.tokens
    if problems:
        st.error("Not applied: fix the problems below. Runs keep using the last valid prompt.", icon=":material/block:")
        for p in problems:
            st.error(md_literal(str(p)))
    elif st.session_state.prompt:
        st.success("Your edited prompt is in use.", icon=":material/check:")
    else:
        st.success(md_literal(f"{named.ref or named.name} is in use, unchanged."), icon=":material/check:")
    st.caption(f"≈ {tokens:,} tokens of instructions and examples, sent with every step.")
    if candidate.example_sources:
        taken = "; ".join(f"run #{run}: {q}" for q, run in candidate.example_sources.items())
        st.caption(md_literal(f"Examples taken from runs (kept with the version): {taken}"))
    left, right = st.columns(2)
    left.button("Reset to preset", key="reset-prompt", icon=":material/restart_alt:", on_click=_on_reset)
    left.button(
        f"Save as new version of {current}",
        key="save-version",
        icon=":material/history:",
        on_click=_on_save_version,
        # Unchanged, and run as it says: the version in use itself.
        disabled=bool(problems) or (bool(candidate.path) and _same_setup(candidate)),
        help="Adds the next version of this preset; the versions already saved never change.",
    )
    with right:
        seed("save-name", "")
        st.text_input("New preset name", key="save-name", placeholder="my-preset")
        st.button(
            "Save as new preset",
            key="save-preset",
            icon=":material/save:",
            on_click=_on_save,
            disabled=bool(problems),
        )
