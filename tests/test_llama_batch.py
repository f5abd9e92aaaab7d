"""On the model (``-m model``): samples drawn together in one llama.cpp batch (``llama_batch``; REACT_LLAMA_BATCH).

A batch of one sample is the single call with the same seed, text, end and usage, with and without a grammar: the
prompt's state, the samplers, the seeds, the stops and the budget are llama-cpp-python's own. A batch of several is
not bit-exact with each seed drawn alone (its matrix kernels add up in another order: see ``llama_batch``), so what is
tested there is that it is a function of its seeds (the same batch twice gives the same samples), that the seeds are
the ones calls in a row would draw, and that each sample ends as a call ends. Small on purpose: a few dozen tokens.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from react_core.dialects import DIALECTS
from react_core.evaluation.strategies import DEFAULT_PRESETS, direct_request
from react_core.loop.model_call import sample_replies, stream_completion
from react_core.presets.preset import Preset, load_preset
from react_core.presets.render import render_prefix, render_question
from react_core.presets.store import PresetStore
from react_core.providers.base import CompletionRequest
from react_core.providers.llama_states import StateStore
from react_core.providers.local import LocalProvider

pytestmark = pytest.mark.model

QUESTION = "Were Scott Derrickson and Ed Wood of the same nationality?"


@pytest.fixture(scope="module")
def local() -> LocalProvider:
    provider = LocalProvider(on_progress=None, batches=True)
    provider.prepare()
    return provider


@pytest.fixture(autouse=True)
def fresh_states(local: LocalProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = local.prepare()
    monkeypatch.setattr(shared.prompts, "store", StateStore(shared.prompts.store.identity, tmp_path / "states"))


def cot(local: LocalProvider, **changes) -> CompletionRequest:
    request = direct_request(PresetStore("").load(DEFAULT_PRESETS["cot"]), QUESTION, 0.7, local.extra_stops)
    return replace(request, max_tokens=32, **changes)


def react_step(local: LocalProvider) -> CompletionRequest:
    """Step 1 of a ReAct run, under the paper dialect's grammar, sampled as Regenerate samples it."""
    dialect, tools = DIALECTS["paper"], ["search", "lookup"]
    preset = load_preset(Preset.default_for("paper"))
    return CompletionRequest(
        system=render_prefix(preset, tools),
        prompt=render_question(preset, QUESTION) + dialect.step_prefix(1),
        stop=tuple(dict.fromkeys(dialect.stop + local.extra_stops)),
        temperature=0.7,
        max_tokens=32,
        grammar=dialect.grammar(tools, 1),
        seed=7,
    )


@pytest.mark.parametrize("kind", ["cot", "grammar"])
def test_a_batch_of_one_sample_is_the_single_call_with_its_seed(local, kind):
    request = cot(local, seed=123) if kind == "cot" else react_step(local)
    (drawn,) = sample_replies(local, request, 1)
    alone = stream_completion(local, request)
    assert drawn.text == alone.text and drawn.text.strip()
    assert (drawn.finish_reason, drawn.usage, drawn.cut_at) == (alone.finish_reason, alone.usage, alone.cut_at)
    assert drawn.sent["body"] == alone.sent["body"]  # the same arguments and seed: the same "Copy as Python"
    assert drawn.sent["omitted"] == [] and drawn.sent["reused_tokens"] > 0  # from the prefix's saved state


def test_a_batch_is_a_function_of_its_seeds_and_each_sample_ends_as_a_call_ends(local):
    request = cot(local, seed=11, stop=(".",) + local.extra_stops)  # a sentence's end stops most samples early
    first = sample_replies(local, request, 3)
    again = sample_replies(local, request, 3)
    assert [r.text for r in first] == [r.text for r in again]
    seeds = [r.sent["body"]["seed"] for r in first]
    assert seeds[0] == 11
    assert seeds[1:] == [random.Random(seeds[0]).randint(0, 2**32), random.Random(seeds[1]).randint(0, 2**32)]
    for reply in first:
        assert reply.finish_reason in ("stop", "length") and "." not in reply.text
        assert reply.usage.completion_tokens <= 32 and reply.usage.prompt_tokens == first[0].usage.prompt_tokens
        assert "one llama.cpp batch" in reply.sent["omitted"][0]["reason"]
    assert any(r.finish_reason == "stop" for r in first)
