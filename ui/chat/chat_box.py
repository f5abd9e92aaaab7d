"""The chat box: a question for the agent, or, while the run above waits for a decision (a step-mode breakpoint, or
Pause here), text for its paused step. Nothing starts silently: what was typed is held and the person chooses to use
it as the step's observation, as its action (an edit, read by the dialect's parser), or to ask it as a new question
(the paused run stays paused, in History too). When an MCP server's question waits, the box is off and says why: the
answer has fields of its own, in the step's panel."""

from __future__ import annotations

import streamlit as st

from react_core import Decision
from ui.chat import turns
from ui.chat.job import Turn
from ui.shared.render import step_key
from ui.shared.step_mode import keep_draft
from ui.shared.text import md_literal

ASK = "Ask a question (follow-ups continue the conversation)"
HELD = "held"  # session state: (turn id, text) typed in the box while that turn waited for a decision


def waiting_turn() -> Turn | None:
    """The conversation's last turn when it waits for a decision and nothing runs."""
    ss = st.session_state
    last = ss.chat["turns"][-1] if ss.chat["turns"] else None
    if ss.job is not None or last is None or last.trace.stop_reason != "paused" or not last.trace.steps:
        return None
    return last if last.trace.steps[-1].pending else None


def render() -> None:
    """The box at the foot of the Chat page (and what was typed in it for a paused step, with the choices)."""
    turn = waiting_turn()
    if turn is None:
        # A callback, not the return value: it runs before the page draws, so the new turn shows at once, no rerun.
        st.chat_input(ASK, key=turns.QUESTION_KEY, on_submit=_submitted)
        return
    step = turn.trace.steps[-1]
    if step.pending == "input":
        st.chat_input(
            f"Step {step.index} waits for your answer to its MCP server's question, above",
            key=turns.QUESTION_KEY,
            disabled=True,
        )
        return
    held = st.session_state[HELD]
    if held is not None and held[0] == turn.id:
        _render_offer(turn, held[1])
    st.chat_input(
        f"The run above is paused at step {step.index}: type its observation or its action, or a new question",
        key=turns.QUESTION_KEY,
        on_submit=_submitted,
    )


def _submitted() -> None:
    text = (st.session_state.get(turns.QUESTION_KEY) or "").strip()
    turn = waiting_turn()
    if turn is None or not text:
        turns.ask(text)
        return
    st.session_state[HELD] = (turn.id, text)


# The choices for text typed while a run waits: (label, key, icon, what it does).
USES = (
    ("As the observation", "observe", ":material/visibility:", "Instead of running the tool: the step gets this "
     "observation, marked as written by you."),
    ("As the action", "edit", ":material/edit:", "Instead of the model's action, written the dialect's way (e.g. "
     "Search[Ed Wood]); it then runs."),
    ("As a new question", "ask", ":material/chat:", "The paused run stays paused above, and in History, to resume "
     "later."),
    ("Put it back", "back", ":material/undo:", "Back into the box, as typed."),
)  # fmt: skip


def _render_offer(turn: Turn, text: str) -> None:
    step = turn.trace.steps[-1]
    finish = step.pending == "finish"
    with st.container(border=True, key="held-offer"):
        st.markdown(md_literal(f"The run above waits for you at step {step.index}. Use what you typed:"))
        st.text(text)
        row = st.container(horizontal=True)
        for label, kind, icon, does in USES:
            refused = finish and kind == "observe"  # a Finish step has no observation
            row.button(
                label,
                key=f"held-{kind}",
                icon=icon,
                on_click=_chosen,
                args=(turn, kind, text),
                disabled=refused,
                help="A Finish step has no observation: use it as the action instead." if refused else does,
            )


def _chosen(turn: Turn, kind: str, text: str) -> None:
    st.session_state[HELD] = None
    if kind == "ask":
        turns.ask(text)
    elif kind == "back":
        st.session_state[turns.QUESTION_KEY] = text
    else:
        keep_draft(step_key(turn.key, turn.trace.steps[-1].index), kind, text)  # a refused edit shows in the panel
        turns.decide(turn.id, Decision(kind, text=text))
