"""The openai provider end to end against the real OpenAI-compatible ``llama_cpp.server`` serving the on-device
Gemma on 127.0.0.1 (started and stopped by a fixture): streaming, stop sequences, and a short ReAct run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from provider_helpers import LlamaServer

from react_core.loop.agent import Agent, RunConfig
from react_core.loop.model_call import stream_completion
from react_core.presets.preset import Preset
from react_core.providers.base import CompletionRequest
from react_core.providers.local import default_model_path
from react_core.providers.openai_compat import OpenAIProvider
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import ToolRegistry

pytestmark = [pytest.mark.model, pytest.mark.model_server]

SYSTEM = "Answer with Thought, Action and Observation steps."
PROMPT = "Count from one to twenty in words, separated by commas: one, two, three,"


@pytest.fixture(scope="module")
def server() -> Iterator[LlamaServer]:
    srv = LlamaServer(default_model_path(None))
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def provider(server: LlamaServer) -> OpenAIProvider:
    return OpenAIProvider.create(base_url=server.base_url, model="gemma-3-270m", api_key=None)


def ask(provider: OpenAIProvider, stop: tuple[str, ...] = (), max_tokens: int = 40) -> list[str]:
    request = CompletionRequest(system=SYSTEM, prompt=PROMPT, stop=stop, temperature=0.0, max_tokens=max_tokens)
    return [c.text for c in provider.stream(request) if c.text]


def test_streams_the_answer_in_many_pieces(provider: OpenAIProvider) -> None:
    pieces = ask(provider)
    assert len(pieces) > 5 and len("".join(pieces).strip()) > 10


def test_stop_sequences_end_the_answer_on_the_server(provider: OpenAIProvider) -> None:
    free = "".join(ask(provider))
    words = [w for w in free.split() if len(w) > 2]
    assert len(words) >= 3, free
    stop = words[len(words) // 2]  # a word from the middle of what the model writes at temperature 0
    cut = "".join(ask(provider, stop=(stop,)))
    assert stop not in cut
    assert free.startswith(cut) and len(cut) < free.index(stop) + 1


def test_only_four_stops_reach_the_server_and_the_rest_still_stop_locally(provider: OpenAIProvider) -> None:
    free = "".join(ask(provider))
    fifth = free.split()[2]  # only the loop's local cutting can honour a fifth stop sequence
    stops = ("<a>", "<b>", "<c>", "<d>", fifth)
    assert provider.stops_for_api(stops) == ["<a>", "<b>", "<c>", "<d>"]
    request = CompletionRequest(system=SYSTEM, prompt=PROMPT, stop=stops, temperature=0.0, max_tokens=40)
    seen: list[str] = []
    reply = stream_completion(provider, request, on_text=lambda delta, _text: seen.append(delta))
    text, usage = reply.text, reply.usage
    # The server did not stop at the fifth sequence; the loop stopped reading at the piece that completed it.
    assert fifth in text and text.endswith(seen[-1]) and fifth not in text[: -len(seen[-1])]
    assert free.startswith(text) and len(text) < len(free)
    assert usage.prompt_tokens > 0


def test_a_short_react_run_through_the_server(server: LlamaServer, provider: OpenAIProvider) -> None:
    preset = Preset(
        name="calc",
        dialect="paper",
        instructions="Answer with Thought, Action and Observation steps. Actions:\n{tools}\n",
        examples="Question: What is 2 + 3?\nThought 1: I add them.\nAction 1: Calculator[2 + 3]\n"
        "Observation 1: 2 + 3 = 5\nThought 2: The sum is 5.\nAction 2: Finish[5]\n",
    )
    config = RunConfig(provider=provider, preset=preset, tools=ToolRegistry([CALCULATOR]), max_calls=2, max_tokens=40)
    trace = Agent(config).run("What is 12 * 12?")
    assert trace.error is None and trace.stop_reason in ("finished", "max_calls", "loop")
    for step in trace.steps:
        assert step.raw_output and (step.action or step.final_answer is not None or step.is_error)
        assert step.usage.prompt_tokens > 0 and step.seconds > 0


def test_the_on_device_curl_snippet_asks_the_server_for_the_same_completion(server: LlamaServer) -> None:
    import json
    import os
    import subprocess

    from test_provider_local import one_call_trace

    from react_core.base.call_records import CallTexts
    from react_core.providers.local import LocalProvider

    local = LocalProvider(adapter="none", on_progress=None)  # the server below runs the base model alone
    request = CompletionRequest(system=SYSTEM, prompt=PROMPT, stop=(" twelve",), temperature=0.0, max_tokens=30)
    trace, reply = one_call_trace(local, request)
    snippet = LocalProvider.snippet(CallTexts.request(trace, 1), "curl")
    assert "python -m react_core.providers.llama_server" in snippet
    env = {**os.environ, "LLAMA_SERVER": server.base_url.removesuffix("/v1")}
    done = subprocess.run(["bash", "-c", snippet], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    events = [line[6:] for line in done.stdout.splitlines() if line.startswith("data: ") and line != "data: [DONE]"]
    text = "".join(json.loads(e)["choices"][0]["text"] for e in events)
    assert text == reply.text  # the server, given the same body, wrote the same completion
