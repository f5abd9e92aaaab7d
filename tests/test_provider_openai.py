"""The openai provider through the real openai SDK against a local OpenAI-compatible server: the request, streaming,
usage, at most four stop sequences, reasoning models, parameters a model refuses, closing, failures, retries; and
replies as compatible servers really send them (tool calls repeated in every piece, no stream at all, content as typed
parts)."""

from __future__ import annotations

import json

import pytest
from provider_helpers import FakeOpenAI, RecordingSleep, fast_retry, wait_for

from react_core.base.errors import ConfigError, MissingKeyError, ProviderError
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import Preset, load_preset
from react_core.providers.base import CompletionRequest
from react_core.providers.openai_compat import DEFAULT_MODEL, OpenAIProvider, is_reasoning_model
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import ToolRegistry

KEY = "sk-test-openai-0123456789abcdef"
XML_STOPS = ("</search>", "</lookup>", "</finish>", "</calculator>", "\nObservation", "\nQuestion:")


def provider(server: FakeOpenAI, **kw) -> OpenAIProvider:
    kw.setdefault("retry", fast_retry())
    kw.setdefault("model", "gpt-4.1-mini")
    kw.setdefault("api_key", KEY)
    return OpenAIProvider.create(base_url=server.root + "/v1", **kw)


def request(**kw) -> CompletionRequest:
    base = dict(system="You answer questions.", prompt="Question: q\nThought 1:", stop=("\nObservation",))
    return CompletionRequest(**{**base, **kw})


def text_of(p: OpenAIProvider, req: CompletionRequest | None = None) -> str:
    return "".join(c.text for c in p.stream(req or request()))


def test_request_has_system_and_user_messages_four_stops_temperature_and_a_cap() -> None:
    with FakeOpenAI([" fine.\nAction 1: Finish[yes]"]) as server:
        assert text_of(provider(server), request(stop=XML_STOPS, temperature=0.4, max_tokens=99)) == (
            " fine.\nAction 1: Finish[yes]"
        )
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions" and sent.headers["authorization"] == f"Bearer {KEY}"
    body = sent.body
    assert body["messages"] == [
        {"role": "system", "content": "You answer questions."},
        {"role": "user", "content": "Question: q\nThought 1:"},
    ]
    assert body["stop"] == list(XML_STOPS[:4])  # Chat Completions takes four; the loop cuts at the rest
    assert body["temperature"] == 0.4 and body["max_tokens"] == 99
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_streams_in_pieces_with_usage_last() -> None:
    with FakeOpenAI(["one two three"]) as server:
        chunks = list(provider(server).stream(request()))
    assert [c.text for c in chunks if c.text] == ["one ", "two ", "three"]
    usage = [c.usage for c in chunks if c.usage]
    assert len(usage) == 1 and usage[0].prompt_tokens > 0
    assert chunks[0].sent is not None and chunks[-1].finish_reason == "stop"


def test_reasoning_models_get_no_stop_or_temperature_and_room_to_think() -> None:
    assert is_reasoning_model("o4-mini") and is_reasoning_model("gpt-5.4-mini") and is_reasoning_model("openai/gpt-6")
    assert not is_reasoning_model("gpt-4.1-mini") and not is_reasoning_model("gpt-5-chat-latest")
    assert not is_reasoning_model("llama3.2")
    assert is_reasoning_model(DEFAULT_MODEL)
    with FakeOpenAI(["Thought.\nAction 1: Finish[a]\nObservation 1: made up"], ignore_stop=True) as server:
        p = provider(server, model="gpt-5.4-mini")
        assert not p.supports_stop and p.stops_for_api(XML_STOPS) == []
        text_of(p, request(stop=XML_STOPS, max_tokens=100))
    body = server.requests[0].body
    assert "stop" not in body and "temperature" not in body and "max_tokens" not in body
    assert body["max_completion_tokens"] > 100 and body["reasoning_effort"] == "low"


def test_a_refused_parameter_is_dropped_and_remembered() -> None:
    with FakeOpenAI(["a", "b"], refuse=["stop", "temperature"]) as server:
        p = provider(server, model="some-new-model")
        assert text_of(p) == "a"
        assert text_of(p) == "b"
    bodies = [r.body for r in server.requests]
    assert "stop" in bodies[0] and "stop" not in bodies[1] and "temperature" in bodies[1]
    assert "stop" not in bodies[2] and "temperature" not in bodies[2]
    assert len(bodies) == 4 and not p.supports_stop  # learned once, not asked again on the next call


def test_a_model_that_ignores_stop_is_cut_locally_and_the_stream_closed() -> None:
    leaky = " Think.\nAction 1: Calculator[6*7]\nObservation 1: 41\nThought 2: so 41"
    with FakeOpenAI([leaky, " Done.\nAction 2: Finish[42]"], refuse=["stop"], trailing=" blah", piece_delay=0.002) as s:
        preset = Preset(name="t", dialect="paper", instructions="Tools:\n{tools}", examples="")
        config = RunConfig(provider=provider(s, model="o3"), preset=preset, tools=ToolRegistry([CALCULATOR]))
        trace = Agent(config).run("What is 6*7?")
        assert wait_for(lambda: s.aborted >= 1)
    assert trace.stop_reason == "finished" and trace.final_answer == "42"
    assert trace.steps[0].observation.text.endswith("= 42")  # the calculator's, not the model's 41
    assert "41" not in trace.steps[0].raw_output
    assert "Observation 1: 6*7 = 42" in s.requests[-1].body["messages"][1]["content"]


def test_key_is_optional_for_a_compatible_server() -> None:
    with FakeOpenAI(["hi"]) as server:
        assert text_of(provider(server, api_key=None, model="llama3.2")) == "hi"
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_rejected_key_says_where_to_set_it_and_never_repeats_the_key() -> None:
    with FakeOpenAI(["never"], key="the-right-key-000") as server, pytest.raises(MissingKeyError) as info:
        text_of(provider(server))
    message = str(info.value)
    assert "rejected the API key" in message and "OPENAI_API_KEY" in message and "secrets.toml" in message
    assert KEY not in message and "***" in message
    assert len(server.requests) == 1


def test_unknown_model_is_a_configuration_error() -> None:
    with FakeOpenAI() as server:
        server.fail({"status": 404, "message": "The model `gpt-0` does not exist"})
        with pytest.raises(ConfigError, match="has no model 'gpt-0'"):
            text_of(provider(server, model="gpt-0"))


def test_rate_limits_and_server_errors_are_retried_honouring_retry_after() -> None:
    sleep = RecordingSleep()
    with FakeOpenAI(["ok"]) as server:
        server.fail({"status": 429, "headers": {"Retry-After": "3"}}, {"status": 502})
        assert text_of(provider(server, retry=fast_retry(sleep))) == "ok"
    assert len(server.requests) == 3 and sleep.waits[0] == 3.0 and len(sleep.waits) == 2


def test_a_wait_asked_in_milliseconds_is_honoured() -> None:
    sleep = RecordingSleep()
    with FakeOpenAI(["ok"]) as server:
        server.fail({"status": 429, "headers": {"retry-after-ms": "2500", "Retry-After": "9"}})
        assert text_of(provider(server, retry=fast_retry(sleep))) == "ok"
    assert sleep.waits == [2.5]


def test_a_content_filter_refusal_is_reported_not_retried() -> None:
    with FakeOpenAI(["never"]) as server:
        server.fail({"blocked": "content_filter"})
        with pytest.raises(ProviderError, match=r"^The OpenAI-compatible server at \S+ refused to answer \(content"):
            text_of(provider(server))
    assert len(server.requests) == 1


def test_no_quota_is_not_retried() -> None:
    with FakeOpenAI() as server:
        server.fail({"status": 429, "message": "You exceeded your current quota", "code": "insufficient_quota"})
        with pytest.raises(ProviderError, match="no quota left .* check billing"):
            text_of(provider(server))
    assert len(server.requests) == 1


def test_three_failures_end_a_run_with_error_keeping_earlier_steps() -> None:
    with FakeOpenAI(["Sum.\nAction 1: Calculator[1+1]"]) as server:
        server.fail({}, {"drop": True}, {"status": 500}, {"hang": 1.0})
        preset = Preset(name="t", dialect="paper", instructions="Tools:\n{tools}", examples="")
        p = provider(server, timeout=0.3)
        trace = Agent(RunConfig(provider=p, preset=preset, tools=ToolRegistry([CALCULATOR]))).run("1+1?")
    assert trace.stop_reason == "error" and len(trace.steps) == 1
    assert trace.steps[0].observation.text.endswith("= 2")
    assert trace.error.startswith("The OpenAI-compatible server at http://127.0.0.1:")
    assert "failed 3 times in a row (no answer within the 0.3 s timeout)" in trace.error


def test_cannot_connect_is_explained() -> None:
    with FakeOpenAI() as server:
        url = server.root + "/v1"
    p = OpenAIProvider.create(base_url=url, model="m", retry=fast_retry())
    with pytest.raises(ProviderError, match=r"failed 3 times in a row \(cannot connect to http://127.0.0.1:\d+/v1\)"):
        text_of(p)


# -- replies as compatible servers really send them ------------------------------------------------------------

CALLS = [
    {"name": "calculator", "arguments": {"expression": "6*7"}},
    {"name": "search", "arguments": {"query": "Ogallala"}},
]


def reply_of(server: FakeOpenAI) -> tuple[str, list, str]:
    chunks = list(provider(server, model="llama3.2").stream(request()))
    calls = [c for chunk in chunks for c in chunk.tool_calls or ()]
    finish = [c.finish_reason for c in chunks if c.finish_reason]
    return "".join(c.text for c in chunks), calls, finish[-1]


@pytest.mark.parametrize("mode", ["split", "repeat_name", "whole_twice", "name_split"])
def test_tool_calls_are_assembled_however_the_server_streams_their_pieces(mode: str) -> None:
    # split: OpenAI, vLLM, llama.cpp; repeat_name: MiniMax through NVIDIA NIM; whole_twice: the whole call sent again.
    with FakeOpenAI([{"text": "Two at once.", "tool_calls": CALLS}], calls=mode) as server:
        text, calls, finish = reply_of(server)
    assert text == "Two at once." and finish == "tool_calls"
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [(c["name"], c["arguments"]) for c in CALLS]
    assert [c.id for c in calls] == ["call_0_1", "call_1_1"]


def test_a_server_repeating_the_tool_name_in_every_piece_runs_the_tool() -> None:
    script = [{"tool_calls": [CALLS[0]]}, {"tool_calls": [{"name": "finish", "arguments": {"answer": "42"}}]}]
    with FakeOpenAI(script, calls="repeat_name") as server:
        config = RunConfig(provider=provider(server), preset=load_preset("tools"), tools=ToolRegistry([CALCULATOR]))
        trace = Agent(config).run("What is 6*7?")
    assert trace.stop_reason == "finished" and trace.final_answer == "42", trace.error
    assert not trace.steps[0].is_error and trace.steps[0].observation.text.endswith("= 42")


def test_a_server_that_ignores_stream_is_read_whole_once() -> None:
    with FakeOpenAI([" Multiply.\nAction 1: Calculator[6*7]", " Done.\nAction 2: Finish[42]"], ignore_stream=True) as s:
        preset = Preset(name="t", dialect="paper", instructions="Tools:\n{tools}", examples="")
        trace = Agent(RunConfig(provider=provider(s), preset=preset, tools=ToolRegistry([CALCULATOR]))).run("6*7?")
    assert trace.stop_reason == "finished" and trace.final_answer == "42", trace.error
    assert len(s.requests) == 2 and all(r.body["stream"] is True for r in s.requests)  # one request a step
    assert trace.steps[0].usage.prompt_tokens == len(json.dumps(s.requests[0].body["messages"])) // 4  # the server's


def test_a_whole_reply_brings_its_tool_calls_and_finish_reason() -> None:
    with FakeOpenAI([{"text": "Two at once.", "tool_calls": CALLS}], ignore_stream=True) as server:
        text, calls, finish = reply_of(server)
    assert text == "Two at once." and finish == "tool_calls"
    assert [(c.id, c.name, json.loads(c.arguments)) for c in calls] == [
        ("call_0", "calculator", {"expression": "6*7"}),
        ("call_1", "search", {"query": "Ogallala"}),
    ]


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ({"flood": 1 << 16, "content_type": "text/html"}, r"did not stream its reply \(text/html\) and what it sent"),
        ({"status": 200, "message": f"Invalid key {KEY}"}, r"answered with an error: Invalid key \*\*\*$"),
    ],
)
def test_a_reply_that_is_neither_a_stream_nor_a_completion_is_one_line_not_retried(fault: dict, message: str) -> None:
    with FakeOpenAI(["never"]) as server:
        server.fail(fault)
        with pytest.raises(ProviderError, match=message) as info:
            text_of(provider(server))
    assert "\n" not in str(info.value) and len(server.requests) == 1


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_server_speaking_the_responses_api_is_said_to_in_one_line_and_not_retried(stream: bool) -> None:
    with FakeOpenAI(["Hello there."] * 3, responses_api=True, ignore_stream=not stream) as server:
        preset = Preset(name="t", dialect="paper", instructions="Tools:\n{tools}", examples="")
        trace = Agent(RunConfig(provider=provider(server), preset=preset, tools=ToolRegistry([CALCULATOR]))).run("q")
    assert trace.stop_reason == "error" and "does not speak Chat Completions" in trace.error
    assert "in a row" not in trace.error and len(server.requests) == 1


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_content_sent_as_typed_parts_is_read_as_its_text_parts(stream: bool) -> None:
    # Mistral's API: content is a list of parts; a thinking part (the model's reasoning) and references are not text.
    answer = " Multiply.\nAction 1: Calculator[6*7]"
    with FakeOpenAI([answer], content_parts=True, ignore_stream=not stream) as server:
        assert reply_of(server)[0] == answer
