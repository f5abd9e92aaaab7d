"""ReAct Lab's Streamlit entry point: set up the session, collect a finished turn, route to the pages.

``streamlit run app.py``. Pages render; the engine (react_core) runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # AppTest and other runners do not always put the app folder on the path
    sys.path.insert(0, str(HERE))

from ui.chat import turns, warmup  # noqa: E402
from ui.chat.sidebar import render_sidebar, render_sign_in  # noqa: E402
from ui.shared import configuration, identity, share_view, state  # noqa: E402

st.set_page_config(page_title="ReAct Lab", page_icon=":material/psychology:", layout="wide")
if st.query_params.get(share_view.SHARE_PARAM):
    # A read-only share link: that one run, for whoever holds the token, before (and without) the sign-in gate.
    shared = st.Page(share_view.render_shared, title="Shared run", icon=":material/share:")
    st.navigation([shared], position="hidden").run()
    st.stop()
if configuration.problem():
    # A setting the operator must fix (a public demo's call limit that is no number, …): said once, nothing runs.
    unconfigured = st.Page(configuration.render, title="Not configured", icon=":material/error:")
    st.navigation([unconfigured], position="hidden").run()
    st.stop()
if identity.mode() == identity.SIGNED_IN and not identity.signed_in():
    # Nothing else is drawn, routed to or read from history before the person is known.
    st.navigation([st.Page(render_sign_in, title="Sign in", icon=":material/login:")], position="hidden").run()
    st.stop()
restoring = state.restoring_notice()  # a reload: say so until the conversation is drawn again
state.init_state()
turns.collect()
state.keep_chat_in_url()  # a page change drops it from the address: every page puts it back (see there why)
warmup.keep_warm()  # the prompt the next turn would use, got ready on the on-device model in the background

pages = [
    st.Page("pages/chat.py", title="Chat", icon=":material/chat:", default=True),
    st.Page("pages/arena.py", title="Arena", icon=":material/view_week:"),
    st.Page("pages/settings.py", title="Settings", icon=":material/tune:"),
    st.Page("pages/history.py", title="History", icon=":material/history:"),
    st.Page("pages/evaluate.py", title="Evaluate", icon=":material/analytics:"),
    st.Page("pages/class.py", title="Class", icon=":material/school:"),
    st.Page("pages/finetune.py", title="Fine-tune", icon=":material/model_training:"),
    st.Page("pages/present.py", title="Present", icon=":material/slideshow:"),
]
page = st.navigation(pages)
render_sidebar()
page.run()
if restoring is not None:
    restoring.empty()
