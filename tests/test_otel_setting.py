"""Live export named on the Settings page: in local mode a person sets the OTLP endpoint and the include-content
switch there and their next run is sent to it (a receiver on 127.0.0.1, tests/otel_helpers.py); in public demo mode
the setting is not offered and a URL handed to the job is ignored, because only the operator's environment variables
may make the app's server connect somewhere (``telemetry.live.LiveTarget.endpoint`` keeps that rule)."""

from __future__ import annotations

import pytest
from app_helpers import ask, go, last_trace, new_session, unescape, use_app
from otel_helpers import Receiver

from react_core.telemetry import live

FINISH = [" So.\nAction 1: Finish[42]"]


@pytest.fixture
def receiver(monkeypatch):
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "REACT_OTEL_CONTENT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(live, "_live", None)
    monkeypatch.setattr(live, "_setup_problem", "")
    monkeypatch.setattr(live, "_target", "")
    r = Receiver()
    yield r
    if live._live is not None:
        live._live.shutdown()
    r.close()


def test_the_rule_a_chosen_url_counts_only_for_the_operator(monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector.internal:4318")
    assert live.LiveTarget("http://127.0.0.1:6006", visitor=False).endpoint() == "http://127.0.0.1:6006/v1/traces"
    assert (
        live.LiveTarget("http://127.0.0.1:6006/v1/traces", visitor=False).endpoint()
        == "http://127.0.0.1:6006/v1/traces"
    )
    assert (
        live.LiveTarget("http://10.0.0.7:4318", visitor=True).endpoint() == "http://collector.internal:4318/v1/traces"
    )
    assert live.LiveTarget(content=True, visitor=True).sends_content() is False
    assert live.LiveTarget(content=True, visitor=False).sends_content()


def test_local_mode_offers_the_endpoint_and_a_run_is_sent_there(monkeypatch, tmp_path, receiver):
    use_app(monkeypatch, tmp_path, FINISH)
    at = go(new_session(), "settings")
    at.text_input(key="set-otel-endpoint").input("ftp://nowhere").run()
    assert any("not an http:// or https:// URL" in unescape(e.value) for e in at.error)
    at.text_input(key="set-otel-endpoint").input(receiver.base).run()
    at.checkbox(key="set-otel-content").check().run()
    go(at, "chat")
    ask(at, "What is the answer?")
    assert live.flush(30)
    assert receiver.paths == ["/v1/traces"] and receiver.names[0] == "invoke_agent ReAct Lab"
    assert any(a.key == "input.value" for s in receiver.requests[0] for a in s.attributes)  # content: switched on
    go(at, "settings")
    assert at.text_input(key="set-otel-endpoint").value == receiver.base  # kept for the session


def test_public_demo_mode_offers_no_endpoint_and_ignores_one_given(monkeypatch, tmp_path, receiver):
    use_app(monkeypatch, tmp_path, FINISH + FINISH)
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    at = go(new_session(), "settings")
    assert not [t for t in at.text_input if t.key == "set-otel-endpoint"]
    assert not [c for c in at.checkbox if c.key == "set-otel-content"]
    at.session_state["otel_endpoint"] = receiver.base  # as if a visitor had smuggled one into their session
    go(at, "chat")
    assert last_trace(ask(at, "What is the answer?"))["final_answer"] == "42"
    assert live.flush(5)
    assert receiver.requests == [] and live._live is None
