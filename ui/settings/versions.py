"""Prompt versions on the Settings page: the version chooser beside the preset (newest, a label or a number), and the
Versions panel (move a label, diff two versions with whole examples, export one as a TOML file, import one). Every
verb is ``react_core.PresetStore``'s; this module gathers input and draws what it returns.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from react_core import ReactLabError, VersionDiff, VersionRef
from ui.shared import presets, state
from ui.shared.bind import seed
from ui.shared.text import md_literal

NEWEST = ""  # the chooser's value for "the newest version of the line"


def _suffix() -> str:
    """The version the settings name (a number or a label), '' for the newest."""
    try:
        return VersionRef.parse(presets.current_name()).choice
    except ReactLabError:
        return NEWEST


def render_version_chooser(line: str, choose: Callable[[str], None]) -> None:
    """Pick a version of ``line`` by label or number; ``choose(ref)`` makes it the one in use."""
    store = presets.store()
    versions = store.versions(line)
    labels = store.labels(line)
    newest = versions[-1][0] if versions else 1
    shown = {NEWEST: f"newest (v{newest})"}
    shown |= {label: f"{label} → v{n}" for label, n in labels.items()}
    for n, saved_at, note in reversed(versions):
        shown[str(n)] = f"v{n} · " + " · ".join(x for x in (saved_at.replace("T", " ")[:16], note) if x)
    current = _suffix()
    if current not in shown:
        shown[current] = f"{current} (not found)"
    seed("set-version", current)
    st.selectbox(
        "Version",
        list(shown),
        key="set-version",
        format_func=lambda v: shown.get(v, v),
        on_change=lambda: choose(str(VersionRef.of(line, st.session_state["set-version"]))),
        help="A label follows the version it points at when it is moved. Choosing discards unsaved prompt edits.",
    )


PANEL_KEY = "versions-panel"  # the Versions panel's open state: it stays open across the reruns its buttons cause


def _move_label(line: str) -> None:
    label = st.session_state.get("label-name", "").strip()
    number = st.session_state.get("label-version")
    try:
        presets.store().move_label(line, label, int(number))
    except (ReactLabError, TypeError, ValueError) as e:
        st.session_state.label_said = ("error", str(e))
        return
    st.session_state["label-name"] = ""
    st.session_state.label_said = ("success", f"Label {label} now points at {line}@{number}.")


def _remove_label(line: str) -> None:
    label = st.session_state.get("label-name", "").strip()
    try:
        removed = bool(label) and presets.store().remove_label(line, label)
    except ReactLabError as e:
        st.session_state.label_said = ("error", str(e))
        return
    if removed:
        st.session_state["label-name"] = ""
        st.session_state.label_said = ("success", f"Label {label} removed from {line}; its versions stay.")
    else:
        said = f"{line} has no label {label or '(none typed)'}: type one of those listed above."
        st.session_state.label_said = ("warning", said)


def _import(line: str) -> None:
    upload = st.session_state.get("import-version-file")
    name = st.session_state.get("import-version-name", "").strip() or line
    if upload is None:
        state.flash("error", "Choose a TOML file to import.")
        return
    try:
        ref = presets.store().import_file(upload.getvalue(), name)
    except ReactLabError as e:
        state.flash("error", str(e))
        return
    state.flash("success", f"Imported as {ref}. Choose it above to use it.")


def render_versions(line: str) -> None:
    """The Versions panel for ``line``."""
    store = presets.store()
    numbers = [n for n, _, _ in store.versions(line)]
    if not numbers:
        return
    here = len(numbers)
    ss = st.session_state
    if ss.get("label-for") != (line, here) or ss.get("label-version") not in numbers:
        # The newest version again whenever one is saved: a label is most often set on the version just saved.
        ss["label-for"], ss["label-version"] = (line, here), numbers[-1]
    with st.expander(f"Versions of {line}: labels, diff, export, import", key=PANEL_KEY, on_change="rerun"):
        labels = store.labels(line)
        st.caption(
            md_literal("Labels: " + ", ".join(f"{k} → v{n}" for k, n in labels.items()))
            if labels
            else "No labels yet. A label (lesson-step-2, best-on-gemma) points at one version and can be moved."
        )
        name_col, version_col, button_col, remove_col = st.columns([0.4, 0.22, 0.19, 0.19], vertical_alignment="bottom")
        seed("label-name", "")
        name_col.text_input("Label", key="label-name", placeholder="best-on-gemma")
        version_col.selectbox("Points at", numbers[::-1], key="label-version", format_func=lambda n: f"v{n}")
        button_col.button("Set label", key="move-label", on_click=_move_label, args=(line,))
        remove_col.button("Remove label", key="remove-label", on_click=_remove_label, args=(line,))
        said = ss.pop("label_said", None)
        if said:  # said here, beside the button, not at the top of the page out of sight
            getattr(st, said[0])(md_literal(said[1]))

        st.markdown("**Diff two versions**")
        # This line's versions first, then every other line's: any two versions can be compared.
        refs = store.addresses(line)
        refs += [ref for other in store.names(None) if other != line for ref in store.addresses(other)]
        left_col, right_col = st.columns(2)
        if ss.get("diff-for") != (line, here) or not {ss.get("diff-left"), ss.get("diff-right")} <= set(refs):
            # The two newest of this line, again whenever a version is saved (the choices kept from before the save
            # would compare version 1 with itself).
            ss["diff-for"], ss["diff-left"], ss["diff-right"] = (line, here), refs[max(0, here - 2)], refs[here - 1]
        left = left_col.selectbox("From", refs, key="diff-left")
        right = right_col.selectbox("To", refs, key="diff-right")
        try:
            render_diff(store.diff(left, right))
        except ReactLabError as e:
            st.error(md_literal(str(e)))

        st.markdown("**Export and import**")
        ref = presets.current_name()
        try:
            file_name, text = store.export(ref)
            st.download_button(
                f"Export {ref} as TOML", text, file_name, "application/toml", key="export-version", on_click="ignore"
            )
        except ReactLabError as e:
            st.error(md_literal(str(e)))
        st.file_uploader("A version file (TOML)", type=["toml"], key="import-version-file")
        seed("import-version-name", line)
        st.text_input("Import as a new version of", key="import-version-name")
        st.button("Import", key="import-version", icon=":material/upload:", on_click=_import, args=(line,))


# The marked diff's look: a removed line red, an added one green, and within an edited line the words that changed
# stronger still. The signs (-, +) say the same without colour.
DIFF_STYLE = (
    "<style>.vdiff{font-family:monospace;font-size:0.85rem;white-space:pre-wrap;margin:0 0 0.5rem 0}"
    ".vdiff div{padding:0 0.3rem}.vdiff .removed{background:#ffebe9}.vdiff .added{background:#e6ffec}"
    ".vdiff del{background:#ffc1bc;text-decoration:line-through}.vdiff ins{background:#abf2bc;text-decoration:none}"
    "</style>"
)
SIGNS = {VersionDiff.SAME: " ", VersionDiff.REMOVED: "-", VersionDiff.ADDED: "+"}


def marked_html(lines: Sequence[Any]) -> str:
    """Marked lines (``react_core``'s ``mark_lines``) as HTML: every text escaped, the words that changed within an
    edited line in <del> or <ins> (a line removed or added whole is coloured whole)."""
    rows = []
    for line in lines:
        whole = len(line.spans) == 1
        body = ""
        for span in line.spans:
            text = html.escape(span.text)
            tag = {VersionDiff.REMOVED: "del", VersionDiff.ADDED: "ins"}.get(span.kind)
            body += text if tag is None or whole else f"<{tag}>{text}</{tag}>"
        rows.append(f'<div class="{line.kind}">{SIGNS[line.kind]} {body}</div>')
    return f'{DIFF_STYLE}<div class="vdiff">{"".join(rows)}</div>'


def render_diff(diff: VersionDiff) -> None:
    """A diff as a person reads it: each example added, removed or changed shown whole, its changed lines and words
    marked, then the other fields the same way."""
    if diff.same:
        st.caption(md_literal(f"{diff.left} and {diff.right} are the same prompt."))
        return
    kept = f" ({diff.unchanged_examples} unchanged)" if diff.unchanged_examples else ""
    st.caption(md_literal(f"From {diff.left} to {diff.right}: {len(diff.examples)} examples differ{kept}."))
    for change in diff.examples:
        st.markdown(md_literal(f"Example {change.kind}: {change.question}"))
        if change.kind == VersionDiff.CHANGED:
            edited = sum(1 for line in change.marked if line.kind == VersionDiff.ADDED)
            st.caption(f"The whole example: {edited} line{'s' * (edited != 1)} changed, marked - before and + after.")
            st.html(marked_html(change.marked))
        elif change.kind in (VersionDiff.ADDED, VersionDiff.REMOVED):
            st.code(change.new or change.old, language=None, wrap_lines=True)
    for field in diff.fields:
        st.markdown(md_literal(f"Field {field.field}:"))
        st.html(marked_html(field.marked))
