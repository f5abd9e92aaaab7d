"""The app's drawing and verbs; ``pages/`` draws with them and ``app.py`` routes.

Streamlit and a folder named ``pages/``: until ``st.navigation`` has run once in a server process, Streamlit reads a
``pages/`` folder beside the entry script the legacy way, where each file is a page of its own and runs without
``app.py`` (no session set up, no routing). Only a fresh server's very first request meets that, at whatever address
(a page URL such as ``/history`` runs that page alone). This package is the first thing ``app.py`` and every page
import, so here, once per process, the legacy reading is turned off (what ``st.navigation`` itself records) and that
first run starts again from ``app.py``, with the address's query: a reload after a server restart keeps its
``?chat=`` (without it, the conversation was lost and an empty chat began). The one place the app deals with it;
``tests/apptest_shim.py`` does the same for AppTest, which turns the legacy reading back on before every run.
"""

from streamlit.runtime.pages_manager import PagesManager

if PagesManager.uses_pages_directory:  # this very run was started the legacy way
    import streamlit as st

    PagesManager.uses_pages_directory = False
    st.switch_page("app.py", query_params=st.query_params.to_dict())
