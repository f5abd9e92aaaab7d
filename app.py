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

from ui import state, turns  # noqa: E402
from ui.sidebar import render_sidebar  # noqa: E402

st.set_page_config(page_title="ReAct Lab", page_icon=":material/psychology:", layout="wide")
state.init_state()
turns.collect()

pages = [
    st.Page("pages/chat.py", title="Chat", icon=":material/chat:", default=True),
    st.Page("pages/settings.py", title="Settings", icon=":material/tune:"),
    st.Page("pages/history.py", title="History", icon=":material/history:"),
    st.Page("pages/evaluate.py", title="Evaluate", icon=":material/analytics:"),
]
page = st.navigation(pages)
render_sidebar()
page.run()
