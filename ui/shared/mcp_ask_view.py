"""A paused step whose MCP server asks the person something (the ``input`` breakpoint): each question with a field
for each thing it asks (text, a number, a yes or no, a choice), and Send, Decline, Cancel. Drawing only: the answer is
a ``Decision("answer", …)`` the engine checks against what the server asked (``react_core.tools.mcp_asks``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import streamlit as st

from react_core import Decision, Step, md_escape
from ui.shared.text import md_literal


def render_question(step: Step, *, key: str, on_decide: Callable[[Decision], None] | None) -> None:
    """The server's questions and the answer form (none where the run cannot be resumed from here)."""
    asks = step.asks or {}
    questions = asks.get("questions") or {}
    for qkey, question in questions.items():
        st.markdown("**The MCP server asks**")
        st.text(question.get("message", ""))
        if on_decide is not None:
            for name, field in ((question.get("schema") or {}).get("properties") or {}).items():
                _field(f"{key}-{qkey}-{name}", name, field)
    if on_decide is None:
        st.caption("Resume it in Chat to answer.")
        return
    send, decline, cancel = st.columns(3)
    send.button("Send", key=f"{key}-send", icon=":material/send:", on_click=_send, args=(on_decide, key, questions))
    decline.button("Decline", key=f"{key}-decline", on_click=on_decide, args=(Decision("answer", text="decline"),))
    cancel.button("Cancel", key=f"{key}-cancel", on_click=on_decide, args=(Decision("answer", text="cancel"),))
    st.button("Stop", key=f"{key}-stop", icon=":material/stop:", on_click=on_decide, args=(Decision("stop"),))


def _field(key: str, name: str, field: dict[str, Any]) -> None:
    label = md_literal(str(field.get("title") or name))
    about = md_escape(str(field.get("description") or "")) or None
    kind, choices = field.get("type"), field.get("enum") or field.get("oneOf")
    if isinstance(choices, list) and choices:
        options = [c.get("const") if isinstance(c, dict) else c for c in choices]
        st.selectbox(label, options, key=key, help=about)
    elif kind == "boolean":
        st.checkbox(label, key=key, help=about, value=bool(field.get("default", False)))
    elif kind in ("integer", "number"):
        step = 1 if kind == "integer" else 0.1
        low, high = field.get("minimum"), field.get("maximum")
        value = field.get("default", low if low is not None else 0)
        st.number_input(label, min_value=low, max_value=high, value=value, step=step, key=key, help=about)
    else:
        st.text_input(label, key=key, help=about, value=str(field.get("default") or ""))


def _send(on_decide: Callable[[Decision], None], key: str, questions: dict[str, Any]) -> None:
    answers = {}
    for qkey, question in questions.items():
        names = ((question.get("schema") or {}).get("properties") or {}).keys()
        answers[qkey] = {name: st.session_state.get(f"{key}-{qkey}-{name}") for name in names}
    given = answers if len(answers) > 1 else next(iter(answers.values()), {})
    on_decide(Decision("answer", text=json.dumps(given, ensure_ascii=False)))
