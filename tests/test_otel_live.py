"""Live export (react_core.telemetry.live): finished runs sent over OTLP/HTTP from a bounded queue on a background
thread, against a small receiver on 127.0.0.1 (the real one, Phoenix, is in test_otel_phoenix.py): what is sent,
that a hung endpoint never holds up the run, that a refusing endpoint is reported and a good export clears it, that
a hostile endpoint (a huge reply, a gzip bomb, silence, a trickle) costs a bounded memory and time and is reported,
and that the command line's ``ask`` sends its run when the OpenTelemetry variables say where."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from otel_helpers import Receiver, scripted_run
from provider_helpers import gzip_bomb, wait_for

from react_core.telemetry import live

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def receiver():
    made: list[Receiver] = []

    def make(**options) -> Receiver:
        made.append(Receiver(**options))
        return made[-1]

    yield make
    for r in made:
        r.close()


@pytest.fixture
def fresh_live(monkeypatch):
    """The process's live exporter, made anew for the test and shut down after it."""
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "REACT_OTEL_CONTENT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(live, "_live", None)
    monkeypatch.setattr(live, "_setup_problem", "")
    yield
    if live._live is not None:
        live._live.shutdown()


def test_the_endpoint_comes_from_the_opentelemetry_variables():
    assert live.LiveTarget().endpoint({}) == ""
    assert (
        live.LiveTarget().endpoint({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318/"})
        == "http://127.0.0.1:4318/v1/traces"
    )
    both = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b/t"}
    assert live.LiveTarget().endpoint(both) == "http://b/t"


def test_a_finished_run_is_sent_as_its_spans(receiver, tmp_path):
    r = receiver()
    exporter = live.LiveExport(r.base + "/v1/traces")
    try:
        exporter.send(scripted_run(tmp_path))
        assert exporter.flush(30)
    finally:
        exporter.shutdown()
    assert r.paths == ["/v1/traces"]
    assert r.names == ["invoke_agent ReAct Lab", "text_completion script", "execute_tool calculator",
                       "text_completion script"]  # fmt: skip
    assert exporter.problem == ""
    keys = {a.key for s in r.requests[0] for a in s.attributes}
    assert "gen_ai.operation.name" in keys and "input.value" not in keys  # content only when asked for


def test_a_hung_endpoint_never_holds_up_a_run(receiver, tmp_path):
    r = receiver(hold=True)
    exporter = live.LiveExport(r.base + "/v1/traces", max_queue=8)
    try:
        trace = scripted_run(tmp_path)
        exporter.send(trace)
        assert r.arrived.wait(30)  # the background thread is now stuck in the endpoint
        for _ in range(20):  # more runs than the queue holds: each returns at once, the overflow is dropped
            exporter.send(trace)
        assert not r.release.is_set()  # every send above returned while the endpoint had not answered
    finally:
        r.release.set()
        exporter.shutdown()
    assert len(r.requests) >= 1


def test_a_refusing_endpoint_is_reported_and_a_good_export_clears_the_report(receiver, tmp_path):
    r = receiver(status=400)
    exporter = live.LiveExport(r.base + "/v1/traces")
    try:
        exporter.send(scripted_run(tmp_path))
        exporter.flush(30)
        assert exporter.problem.startswith(f"The last run could not be sent to {r.base}/v1/traces")
        r.status = 200
        exporter.send(scripted_run(tmp_path))
        exporter.flush(30)
        assert exporter.problem == ""
    finally:
        exporter.shutdown()


HOSTILE = 64 << 20  # far more than an OTLP reply: each one below is read only as far as its first 64 KiB


@pytest.mark.parametrize(("reply", "status"), [("flood", 200), ("gzip_bomb", 200), ("flood", 400)])
def test_an_endpoints_reply_costs_a_bounded_memory_and_is_never_inflated(receiver, tmp_path, reply, status):
    trace = scripted_run(tmp_path)
    gzip_bomb(HOSTILE)  # made (and cached) before memory is counted
    r = receiver(reply=reply, status=status, size=HOSTILE)
    exporter = live.LiveExport(r.base + "/v1/traces")
    tracemalloc.start()
    try:
        exporter.send(trace)
        assert exporter.flush(60)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        exporter.shutdown()
    assert peak < 8 << 20, f"{peak / (1 << 20):.0f} MiB held for a {HOSTILE >> 20} MiB reply"
    if reply == "flood":  # the rest was never read: the exporter hung up
        assert wait_for(r.hung_up.is_set) and r.sent < HOSTILE
    if status == 200:
        assert exporter.problem == ""
    else:
        assert exporter.problem.endswith("it answered HTTP 400 Bad Request")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("endpoint", ["silent", "trickling"])
def test_flush_returns_in_the_time_it_is_given_whatever_the_endpoint_does(receiver, tmp_path, endpoint):
    # ask's documented 5 s: a silent endpoint held it 12.5 s, one trickling its answer for as long as it liked.
    r = receiver(hold=True) if endpoint == "silent" else receiver(reply="trickle")
    exporter = live.LiveExport(r.base + "/v1/traces")
    try:
        exporter.send(scripted_run(tmp_path))
        assert exporter.flush(0.5) is False  # not sent in that time: said, and the call returned
    finally:
        r.closing.set()
        r.release.set()
        exporter.shutdown()


@pytest.mark.timeout(30)
@pytest.mark.parametrize("endpoint", ["silent", "trickling"])
def test_the_export_timeout_is_the_whole_requests(receiver, monkeypatch, tmp_path, endpoint):
    # The SDK's timeout was per socket read: an endpoint answering a byte at a time was never cut.
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "0.5")
    r = receiver(hold=True) if endpoint == "silent" else receiver(reply="trickle")
    exporter = live.LiveExport(r.base + "/v1/traces")
    try:
        exporter.send(scripted_run(tmp_path))
        assert exporter.flush(25)
        assert exporter.problem.endswith("it did not answer within 0.5 s")
    finally:
        r.closing.set()
        r.release.set()
        exporter.shutdown()


def test_the_front_door_sends_only_when_an_endpoint_is_set(receiver, fresh_live, monkeypatch, tmp_path):
    import react_core

    trace = scripted_run(tmp_path)
    live.export_finished_run(trace)  # no endpoint: nothing is made, nothing is said
    assert live._live is None and react_core.LiveTarget.problem() == ""
    r = receiver(status=400)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.base)
    monkeypatch.setenv("REACT_OTEL_CONTENT", "1")
    live.export_finished_run(trace)
    live.flush(30)
    assert r.paths == ["/v1/traces"]
    assert any(a.key == "input.value" for s in r.requests[0] for a in s.attributes)
    assert react_core.LiveTarget.problem()


def test_an_unusable_endpoint_is_reported_and_never_raises(fresh_live, monkeypatch, tmp_path):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:1/v1/traces")
    monkeypatch.setattr(live, "run_spans", lambda *a, **k: 1 / 0)  # anything going wrong while the spans are made
    live.export_finished_run(scripted_run(tmp_path))
    assert live.LiveTarget.problem().startswith("Runs cannot be sent to the OpenTelemetry endpoint")


def test_ask_sends_its_run_to_the_configured_endpoint(receiver, tmp_path):
    r = receiver()
    script = tmp_path / "script.json"
    script.write_text(json.dumps([" Compute.\nAction 1: Calculator[6 * 7]", " So.\nAction 2: Finish[42]"]))
    env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": r.base}
    out = subprocess.run(
        [sys.executable, "-m", "react_core", "ask", "What is 6 * 7?", "--provider", "scripted",
         "--script", str(script), "--tools", "calculator"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Final Answer: 42" in out.stdout and out.stderr == ""
    assert r.names[0] == "invoke_agent ReAct Lab" and len(r.names) == 4


def test_a_finished_chat_turn_is_sent_by_the_turn_job(receiver, fresh_live, monkeypatch):
    from ui.chat.job import TurnJob, TurnRequest

    r = receiver()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", r.base + "/custom/traces")
    script = [" Compute.\nAction 1: Calculator[6 * 7]", " So.\nAction 2: Finish[42]"]
    settings = {"provider": "scripted", "script": script, "tools": ["calculator"]}
    job = TurnJob(TurnRequest(question="What is 6 * 7?", settings=settings, chat_id="c", turn_id=1))
    job.run.keeping.owner = None  # no history here: only what the finished turn sends
    job.work()
    assert job.turn.trace.final_answer == "42"
    live.flush(30)
    assert r.paths == ["/custom/traces"] and r.names[0] == "invoke_agent ReAct Lab"


def test_the_sidebar_says_when_the_last_export_failed_and_nothing_more(monkeypatch, tmp_path):
    from app_helpers import new_session, use_app

    import ui.chat.sidebar

    use_app(monkeypatch, tmp_path, [" So.\nAction 1: Finish[42]"])
    at = new_session()
    notice = "The last run could not be sent to the OpenTelemetry endpoint."
    assert not any(notice in c.value for c in at.caption)
    monkeypatch.setattr(ui.chat.sidebar.LiveTarget, "problem", lambda: "sent to http://10.0.0.7:4318 failed: refused")
    at.run()
    shown = [c.value for c in at.sidebar.caption]
    assert any(notice in c for c in shown) and not any("10.0.0.7" in c for c in shown)


def test_ask_says_in_one_line_when_its_run_could_not_be_sent(receiver, tmp_path):
    r = receiver(status=400)
    script = tmp_path / "script.json"
    script.write_text(json.dumps([" So.\nAction 1: Finish[42]"]))
    env = {**os.environ, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": r.base + "/v1/traces"}
    out = subprocess.run(
        [sys.executable, "-m", "react_core", "ask", "What is 6 * 7?", "--provider", "scripted",
         "--script", str(script), "--json"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, env=env,
    )  # fmt: skip
    assert out.returncode == 0 and json.loads(out.stdout)["final_answer"] == "42"  # the run is not affected
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith(f"The last run could not be sent to {r.base}/v1/traces")


def test_ask_waits_its_five_seconds_for_a_silent_endpoint_then_says_so(receiver, tmp_path):
    r = receiver(hold=True)
    script = tmp_path / "script.json"
    script.write_text(json.dumps([" So.\nAction 1: Finish[42]"]))
    env = {**os.environ, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": r.base + "/v1/traces"}
    try:
        out = subprocess.run(
            [sys.executable, "-m", "react_core", "ask", "What is 6 * 7?", "--provider", "scripted",
             "--script", str(script), "--json"],
            capture_output=True, text=True, cwd=ROOT, timeout=60, env=env,
        )  # fmt: skip
    finally:
        r.release.set()
    assert out.returncode == 0 and json.loads(out.stdout)["final_answer"] == "42"
    (line,) = out.stderr.strip().splitlines()
    assert line == f"The run was not sent to {r.base}/v1/traces within 5 seconds."


def test_evaluation_results_go_as_log_events_to_the_operators_logs_endpoint(receiver, tmp_path, monkeypatch):
    spans_at, logs_at = receiver(), receiver()
    trace = scripted_run(tmp_path)
    trace.expected_answer = "42"
    exporter = live.LiveExport(spans_at.base + "/v1/traces", logs_url=logs_at.base + "/v1/logs")
    try:
        exporter.send(trace)
        assert exporter.flush(30)
    finally:
        exporter.shutdown()
    (records,) = logs_at.logs
    root = spans_at.requests[0][0]
    assert {r.event_name for r in records} == {"gen_ai.evaluation.result"}
    assert {r.trace_id for r in records} == {root.trace_id} and {r.span_id for r in records} == {root.span_id}
    named = {a.value.string_value for r in records for a in r.attributes if a.key == "gen_ai.evaluation.name"}
    assert named == {"reactlab.grounding", "reactlab.expected_answer"}
    assert exporter.problem == ""


def test_without_a_logs_endpoint_no_events_are_sent_and_a_refusing_one_is_reported(receiver, tmp_path, monkeypatch):
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", raising=False)
    assert live.logs_endpoint() == ""  # the traces endpoint never implies one: Phoenix takes no logs
    spans_at, refusing = receiver(), receiver(status=404)
    exporter = live.LiveExport(spans_at.base + "/v1/traces", logs_url=refusing.base + "/v1/logs")
    try:
        exporter.send(scripted_run(tmp_path))
        assert exporter.flush(30)
    finally:
        exporter.shutdown()
    assert "evaluation events could not be sent" in exporter.problem and "404" in exporter.problem
