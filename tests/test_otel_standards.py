"""The spans as the standards write them: every attribute is one the conventions' own packages name (OpenTelemetry's,
generated from the GenAI conventions' registry, and OpenInference's), none of them one the conventions replaced or
removed, and none written as a string literal; the messages as the conventions' JSON schemas shape them; and what
the conventions ask that earlier spans lacked or said wrong: the request's stream and time to first chunk, the server
it went to, the chat a run belongs to, the agent's version and description, the tools' descriptions and definitions,
the MCP attributes of an MCP call, the model's own name, the run's own trace id, and the operator's service name."""

from __future__ import annotations

import ast
import inspect
import json
import re
from pathlib import Path

import pytest
from openinference.semconv import trace as oi_trace
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes, mcp_attributes
from opentelemetry.semconv.attributes import (
    error_attributes,
    exception_attributes,
    network_attributes,
    server_attributes,
    service_attributes,
)
from otel_helpers import failed_call_run, mcp_run, native_tools_run, scripted_run, step_mode_run

from react_core.base.trace import ModelCall, Step, Trace, Usage
from react_core.telemetry import run_facts
from react_core.telemetry.otlp_json import to_otlp_json
from react_core.telemetry.spans import run_spans

ROOT = Path(__file__).resolve().parent.parent
OTEL_MODULES = (gen_ai_attributes, mcp_attributes, error_attributes, exception_attributes, network_attributes,
                server_attributes, service_attributes)  # fmt: skip
OI_PREFIXES = (oi_trace.SpanAttributes, oi_trace.ToolAttributes)  # a TOOL span is a tool: tool.json_schema
OI_NESTED = (oi_trace.MessageAttributes, oi_trace.ToolCallAttributes, oi_trace.ToolAttributes,
             oi_trace.MessageContentAttributes, oi_trace.ImageAttributes)  # fmt: skip


def _constants(cls_or_module) -> dict[str, str]:
    return {k: v for k, v in vars(cls_or_module).items() if k.isupper() and isinstance(v, str)}


def _notes(module) -> dict[str, str]:
    """Each attribute of a generated module and the note below it (its docstring in the source)."""
    tree = ast.parse(inspect.getsource(module))
    notes: dict[str, str] = {}
    body = tree.body
    for node, after in zip(body, [*body[1:], None], strict=True):
        named = isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Constant)
        noted = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
        if named and noted and isinstance(after.value.value, str):
            notes[node.value.value] = after.value.value.strip()
    return notes


OTEL_NAMES = {v for m in OTEL_MODULES for v in _constants(m).values()}
# The package marks every GenAI name "Deprecated: Moved to the GenAI conventions' repository" (where they live now);
# a name the conventions replaced or removed says so instead.
RETIRED = {name: note for m in OTEL_MODULES for name, note in _notes(m).items()
           if note.startswith("Deprecated:") and "Moved to" not in note.split("\n")[0]}  # fmt: skip
OI_TOP = {v for c in OI_PREFIXES for v in _constants(c).values()}
OI_INNER = {v for c in OI_NESTED for v in _constants(c).values()}


def _known(key: str) -> bool:
    if key.startswith("reactlab."):
        return True
    if key in OTEL_NAMES:
        return key not in RETIRED
    pieces = re.split(r"\.\d+\.", key)  # OpenInference flattens lists: llm.input_messages.0.message.role
    return pieces[0] in OI_TOP and all(p in OI_INNER for p in pieces[1:])


def gemini_run() -> Trace:
    body = {"generationConfig": {"temperature": 0.7, "stopSequences": ["\nObservation"], "maxOutputTokens": 256}}
    call = ModelCall(api="gemini.streamGenerateContent", endpoint="https://gemini.example.test/v1beta",
                     body=body, finish_reason="STOP", first_token_seconds=0.4, seconds=1.0)  # fmt: skip
    return Trace("q", settings={"provider": "gemini", "model": "gemini-x"},
                 steps=[Step(1, raw_output="Thought 1: x", usage=Usage(5, 2), call=call, seconds=1.0)])  # fmt: skip


def every_run(tmp_path) -> list[Trace]:
    mcp = mcp_run()
    mcp.steps[0].observation.mcp.transport = "stdio"
    mcp.steps[0].observation.mcp.protocol_version = "2025-11-25"
    return [scripted_run(tmp_path), native_tools_run(tmp_path), failed_call_run(tmp_path), step_mode_run(), mcp,
            gemini_run()]  # fmt: skip


@pytest.mark.parametrize("content", [False, True], ids=["without messages", "with messages"])
def test_every_attribute_is_one_the_conventions_packages_name_and_none_they_retired(tmp_path, content):
    unknown = set()
    for trace in every_run(tmp_path):
        for span in run_spans(trace, include_content=content, conversation="chat-1"):
            keys = [*span.attributes, *(k for e in span.events for k in e.attributes)]
            unknown |= {k for k in keys if not _known(k)}
    assert not unknown, sorted(unknown)


def test_the_check_knows_a_retired_name_and_an_unknown_one():
    assert not _known("gen_ai.system")  # replaced by gen_ai.provider.name
    assert not _known("gen_ai.usage.prompt_tokens")  # replaced by gen_ai.usage.input_tokens
    assert not _known("llm.made_up") and not _known("llm.input_messages.0.message.made_up")
    assert _known("gen_ai.request.model") and _known("llm.output_messages.0.message.tool_calls.0.tool_call.id")


def test_the_span_modules_name_no_attribute_by_a_string_literal():
    namespaces = r"^(gen_ai|llm|tool|input|output|mcp|server|error|network|session|openinference|exception|service)\."
    found = []
    for name in ("spans", "span_attributes", "span_messages", "run_facts"):
        tree = ast.parse((ROOT / "react_core" / "telemetry" / f"{name}.py").read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(n, ast.Module | ast.FunctionDef |
                      ast.ClassDef) and n.body and isinstance(n.body[0], ast.Expr)}  # fmt: skip
        strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                   and id(n) not in docstrings]  # fmt: skip
        # gen_ai.evaluation.result is an event's name, which the package has no constant for.
        found += [f"{name}.py: {s}" for s in strings if re.match(namespaces, s) and s != "gen_ai.evaluation.result"]
    assert not found, found


def test_a_reply_is_one_output_message_with_its_text_once_and_the_call_no_finish_reason_inside(tmp_path):
    trace = scripted_run(tmp_path)
    _, call, _, answer = run_spans(trace, include_content=True)
    (reply,) = json.loads(call.attributes["gen_ai.output.messages"])
    assert set(reply) == {"role", "parts"}  # finish_reason is deprecated in an output message
    assert call.attributes["gen_ai.response.finish_reasons"] == (trace.steps[0].call.finish_reason,)
    assert [p["type"] for p in reply["parts"]] == ["text", "tool_call"]
    assert json.dumps(reply).count("Compute.") == 1  # the Thought once, not as text, reasoning and again
    assert [p["type"] for p in json.loads(answer.attributes["gen_ai.output.messages"])[0]["parts"]] == ["text"]
    root = run_spans(trace, include_content=True)[0]
    assert json.loads(root.attributes["gen_ai.output.messages"]) == [
        {"role": "assistant", "parts": [{"type": "text", "content": "42"}]}
    ]


def test_a_model_call_says_it_streamed_its_time_to_first_chunk_and_the_server_it_went_to():
    call = run_spans(gemini_run())[1]
    assert call.attributes["gen_ai.request.stream"] is True
    assert call.attributes["gen_ai.response.time_to_first_chunk"] == 0.4
    assert "reactlab.first_token_seconds" not in call.attributes
    assert call.attributes["server.address"] == "gemini.example.test"
    assert call.attributes["server.port"] == 443
    # An OpenAI-compatible server elsewhere (vLLM, Ollama) is told apart by its address, not its API.
    trace = gemini_run()
    trace.settings = {"provider": "openai", "model": "llama3"}
    trace.steps[0].call = ModelCall(api="openai.chat.completions", endpoint="http://127.0.0.1:11434/v1",
                                    body={"stream": True}, first_token_seconds=0.2)  # fmt: skip
    call = run_spans(trace)[1]
    assert call.attributes["gen_ai.provider.name"] == "openai" and call.attributes["llm.provider"] == "openai"
    assert (call.attributes["server.address"], call.attributes["server.port"]) == ("127.0.0.1", 11434)
    # An in-process model has no server.
    trace.steps[0].call.endpoint = ""
    assert "server.address" not in run_spans(trace)[1].attributes


def test_the_models_own_name_not_its_label_and_openinferences_provider_names():
    trace = gemini_run()
    trace.settings = {"provider": "local", "model": "gemma-3-270m (on-device)"}
    call = run_spans(trace)[1]
    assert call.attributes["gen_ai.request.model"] == call.attributes["llm.model_name"] == "gemma-3-270m"
    assert call.name == "text_completion gemma-3-270m"
    assert "llm.provider" not in call.attributes  # OpenInference has no name for llama.cpp
    trace.settings["model"] = "gemma-3-270m + hotpotqa (on-device)"  # with an adapter: recorded apart
    assert run_spans(trace)[1].attributes["gen_ai.request.model"] == "gemma-3-270m"
    assert run_spans(gemini_run())[1].attributes["llm.provider"] == "google"  # not gcp.gemini


def test_the_agent_is_described_and_versioned_by_its_prompt_version(tmp_path):
    trace = scripted_run(tmp_path)
    root = run_spans(trace)[0]
    assert root.attributes["gen_ai.agent.version"] == "paper@1"
    assert root.attributes["gen_ai.agent.description"] == run_facts.AGENT_DESCRIPTION
    del trace.settings["prompt_version"]  # an unsaved prompt has no version: none is claimed
    assert "gen_ai.agent.version" not in run_spans(trace)[0].attributes


def test_tools_are_described_and_their_definitions_are_content(tmp_path):
    trace = scripted_run(tmp_path)
    _, call, tool, _ = run_spans(trace)
    assert tool.attributes["gen_ai.tool.description"] == tool.attributes["tool.description"]
    assert tool.attributes["gen_ai.tool.description"].startswith("Evaluates an arithmetic expression")
    assert json.loads(tool.attributes["tool.parameters"])["required"] == ["expression"]
    assert json.loads(tool.attributes["tool.json_schema"])["function"]["name"] == "calculator"
    assert "gen_ai.tool.definitions" not in call.attributes  # opt-in in the conventions
    _, call, _, _ = run_spans(trace, include_content=True)
    definitions = json.loads(call.attributes["gen_ai.tool.definitions"])
    assert [(d["type"], d["name"]) for d in definitions] == [("function", "calculator"), ("function", "finish")]
    assert json.loads(call.attributes["llm.tools.0.tool.json_schema"])["function"]["name"] == "calculator"


def test_an_mcp_tools_span_carries_the_mcp_attributes_of_its_call():
    trace = mcp_run()
    record = trace.steps[0].observation.mcp
    record.transport, record.protocol_version = "stdio", "2025-11-25"
    tool = run_spans(trace)[2]
    assert tool.attributes["mcp.method.name"] == "tools/call"
    assert tool.attributes["mcp.protocol.version"] == "2025-11-25"
    assert tool.attributes["network.transport"] == "pipe"
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool" and "server.address" not in tool.attributes
    record.transport, record.url = "streamable-http", "https://mcp.example.org:8443/mcp"
    trace.steps[0].observation.is_error = True
    tool = run_spans(trace)[2]
    assert tool.attributes["network.transport"] == "tcp"
    assert (tool.attributes["server.address"], tool.attributes["server.port"]) == ("mcp.example.org", 8443)
    assert tool.attributes["error.type"] == "tool_error"


def test_a_chats_turns_carry_its_conversation_as_their_session(tmp_path):
    spans = run_spans(scripted_run(tmp_path), conversation="chat-7")
    for span in spans:
        if span.attributes["openinference.span.kind"] in ("AGENT", "LLM"):
            assert span.attributes["gen_ai.conversation.id"] == span.attributes["session.id"] == "chat-7"
    assert "session.id" not in run_spans(scripted_run(tmp_path))[0].attributes  # a run on its own: none


def test_a_run_is_the_same_trace_and_spans_at_every_export(tmp_path):
    trace = scripted_run(tmp_path)
    first, again = run_spans(trace), run_spans(trace)
    assert [s.context.trace_id for s in first] == [int(run_facts.run_id(trace), 16)] * len(first)
    assert [s.context.span_id for s in first] == [s.context.span_id for s in again]
    assert len({s.context.span_id for s in first}) == len(first)
    assert to_otlp_json(trace) == to_otlp_json(trace)
    # With the messages, the spans differ, so they are other spans of the same trace.
    with_messages = run_spans(trace, include_content=True)
    assert with_messages[0].context.trace_id == first[0].context.trace_id
    assert with_messages[0].context.span_id != first[0].context.span_id
    other = scripted_run(tmp_path, question="What is 7 * 6?")
    assert run_spans(other)[0].context.trace_id != first[0].context.trace_id
    # Saved and read back from History, it is the same run: exported from there, the same trace.
    from react_core.history import open_history

    store = open_history(url="", path=tmp_path / "h.sqlite")
    saved = store.get(store.save(trace)).trace
    assert run_spans(saved)[0].context.trace_id == first[0].context.trace_id


def test_the_service_is_react_lab_unless_the_operator_names_another(tmp_path, monkeypatch):
    trace = scripted_run(tmp_path)
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    assert run_spans(trace)[0].resource.attributes["service.name"] == "react-lab"
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attributes,deployment.environment.name=prod")
    resource = run_spans(trace)[0].resource.attributes
    assert (resource["service.name"], resource["deployment.environment.name"]) == ("from-attributes", "prod")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "lab-eu")  # wins over the attributes, as the specification says
    assert run_spans(trace)[0].resource.attributes["service.name"] == "lab-eu"
    assert json.loads(to_otlp_json(trace))["resourceSpans"][0]["resource"]["attributes"][0]["value"] == {
        "stringValue": "lab-eu"
    } or "lab-eu" in to_otlp_json(trace)


def test_a_real_mcp_call_records_how_it_went_and_its_span_says_so():
    from mcp_helpers import our_server

    from react_core.base.trace import Action, Observation
    from react_core.tools.mcp import mcp_tools
    from react_core.tools.mcp_client import POOL
    from react_core.tools.mcp_config import server_config
    from react_core.tools.registry import ToolRegistry

    with our_server() as (url, _proc):
        try:
            config = server_config("t", {"url": url + "?key=not-recorded", "timeout": 5})
            observation: Observation = ToolRegistry(mcp_tools(["t_echo"], [config])).run(Action("t_echo", "hi"))
        finally:
            POOL.close_all()
    record = observation.mcp
    assert (record.transport, record.url) == ("streamable-http", url)  # the URL without its query
    assert record.protocol_version  # the version the session agreed, whichever it was
    trace = mcp_run()
    trace.steps[0].observation = observation
    trace.steps[0].action = Action("t_echo", "hi")
    tool = run_spans(trace)[2]
    assert tool.attributes["mcp.protocol.version"] == record.protocol_version
    assert tool.attributes["network.transport"] == "tcp" and tool.attributes["server.address"] == "127.0.0.1"
    assert "not-recorded" not in json.dumps(dict(tool.attributes), default=list)


def test_a_hosted_replys_id_and_model_are_recorded_and_named_on_its_span():
    from provider_helpers import FakeGemini, FakeOpenAI, fast_retry

    from react_core.loop.agent import Agent, RunConfig
    from react_core.presets.preset import load_preset
    from react_core.providers.gemini import GeminiProvider
    from react_core.providers.openai_compat import OpenAIProvider
    from react_core.tools.registry import ToolRegistry

    def run(provider) -> Trace:
        config = RunConfig(provider=provider, preset=load_preset("paper"), tools=ToolRegistry([]), max_calls=2)
        trace = Agent(config).run("q")
        trace.settings["provider"] = provider.name
        return trace

    with FakeOpenAI([" So.\nAction 1: Finish[42]"]) as server:  # a real local server, streaming as OpenAI does
        openai = OpenAIProvider.create(
            base_url=server.root + "/v1", api_key="sk-test-0123456789abcdef", model="gpt-4.1-mini", retry=fast_retry()
        )
        call = run(openai).steps[0].call
    assert (call.response_id, call.response_model) == ("chatcmpl-fake", "gpt-4.1-mini")
    span = run_spans(Trace("q", settings={"provider": "openai"}, steps=[Step(1, call=call)]))[1]
    assert span.attributes["gen_ai.response.id"] == "chatcmpl-fake"
    assert span.attributes["gen_ai.response.model"] == "gpt-4.1-mini"
    with FakeGemini([" So.\nAction 1: Finish[42]"]) as server:
        gemini = GeminiProvider.create(api_key="gemini-test-key-0123456789", base_url=server.root, retry=fast_retry())
        call = run(gemini).steps[0].call
    assert call.response_model == gemini.model  # the model version it names
