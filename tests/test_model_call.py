"""One model call within its limits: cut at stop sequences, a token budget, a wall-clock deadline (for a model
computing on this machine, counted from its last progress), Stop reaching a read that is waiting; and a run that keeps
its steps whatever escapes."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from react_core.base import cancel
from react_core.base.cancel import Cancelled
from react_core.base.errors import ProviderError
from react_core.loop import model_call
from react_core.loop.agent import Agent, RunConfig
from react_core.loop.model_call import CALL_DEADLINE, MAX_REPLY_CHARS, stream_completion
from react_core.presets.preset import Preset
from react_core.providers.base import Chunk, CompletionRequest, Provider
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.registry import Tool, ToolRegistry


class Endless(Provider):
    """A model that never stops writing (and ignores stop sequences)."""

    name, label = "endless", "Endless"

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        while True:
            yield Chunk(text="blah ")


class Silent(Provider):
    """A server that keeps the connection open and sends nothing (only keep-alives): its read blocks until the
    response is closed, which is what the provider registers as its abort."""

    name, label = "silent", "Silent"

    def __init__(self) -> None:
        self.closed = threading.Event()
        self.waiting = threading.Event()

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        cancel.on_abort(self.closed.set)
        self.waiting.set()
        self.closed.wait(60)
        raise ConnectionResetError("the response was closed")
        yield Chunk()  # pragma: no cover - a generator


def request(max_tokens: int = 50) -> CompletionRequest:
    return CompletionRequest(system="", prompt="Q", stop=("\nObservation",), max_tokens=max_tokens)


def test_a_reply_past_its_token_budget_is_cut_and_not_read_further():
    reply = stream_completion(Endless(), request(max_tokens=10))
    assert reply.finish_reason == "length" and 0 < len(reply.text) <= 10 * 8


def test_a_huge_chunk_is_kept_to_the_reply_cap():
    class Flood(Provider):
        name, label = "flood", "Flood"

        def stream(self, request):
            yield Chunk(text="x" * 30_000_000)

    reply = stream_completion(Flood(), request(max_tokens=100_000))
    assert len(reply.text) == MAX_REPLY_CHARS


def test_a_silent_stream_ends_at_the_deadline_as_a_provider_failure():
    silent = Silent()
    with pytest.raises(ProviderError, match="did not finish its reply within 0.2 s"):
        stream_completion(silent, request(), deadline=0.2)
    assert silent.closed.is_set()


def test_the_default_deadline_is_the_documented_180_s_and_the_loop_calls_under_it(monkeypatch):
    # The figure written out, as docs/providers.md documents it: the deadline tests above pass their own short deadline,
    # so only this catches a default raised to "never".
    assert CALL_DEADLINE == 180.0
    deadlines = []
    real = cancel.guarded_call

    def recording(deadline, progress=None):
        deadlines.append(deadline)
        return real(deadline, progress)

    monkeypatch.setattr(model_call.cancel, "guarded_call", recording)
    provider = ScriptedProvider(["Thought 1: a\nAction 1: Search[x]", "Thought 2: b\nAction 2: Finish[y]"])
    config = RunConfig(provider=provider, preset=_preset(), tools=ToolRegistry([Tool("search", lambda q: q)]))
    assert Agent(config).run("q").stop_reason == "finished"
    assert deadlines == [180.0, 180.0]  # every model call of a run, with no deadline passed, is under the default


class Busy(Provider):
    """A model on a busy machine: it reads its prompt a block at a time (``progress``) and then writes a piece at a
    time, each step taking ``pause`` seconds and all of them together far more than the deadline. ``computes``
    says whether it computes here; ``reports`` whether it says how far its prompt reading has come."""

    name, label = "busy", "Busy"

    def __init__(self, computes: bool, *, blocks: int = 0, pieces: int = 0, pause: float, reports: bool = True):
        self.computes_here, self.blocks, self.pieces, self.pause = computes, blocks, pieces, pause
        self.reports, self.read = reports, 0

    def progress(self) -> int:
        return self.read if self.reports else 0

    def stream(self, request):
        for _ in range(self.blocks):
            time.sleep(self.pause)
            self.read += 1
        for _ in range(self.pieces):
            time.sleep(self.pause)
            yield Chunk(text="x")
        yield Chunk(finish_reason="stop")


# Each step a tenth of the deadline, the whole call four deadlines: only a deadline about progress lets it finish.
DEADLINE, PAUSE, STEPS = 0.5, 0.05, 40


def test_a_model_computing_here_may_take_long_while_it_writes():
    reply = stream_completion(Busy(True, pieces=STEPS, pause=PAUSE), request(max_tokens=400), deadline=DEADLINE)
    assert reply.text == "x" * STEPS and reply.finish_reason == "stop"


def test_a_model_computing_here_may_take_long_to_read_its_prompt_before_the_first_token():
    busy = Busy(True, blocks=STEPS, pieces=1, pause=PAUSE)
    assert stream_completion(busy, request(), deadline=DEADLINE).text == "x"
    silent = Busy(True, blocks=STEPS, pieces=1, pause=PAUSE, reports=False)  # reading, but never saying so
    with pytest.raises(ProviderError, match=r"^Busy made no progress for 0.5 s \(no prompt read, no token written\)"):
        stream_completion(silent, request(), deadline=DEADLINE)


def test_a_hosted_call_keeps_its_deadline_for_the_whole_reply():
    with pytest.raises(ProviderError, match="did not finish its reply within 0.5 s"):
        stream_completion(Busy(False, pieces=STEPS, pause=PAUSE), request(max_tokens=400), deadline=DEADLINE)


def test_a_model_computing_here_that_stalls_ends_at_the_deadline():
    class Stalled(Silent):
        computes_here = True

    stalled = Stalled()
    with pytest.raises(ProviderError, match="made no progress for 0.2 s"):
        stream_completion(stalled, request(), deadline=0.2)
    assert stalled.closed.is_set()


def test_the_on_device_models_progress_is_every_token_it_evaluates():
    from react_core.providers.llama_activity import Activity
    from react_core.providers.local import LocalProvider

    provider = LocalProvider()
    assert provider.progress() == 0  # not loaded: nothing to tell
    provider._shared = SimpleNamespace(activity=Activity("k", None))
    provider._shared.activity.on_eval(64, 0.5)
    provider._shared.activity.on_eval(1, 0.1)
    assert provider.progress() == 65


def test_stop_closes_a_read_that_is_waiting():
    silent, stop = Silent(), threading.Event()
    threading.Thread(target=lambda: silent.waiting.wait(10) and stop.set(), daemon=True).start()
    with pytest.raises(Cancelled), cancel.scope(stop):
        stream_completion(silent, request(), deadline=None)
    assert silent.closed.is_set()


def test_stop_sequences_are_cut_locally_and_the_cut_is_recorded():
    provider = ScriptedProvider(["Thought: x\nAction: y\nObservation: invented"])
    reply = stream_completion(provider, request())
    assert reply.cut_by == "\nObservation" and reply.text[reply.cut_at :].startswith("\nObservation")
    assert reply.finish_reason == "stop" and reply.sent["api"] == "scripted"


def test_lone_surrogates_from_a_model_never_reach_the_trace():
    provider = ScriptedProvider(["Thought 1: odd \ud800 text\nAction 1: Finish[a\udfffb]"])
    trace = Agent(RunConfig(provider=provider, preset=_preset())).run("q")
    assert trace.final_answer == "a\ufffdb"
    trace.to_dict()["steps"][0]["raw_output"].encode("utf-8")  # encodable: printable, storable, sendable


def _preset() -> Preset:
    return Preset(name="t", dialect="paper", instructions="Tools:\n{tools}")


def test_whatever_escapes_the_loop_the_steps_taken_are_kept_with_the_error(monkeypatch):
    provider = ScriptedProvider(["Thought 1: a\nAction 1: Search[x]", "Thought 2: b\nAction 2: Search[y]"])
    config = RunConfig(provider=provider, preset=_preset(), tools=ToolRegistry([Tool("search", lambda q: q)]))
    agent = Agent(config)
    real_parse = agent.dialect.parse

    def parse(text, **kwargs):
        if "Search[y]" in text:
            raise ValueError("a parser bug")
        return real_parse(text, **kwargs)

    monkeypatch.setattr(agent.dialect, "parse", parse)
    trace = agent.run("q")
    assert trace.stop_reason == "error" and "ValueError: a parser bug" in trace.error
    assert [s.index for s in trace.steps] == [1] and trace.steps[0].observation.text == "x"
