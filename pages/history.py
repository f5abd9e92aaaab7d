"""The History page: every saved run with text search; open one to read its panels, export it, delete it or fork
it; past conversations, reopened in Chat to read and continue; arenas, reopened on the Arena page; compare 2 to 4
runs side by side (the arena's view); import a JSON trace.
Rendering only: the parts live in ui.history.view.
"""

from __future__ import annotations

import streamlit as st

from react_core import ReactLabError, plural
from ui.history.view import (
    RUN_PARAM,
    render_arenas,
    render_compare,
    render_conversations,
    render_import,
    render_list,
    render_open,
)
from ui.shared import state
from ui.shared.text import md_literal

st.header("History", anchor=False)
state.show_flash()
store = state.history_store()
status = store.status()
if not status.readable:
    st.error(md_literal(f"History is off: {status.reason}"), icon=":material/error:")
    st.stop()
if not status.writable:
    st.warning(md_literal(f"History can be read but not saved to: {status.reason}"), icon=":material/warning:")
try:
    total = store.count()
except ReactLabError as e:
    st.error(md_literal(str(e)))
    st.stop()
st.caption(md_literal(f"{plural(total, 'run')} saved in {status.where}"))
asked = st.query_params.get(RUN_PARAM)
if asked:  # a link to one run (from the chat): open it once, then the page is the person's again
    del st.query_params[RUN_PARAM]
    st.session_state.history_open = int(asked) if asked.isdigit() else None

runs_tab, chats_tab, arenas_tab, compare_tab, import_tab = st.tabs(
    ["Runs", "Conversations", "Arenas", "Compare", "Import"]
)
with runs_tab:
    open_id = st.session_state.history_open
    record = store.get(open_id) if open_id is not None else None
    if record is not None:
        render_open(store, record)
    else:
        st.session_state.history_open = None
        render_list(store)
with chats_tab:
    render_conversations(store)
with arenas_tab:
    render_arenas(store)
with compare_tab:
    render_compare(store)
with import_tab:
    render_import(store)
