"""Every step keeps enough to rebuild its model call byte for byte, in storage that grows linearly with the steps, and
that survives JSON, the history store and forks."""

from __future__ import annotations

import json

import pytest

from react_core.base import call_records
from react_core.base.trace import Observation, Step, Trace
from react_core.history import HistoryStore
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import Preset
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.registry import Tool, ToolRegistry


def _run(n_steps: int, *, prior: list[Step] | None = None, resume: str | None = None, page: str = "It is a thing."):
    outputs = [f"Thought {i}: look {i}.\nAction {i}: Search[t{i}]" for i in range(1, n_steps)]
    outputs.append(f"Thought {n_steps}: done.\nAction {n_steps}: Finish[x]")
    provider = ScriptedProvider(outputs)
    preset = Preset(name="t", dialect="paper", instructions="Use tools:\n{tools}", examples="Question: q\nThought 1: …")
    tools = ToolRegistry([Tool("search", lambda q: Observation(f"{q}: {page}"))])
    config = RunConfig(provider=provider, preset=preset, tools=tools, max_calls=n_steps)
    trace = Agent(config).run("What is it?", prior_steps=prior or [], resume_thought=resume)
    return trace, provider


def test_each_calls_texts_are_rebuilt_exactly_as_the_provider_received_them():
    trace, provider = _run(5)
    rebuilt = call_records.CallTexts.of(trace.steps)
    assert len(provider.requests) == len(rebuilt) == 5
    for sent, got in zip(provider.requests, rebuilt, strict=True):
        assert (got.system, got.prompt) == (sent.system, sent.prompt)
    # And the request body as the "API" received it, texts and parameters.
    body = call_records.request(trace.steps, 3)
    assert body == provider.sent(provider.requests[3])["body"]


def test_what_is_new_in_a_call_is_the_previous_steps_action_and_observation_and_the_new_prefix():
    trace, _ = _run(3)
    second = trace.steps[1].call
    assert second.system is None  # unchanged since the first call: not stored again
    assert second.prompt_added.startswith(" look 1.\nAction 1: Search[t1]\nObservation 1: t1: It is a thing.")
    assert second.prompt_added.endswith("Thought 2:")
    assert call_records.CallTexts.of(trace.steps)[1].keep == len(call_records.CallTexts.of(trace.steps)[0].prompt)


def test_storage_grows_linearly_with_the_steps():
    page = "word " * 200  # a long observation makes a quadratic store obvious
    sizes = {n: len(json.dumps(_run(n, page=page)[0].to_dict())) for n in (2, 8, 20)}
    per_step_early = (sizes[8] - sizes[2]) / 6
    per_step_late = (sizes[20] - sizes[8]) / 12
    assert per_step_late < per_step_early * 1.2, sizes  # each step adds about the same, however long the run


@pytest.mark.parametrize("where", ["json", "history"])
def test_the_rebuild_survives_export_import_and_the_history_store(where, tmp_path):
    trace, provider = _run(4)
    if where == "json":
        again = Trace.from_dict(json.loads(json.dumps(trace.to_dict())))
    else:
        store = HistoryStore(tmp_path / "h.sqlite")
        again = store.get(store.save(trace)).trace
    assert [(t.system, t.prompt) for t in call_records.CallTexts.of(again.steps)] == [
        (r.system, r.prompt) for r in provider.requests
    ]


def test_a_fork_continues_the_chain_from_its_parent_steps():
    parent, _ = _run(3)
    prior = parent.steps[:1]
    fork, provider = _run(2, prior=prior, resume="Maybe t9 instead.")
    rebuilt = call_records.CallTexts.of(fork.steps)
    assert rebuilt[0].prompt == call_records.CallTexts.of(parent.steps)[0].prompt  # the parent's step, as it was
    assert (rebuilt[1].system, rebuilt[1].prompt) == (provider.requests[0].system, provider.requests[0].prompt)
    assert "Thought 2: Maybe t9 instead." in rebuilt[1].prompt


def test_a_step_without_a_call_record_cannot_be_rebuilt_and_says_so():
    trace, _ = _run(3)
    old = [Step.from_dict({**s.to_dict(), "call": None}) if s.index == 1 else s for s in trace.steps]
    assert call_records.request(old, 0) is None
    # The next call stored its prompt relative to the first one, which is gone: it cannot be rebuilt either.
    assert call_records.CallTexts.of(old)[1] is None


def test_common_prefix():
    assert call_records.common_prefix("abcdef", "abcxyz") == 3
    assert call_records.common_prefix("", "abc") == 0 and call_records.common_prefix("abc", "abc") == 3
    assert call_records.common_prefix("a" * 100_000 + "b", "a" * 100_000 + "c") == 100_000
