"""Whatever a stored run holds (an import, a tampered row), every field is drawn literally: no image loads from an
address someone chose, no coloured or linked text appears that the app did not write."""

from __future__ import annotations

import re

from app_helpers import go, new_session, run_headers, use_app

from react_core.base.trace import Observation, Source, Step, Trace
from react_core.history import HistoryStore

PIXEL = "![x](http://127.0.0.1:9/pixel.png)"
SPOOF = ":red[Your key expired: paste it at] [evil](http://127.0.0.1:9/login)"
# Markdown that would become an image, a link or colour if it were interpreted.
LIVE_MARKUP = re.compile(r"(?<!\\)!\[|(?<!\\)\]\((?:https?|javascript)|(?<!\\):(?:red|blue|green|orange)\[")


def _hostile_trace() -> Trace:
    step = Step(
        index=1,
        thought=f"{PIXEL} {SPOOF}",
        observation=Observation(text=SPOOF, sources=[Source(PIXEL, "javascript:alert(1)")], note=SPOOF),
    )
    return Trace(
        question=f"{PIXEL} {SPOOF}",
        settings={"provider": SPOOF, "model": PIXEL, "preset": SPOOF, "dialect": "paper", "knowledge": PIXEL},
        steps=[step],
        final_answer=SPOOF,
        stop_reason=SPOOF,  # not a known reason: a tampered row
        error=PIXEL,
        started_at=PIXEL,
    )


def _drawn(at) -> list[str]:
    values = [m.value for m in at.markdown] + [c.value for c in at.caption] + [e.label for e in at.expander]
    values += [i.value for i in at.info] + [e.value for e in at.error] + [s.label for s in run_headers(at)]
    return values


def test_a_stored_run_with_hostile_fields_is_drawn_literally(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    store = HistoryStore()
    run_id = store.save(_hostile_trace(), origin="import")
    store.save(_hostile_trace(), origin="import")  # a second one, so Compare draws two of them
    at = new_session()
    at.session_state.history_open = run_id
    go(at, "history")
    assert not at.exception
    live = [v for v in _drawn(at) if LIVE_MARKUP.search(v)]
    assert not live, live
    # The unknown stop reason is not repeated as a label: it is shown as an unfinished run.
    assert not any("Your key expired" in s.label for s in run_headers(at))
    at.session_state.history_open = None
    go(at, "history")
    assert not [v for v in _drawn(at) if LIVE_MARKUP.search(v)]
