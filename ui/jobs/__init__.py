"""Background jobs of the app (a chat turn, an evaluation): plain threads that never call Streamlit and never write
into session state. A page starts one, keeps it in session state, and draws its ``snapshot()``."""
