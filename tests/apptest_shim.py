"""Makes AppTest see pages/ the way a running server does once the app has called st.navigation.

The app routes explicitly with st.navigation, which retires the v1 meaning of a folder named pages/ beside the
entry script: Streamlit records ``PagesManager.uses_pages_directory = False`` and ignores the folder from then on.
AppTest resets that flag before every run, so each test run would again be wrapped in a v1 navigation around
app.py. Importing this module records what st.navigation records. Tests only; the app does not need it.
"""

from __future__ import annotations

from streamlit.runtime import pages_manager

_original_init = pages_manager.PagesManager.__init__


def _init_as_after_st_navigation(self, *args, **kwargs):
    _original_init(self, *args, **kwargs)
    pages_manager.PagesManager.uses_pages_directory = False


pages_manager.PagesManager.__init__ = _init_as_after_st_navigation
