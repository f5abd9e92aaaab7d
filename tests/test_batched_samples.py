"""Several samples of one request drawn together (``Provider.sample_batch``, the on-device model's batch): CoT-SC asks
for its samples at once where the provider can, each is read as a reply is read (stop sequences, budget), recorded
with its seed and what it was drawn with, and a failure of the batch is one clear message. Offline: a scripted
provider that draws its replies in one go; tests/test_llama_batch.py runs the on-device model."""

from __future__ import annotations

import pytest

from react_core.base.errors import ProviderError
from react_core.base.trace import Usage
from react_core.evaluation.strategies import EvalContext, run_strategy
from react_core.loop.model_call import sample_replies
from react_core.loop.settings import RunSettings
from react_core.providers.base import Chunk, CompletionRequest
from react_core.providers.local import LocalProvider
from react_core.providers.scripted import ScriptedProvider

NOTE = {"param": "batch", "reason": "drawn with the others"}


class Batching(ScriptedProvider):
    """Draws n samples in one call, each as the chunks a call would send (its seed in the body); never streams."""

    def __init__(self, outputs: list, **kwargs) -> None:
        super().__init__(outputs, **kwargs)
        self.batches: list[int] = []

    def sample_batch(self, request: CompletionRequest, n: int) -> list[list[Chunk]] | None:
        self.batches.append(n)
        drawn = []
        for i in range(n):
            text = self.outputs[self._next]
            self._next += 1
            body = {"prompt": request.text, "temperature": request.temperature, "seed": 100 + i}
            sent = {"api": "llama.cpp", "endpoint": "", "body": body, "omitted": [NOTE], "reused_tokens": 448}
            drawn.append([Chunk(sent=sent), Chunk(text=text), Chunk(usage=Usage(500, 9), finish_reason="stop")])
        return drawn

    def stream(self, request):
        raise AssertionError("a provider that draws samples together is not asked one by one")


def test_cot_sc_draws_its_samples_in_one_batch_where_the_provider_can():
    provider = Batching([" a\nAnswer: Paris", " b\nAnswer: the paris", " c\nAnswer: Lyon"])
    ctx = EvalContext(settings=RunSettings(provider="scripted"), provider=provider, samples=3)
    outcome = run_strategy("cot-sc", "q", ctx)
    assert provider.batches == [3]
    assert outcome.trace.final_answer == "Paris" and outcome.extra == {"votes": 2, "samples": 3}
    steps = outcome.trace.steps
    assert [s.index for s in steps] == [1, 2, 3] and [s.final_answer for s in steps] == ["Paris", "the paris", "Lyon"]
    # Each sample's call is recorded as its own: its seed, the note on how it was drawn, what it reused.
    assert [s.call.body["seed"] for s in steps] == [100, 101, 102]
    assert all(s.call.omitted == [NOTE] and s.call.reused_tokens == 448 for s in steps)
    assert all(s.usage.completion_tokens == 9 and s.seconds >= 0 for s in steps)
    # Stored once as CoT-SC stores one-by-one samples: the same prompt, relative to the sample before.
    assert steps[0].call.system is not None and steps[1].call.system is None


def test_cot_sc_draws_one_by_one_when_the_provider_cannot():
    provider = ScriptedProvider([" a\nAnswer: Paris", " b\nAnswer: Lyon", " c\nAnswer: Paris"])
    ctx = EvalContext(settings=RunSettings(provider="scripted"), provider=provider, samples=3)
    outcome = run_strategy("cot-sc", "q", ctx)
    assert len(provider.requests) == 3 and outcome.trace.final_answer == "Paris"


def test_each_drawn_sample_is_read_as_a_reply_is_read():
    """The loop's own cutting applies to a drawn sample as to a streamed one: at a stop sequence, at its budget."""
    provider = Batching([" one. Question: two", "x" * 100])
    request = CompletionRequest(system="S", prompt="P", stop=("Question:",), temperature=0.7, max_tokens=4)
    heard: list[str] = []
    first, second = sample_replies(provider, request, 2, on_text=lambda delta, text: heard.append(text))
    assert first.text == " one. Question: two" and first.cut_at == 6 and first.cut_by == "Question:"
    assert first.finish_reason == "stop"
    assert len(second.text) == 32 and second.finish_reason == "length"  # 4 tokens of 8 characters: cut, never read
    assert heard == [" one. Question: two", "x" * 32]  # each sample heard as it is read, one after the other


class Broken(ScriptedProvider):
    def sample_batch(self, request, n):
        raise RuntimeError("llama_decode failed (1) on a batch of 21 tokens")


def test_a_batch_that_fails_is_the_providers_failure_in_one_line():
    request = CompletionRequest(system="S", prompt="P", temperature=0.7)
    with pytest.raises(ProviderError, match=r"provider failed: RuntimeError: llama_decode failed \(1\)"):
        sample_replies(Broken([]), request, 3)


def test_the_on_device_model_draws_together_only_when_asked(monkeypatch):
    """Off by default (a batch's samples are not bit-exact with each seed drawn alone): no model is even loaded."""
    monkeypatch.delenv("REACT_LLAMA_BATCH", raising=False)
    monkeypatch.setattr(LocalProvider, "prepare", lambda self: pytest.fail("the model was loaded"))
    request = CompletionRequest(system="S", prompt="P", temperature=0.7)
    assert LocalProvider(on_progress=None).sample_batch(request, 21) is None
    monkeypatch.setenv("REACT_LLAMA_BATCH", "1")
    provider = LocalProvider(on_progress=None)
    assert provider.batches
    assert provider.sample_batch(CompletionRequest(system="S", prompt="P", temperature=0.0), 21) is None  # greedy


def test_copy_as_python_of_a_batched_sample_says_it_draws_another():
    call = {
        "step": 3,
        "model": "",
        "body": {"prompt": "Q", "max_tokens": 8, "temperature": 0.7, "stop": [], "stream": True, "seed": 5},
        "omitted": [{"param": "batch", "reason": "drawn with 20 other samples of this prompt in one llama.cpp batch"}],
    }
    script = LocalProvider.snippet(call, "python")
    assert "drawn with 20 other samples of this prompt in one llama.cpp batch" in script
    assert "'seed': 5" in script
    compile(script, "snippet.py", "exec")
    alone = LocalProvider.snippet({**call, "omitted": []}, "python")
    assert "This sample was" not in alone
