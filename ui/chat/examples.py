"""The Chat page's example questions: ones the knowledge source can actually answer.

With live Wikipedia they are everyday HotpotQA-style questions. When an offline pack stands in (the knowledge setting
is a pack, or Wikipedia cannot be reached), they are drawn from the pack's own questions, and a note says once,
plainly, what the pack covers. Computed once per knowledge setting and session.
"""

from __future__ import annotations

import zlib
from typing import Any

import streamlit as st

from react_core import Knowledge
from ui.shared import identity

CALCULATOR_EXAMPLE = "What is 17 * 23 + 4?"
ONLINE_EXAMPLES = (
    "What is the elevation range for the area that the eastern sector of the Colorado orogeny extends into?",
    CALCULATOR_EXAMPLE,
)


def chat_examples(settings: dict[str, Any], chat_id: str) -> tuple[list[str], str]:
    """(example questions, a note about the knowledge behind them or '')."""
    key = (settings.get("knowledge"), settings.get("wiki_url"), settings.get("wiki_language"), chat_id)
    cached = st.session_state.get("chat_examples")
    if cached and cached[0] == key:
        return cached[1], cached[2]
    examples, note = _compute(settings, seed=zlib.crc32(chat_id.encode()))
    st.session_state.chat_examples = (key, examples, note)
    return examples, note


def _compute(settings: dict[str, Any], *, seed: int) -> tuple[list[str], str]:
    knowledge = Knowledge.of(settings)
    # A visitor's pack or endpoint the operator did not offer: none.
    pack = knowledge.standing_pack(visitor=identity.own_endpoints())
    if pack is None or not hasattr(pack, "sample_questions"):
        return list(ONLINE_EXAMPLES), ""
    questions = [q.question for q in pack.sample_questions(2, seed=seed)]
    why = "Wikipedia cannot be reached from here, so " if knowledge.spec == "wikipedia" else ""
    note = (
        f"{why}Search and Lookup read an offline pack: {pack.coverage}. The example questions below come from it; "
        "questions about anything else will mostly find nothing."
    )
    return [*questions, CALCULATOR_EXAMPLE], note[:1].upper() + note[1:]
