"""A run as OpenTelemetry spans (react_core.telemetry.spans): the GenAI conventions' names and attributes, the
OpenInference attributes Phoenix draws an agent from, parent links, times nested inside their parents, and message
content only when it is asked for."""

from __future__ import annotations

import json

import pytest
from otel_helpers import (
    MCP_ARGUMENTS,
    failed_call_run,
    failing_tool_run,
    mcp_run,
    native_tools_run,
    scripted_run,
    step_mode_run,
)

from react_core.base.errors import ContextOverflowError
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import load_preset
from react_core.providers.scripted import ScriptedProvider
from react_core.telemetry.spans import run_spans
from react_core.tools.registry import ToolRegistry


def by_name(spans):
    return [s.name for s in spans]


def test_a_run_is_an_agent_span_with_a_model_call_span_per_step_and_a_tool_span_per_action(tmp_path):
    trace = scripted_run(tmp_path)
    spans = run_spans(trace)
    assert by_name(spans) == [
        "invoke_agent ReAct Lab",
        "text_completion script",
        "execute_tool calculator",
        "text_completion script",
    ]
    root, *children = spans
    assert root.parent is None
    assert {c.parent.span_id for c in children} == {root.context.span_id}
    assert {s.context.trace_id for s in spans} == {root.context.trace_id}
    assert [s.kind.name for s in spans] == ["INTERNAL", "CLIENT", "INTERNAL", "CLIENT"]


def test_the_spans_carry_the_genai_and_openinference_attributes(tmp_path):
    trace = scripted_run(tmp_path)
    root, call, tool, answer = run_spans(trace)
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["gen_ai.agent.name"] == "ReAct Lab"
    assert root.attributes["gen_ai.agent.version"] == "paper@1"  # the prompt version, not the preset's name
    assert root.attributes["reactlab.preset"] == "paper"
    assert root.attributes["gen_ai.agent.description"].startswith("A ReAct agent")
    assert root.attributes["openinference.span.kind"] == "AGENT"
    assert root.attributes["reactlab.stop_reason"] == "finished"
    assert json.loads(root.attributes["reactlab.settings"]) == trace.settings

    first = trace.steps[0]
    assert call.attributes["gen_ai.operation.name"] == "text_completion"
    assert call.attributes["gen_ai.provider.name"] == "reactlab.scripted"
    assert call.attributes["gen_ai.request.model"] == "script"
    assert call.attributes["gen_ai.request.temperature"] == 0.0
    assert call.attributes["gen_ai.request.stop_sequences"] == tuple(first.call.body["stop"])
    assert call.attributes["gen_ai.request.max_tokens"] == first.call.body["max_tokens"]
    assert call.attributes["gen_ai.response.finish_reasons"] == (first.call.finish_reason,)
    assert call.attributes["gen_ai.usage.input_tokens"] == first.usage.prompt_tokens
    assert call.attributes["gen_ai.usage.output_tokens"] == first.usage.completion_tokens
    assert call.attributes["openinference.span.kind"] == "LLM"
    assert call.attributes["llm.model_name"] == "script"
    assert call.attributes["llm.token_count.total"] == first.usage.prompt_tokens + first.usage.completion_tokens
    assert call.attributes["reactlab.step.index"] == 1 and call.attributes["reactlab.dialect"] == "paper"

    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == tool.attributes["tool.name"] == "calculator"
    assert tool.attributes["openinference.span.kind"] == "TOOL"
    assert tool.attributes["reactlab.step.index"] == 1
    assert answer.attributes["reactlab.finish"] is True and answer.attributes["reactlab.step.index"] == 2


def test_content_is_left_out_unless_it_is_asked_for(tmp_path):
    trace = scripted_run(tmp_path, question="What is 6 * 7? (secret-question)")
    content_keys = ("input.value", "output.value", "gen_ai.input.messages", "gen_ai.output.messages",
                    "gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "gen_ai.system_instructions",
                    "reactlab.step", "reactlab.question", "gen_ai.tool.definitions")  # fmt: skip
    without = run_spans(trace)
    for s in without:
        assert not set(s.attributes) & set(content_keys), s.name
        assert not any(k.startswith(("llm.input_messages", "llm.output_messages", "llm.tools")) for k in s.attributes)
        assert "secret-question" not in json.dumps(dict(s.attributes), default=list)
    root, call, tool, _ = run_spans(trace, include_content=True)
    assert root.attributes["input.value"] == trace.question and root.attributes["output.value"] == "42"
    assert call.attributes["output.value"] == trace.steps[0].raw_output
    assert call.attributes["llm.output_messages.0.message.content"] == trace.steps[0].raw_output
    assert "6 * 7" in call.attributes["llm.input_messages.1.message.content"]  # the prompt, rebuilt
    parts = json.loads(call.attributes["gen_ai.output.messages"])[0]["parts"]
    assert [p["type"] for p in parts] == ["text", "tool_call"]  # the reply once, and the call it asked for
    assert json.loads(call.attributes["gen_ai.system_instructions"])[0]["content"] == trace.steps[0].call.system
    assert json.loads(tool.attributes["gen_ai.tool.call.arguments"]) == {"expression": "6 * 7"}
    assert tool.attributes["gen_ai.tool.call.result"] == "6 * 7 = 42"


def test_times_follow_the_trace_and_every_child_lies_inside_its_parent(tmp_path):
    trace = scripted_run(tmp_path)
    root, call, tool, answer = run_spans(trace)
    start = 1_772_357_400_250_000_000  # 2026-03-01T09:30:00.25Z
    assert root.start_time == call.start_time == start
    first, second = trace.steps
    assert call.end_time == start + round(first.call.seconds * 1e9)
    assert tool.start_time == call.end_time
    assert tool.end_time <= start + round(first.seconds * 1e9)
    assert answer.start_time == start + round(first.seconds * 1e9)
    assert root.end_time == answer.start_time + round(second.seconds * 1e9)
    for child in (call, tool, answer):
        assert root.start_time <= child.start_time <= child.end_time <= root.end_time


def test_a_failed_tool_and_a_failed_run_are_error_spans(tmp_path):
    root, _call, tool, _ = run_spans(failing_tool_run(tmp_path), include_content=True)
    assert tool.status.status_code.name == "ERROR" and tool.attributes["error.type"] == "tool_error"
    assert tool.status.description == "Division by zero."
    assert root.status.status_code.name == "UNSET"
    trace = failing_tool_run(tmp_path)
    trace.stop_reason, trace.error = "error", "The provider failed: 503"
    quiet = run_spans(trace)[0]
    assert quiet.status.status_code.name == "ERROR" and quiet.status.description is None  # the message is content
    assert run_spans(trace, include_content=True)[0].status.description == "The provider failed: 503"


def test_a_step_without_an_action_is_marked_as_a_parse_error(tmp_path):
    trace = scripted_run(tmp_path, [" I am not sure what to do.", " So.\nAction 2: Finish[42]"])
    call = run_spans(trace)[1]
    assert call.attributes["reactlab.parse_error"] is True
    assert "execute_tool" not in " ".join(by_name(run_spans(trace)))


def test_each_provider_names_its_calls_and_its_limits_in_its_own_request_shape():
    from react_core.base.trace import ModelCall, Step, Trace, Usage

    body = {"generationConfig": {"temperature": 0.7, "stopSequences": ["\nObservation"], "maxOutputTokens": 256}}
    call = ModelCall(api="gemini.streamGenerateContent", body=body, finish_reason="STOP", stop_local=["\nQuestion"])
    trace = Trace(
        "q", settings={"provider": "gemini", "model": "gemini-x"}, steps=[Step(1, usage=Usage(5, 2), call=call)]
    )
    _, span = run_spans(trace)
    assert span.name == "generate_content gemini-x"
    assert span.attributes["gen_ai.provider.name"] == "gcp.gemini"
    assert span.attributes["gen_ai.request.temperature"] == 0.7
    assert span.attributes["gen_ai.request.stop_sequences"] == ("\nObservation",)  # what the request sent
    assert span.attributes["reactlab.stop_local"] == ("\nQuestion",)  # what the loop cut at itself
    assert span.attributes["llm.provider"] == "google"  # OpenInference's name for Gemini
    assert span.attributes["gen_ai.request.max_tokens"] == 256
    assert span.attributes["gen_ai.response.finish_reasons"] == ("STOP",)
    # A native tool-calling conversation is a chat, whoever serves it.
    call.conversation = "contents"
    assert run_spans(trace)[1].name == "chat gemini-x"
    # A provider this version does not know keeps its own name and the model it recorded.
    trace.settings = {"provider": "someone-else", "model": "m1"}
    assert run_spans(trace)[1].attributes["gen_ai.provider.name"] == "someone-else"


def test_the_grounding_and_the_expected_answer_are_evaluation_events_of_the_run(tmp_path):
    trace = scripted_run(tmp_path)
    trace.expected_answer = "42"
    root = run_spans(trace)[0]
    events = {e.attributes["gen_ai.evaluation.name"]: dict(e.attributes) for e in root.events}
    assert {e.name for e in root.events} == {"gen_ai.evaluation.result"}
    assert events["reactlab.grounding"]["gen_ai.evaluation.score.label"] == "grounded"
    assert events["reactlab.expected_answer"]["gen_ai.evaluation.score.label"] == "match"
    assert events["reactlab.expected_answer"]["gen_ai.evaluation.score.value"] == 1.0
    assert not any("gen_ai.evaluation.explanation" in e for e in events.values())  # it quotes the answer: content
    with_content = run_spans(trace, include_content=True)[0]
    assert all("gen_ai.evaluation.explanation" in e.attributes for e in with_content.events)
    assert all(e.timestamp == root.end_time for e in root.events)


def tool_calls(span) -> list[dict]:
    """The tool calls of a model call's span: the GenAI output message's tool_call parts, and OpenInference's."""
    parts = json.loads(span.attributes["gen_ai.output.messages"])[0]["parts"]
    genai = [p for p in parts if p["type"] == "tool_call"]
    prefix = "llm.output_messages.0.message.tool_calls"
    oi = []
    while f"{prefix}.{len(oi)}.tool_call.function.name" in span.attributes:
        key = f"{prefix}.{len(oi)}.tool_call"
        oi.append({
            "id": span.attributes.get(f"{key}.id"),
            "name": span.attributes[f"{key}.function.name"],
            "arguments": json.loads(span.attributes[f"{key}.function.arguments"]),
        })  # fmt: skip
    assert [{k: p.get(k) for k in ("id", "name", "arguments")} for p in genai] == oi
    return genai


def arguments(tool) -> dict:
    """A tool span's arguments, the same in the GenAI attribute and OpenInference's input."""
    found = json.loads(tool.attributes["gen_ai.tool.call.arguments"])
    assert json.loads(tool.attributes["input.value"]) == found
    return found


def test_a_built_in_tools_arguments_are_its_parameter_and_the_input(tmp_path):
    _, call, tool, answer = run_spans(scripted_run(tmp_path), include_content=True)
    assert arguments(tool) == {"expression": "6 * 7"}  # the parameter native tool calling declares
    assert tool_calls(call) == [{"type": "tool_call", "name": "calculator", "arguments": {"expression": "6 * 7"}}]
    assert tool_calls(answer) == []  # a text dialect's Finish is the answer, not a call


def test_an_mcp_tools_arguments_are_the_ones_its_server_received():
    _, call, tool, _ = run_spans(mcp_run(), include_content=True)
    assert arguments(tool) == MCP_ARGUMENTS  # not {"input": "{\"source_timezone\": …}"}
    assert tool_calls(call) == [{"type": "tool_call", "name": "time_convert_time", "arguments": MCP_ARGUMENTS}]
    # A call the server never received (its arguments were not JSON) shows what the model wrote.
    trace = mcp_run()
    trace.steps[0].action.input = "9:00 Paris"
    trace.steps[0].observation.mcp.arguments, trace.steps[0].observation.mcp.result = {}, None
    assert arguments(run_spans(trace, include_content=True)[2]) == {"input": "9:00 Paris"}


def test_a_native_tool_call_keeps_its_id_name_and_arguments(tmp_path):
    trace = native_tools_run(tmp_path)
    _, call, tool, answer = run_spans(trace, include_content=True)
    expected = {"type": "tool_call", "id": "call_6x7", "name": "calculator", "arguments": {"expression": "6 * 7"}}
    assert tool_calls(call) == [expected]
    finish = {"type": "tool_call", "id": "call_end", "name": "finish", "arguments": {"answer": "42"}}
    assert tool_calls(answer) == [finish]
    assert arguments(tool) == {"expression": "6 * 7"}
    assert tool.attributes["gen_ai.tool.call.id"] == tool.attributes["tool.id"] == "call_6x7"
    # Arguments that are not JSON are kept as the model wrote them.
    trace.steps[0].tool_call.arguments = '{"expression": "6 *'
    call = run_spans(trace, include_content=True)[1]
    assert json.loads(call.attributes["gen_ai.output.messages"])[0]["parts"][1]["arguments"] == '{"expression": "6 *'


def input_messages(span) -> list[tuple[str, str]]:
    found, i = [], 0
    while f"llm.input_messages.{i}.message.role" in span.attributes:
        found.append((span.attributes[f"llm.input_messages.{i}.message.role"],
                      span.attributes[f"llm.input_messages.{i}.message.content"]))  # fmt: skip
        i += 1
    return found


@pytest.mark.parametrize("make", [scripted_run, native_tools_run], ids=["paper", "tools"])
def test_the_system_prompt_is_the_first_input_message_of_every_call(make, tmp_path):
    trace = make(tmp_path)
    system = trace.steps[0].call.system
    assert system and trace.steps[1].call.system is None  # the second call's is the first's, rebuilt
    for span in run_spans(trace, include_content=True)[1:]:
        if span.attributes["openinference.span.kind"] != "LLM":
            continue
        (role, content), *rest = input_messages(span)
        assert (role, content) == ("system", system)  # instructions, tools, examples: what Phoenix shows
        assert "system" not in [r for r, _ in rest]
        if make is scripted_run:
            assert "6 * 7" in rest[0][1]
        assert json.loads(span.attributes["gen_ai.system_instructions"]) == [{"type": "text", "content": system}]


def test_a_conversation_that_holds_its_system_message_is_not_given_a_second_one():
    from react_core.base.trace import ModelCall, Step, Trace

    added = [{"role": "system", "content": {"$ref": "system"}}, {"role": "user", "content": {"$ref": "prompt"}}]
    body = {"messages": {"$ref": "messages"}}
    call = ModelCall(body=body, system="Be brief.", prompt_added="Q?", conversation="messages", messages_added=added)
    trace = Trace("Q?", settings={"provider": "openai"}, steps=[Step(1, raw_output="Hi", call=call)])
    span = run_spans(trace, include_content=True)[1]
    assert input_messages(span) == [("system", "Be brief."), ("user", "Q?")]


def decisions(span) -> list[dict]:
    found = [dict(e.attributes) for e in span.events if e.name == "reactlab.decision"]
    assert all(e.timestamp == span.end_time for e in span.events)  # after the reply, before the tool ran
    assert tuple(d["reactlab.decision.kind"] for d in found) == span.attributes.get("reactlab.decisions", ())
    return found


def test_each_step_mode_decision_is_an_event_of_its_steps_model_call():
    trace = step_mode_run()
    spans = run_spans(trace, include_content=True)
    calls = [s for s in spans if s.attributes["openinference.span.kind"] == "LLM"]
    tools = [s for s in spans if s.attributes["openinference.span.kind"] == "TOOL"]
    edit, pick, observe, finish = (decisions(c) for c in calls)
    said = {"reactlab.decision.before": "Calculator[6*6]", "reactlab.decision.after": "Calculator[6*7]"}
    who = {"reactlab.decision.kind": "edit", "reactlab.decision.at": "tool", "reactlab.decision.by": "ada"}
    assert edit == [who | said]
    # The reply is the model's; the call it asked for is not the one that ran, so the reply names none.
    assert calls[0].attributes["output.value"].endswith("Calculator[6*6]")
    assert tool_calls(calls[0]) == [] and arguments(tools[0]) == {"expression": "6*7"}
    assert [(d["reactlab.decision.kind"], d.get("reactlab.decision.picked")) for d in pick] == [("pick", 2)]
    assert pick[0]["reactlab.decision.alternatives"] == 2
    assert (pick[0]["reactlab.decision.before"], pick[0]["reactlab.decision.after"]) == (
        "Calculator[7*6]", "Calculator[42/1]")  # fmt: skip
    assert tool_calls(calls[1]) == [{"type": "tool_call", "name": "calculator", "arguments": {"expression": "42/1"}}]
    assert observe[0]["reactlab.decision.after"] == "42, as before."
    assert tools[2].attributes["reactlab.observation.written"] is True
    assert tools[2].attributes["reactlab.observation.written_by"] == "ada"
    assert tools[0].attributes["reactlab.observation.written"] is False
    assert finish == [] and "reactlab.decisions" not in calls[3].attributes


def test_without_content_a_decision_says_what_kind_it_was_but_not_what_it_said_or_who():
    spans = run_spans(step_mode_run())
    calls = [s for s in spans if s.attributes["openinference.span.kind"] == "LLM"]
    assert [decisions(c) for c in calls] == [
        [{"reactlab.decision.kind": "edit", "reactlab.decision.at": "tool"}],
        [{"reactlab.decision.kind": "pick", "reactlab.decision.at": "tool", "reactlab.decision.picked": 2,
          "reactlab.decision.alternatives": 2}],
        [{"reactlab.decision.kind": "observe", "reactlab.decision.at": "tool"}],
        [],
    ]  # fmt: skip
    assert all("ada" not in json.dumps(dict(s.attributes), default=list) for s in spans)


def test_a_failed_model_call_is_recorded_in_the_trace_with_its_errors_type(tmp_path):
    trace = failed_call_run(tmp_path)
    assert trace.stop_reason == "error" and trace.error == "The service answered 503." and len(trace.steps) == 1
    failed = trace.to_dict()["failed_call"]
    assert failed["error_type"] == "ProviderError" and failed["seconds"] >= 0


@pytest.mark.parametrize(
    ("error", "stop", "named"),
    [
        (ConnectionResetError("reset by peer"), "error", "ConnectionResetError"),  # wrapped in a ProviderError
        (ContextOverflowError("The prompt no longer fits the context window."), "context", "ContextOverflowError"),
    ],
)
def test_a_failed_model_call_is_named_by_the_error_the_provider_raised(error, stop, named, tmp_path, monkeypatch):
    def failing(self, request):
        raise error
        yield

    monkeypatch.setattr(ScriptedProvider, "stream", failing)
    trace = scripted_run(tmp_path)
    assert trace.stop_reason == stop and trace.to_dict()["failed_call"]["error_type"] == named


def test_a_run_that_fails_before_any_model_call_records_no_failed_call():

    config = RunConfig(provider=ScriptedProvider(["unused"]), preset=load_preset("tools"), tools=ToolRegistry([]))
    trace = Agent(config).run("q", resume_thought="An edited thought")  # the tools dialect cannot continue one
    assert trace.stop_reason == "error" and "failed_call" not in trace.to_dict()
    (root,) = run_spans(trace)
    assert root.attributes["error.type"] == "run_failed"


def test_a_failed_model_call_is_an_error_span_of_its_own(tmp_path):
    trace = failed_call_run(tmp_path)
    root, call, tool, failed = run_spans(trace)
    assert failed.name == "text_completion script" and failed.kind.name == "CLIENT"
    assert failed.parent.span_id == root.context.span_id
    assert failed.attributes["openinference.span.kind"] == "LLM"
    assert failed.attributes["error.type"] == root.attributes["error.type"] == "ProviderError"
    assert failed.attributes["reactlab.step.index"] == 2
    assert failed.status.status_code.name == "ERROR" and failed.status.description is None  # the text is content
    (event,) = failed.events
    assert event.name == "exception" and dict(event.attributes) == {"exception.type": "ProviderError"}
    assert tool.end_time <= failed.start_time <= failed.end_time <= root.end_time
    assert failed.end_time - failed.start_time == round(trace.to_dict()["failed_call"]["seconds"] * 1e9)
    root, *_, failed = run_spans(trace, include_content=True)
    assert failed.status.description == root.status.description == "The service answered 503."
    assert failed.events[0].attributes["exception.message"] == "The service answered 503."
    assert "reactlab.step" not in failed.attributes  # no step was written
