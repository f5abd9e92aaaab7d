"""The Class page: a teacher hands out a question set by link and sees each student's best version on a board; a
student opens the link, runs their own prompt versions on it from the Evaluate page and submits; a submission's runs
open here, for its student and the assignment's owner only. Rendering only: the parts are in ui.classroom.view.
"""

from __future__ import annotations

import streamlit as st

from react_core import ReactLabError
from ui.classroom import view as class_view
from ui.evaluate import evaluations as ev
from ui.evaluate import question_sets as qs
from ui.shared import identity, state
from ui.shared.text import md_literal

st.header("Class", anchor=False)
state.show_flash()
if identity.mode() != identity.SIGNED_IN:
    st.info(
        "A class needs people to sign in (deployment.md, Sign-in): each student's runs stay theirs, and a teacher "
        "sees only what students submit to an assignment. Here everything is one person's, so you can try it alone."
    )
store = state.history_store()

token = st.query_params.get(class_view.ASSIGNMENT_PARAM)
if token:  # a link handed out: open it once (joining it), then the page is the person's again
    del st.query_params[class_view.ASSIGNMENT_PARAM]
    try:
        opened = store.join_assignment(token)
    except ReactLabError as e:
        opened = None
        st.error(md_literal(str(e)))
    if opened is None:
        st.warning("This link does not open an assignment: it was withdrawn, or it is not a whole link.")
    else:
        st.success(md_literal(f"You joined {opened.name!r}: it is below, and on the Evaluate page as a dataset."))

submission = st.query_params.get(class_view.SUBMISSION_PARAM)
if submission:
    if st.button("Back to the class", key="class-back", icon=":material/arrow_back:"):
        del st.query_params[class_view.SUBMISSION_PARAM]
        st.rerun()
    class_view.render_submission(submission)
    st.stop()

try:
    mine, joined = store.assignments(), store.joined_assignments()
except ReactLabError as e:
    st.error(md_literal(f"The class needs the history store: {e}"))
    st.stop()

# The tab a person lands on: the assignments they joined right after opening a link (the message above says "below"),
# and for a student who has handed none out; kept in the session, so a rerun keeps the tab they chose.
TEACH, LEARN = "Assignments you handed out", "Assignments you joined"
if (token and opened is not None) or (joined and not mine and "class-tab" not in st.session_state):
    st.session_state["class-tab"] = LEARN
teach_tab, learn_tab = st.tabs([TEACH, LEARN], key="class-tab", on_change="rerun")
with teach_tab:
    with st.expander("Hand out a question set", icon=":material/assignment_add:", expanded=not mine):
        class_view.render_hand_out(qs.saved_sets(), ev.past())
    for a in mine:
        with st.container(border=True):
            class_view.render_board(a)
    if not mine:
        st.caption("None yet.")
with learn_tab:
    for a in joined:
        with st.container(border=True):
            class_view.render_joined(a)
    if not joined:
        st.caption("None yet: open the link your teacher gave you.")
