"""On the model (``-m model``): a call's reply at temperature 0 is the reply of a cold run of the same prompt, whatever
llama.cpp had cached (earlier steps, a saved prefix state, an edited prompt), and so is the "Copy as Python" snippet's.
The logits at the end of each prompt are compared bit for bit with a fresh model instance's, and so are the replies,
sampled by that instance the way the provider samples (``llama_grammar`` for a constrained greedy step: that it gives
llama-cpp-python's own text is shown in test_formats_grammar, per dialect, and the snippet, run here, uses
llama-cpp-python's own sampler). Also: a warm-up and a
question asked during it evaluate the prefix once, and samples at temperature 0.7 reuse the evaluated prompt.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from react_core.loop.model_call import stream_completion
from react_core.presets.preset import load_preset
from react_core.providers.adapters import setting_of
from react_core.providers.base import CompletionRequest
from react_core.providers.llama_states import BLOCK, StateStore, aligned
from react_core.providers.local import N_CTX, LocalProvider

pytestmark = pytest.mark.model

QUESTION = "Question: Which magazine was started first, Arthur's Magazine or First for Women?\n"


@pytest.fixture(scope="module")
def local() -> LocalProvider:
    provider = LocalProvider(on_progress=None)
    provider.prepare()
    return provider


@pytest.fixture(autouse=True)
def fresh_states(local: LocalProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StateStore:
    """Each test starts with no saved state (its own folder)."""
    shared = local.prepare()
    store = StateStore(shared.prompts.store.identity, tmp_path / "states")
    monkeypatch.setattr(shared.prompts, "store", store)
    return store


def forget_context(local: LocalProvider) -> None:
    shared = local.prepare()
    with shared.lock:
        shared.llama.reset()


@pytest.fixture(scope="module")
def cold(local: LocalProvider):
    """A second, fresh instance of the same model file and adapter, as the snippet makes it, sampling as the provider
    samples: the cache is what these tests are about, and llama-cpp-python's own grammar sampler is several times
    slower."""
    from llama_cpp import Llama

    from react_core.providers import llama_grammar
    from react_core.providers.llama_support import safe_model_defaults

    with safe_model_defaults():
        llama = Llama(
            model_path=str(local.prepare().path),
            n_ctx=N_CTX,
            n_batch=BLOCK,
            verbose=False,
            # The adapter the provider runs with (the shipped one by default), as the snippet loads it.
            **({"lora_path": str(local.adapter)} if local.adapter else {}),
        )
    llama_grammar.install(llama)
    yield llama
    llama.close()


def logits(llama) -> np.ndarray:
    import llama_cpp

    return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llama._ctx.ctx, -1), shape=(llama.n_vocab(),)).copy()


def tokens_of(llama, text: str) -> list[int]:
    return llama.tokenize(text.encode("utf-8"), add_bos=True, special=False)


def cold_run(cold, body: dict) -> tuple[np.ndarray, str]:
    """The prompt's last logits and the reply of a run from nothing: the whole prompt evaluated from position 0."""
    from llama_cpp import LlamaGrammar

    cold.reset()
    prompt = tokens_of(cold, body["prompt"])
    cold.eval(prompt)
    last = logits(cold)
    options = {k: v for k, v in body.items() if k not in ("prompt", "stream", "grammar")}
    if body.get("grammar"):
        options["grammar"] = LlamaGrammar.from_string(body["grammar"], verbose=False)
    # The prompt is evaluated already: llama-cpp-python samples from it at once.
    reply = cold.create_completion(prompt, **options)["choices"][0]["text"]
    return last, reply


class PromptEnds:
    """The logits at the end of every prompt the provider's model evaluates (the last batch before generating)."""

    def __init__(self, llama, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: list[tuple[int, np.ndarray]] = []
        inner = llama.eval

        def eval(tokens) -> None:
            inner(tokens)
            self.seen.append((llama.n_tokens, logits(llama)))

        monkeypatch.setattr(llama, "eval", eval)

    def after(self, end: int, skip: int = 0) -> tuple[int, np.ndarray]:
        """The first evaluation from ``skip`` on that ended at position ``end``, and its index."""
        index = next(i for i, (at, _) in enumerate(self.seen) if i >= skip and at == end)
        return index, self.seen[index][1]

    def last(self, end: int) -> np.ndarray:
        """The logits at the end of the last call's prompt of ``end`` tokens (generating only goes on after it)."""
        return next(found for at, found in reversed(self.seen) if at == end)


def paper_prefix() -> str:
    from react_core.presets.preset import load_preset
    from react_core.presets.render import render_prefix

    return render_prefix(load_preset("paper"), ["search", "lookup"])


def short_prefix() -> str:
    """The paper prefix's first 2,600 characters to a line's end: about 650 tokens, quicker to evaluate than the
    whole (1,464) and still longer than Gemma's sliding window (512), which a restored state must respect."""
    return paper_prefix()[:2600].rsplit("\n", 1)[0] + "\n"


def request(system: str, question: str = QUESTION, **kw) -> CompletionRequest:
    base = dict(stop=("\nObservation", "\nQuestion:"), temperature=0.0, max_tokens=16)
    return CompletionRequest(system=system, prompt=question + "Thought 1:", **{**base, **kw})


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    from react_core.cli.main import main

    out = tmp_path_factory.mktemp("pack") / "hotpotqa.sqlite"
    files = [str(p) for p in sorted((shared_data / "hotpotqa").glob("dev_distractor_*.json"))]
    assert main(["pack", "build", "--hotpotqa", *files, "--out", str(out)]) == 0
    return out


def test_later_steps_of_a_run_reply_as_a_cold_run_and_as_the_snippet(
    local: LocalProvider, cold, pack: Path, shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from react_core.base import call_records
    from react_core.loop.agent import Agent
    from react_core.loop.settings import RunSettings, build_run_config

    llama = local.llama
    ends = PromptEnds(llama, monkeypatch)
    question = json.loads((shared_data / "hotpotqa" / "dev_distractor_first100.json").read_text())[0]["question"]
    settings = RunSettings(provider="local", preset="paper", knowledge=f"pack:{pack}", max_calls=2)
    # The paper preset without its longest example: about 850 tokens of prefix, still beyond Gemma's sliding window
    # (512), and each cold run below reads two fifths less.
    paper = load_preset("paper")
    examples = "Question:" + "\nQuestion:".join(paper.examples.split("\nQuestion:")[1:])
    config = build_run_config(settings, preset=replace(paper, examples=examples), provider=local)
    config.max_tokens = 40
    trace = Agent(config).run(question)
    assert len(trace.steps) >= 2, trace.to_dict()
    assert trace.steps[1].call.reused_tokens > 0  # step 2 did continue from step 1's cache

    skip = 0
    for k, step in enumerate(trace.steps):
        body = call_records.request(trace.steps, k)
        assert body["grammar"] and body["temperature"] == 0.0  # the constrained, greedy calls a chat makes
        skip, warm_logits = ends.after(len(tokens_of(llama, body["prompt"])), skip)
        cold_logits, cold_reply = cold_run(cold, body)
        assert np.array_equal(warm_logits, cold_logits), f"step {k + 1}: the cache changed the logits"
        assert step.raw_output == cold_reply, f"step {k + 1}"

    # "Copy as Python" of step 2, run in a fresh process, prints step 2's reply.
    snippet = LocalProvider.snippet(call_records.CallTexts.request(trace, 2), "python")
    env = {**os.environ, "MODEL_PATH": str(local.prepare().path)}
    done = subprocess.run([sys.executable, "-c", snippet], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout == trace.steps[1].raw_output + "\n"  # the snippet ends with a print()


def test_a_saved_prefix_state_gives_the_cold_reply_after_a_restart(
    local: LocalProvider, cold, fresh_states: StateStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = short_prefix()
    forget_context(local)
    warm = local.warm(prefix)
    assert warm.wait(600) and warm.state == "warm", warm.error
    edge = aligned(len(tokens_of(local.llama, prefix)) - 1)
    assert warm.source == "evaluated" and warm.tokens == edge and warm.progress == 1.0
    assert fresh_states.holds(prefix) == "memory"

    # A restart: nothing in memory, nothing in the context; the state comes from disk.
    shared = local.prepare()
    monkeypatch.setattr(shared.prompts, "store", StateStore(fresh_states.identity, fresh_states.folder))
    with shared.lock:
        shared.llama.reset()
    ends = PromptEnds(shared.llama, monkeypatch)
    call = request(prefix, max_tokens=12)
    plan = shared.prompts.plan(tokens_of(shared.llama, call.text), prefix)
    assert plan.source == "disk" and plan.reuse == edge
    reply = stream_completion(local, call)
    assert reply.sent["reused_tokens"] == edge

    body = reply.sent["body"]
    warm_logits = ends.last(len(tokens_of(shared.llama, body["prompt"])))
    cold_logits, cold_reply = cold_run(cold, body)
    assert np.array_equal(warm_logits, cold_logits)
    assert reply.text == cold_reply


def test_an_edited_prompt_never_uses_the_old_state(
    local: LocalProvider, cold, fresh_states: StateStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = short_prefix()
    assert local.warm(prefix).wait(600)
    middle = len(prefix) // 2
    edited = prefix[:middle] + ("X" if prefix[middle] != "X" else "Y") + prefix[middle + 1 :]  # one character
    assert fresh_states.get(edited) is None
    shared = local.prepare()
    old, new = tokens_of(shared.llama, prefix), tokens_of(shared.llama, edited)
    differs = next(i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b)
    ends = PromptEnds(shared.llama, monkeypatch)

    # The context holds the old prefix, evaluated or loaded from its saved state (after a restart): nothing at or
    # after the edit is reused either way, and the reply is the cold one.
    for source in ("context", "disk"):
        if source == "disk":  # a restart; the edited prefix's own state (saved by the first call) is not kept
            (fresh_states.folder / f"{fresh_states.key(edited)}.kv").unlink()
            monkeypatch.setattr(shared.prompts, "store", StateStore(fresh_states.identity, fresh_states.folder))
            forget_context(local)
            warm = local.warm(prefix)
            assert warm.wait(600) and warm.source == "disk"
        call = request(edited, max_tokens=12)
        reply = stream_completion(local, call)
        assert reply.sent["reused_tokens"] <= differs, source
        warm_logits = ends.last(len(tokens_of(shared.llama, call.text)))
        if source == "context":
            cold_logits, cold_reply = cold_run(cold, reply.sent["body"])  # the same prompt both times
        assert np.array_equal(warm_logits, cold_logits), source
        assert reply.text == cold_reply, source

    # The edited prefix has a state of its own, with its own tokens; the old one stays the old prefix's.
    store = shared.prompts.store
    assert store.get(edited)[0].tokens == tuple(new[: len(store.get(edited)[0].tokens)])
    assert store.get(prefix)[0].tokens == tuple(old[: len(store.get(prefix)[0].tokens)])


def test_a_question_during_the_warm_up_waits_for_it_and_the_prefix_is_evaluated_once(
    local: LocalProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = local.prepare()
    prefix = short_prefix()
    from_start: list[int] = []
    inner = shared.llama.eval

    def eval(tokens) -> None:
        if shared.llama.n_tokens == 0:
            from_start.append(len(tokens))
        inner(tokens)

    monkeypatch.setattr(shared.llama, "eval", eval)
    forget_context(local)
    warm = local.warm(prefix)
    replies = []
    asker = threading.Thread(target=lambda: replies.append(stream_completion(local, request(prefix, max_tokens=4))))
    asker.start()
    asker.join(600)
    assert warm.wait(600) and warm.state == "warm", warm.error
    assert len(replies) == 1 and len(from_start) == 1  # one evaluation of the prefix, whichever came first
    assert local.warm(prefix).wait(60) and local.status().state == "idle"


def test_samples_at_a_temperature_reuse_the_evaluated_prompt(local: LocalProvider) -> None:
    call = request(short_prefix(), temperature=0.7, max_tokens=6)
    first = stream_completion(local, call)
    length = first.usage.prompt_tokens
    for _ in range(2):
        again = stream_completion(local, call)
        # All but the prompt's last, partial block comes from the first sample's evaluation.
        assert again.sent["reused_tokens"] == aligned(length - 1) and length - aligned(length - 1) <= BLOCK


def test_a_question_read_ahead_gives_the_cold_reply(
    local: LocalProvider, cold, fresh_states: StateStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The warm-up reads the Chat page's first example ahead (whole blocks after the prefix); asking it reuses them and
    # reads only its last, partial block, and the reply is still the cold one.
    prefix = short_prefix()
    long = (
        "Question: Which magazine was started first, Arthur's Magazine, the American literary periodical published in "
        "Philadelphia in the 19th century, or First for Women, a woman's magazine published by Bauer Media Group?\n"
    )
    call = request(prefix, long, max_tokens=12)
    forget_context(local)
    warm = local.warm(prefix, call.text)
    assert warm.wait(600) and warm.state == "warm", warm.error
    shared = local.prepare()
    tokens = tokens_of(shared.llama, call.text)
    assert warm.ahead_tokens == aligned(len(tokens) - 1) - aligned(len(tokens_of(shared.llama, prefix)) - 1) > 0
    ends = PromptEnds(shared.llama, monkeypatch)
    reply = stream_completion(local, call)
    assert reply.sent["reused_tokens"] == aligned(len(tokens) - 1)
    cold_logits, cold_reply = cold_run(cold, reply.sent["body"])
    assert np.array_equal(ends.last(len(tokens)), cold_logits)
    assert reply.text == cold_reply


@pytest.mark.timeout(900)  # a cold instance and a fresh process read the prefix too
def test_a_sampled_step_under_a_grammar_is_drawn_again_by_its_seed_a_cold_run_and_its_snippet(
    local: LocalProvider, cold
) -> None:
    # At temperature 0.7 under the paper dialect's grammar the provider draws with llama_grammar's sampler (draw, then
    # ask the grammar): the call records its seed, and that seed draws the same text again, on the warm model, on a
    # cold instance and in "Copy as Python" run in a fresh process.
    from react_core.dialects import get_dialect

    grammar = get_dialect("paper").grammar(["search", "lookup"], 1)
    call = request(short_prefix(), temperature=0.7, max_tokens=24, grammar=grammar)
    first = stream_completion(local, call)
    body = first.sent["body"]
    assert isinstance(body["seed"], int) and first.text
    assert stream_completion(local, replace(call, seed=body["seed"])).text == first.text
    assert len({stream_completion(local, replace(call, seed=s)).text for s in (1, 2, 3)} | {first.text}) > 1
    assert cold_run(cold, body)[1] == first.text
    adapter = {"adapter": setting_of(local.adapter)} if local.adapter else {}  # as a run records it
    snippet = LocalProvider.snippet({"step": 1, "model": "", "body": body, **adapter}, "python")
    env = {**os.environ, "MODEL_PATH": str(local.prepare().path)}
    done = subprocess.run([sys.executable, "-c", snippet], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout == first.text + "\n"  # the snippet ends with a print()
