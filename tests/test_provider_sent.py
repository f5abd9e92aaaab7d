"""Exactly what was sent: each hosted provider's calls, rebuilt from the trace, equal the JSON bodies the server
received; what was left out is said with its reason; the key is nowhere; and the cURL and Python snippets of a call
send the same body again when they are run (Debian's curl and the official SDKs, against the local fake servers)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from provider_helpers import FakeGemini, FakeOpenAI, assert_no_secret, fast_retry

from react_core.base import call_records
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import Preset
from react_core.providers import PROVIDERS, create_provider
from react_core.providers.base import CompletionRequest
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import ToolRegistry

KEY = "MARKER-KEY-sent-5e1c0d9a77"
RUN = [
    " I multiply first.\nAction 1: Calculator[6*7]",
    " Then I add one.\nAction 2: Calculator[42+1]",
    " That is it.\nAction 3: Finish[43]",
]
FAKES = {"openai": FakeOpenAI, "gemini": FakeGemini}
APIS = {"openai": "openai.chat.completions", "gemini": "gemini.streamGenerateContent"}


def hosted(name: str, server, **options):
    base_url = server.root + ("/v1" if name == "openai" else "")
    if name == "openai":
        options.setdefault("model", "gpt-4.1-mini")
    return create_provider(name, api_key=KEY, base_url=base_url, retry=fast_retry(), **options)


def run(provider, question: str = "What is 6*7+1?"):
    preset = Preset(name="t", dialect="paper", instructions="Use the tools:\n{tools}", examples="")
    return Agent(RunConfig(provider=provider, preset=preset, tools=ToolRegistry([CALCULATOR]))).run(question)


def received(server, k: int):
    return json.loads(json.dumps(server.requests[k].body))


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_every_call_rebuilds_to_the_body_the_server_received(name: str) -> None:
    with FAKES[name](RUN) as server:
        trace = run(hosted(name, server))
    assert trace.stop_reason == "finished" and trace.final_answer == "43" and len(server.requests) == 3
    for k in range(3):
        assert call_records.request(trace.steps, k) == received(server, k)
        assert call_records.CallTexts.request(trace, k + 1)["body"] == received(server, k)
    first = trace.steps[0].call
    assert first.api == APIS[name] and first.endpoint.startswith(server.root)
    assert server.requests[0].path in first.endpoint
    # Stored compactly: a later call keeps only what it added (the texts are references into the chain).
    assert trace.steps[2].call.system is None and len(trace.steps[2].call.prompt_added) < 200
    assert_no_secret(KEY, trace, [call_records.CallTexts.request(trace, s.index) for s in trace.steps])


def test_a_reasoning_model_says_it_got_no_stop_or_temperature() -> None:
    with FakeOpenAI(RUN) as server:
        trace = run(hosted("openai", server, model="gpt-5.4-mini"))
    omitted = {o["param"]: o["reason"] for o in trace.steps[0].call.omitted}
    assert set(omitted) == {"stop", "temperature"}
    assert "reasoning model" in omitted["stop"] and "cuts the reply at the stop sequences locally" in omitted["stop"]
    assert "stop" not in received(server, 0) and "temperature" not in received(server, 0)


def test_a_parameter_the_server_refused_is_listed_with_the_reason() -> None:
    with FakeOpenAI(RUN, refuse=["temperature"]) as server:
        trace = run(hosted("openai", server))
    assert {"param": "temperature", "reason": "the server refused it (HTTP 400), so it is no longer sent"} in (
        trace.steps[0].call.omitted
    )
    # The record is the request that was answered, not the refused one.
    assert call_records.request(trace.steps, 0) == received(server, 1) and "temperature" not in received(server, 1)


@pytest.mark.parametrize(("name", "limit", "param"), [("openai", 4, "stop"), ("gemini", 5, "stopSequences")])
def test_stop_sequences_beyond_the_apis_maximum_are_named(name: str, limit: int, param: str) -> None:
    stops = ("</a>", "</b>", "</c>", "</d>", "</e>", "</f>")
    with FAKES[name](["ok"]) as server:
        chunks = list(hosted(name, server).stream(CompletionRequest(system="s", prompt="p", stop=stops)))
    omitted = chunks[0].sent["omitted"]
    assert [o["param"] for o in omitted] == [param]
    assert all(f'"{s}"' in omitted[0]["reason"] for s in stops[limit:]) and str(limit) in omitted[0]["reason"]


# -- reproducing a call outside the app ---------------------------------------------------------------------


def _env(var: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "OPENAI_BASE_URL"}
    env[var] = KEY
    return env


@pytest.mark.parametrize("style", ["curl", "python"])
@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_a_snippet_sends_the_same_body_with_the_key_from_the_environment(name: str, style: str) -> None:
    if style == "curl" and shutil.which("curl") is None:
        pytest.fail("Debian's curl is needed for this test: apt-get install curl (make test installs it)")
    var = PROVIDERS[name].key_vars[0]
    with FAKES[name](RUN) as server:
        trace = run(hosted(name, server))
        call = call_records.CallTexts.request(trace, 2)
        snippet = PROVIDERS[name].snippet(call, style)
        assert_no_secret(KEY, snippet)
        assert ("$" + var if style == "curl" else f"{var!r}") in snippet
        server.outputs.append("Resent.")  # one piece: the same word in SSE and printed text
        command = ["bash", "-c", snippet] if style == "curl" else [sys.executable, "-c", snippet]
        done = subprocess.run(command, env=_env(var), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Resent." in done.stdout
    again = server.requests[-1]
    assert len(server.requests) == 4 and json.loads(json.dumps(again.body)) == call["body"]
    assert again.path in call["endpoint"]
    key_header = again.headers["authorization"] if name == "openai" else "Bearer " + again.headers["x-goog-api-key"]
    assert key_header == f"Bearer {KEY}"  # the key reached the server from the environment, not from the snippet


def test_a_snippet_in_an_unknown_style_is_a_clear_error() -> None:
    from react_core.base.errors import ConfigError

    call = {"step": 1, "endpoint": "http://127.0.0.1:1/v1/chat/completions", "body": {}}
    with pytest.raises(ConfigError, match="curl or python"):
        PROVIDERS["openai"].snippet(call, "ruby")


def test_a_key_in_the_url_is_never_recorded() -> None:
    import httpx2

    from react_core.providers.transport import _public_url

    url = httpx2.URL(f"https://example.invalid/v1beta/models/m:streamGenerateContent?alt=sse&key={KEY}")
    assert _public_url(url) == "https://example.invalid/v1beta/models/m:streamGenerateContent?alt=sse"


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_prompt_tokens_the_server_reused_from_its_cache_are_recorded(name: str) -> None:
    with FAKES[name](RUN, cached=1024) as server:
        trace = run(hosted(name, server))
    assert trace.stop_reason == "finished"
    assert [s.call.reused_tokens for s in trace.steps] == [1024] * 3
