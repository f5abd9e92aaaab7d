"""The gemini provider through the real google-genai SDK against a local server speaking generateContent /
streamGenerateContent?alt=sse: the request it sends, streaming, usage, stop cutting, closing, failures, retries."""

from __future__ import annotations

import json

import pytest
from provider_helpers import FakeGemini, RecordingSleep, fast_retry, wait_for

from react_core.base.errors import ConfigError, MissingKeyError, ProviderError
from react_core.base.trace import Observation, Source, Usage
from react_core.loop.agent import Agent, RunConfig
from react_core.loop.model_call import stream_completion
from react_core.presets.preset import Preset
from react_core.providers.base import CompletionRequest
from react_core.providers.gemini import DEFAULT_MODEL, GeminiProvider, thinking_config
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import Tool, ToolRegistry

KEY = "gemini-test-key-0123456789"
XML_STOPS = ("</search>", "</lookup>", "</finish>", "</calculator>", "\nObservation", "\nQuestion:")


def provider(server: FakeGemini, **kw) -> GeminiProvider:
    kw.setdefault("retry", fast_retry())
    return GeminiProvider.create(api_key=KEY, base_url=server.root, **kw)


def request(**kw) -> CompletionRequest:
    base = dict(system="You answer questions.", prompt="Question: q\nThought 1:", stop=("\nObservation",))
    return CompletionRequest(**{**base, **kw})


def search_tool() -> Tool:
    def search(entity: str) -> Observation:
        return Observation(text=f"{entity} is a real place.", sources=[Source(entity, f"https://w/{entity}")])

    return Tool("search", search)


def agent(prov, fmt: str = "paper", max_calls: int = 4) -> Agent:
    preset = Preset(name="t", dialect=fmt, instructions="Use the tools:\n{tools}", examples="")
    return Agent(
        RunConfig(provider=prov, preset=preset, tools=ToolRegistry([search_tool(), CALCULATOR]), max_calls=max_calls)
    )


def test_request_carries_system_instruction_stops_temperature_and_the_prompt() -> None:
    with FakeGemini([" fine.\nAction 1: Finish[yes]"]) as server:
        p = provider(server)
        text = "".join(c.text for c in p.stream(request(stop=XML_STOPS, temperature=0.7, max_tokens=120)))
    assert text == " fine.\nAction 1: Finish[yes]"
    sent = server.requests[0]
    assert sent.path.endswith(f"/models/{DEFAULT_MODEL}:streamGenerateContent?alt=sse")
    assert sent.headers["x-goog-api-key"] == KEY
    body = sent.body
    assert body["systemInstruction"]["parts"][0]["text"] == "You answer questions."
    assert body["contents"] == [{"role": "user", "parts": [{"text": "Question: q\nThought 1:"}]}]
    config = body["generationConfig"]
    assert config["temperature"] == 0.7
    # Gemini takes five stop sequences: the first five go to the API, the loop cuts at the sixth locally.
    assert config["stopSequences"] == list(XML_STOPS[:5])
    assert config["maxOutputTokens"] >= 120


def test_streams_in_pieces_and_reports_usage_from_usage_metadata() -> None:
    with FakeGemini(["one two three four five"]) as server:
        chunks = list(provider(server).stream(request()))
    texts = [c.text for c in chunks if c.text]
    assert len(texts) == 5 and "".join(texts) == "one two three four five"
    assert chunks[-1].usage is not None and chunks[-1].text == ""
    assert chunks[-1].usage.prompt_tokens > 0 and chunks[-1].usage.completion_tokens == 5


def test_thinking_is_kept_low_and_dropped_for_models_that_refuse_it() -> None:
    assert thinking_config("gemini-3.8-flash") == {"thinking_level": "LOW"}
    assert thinking_config("models/gemini-2.5-flash-lite") == {"thinking_budget": 0}
    assert thinking_config("gemma-3-27b-it") is None
    with FakeGemini(["ok"]) as server:
        server.fail({"status": 400, "message": "Thinking level is not supported for this model."})
        p = provider(server)
        assert "".join(c.text for c in p.stream(request())) == "ok"
    assert "thinkingConfig" in server.requests[0].body["generationConfig"]
    assert "thinkingConfig" not in server.requests[1].body["generationConfig"]


def test_a_model_that_ignores_stop_and_writes_its_own_observation_is_cut() -> None:
    leaky = " I should look.\nAction 1: Search[Paris]\nObservation 1: Paris is on the Moon.\nThought 2: done"
    with FakeGemini([leaky, " It is real.\nAction 2: Finish[Paris]"], ignore_stop=True) as server:
        trace = agent(provider(server)).run("Where?")
    assert trace.stop_reason == "finished" and trace.final_answer == "Paris"
    first = trace.steps[0]
    # Reading stopped at the stop sequence: the invented observation was never even received.
    assert "Moon" not in first.raw_output and first.raw_output.rstrip().endswith("Observation")
    assert first.thought == "I should look." and first.action.input == "Paris"
    assert first.observation.text == "Paris is a real place."  # the tool's, not the model's invention
    assert [s.url for s in trace.sources] == ["https://w/Paris"]
    assert first.usage.prompt_tokens > 0 and first.seconds > 0
    # The invented observation never reached the next prompt.
    second = server.requests[1].body["contents"][0]["parts"][0]["text"]
    assert "Moon" not in second and "Paris is a real place." in second


def test_stopping_early_closes_the_stream_so_generation_stops() -> None:
    rambling = " Look.\nAction 1: Finish[x]\nObservation 1: and then"
    with FakeGemini([rambling], ignore_stop=True, trailing=" more and more", piece_delay=0.002) as server:
        trace = agent(provider(server)).run("Q?")
        assert trace.final_answer == "x"
        # The server keeps writing until it notices the hang-up; without the close it would write for seconds.
        assert wait_for(lambda: server.aborted + server.completed > 0)
    assert server.aborted == 1 and server.completed == 0


def test_rate_limit_honours_retry_after_then_succeeds() -> None:
    sleep = RecordingSleep()
    with FakeGemini(["ok"]) as server:
        server.fail({"status": 429, "headers": {"Retry-After": "7"}, "message": "Resource exhausted"})
        p = provider(server, retry=fast_retry(sleep))
        assert "".join(c.text for c in p.stream(request())) == "ok"
    assert sleep.waits == [7.0] and len(server.requests) == 2


def test_rate_limit_honours_retry_info_in_the_body() -> None:
    sleep = RecordingSleep()
    with FakeGemini(["ok"]) as server:
        server.fail({"status": 429, "message": "Quota exceeded", "retry_delay": "11.5s"})
        assert "".join(c.text for c in provider(server, retry=fast_retry(sleep)).stream(request())) == "ok"
    assert sleep.waits == [11.5]


def test_server_errors_and_dropped_connections_are_retried_three_times_then_explained() -> None:
    sleep = RecordingSleep()
    with FakeGemini(["never"]) as server:
        server.fail({"status": 503, "message": "overloaded"}, {"drop": True}, {"status": 500, "message": "oops"})
        p = provider(server, retry=fast_retry(sleep))
        with pytest.raises(ProviderError) as info:
            list(p.stream(request()))
    assert len(server.requests) == 3 and len(sleep.waits) == 2
    message = str(info.value)
    assert message.startswith("Gemini failed 3 times in a row (HTTP 500: oops)") and "\n" not in message


def test_read_timeout_is_retried_then_reported() -> None:
    sleep = RecordingSleep()
    with FakeGemini(["late"]) as server:
        server.fail({"hang": 1.0}, {"hang": 1.0})
        p = provider(server, retry=fast_retry(sleep, attempts=2), timeout=0.2)
        with pytest.raises(ProviderError, match=r"no answer within the 0.2 s timeout"):
            list(p.stream(request()))
    assert len(server.requests) == 2 and len(sleep.waits) == 1


def test_silence_in_the_middle_of_an_answer_is_tried_again_from_the_start() -> None:
    with FakeGemini(["one two three four", "one two three four"]) as server:
        server.fail({"stall_after": 2, "hang": 1.0})
        chunks = list(provider(server, timeout=0.2).stream(request()))
    # The first try's text is void: a restart chunk says so, and the second try's text is the reply.
    restart = next(i for i, c in enumerate(chunks) if c.restart)
    assert [c.text for c in chunks[:restart] if c.text] == ["one ", "two "]
    assert "".join(c.text for c in chunks[restart:]) == "one two three four"
    assert len(server.requests) == 2


def test_silence_in_the_middle_of_every_try_ends_with_a_clear_error() -> None:
    with FakeGemini(["one two three four"] * 3) as server:
        server.fail(*[{"stall_after": 2, "hang": 1.0}] * 3)
        with pytest.raises(ProviderError, match="stopped in the middle of an answer 3 times in a row"):
            stream_completion(provider(server, timeout=0.2), request())
    assert len(server.requests) == 3


def test_failure_on_a_later_step_ends_the_run_with_error_and_keeps_earlier_steps() -> None:
    with FakeGemini([" Search.\nAction 1: Search[Oslo]"]) as server:
        p = provider(server)
        server.fail({}, {"status": 503}, {"status": 503}, {"status": 503})  # step 1 is answered, step 2 is not
        trace = agent(p).run("Q?")
    assert trace.stop_reason == "error"
    assert len(trace.steps) == 1 and trace.steps[0].observation.text == "Oslo is a real place."
    assert "Gemini failed 3 times" in trace.error


def test_invalid_key_and_unknown_model_are_configuration_errors_without_the_key() -> None:
    with FakeGemini() as server:
        server.fail({"status": 400, "message": f"API key not valid: {KEY}. Please pass a valid API key."})
        with pytest.raises(MissingKeyError) as info:
            list(provider(server).stream(request()))
        assert KEY not in str(info.value) and "GEMINI_API_KEY" in str(info.value)
        server.fail({"status": 404, "message": "models/gemini-0 is not found"})
        with pytest.raises(ConfigError, match="no model 'gemini-0'"):
            list(provider(server, model="gemini-0").stream(request()))
    assert len(server.requests) == 2  # neither was retried


def test_a_whole_call_collects_the_stream_and_its_usage() -> None:
    with FakeGemini(["all of it"]) as server:
        reply = stream_completion(provider(server), request())
    text, usage = reply.text, reply.usage
    assert text == "all of it" and isinstance(usage, Usage) and usage.completion_tokens == 2


@pytest.mark.parametrize("where", ["prompt", "answer"])
def test_a_refusal_is_reported_not_retried_as_a_model_mistake(where: str) -> None:
    with FakeGemini(["never"]) as server:
        server.fail({"blocked": "PROHIBITED_CONTENT" if where == "prompt" else "SAFETY", "where": where})
        with pytest.raises(ProviderError, match=rf"Gemini refused to answer \({where} blocked: "):
            list(provider(server).stream(request()))
    assert len(server.requests) == 1


@pytest.mark.parametrize("whole", ["object", "array"])
def test_a_server_that_does_not_stream_events_is_read_whole_once(whole: str) -> None:
    # "object": one generateContent body; "array": what Gemini sends for streamGenerateContent without alt=sse.
    with FakeGemini([" fine.\nAction 1: Finish[yes]"], whole=whole) as server:
        reply = stream_completion(provider(server), request())
    assert reply.text == " fine.\nAction 1: Finish[yes]" and reply.finish_reason == "stop"
    assert reply.usage.prompt_tokens == len(json.dumps(server.requests[0].body)) // 4  # the server's, not an estimate
    assert len(server.requests) == 1


def test_a_reply_that_is_neither_events_nor_json_is_one_line_not_retried() -> None:
    with FakeGemini(["never"]) as server:
        server.fail({"flood": 1 << 16, "content_type": "text/html"})
        with pytest.raises(ProviderError, match=r"^Gemini did not stream its reply \(text/html\) and what it sent"):
            stream_completion(provider(server), request())
    assert len(server.requests) == 1
