"""Runs to export in the OpenTelemetry tests: a scripted run (real model-call records, a tool, an answer) and a run
whose tool fails; and other tools' OTLP/JSON files, written as their instrumentations write them."""

from __future__ import annotations

import json
from pathlib import Path

import react_core
from react_core.base.events import final_trace
from react_core.base.trace import Action, McpCall, Observation, Step, Trace


def scripted_run(
    tmp_path: Path, outputs: list | None = None, question: str = "What is 6 * 7?", dialect: str = ""
) -> Trace:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(outputs or [" Compute.\nAction 1: Calculator[6 * 7]", " So.\nAction 2: Finish[42]"]))
    settings = react_core.RunSettings(provider="scripted", script=str(script), tools=["calculator"], dialect=dialect)
    trace = react_core.ask(question, settings)
    trace.started_at = "2026-03-01T09:30:00.250000+00:00"  # a fixed start, so times can be checked exactly
    return trace


def failing_tool_run(tmp_path: Path) -> Trace:
    return scripted_run(tmp_path, [" Try.\nAction 1: Calculator[1 / 0]", " Give up.\nAction 2: Finish[none]"])


def failed_call_run(tmp_path: Path) -> Trace:
    """A run whose second model call fails: the provider's error ends it."""
    return scripted_run(tmp_path, [" Compute.\nAction 1: Calculator[6 * 7]", {"error": "The service answered 503."}])


def native_tools_run(tmp_path: Path) -> Trace:
    """A run in the tools dialect: the model calls functions natively, each call with the API's id."""
    calculate = {"id": "call_6x7", "name": "calculator", "arguments": {"expression": "6 * 7"}}
    finish = {"id": "call_end", "name": "finish", "arguments": {"answer": "42"}}
    script = [{"text": "Compute.", "tool_calls": [calculate]}, {"tool_calls": [finish]}]
    return scripted_run(tmp_path, script, dialect="tools")


def step_mode_run() -> Trace:
    """A run in step mode where a person took a decision at each tool call: edited the first action (the model wrote
    Calculator[6*6]), picked the second of two alternatives drawn for the second step, and wrote the third step's
    observation instead of running the tool."""
    from react_core.loop.agent import Agent, RunConfig
    from react_core.loop.pause import Decision, resume
    from react_core.presets.preset import Preset
    from react_core.providers.scripted import ScriptedProvider
    from react_core.tools.calculator import CALCULATOR
    from react_core.tools.registry import ToolRegistry

    outputs = [
        " Square it.\nAction 1: Calculator[6*6]",
        " Check.\nAction 2: Calculator[7*6]",
        " Again.\nAction 2: Calculator[6+6]",
        " Other way.\nAction 2: Calculator[42/1]",
        " Once more.\nAction 3: Calculator[1+1]",
        " Done.\nAction 4: Finish[42]",
    ]
    preset = Preset(name="test-paper", dialect="paper", instructions="Answer with tools:\n{tools}", examples="")
    config = RunConfig(provider=ScriptedProvider(outputs), preset=preset, tools=ToolRegistry([CALCULATOR]),
                       max_calls=8, pause_before=("tool",))  # fmt: skip
    agent = Agent(config)
    trace = agent.run("What is 6 * 7?")
    for decision in (
        Decision("edit", text="Calculator[6*7]", by="ada"),
        Decision("regenerate", k=2, temperature=0.9, by="ada"),
        Decision("pick", number=2, by="ada"),
        Decision("observe", text="42, as before.", by="ada"),
    ):
        trace = final_trace(resume(agent, trace, decision))
    assert trace.stop_reason == "finished", trace.error
    trace.started_at = "2026-03-01T09:30:00.250000+00:00"
    return trace


MCP_ARGUMENTS = {"source_timezone": "Europe/Paris", "time": "09:00", "target_timezone": "Asia/Tokyo"}


def mcp_run() -> Trace:
    """A run that called an MCP server's tool, as the loop records it: the action's input is the JSON the model
    wrote, the observation keeps the arguments the server received and its result."""
    written = json.dumps(MCP_ARGUMENTS)
    result = {"content": [{"type": "text", "text": "16:00"}], "isError": False}
    call = McpCall(server="time", tool="convert_time", arguments=dict(MCP_ARGUMENTS), result=result, seconds=0.01)
    return Trace(
        question="What time is it in Tokyo at 9:00 in Paris?",
        settings={"provider": "scripted", "dialect": "paper", "tools": ["time_convert_time"]},
        steps=[
            Step(1, thought="Convert it.", action=Action("time_convert_time", written),
                 observation=Observation("16:00", evidence=True, mcp=call),
                 raw_output=f" Convert it.\nAction 1: time_convert_time[{written}]", seconds=0.5),
            Step(2, thought="Done.", final_answer="16:00", raw_output=" Done.\nAction 2: Finish[16:00]", seconds=0.2),
        ],
        final_answer="16:00",
        stop_reason="finished",
        started_at="2026-03-01T09:30:00+00:00",
    )  # fmt: skip


def attr(key: str, value) -> dict:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def span(span_id: str, name: str, start: int, end: int, parent: str = "", status: int = 0, **attributes) -> dict:
    out = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": span_id,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(1_770_000_000_000_000_000 + start * 1_000_000),
        "endTimeUnixNano": str(1_770_000_000_000_000_000 + end * 1_000_000),
        "attributes": [attr(k.replace("__", "."), v) for k, v in attributes.items()],
        "status": {"code": status},
    }
    if parent:
        out["parentSpanId"] = parent
    return out


def otlp(*spans: dict) -> str:
    scope = {"scope": {"name": "openinference.instrumentation.smolagents"}, "spans": list(spans)}
    resource = {"resource": {"attributes": [attr("service.name", "smolagents-demo")]}, "scopeSpans": [scope]}
    return json.dumps({"resourceSpans": [resource]})


def smolagents_run() -> str:
    """A smolagents ToolCallingAgent run as its OpenInference instrumentation writes it (openinference-instrumentation-
    smolagents' wrappers): an AGENT span with the bound run arguments as input, CHAIN spans per step, LLM spans with
    output message contents and token counts (the older ``message.content`` form on the second), TOOL spans whose
    input is the bound tool call (``args`` / ``kwargs``) and whose ``tool.parameters`` is the tool's schema, and the
    ``final_answer`` tool."""
    root = "a000000000000001"
    task = "What is the capital of France?"
    run_args = {"task": task, "stream": False, "reset": True, "images": None, "additional_args": None}
    search_call = {"args": [], "sanitize_inputs_outputs": True, "kwargs": {"query": "capital of France"}}
    contents = "llm__output_messages__0__message__contents__0__message_content__"
    return otlp(
        span(root, "ToolCallingAgent.run", 0, 900, openinference__span__kind="AGENT", smolagents__task=task,
             input__value=json.dumps(run_args), output__value="Paris", llm__token_count__prompt=1712),
        span("a000000000000002", "Step 1", 10, 500, root, openinference__span__kind="CHAIN",
             input__value=json.dumps({"memory_step": "ActionStep(...)"})),
        span("a000000000000003", "OpenAIServerModel.generate", 20, 300, "a000000000000002",
             openinference__span__kind="LLM", llm__model_name="gpt-4o-mini",
             llm__output_messages__0__message__role="assistant",
             **{f"{contents}type": "text", f"{contents}text": "I will search for the capital."},
             llm__output_messages__0__message__tool_calls__0__tool_call__function__name="web_search",
             output__value=json.dumps({"role": "assistant", "content": "I will search for the capital."}),
             output__mime_type="application/json", llm__token_count__prompt=812, llm__token_count__completion=31),
        span("a000000000000004", "DuckDuckGoSearchTool", 310, 480, "a000000000000002",
             openinference__span__kind="TOOL", tool__name="web_search",
             tool__parameters=json.dumps({"query": {"type": "string", "description": "The search query"}}),
             input__value=json.dumps(search_call), output__value="Paris is the capital of France."),
        span("a000000000000005", "Step 2", 510, 890, root, openinference__span__kind="CHAIN"),
        span("a000000000000006", "OpenAIServerModel.generate", 520, 800, "a000000000000005",
             openinference__span__kind="LLM", llm__model_name="gpt-4o-mini",
             llm__output_messages__0__message__content="The answer is Paris.",
             llm__token_count__prompt=900, llm__token_count__completion=12),
        span("a000000000000007", "FinalAnswerTool", 810, 880, "a000000000000005", openinference__span__kind="TOOL",
             tool__name="final_answer",
             input__value=json.dumps({"args": [], "sanitize_inputs_outputs": True, "kwargs": {"answer": "Paris"}}),
             output__value="Paris"),
    )  # fmt: skip


def genai_run() -> str:
    """An agent run following the GenAI conventions only (no OpenInference), with a failing tool."""
    root = "b000000000000001"
    messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Weather in Lyon?"}]}])
    reply = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Let me check."}]}])
    return otlp(
        span(root, "invoke_agent weather", 0, 400, gen_ai__operation__name="invoke_agent",
             gen_ai__input__messages=messages, gen_ai__request__model="gemini-2.5-flash", status=2),
        span("b000000000000002", "chat gemini-2.5-flash", 5, 100, root, gen_ai__operation__name="chat",
             gen_ai__output__messages=reply, gen_ai__usage__input_tokens=50, gen_ai__usage__output_tokens=5),
        span("b000000000000003", "execute_tool get_weather", 110, 300, root, gen_ai__operation__name="execute_tool",
             gen_ai__tool__name="get_weather", gen_ai__tool__call__arguments=json.dumps({"city": "Lyon"}), status=2),
    )  # fmt: skip


class Receiver:
    """A tiny OTLP/HTTP receiver on 127.0.0.1: records each request's spans, answers with ``status``, and holds its
    answer until ``release`` is set (a hung endpoint) when ``hold`` is on. Hostile replies, each over when the client
    hangs up (``hung_up`` is set) or the receiver closes:

        reply="flood"      a body of ``size`` bytes (sent as it is read: ``sent`` counts them)
        reply="gzip_bomb"  a small gzip body that inflates to ``size`` bytes, said to be gzip
        reply="trickle"    the whole answer, status line first, one byte every 0.05 s
    """

    def __init__(self, status: int = 200, hold: bool = False, reply: str = "", size: int = 64 << 20) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        self.status, self.requests, self.paths, self.logs = status, [], [], []
        self.reply, self.size, self.sent = reply, size, 0
        self.arrived, self.release = threading.Event(), threading.Event()
        self.hung_up, self.closing = threading.Event(), threading.Event()
        if not hold:
            self.release.set()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path.endswith("/v1/logs"):  # log records (events), kept apart from the spans
                    logs = ExportLogsServiceRequest.FromString(body)
                    outer.logs.append([x for r in logs.resource_logs for sl in r.scope_logs for x in sl.log_records])
                else:
                    request = ExportTraceServiceRequest.FromString(body)
                    outer.requests.append([s for r in request.resource_spans for ss in r.scope_spans for s in ss.spans])
                outer.paths.append(self.path)
                outer.arrived.set()
                outer.release.wait(60)
                try:
                    outer._answer(self)
                except (BrokenPipeError, ConnectionResetError):
                    outer.hung_up.set()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _answer(self, h) -> None:
        if self.reply == "trickle":
            for byte in f"HTTP/1.1 {self.status} OK\r\nContent-Length: 0\r\n\r\n".encode():
                if self.closing.wait(0.05):
                    return
                h.wfile.write(bytes([byte]))
                h.wfile.flush()
            return
        h.send_response(self.status)
        if self.reply == "gzip_bomb":
            from provider_helpers import gzip_bomb

            body = gzip_bomb(self.size)
            h.send_header("Content-Encoding", "gzip")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
            return
        h.send_header("Content-Length", str(self.size if self.reply == "flood" else 0))
        h.end_headers()
        piece = b"x" * (64 << 10)
        while self.reply == "flood" and self.sent < self.size and not self.closing.is_set():
            h.wfile.write(piece)
            self.sent += len(piece)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def names(self) -> list[str]:
        return [s.name for batch in self.requests for s in batch]

    def close(self) -> None:
        self.closing.set()
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
