"""The Present page: play back a saved run for an audience, slide by slide (``?run=N&step=K``). Rendering only: the
parts live in ui.presenter."""

from __future__ import annotations

import streamlit as st

from ui import presenter, state
from ui.text import md_literal

st.markdown(presenter.STYLE, unsafe_allow_html=True)  # a fixed stylesheet; no run text ever goes through HTML
store = state.history_store()
run_id, position = presenter.asked_run()
if run_id is None and st.session_state.get("present") is not None:
    run_id = st.session_state.present["run"]
if run_id is None:
    st.header("Present", anchor=False)
    records = store.list(limit=200)
    if not records:
        st.info("No runs to present yet: ask something in Chat.")
        st.stop()
    st.caption("Play back a saved run step by step, in large type, for an audience. Pick a run:")
    labels = {r.id: md_literal(f"#{r.id} · {r.question}") for r in records}
    picked = st.selectbox("Run", list(labels), format_func=labels.get, key="present-pick", index=None)
    if picked is not None:
        st.query_params[presenter.RUN_PARAM] = str(picked)
        st.query_params[presenter.STEP_PARAM] = "0"
        st.rerun()
    st.stop()

record = store.get(run_id)
if record is None or record.trace is None or record.damaged:
    st.header("Present", anchor=False)
    # Another person's run is answered exactly as a missing one: nothing says it exists.
    st.error(f"Run #{run_id} is not in your history, so it cannot be presented.", icon=":material/error:")
    st.session_state.present = None
    st.stop()
presenter.open_run(run_id, position)
presenter.current()["pos"] = min(presenter.current()["pos"], presenter.slide_count(record.trace) - 1)
presenter.render_controls(record.trace)
presenter.render_slide(record.trace)
