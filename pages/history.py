"""The History page: every saved run with text search; open one to read its panels, export it, delete it or fork
it; compare two runs step by step; import a JSON trace. Rendering only: the parts live in ui.history_view.
"""

from __future__ import annotations

import streamlit as st

from react_core.errors import ReactLabError
from ui import state
from ui.history_view import render_compare, render_import, render_list, render_open
from ui.text import md_literal

state.require_app()
st.header("History", anchor=False)
state.show_flash()
store = state.history_store()
try:
    total = store.count()
except ReactLabError as e:
    st.error(str(e))
    st.stop()
st.caption(md_literal(f"{total:,} runs saved in {store.path}"))

runs_tab, compare_tab, import_tab = st.tabs(["Runs", "Compare", "Import"])
with runs_tab:
    open_id = st.session_state.history_open
    record = store.get(open_id) if open_id is not None else None
    if record is not None:
        render_open(store, record)
    else:
        st.session_state.history_open = None
        render_list(store)
with compare_tab:
    render_compare(store)
with import_tab:
    render_import(store)
