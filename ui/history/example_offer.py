"""History's "Use as example…": before a run goes into the prompt in use, what will happen to it and what it would
teach that a person may not mean to (``PromptEdit.example_warnings``: an edited or hand-written step, a repeated
action, a wrong or unchecked answer, an imported run); then one button takes it (``prompt_editor.use_as_example``).
"""

from __future__ import annotations

import streamlit as st

from react_core import DIALECTS, PromptEdit, RunRecord
from ui.settings.prompt_editor import use_as_example
from ui.shared import presets
from ui.shared.text import md_literal


def render_offer(record: RunRecord) -> None:
    """The popover's contents for one run."""
    prompt = presets.active()
    dialect = DIALECTS.get(prompt.dialect)
    st.caption(
        md_literal(
            f"Appends run #{record.id} to the examples of your prompt in use, {prompt.name}, written in its dialect "
            f"({dialect.label if dialect else prompt.dialect}) and checked by its parser. Nothing is saved until you "
            "save a version in Settings."
        )
    )
    warnings = PromptEdit.example_warnings(record.trace, fork_step=record.fork_step, origin=record.origin)
    for warning in warnings:
        st.warning(md_literal(warning), icon=":material/warning:")
    st.button(
        "Append it anyway" if warnings else "Append it to my prompt",
        key="use-as-example",
        icon=":material/library_add:",
        on_click=use_as_example,
        args=(record.trace, record.id),
    )
