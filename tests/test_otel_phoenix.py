"""A run sent by the live exporter to a real receiver someone else wrote: Arize Phoenix, started here on 127.0.0.1 as
a subprocess (from its own virtualenv, ``make phoenix``, since its dependencies clash with the app's), then read back
through its own client (``arize-phoenix-client``): span names, parent links, span kinds, attributes and times.

One Phoenix per module (it takes some seconds to start); marked ``server`` so a quick run can leave it out with
``-m "not server"``. It fails, never skips, when Phoenix is not installed: ``make test`` installs it."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from otel_helpers import failed_call_run, scripted_run, step_mode_run

from react_core.telemetry.live import LiveExport
from react_core.telemetry.spans import run_spans

pytestmark = pytest.mark.server
ROOT = Path(__file__).resolve().parent.parent
INSTALL_HINT = "Phoenix is not installed: run `make phoenix` (it makes .venv-phoenix from requirements-phoenix.txt)."
READY = "Application startup complete"


def phoenix_command() -> Path | None:
    local = ROOT / ".venv-phoenix" / "bin" / "phoenix"
    if local.exists():
        return local
    found = shutil.which("phoenix")
    return Path(found) if found else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Phoenix:
    def __init__(self, command: Path) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="react-phoenix-"))
        self.port, self.grpc_port = free_port(), free_port()
        env = {
            **os.environ,
            "PHOENIX_WORKING_DIR": str(self.folder),
            "PHOENIX_HOST": "127.0.0.1",
            "PHOENIX_PORT": str(self.port),
            "PHOENIX_GRPC_PORT": str(self.grpc_port),
            "PHOENIX_TELEMETRY_ENABLED": "false",
            "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
        }
        self.log: list[str] = []
        self.ready = threading.Event()
        self.proc = subprocess.Popen(
            [str(command), "serve"], cwd=self.folder, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:  # the server says when it is ready: an event, not a delay
            self.log.append(line)
            if READY in line:
                self.ready.set()
        self.ready.set()  # it exited: whoever waits learns it from the health check

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_healthy(self, timeout: float = 240) -> None:
        import httpx

        if not self.ready.wait(timeout) or self.proc.poll() is not None:
            raise RuntimeError("Phoenix did not start:\n" + "".join(self.log[-40:]))
        response = httpx.get(f"{self.url}/healthz", timeout=10)
        assert response.status_code == 200, response.text

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()  # only the process this test started
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def phoenix():
    command = phoenix_command()
    if command is None:
        pytest.fail(INSTALL_HINT, pytrace=False)
    server = Phoenix(command)
    try:
        server.wait_healthy()
        yield server
    finally:
        server.stop()


def spans_in_phoenix(phoenix: Phoenix, trace_id: str, expected: int) -> list[dict]:
    """The trace's spans as Phoenix's client returns them, once Phoenix has stored all of them (it ingests from a
    queue of its own, so the client is asked again until they are there, for at most a minute)."""
    from phoenix.client import Client

    client = Client(base_url=phoenix.url)
    deadline = time.monotonic() + 60
    while True:
        spans = client.spans.get_spans(project_identifier="default", trace_ids=[trace_id], limit=100)
        if len(spans) >= expected or time.monotonic() > deadline:
            return spans
        time.sleep(0.2)  # polling a condition, bounded by the deadline; nothing asserts on the time it takes


def at(nanos: int) -> datetime:
    """A span time as Phoenix keeps it: to the microsecond, in UTC."""
    return datetime.fromtimestamp(nanos // 1_000_000_000, UTC).replace(microsecond=nanos // 1000 % 1_000_000)


def send(phoenix: Phoenix, trace, monkeypatch, conversation: str = "") -> tuple[list, list[dict]]:
    """The spans the live exporter sent for ``trace`` (with content) and the trace's spans as Phoenix returns them.
    The spans the exporter sends are made from the trace alone, so the ones made here are the same spans (names,
    attributes, times) apart from their random ids: the ids the exporter sends are captured."""
    sent: list = []
    import react_core.telemetry.live as live_module

    def recording(t, include_content=False, conversation=""):
        sent.extend(run_spans(t, include_content=include_content, conversation=conversation))
        return sent

    monkeypatch.setattr(live_module, "run_spans", recording)
    exporter = LiveExport(f"{phoenix.url}/v1/traces", include_content=True)
    try:
        exporter.send(trace, conversation)
        assert exporter.flush(60)
    finally:
        exporter.shutdown()
    assert exporter.problem == ""
    trace_id = format(sent[0].context.trace_id, "032x")
    return sent, spans_in_phoenix(phoenix, trace_id, expected=len(sent))


def as_json(attributes: dict, key: str):
    """A JSON attribute as Phoenix gives it back: its text, or the object Phoenix parsed from it and now keeps as
    attributes below the key (``tool.parameters.expression``)."""
    if key in attributes:
        return json.loads(attributes[key])
    return {k.removeprefix(f"{key}."): v for k, v in attributes.items() if k.startswith(f"{key}.")}


def test_phoenix_stores_a_run_as_an_agent_with_its_model_calls_and_tools(phoenix, tmp_path, monkeypatch):
    trace = scripted_run(tmp_path)
    sent, got = send(phoenix, trace, monkeypatch)
    by_id = {s["context"]["span_id"]: s for s in got}
    assert len(by_id) == 4
    ours = {format(s.context.span_id, "016x"): s for s in sent}
    assert set(by_id) == set(ours)

    root_id = format(sent[0].context.span_id, "016x")
    root = by_id[root_id]
    assert root["name"] == "invoke_agent ReAct Lab" and root["parent_id"] is None
    assert root["span_kind"] == "AGENT"
    assert root["attributes"]["input.value"] == trace.question and root["attributes"]["output.value"] == "42"
    children = [s for s in got if s["context"]["span_id"] != root_id]
    assert {s["parent_id"] for s in children} == {root_id}
    assert sorted(s["name"] for s in children) == ["execute_tool calculator", "text_completion script"] + [
        "text_completion script"
    ]
    kinds = {s["name"]: s["span_kind"] for s in children}
    assert kinds == {"execute_tool calculator": "TOOL", "text_completion script": "LLM"}
    tool = next(s for s in children if s["span_kind"] == "TOOL")
    assert tool["attributes"]["tool.name"] == "calculator" and tool["attributes"]["output.value"] == "6 * 7 = 42"
    first = next(s for s in children if s["attributes"].get("reactlab.step.index") == 1 and s["span_kind"] == "LLM")
    assert first["attributes"]["llm.token_count.prompt"] == trace.steps[0].usage.prompt_tokens
    assert first["attributes"]["gen_ai.request.model"] == "script"
    assert first["attributes"]["llm.output_messages.0.message.content"] == trace.steps[0].raw_output
    # The system prompt (instructions, tools, examples) is the first message Phoenix shows, the question after it.
    assert first["attributes"]["llm.input_messages.0.message.role"] == "system"
    assert first["attributes"]["llm.input_messages.0.message.content"] == trace.steps[0].call.system
    assert first["attributes"]["llm.input_messages.1.message.role"] == "user"
    # The tool call the model asked for, and the arguments the tool was called with.
    call = "llm.output_messages.0.message.tool_calls.0.tool_call.function"
    assert first["attributes"][f"{call}.name"] == "calculator"
    assert as_json(first["attributes"], f"{call}.arguments") == {"expression": "6 * 7"}
    assert as_json(tool["attributes"], "tool.parameters")["required"] == ["expression"]  # the tool's schema
    assert as_json(tool["attributes"], "input.value") == {"expression": "6 * 7"}
    assert at(sent[0].start_time) == at(1_772_357_400_250_000_000)  # the run's recorded start, not the clock's
    for span_id, stored in by_id.items():
        start, end = datetime.fromisoformat(stored["start_time"]), datetime.fromisoformat(stored["end_time"])
        assert (start, end) == (at(ours[span_id].start_time), at(ours[span_id].end_time))
        assert at(sent[0].start_time) <= start <= end <= at(sent[0].end_time)


def test_phoenix_shows_step_mode_decisions_and_a_failed_model_call(phoenix, tmp_path, monkeypatch):
    _, got = send(phoenix, step_mode_run(), monkeypatch)
    edited = next(s for s in got if s["span_kind"] == "LLM" and s["attributes"].get("reactlab.step.index") == 1)
    (decision,) = edited["events"]
    assert decision["name"] == "reactlab.decision"
    assert decision["attributes"]["reactlab.decision.kind"] == "edit"
    assert decision["attributes"]["reactlab.decision.before"] == "Calculator[6*6]"
    assert decision["attributes"]["reactlab.decision.after"] == "Calculator[6*7]"

    trace = failed_call_run(tmp_path)
    sent, got = send(phoenix, trace, monkeypatch)
    failed_id = format(sent[-1].context.span_id, "016x")
    failed = next(s for s in got if s["context"]["span_id"] == failed_id)
    assert failed["span_kind"] == "LLM" and failed["name"] == "text_completion script"
    assert failed["status_code"] == "ERROR" and failed["status_message"] == "The service answered 503."
    assert failed["attributes"]["error.type"] == "ProviderError"
    (exception,) = failed["events"]
    assert exception["name"] == "exception"
    assert exception["attributes"]["exception.message"] == "The service answered 503."
    assert exception["attributes"]["exception.type"] == "ProviderError"


def test_phoenix_groups_a_chats_turns_as_one_session_and_keeps_a_run_sent_twice_as_one_trace(
    phoenix, tmp_path, monkeypatch
):
    from phoenix.client import Client

    first = scripted_run(tmp_path, question="What is 6 * 7?")
    second = scripted_run(tmp_path, question="And 7 * 6?")
    second.started_at = "2026-03-01T09:31:00+00:00"
    sent, _ = send(phoenix, first, monkeypatch, conversation="chat-42")
    send(phoenix, second, monkeypatch, conversation="chat-42")
    client = Client(base_url=phoenix.url)
    turns = client.sessions.get_session_turns(session_id="chat-42")
    assert [(t["input"]["value"], t["output"]["value"]) for t in turns] == [
        ("What is 6 * 7?", "42"),
        ("And 7 * 6?", "42"),
    ]
    # The same run sent again (a live send, then the file exported from History) is the same trace, not a second.
    resent, again = send(phoenix, first, monkeypatch, conversation="chat-42")
    assert [s.context.span_id for s in resent] == [s.context.span_id for s in sent]
    assert len(again) == len(sent) == 4
    assert format(sent[0].context.trace_id, "032x") == turns[0]["trace_id"]
    assert len(client.sessions.get_session_turns(session_id="chat-42")) == 2


def test_phoenix_draws_our_atif_trajectory_with_its_tool_calls_and_arguments(phoenix, tmp_path):
    import contextlib

    import httpx
    from phoenix.client import Client
    from phoenix.client.helpers.atif import upload_atif_trajectories_as_spans

    from react_core.telemetry.atif import to_atif

    trace = scripted_run(tmp_path)
    trajectory = to_atif(trace, conversation="chat-atif")
    client = Client(base_url=phoenix.url)
    upload_atif_trajectories_as_spans(client, [trajectory], project_name="atif")
    deadline = time.monotonic() + 60
    spans: list = []
    while len(spans) < 6 and time.monotonic() < deadline:
        time.sleep(0.2)  # polling a condition, bounded by the deadline
        with contextlib.suppress(httpx.HTTPStatusError):  # the project is made when its first span is stored
            spans = client.spans.get_spans(project_identifier="atif", limit=100)
    tools = [s for s in spans if s["span_kind"] == "TOOL"]
    assert [t["name"] for t in tools] == ["calculator"]
    assert as_json(tools[0]["attributes"], "input.value") == {"expression": "6 * 7"}
    assert tools[0]["attributes"]["output.value"] == "6 * 7 = 42"
    llm = [s for s in spans if s["span_kind"] == "LLM"]
    assert len(llm) == 2 and {s["attributes"]["session.id"] for s in spans} == {"chat-atif"}
    system = next(s for s in llm if s["attributes"].get("llm.input_messages.0.message.role") == "system")
    assert system["attributes"]["llm.input_messages.0.message.content"] == trace.steps[0].call.system
