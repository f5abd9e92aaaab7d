"""The Present page: play back a saved run for an audience, slide by slide (``?run=N&step=K``). Rendering only: the
parts live in ui.present.presenter."""

from __future__ import annotations

import streamlit as st

from ui.present import presenter
from ui.shared import state

st.markdown(presenter.STYLE, unsafe_allow_html=True)  # a fixed stylesheet; no run text ever goes through HTML
store = state.history_store()
run_id, position = presenter.asked_run()
if run_id is None and st.session_state.get("present") is not None:
    run_id = st.session_state.present["run"]
record = store.get(run_id) if run_id is not None else None
shown = record is not None and record.trace is not None and not record.damaged
if shown and presenter.full_screen():
    st.markdown(presenter.FULL_SCREEN_STYLE, unsafe_allow_html=True)  # the slide alone: no picker, no sidebar
else:
    st.header("Present", anchor=False)
    records = store.list(limit=200)
    if run_id is None and not records:
        st.info("No runs to present yet: ask something in Chat.")
        st.stop()
    if run_id is None:
        st.caption("Play back a saved run step by step, in large type, for an audience. Pick a run:")
    if records:
        presenter.render_picker(records, run_id if shown else None)
    if run_id is None:
        st.stop()
if not shown:
    # Another person's run is answered exactly as a missing one: nothing says it exists.
    st.error(f"Run #{run_id} is not in your history, so it cannot be presented.", icon=":material/error:")
    st.session_state.present = None
    st.stop()
presenter.open_run(run_id, position)
presenter.current()["pos"] = min(presenter.current()["pos"], presenter.slide_count(record.trace) - 1)
presenter.render_presentation(record.trace)
