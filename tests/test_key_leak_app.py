"""A key typed on the Settings page is used for a real turn and then found nowhere: not in settings, the history
database (and its WAL), exports, the trace, session state a page keeps, or any log line.

The turn goes to a local OpenAI-compatible server (tests/provider_helpers.FakeOpenAI) that demands the key."""

from __future__ import annotations

import logging

from app_helpers import ask, go, new_session, use_app
from provider_helpers import FakeOpenAI, assert_no_secret

from react_core.base.trace import Trace
from react_core.history import HistoryStore
from react_core.report.exports import to_json, to_markdown

MARKER = "sk-MARKER-4e1d2c9b7a"


def test_a_key_from_settings_is_used_and_leaks_nowhere(monkeypatch, tmp_path, caplog):
    use_app(monkeypatch, tmp_path)
    caplog.set_level(logging.DEBUG)
    outputs = [" I multiply.\nAction 1: Calculator[6*7]", " Done.\nAction 2: Finish[42]"]
    with FakeOpenAI(outputs, key=MARKER) as server:
        at = go(new_session(), "settings")
        at.selectbox(key="set-provider").set_value("openai").run()
        at.text_input(key="set-model").input("gpt-4.1-mini").run()
        at.text_input(key="set-api-key").input(MARKER).run()
        at.text_input(key="set-base_url").input(server.root + "/v1").run()
        assert not at.exception, at.exception
        ask(go(at, "chat"), "What is 6*7?")
        trace = at.session_state.chat["turns"][-1].trace.to_dict()
        assert trace["stop_reason"] == "finished" and trace["final_answer"] == "42", trace
        # The server saw the key, so it really was used.
        assert any(r.headers.get("authorization") == f"Bearer {MARKER}" for r in server.requests)

    store = HistoryStore(tmp_path / "history.sqlite")
    saved = store.list()
    assert saved, "the turn was saved"
    exports = [to_json(Trace.from_dict(trace)), to_markdown(Trace.from_dict(trace))]
    # Everything the session keeps, except the two slots that hold the key on purpose (for this session only).
    page_state = {k: v for k, v in at.session_state.items() if k not in ("api_key", "set-api-key")}
    assert_no_secret(
        MARKER,
        trace,
        at.session_state.settings,
        store.last_settings(),
        tmp_path,  # the history database, its WAL and shm files, presets, the script
        *exports,
        repr(page_state),
        caplog.text,
    )
