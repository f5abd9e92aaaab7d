"""Without the model: which positions of a llama.cpp context a call may reuse (only those a cold run computes the same
way), the saved prefix states (keyed by exact bytes, bounded in memory and on disk, damaged files ignored), the plan a
call follows, and the live speed against the normal one. ``test_provider_local_exact.py`` checks the same on the
model, bit for bit."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from react_core.providers.llama_activity import SLOW, WINDOW, Activity
from react_core.providers.llama_reuse import PromptCache
from react_core.providers.llama_states import BLOCK, Positions, State, StateStore, aligned


class FakeLlama:
    """The part of ``llama_cpp.Llama`` that Positions and PromptCache use; records each evaluated batch."""

    n_batch = BLOCK

    def __init__(self) -> None:
        self.n_tokens = 0
        self.input_ids = [0] * 4096
        self.batches: list[tuple[int, int]] = []  # (start, tokens)

    def eval(self, tokens) -> None:
        for at in range(0, len(tokens), self.n_batch):
            batch = list(tokens[at : at + self.n_batch])
            self.batches.append((self.n_tokens, len(batch)))
            self.input_ids[self.n_tokens : self.n_tokens + len(batch)] = batch
            self.n_tokens += len(batch)

    def reset(self) -> None:
        self.n_tokens = 0

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return ([1] if add_bos else []) + list(text)  # one token per byte


def tracked() -> tuple[FakeLlama, Positions]:
    llama = FakeLlama()
    return llama, Positions(llama).install()


def test_only_whole_blocks_of_a_prompt_evaluated_from_a_boundary_are_reusable() -> None:
    llama, positions = tracked()
    prompt = list(range(2, 152))  # 150 tokens: two whole blocks and a partial one
    llama.eval(prompt)
    assert positions.canonical == prompt[:128]
    for token in (7, 8, 9):  # generated one at a time: never reusable
        llama.eval([token])
    assert positions.canonical == prompt[:128]
    # The next step's prompt continues the first: only the two whole blocks are kept, not the partial block nor
    # the generated tokens, although they match.
    follow = prompt + [7, 8, 9] + list(range(300, 400))
    assert positions.reusable(follow) == 128
    # The last token's logits are always computed: a prompt equal to the whole canonical part keeps one block less.
    assert positions.reusable(prompt[:128]) == 64
    # A prompt that differs inside the second block keeps the first block only.
    assert positions.reusable(prompt[:100] + [999] * 60) == 64


def test_a_long_prompt_is_heard_block_by_block_in_the_batches_llama_cpp_would_make() -> None:
    llama, positions = tracked()
    heard: list[int] = []
    positions.listeners.append(lambda tokens, seconds: heard.append(tokens))
    llama.eval(list(range(2, 152)))  # what llama.cpp's generate does with a prompt: one eval of all of it
    assert heard == [64, 64, 22]  # each block as it is done: a call's deadline sees the reading progress
    assert llama.batches == [(0, 64), (64, 64), (128, 22)]  # the batches llama.cpp makes of it itself
    assert positions.canonical == list(range(2, 130))
    llama.eval([7])
    assert heard[-1] == 1


def test_an_evaluation_from_an_unaligned_position_is_not_canonical_and_reset_forgets_all() -> None:
    llama, positions = tracked()
    llama.eval(list(range(2, 200)))
    assert len(positions.canonical) == 192
    llama.n_tokens = 100  # as llama-cpp-python's own prefix reuse would: mid-block
    llama.eval(list(range(500, 700)))
    # Positions before 100 keep their values; nothing from 100 on is canonical, so only the first block is reusable.
    assert len(positions.canonical) == 100 and positions.reusable(list(range(2, 102)) + [0] * 50) == 64
    positions.rewind(64)
    llama.eval(list(range(500, 700)))  # from a boundary after canonical positions: canonical again
    assert len(positions.canonical) == 64 + aligned(200)
    llama.reset()
    assert positions.canonical == [] and positions.reusable(list(range(2, 200))) == 0
    with pytest.raises(ValueError):
        positions.rewind(64)  # nothing is reusable any more


def test_a_restored_state_is_reusable_only_as_a_whole() -> None:
    # llama.cpp saves a sliding-window layer's values only for the last positions: going on from inside a restored
    # state would attend to missing ones.
    llama = FakeLlama()
    positions = FakeStatePositions(llama).install()
    positions.restore(State(tuple(range(2, 258)), b"kv"))
    assert positions.reusable(list(range(2, 300))) == 256
    assert positions.reusable(list(range(2, 200)) + [0] * 100) == 0  # diverges inside: evaluate from the start
    with pytest.raises(ValueError):
        positions.rewind(128)
    llama.eval(list(range(2, 300))[256:])  # going on from its end: still whole
    assert positions.reusable(list(range(2, 300)) + [5]) == 256
    llama.reset()
    llama.eval(list(range(2, 300)))  # evaluated from nothing: every block reusable again
    assert positions.floor == 0 and positions.reusable(list(range(2, 200)) + [0] * 100) == 192


def test_a_model_that_reads_prompts_in_other_batches_is_refused() -> None:
    llama = FakeLlama()
    llama.n_batch = 512
    with pytest.raises(ValueError, match="n_batch"):
        Positions(llama)


# -- saved states -------------------------------------------------------------------------------------------


def state(n: int, fill: int = 1) -> State:
    return State(tuple(range(n)), bytes([fill]) * (n * 10))


def test_a_state_is_found_by_its_exact_prefix_only_and_survives_a_restart(tmp_path: Path) -> None:
    prefix = "Solve a question answering task.\nQuestion: Which magazine was started first?\n"
    store = StateStore("model A", tmp_path)
    store.put(prefix, state(128))
    assert store.get(prefix) == (state(128), "memory")
    # A one-character change, a trailing space, another model: no state.
    assert store.get(prefix.replace("first", "First")) is None
    assert store.get(prefix + " ") is None
    assert StateStore("model B", tmp_path).get(prefix) is None
    # A new process: read from disk, then held in memory.
    again = StateStore("model A", tmp_path)
    assert again.holds(prefix) == "disk"
    assert again.get(prefix) == (state(128), "disk")
    assert again.get(prefix)[1] == "memory"


def test_memory_and_disk_are_bounded_least_recently_used_first(tmp_path: Path) -> None:
    one = state(64).nbytes
    store = StateStore("m", tmp_path, memory_bytes=2 * one)
    for name in ("a", "b"):
        store.put(name, state(64))
    store.disk_bytes = int(3.5 * (tmp_path / f"{store.key('a')}.kv").stat().st_size)  # room for three files
    store.get("a")  # a is now more recent than b
    store.put("c", state(64))
    assert store.holds("a") == "memory" and store.holds("c") == "memory" and store.holds("b") == "disk"
    assert sum(store.holds(n) == "memory" for n in "abc") * one <= 2 * one  # memory holds no more than its bytes
    os.utime(tmp_path / f"{store.key('a')}.kv", (1, 1))  # a is the oldest on disk
    store.put("d", state(64))
    files = {p.name for p in tmp_path.glob("*.kv")}
    assert f"{store.key('a')}.kv" not in files and len(files) == 3


def test_a_damaged_or_foreign_state_file_is_dropped_not_used(tmp_path: Path) -> None:
    store = StateStore("m", tmp_path)
    store.put("p", state(64))
    file = tmp_path / f"{store.key('p')}.kv"
    file.write_bytes(file.read_bytes()[:20])
    assert StateStore("m", tmp_path).get("p") is None and not file.exists()
    # A file renamed to another prefix's key (or copied from another model) is refused by its header.
    store.put("p", state(64))
    file.rename(tmp_path / f"{store.key('q')}.kv")
    assert StateStore("m", tmp_path).get("q") is None


def test_clear_forgets_memory_and_files(tmp_path: Path) -> None:
    store = StateStore("m", tmp_path)
    store.put("p", state(64))
    store.clear()
    assert store.get("p") is None and not list(tmp_path.glob("*.kv"))


# -- the plan of a call ------------------------------------------------------------------------------------


class FakeStatePositions(Positions):
    """Snapshots and restores without llama.cpp: a state is the canonical tokens."""

    def snapshot(self, n: int) -> State:
        self.rewind(n)
        del self.canonical[n:]
        return State(tuple(self.canonical), b"kv")

    def restore(self, saved: State) -> None:
        self.canonical[:] = saved.tokens
        self.llama.n_tokens = self.floor = len(saved.tokens)


def cache(tmp_path: Path) -> tuple[FakeLlama, PromptCache]:
    llama = FakeLlama()
    return llama, PromptCache(llama, FakeStatePositions(llama).install(), StateStore("m", tmp_path))


def test_a_first_call_saves_its_prefix_and_a_switch_back_loads_it(tmp_path: Path) -> None:
    llama, prompts = cache(tmp_path)
    paper, other = "P" * 300, "O" * 300
    first = llama.tokenize((paper + "Question: one?").encode())
    plan = prompts.plan(first, paper)
    assert plan.reuse == 0 and plan.save_at == aligned(300)  # the prefix's own blocks (BOS + 300 bytes)
    prompts.start(plan, first, paper)
    assert prompts.store.holds(paper) == "memory" and llama.n_tokens == plan.save_at
    llama.eval(first[plan.save_at :])
    # Another preset: its prefix is evaluated and saved; then back to the first: loaded, not evaluated.
    second = llama.tokenize((other + "Question: two?").encode())
    prompts.start(prompts.plan(second, other), second, other)
    llama.eval(second[llama.n_tokens :])
    llama.batches.clear()
    back = llama.tokenize((paper + "Question: three?").encode())
    plan = prompts.plan(back, paper)
    assert plan.source == "memory" and plan.reuse == aligned(300) and plan.save_at == 0
    prompts.start(plan, back, paper)
    assert llama.batches == [] and llama.n_tokens == plan.reuse


def test_an_edited_prefix_reuses_nothing_after_the_edit(tmp_path: Path) -> None:
    llama, prompts = cache(tmp_path)
    paper = "P" * 300
    prompts.warm(paper)
    edited = "P" * 100 + "x" + "P" * 199  # one character changed at byte 100 (token 101 with BOS)
    tokens = llama.tokenize((edited + "Question: q?").encode())
    plan = prompts.plan(tokens, edited)
    assert plan.state is None and plan.reuse == 64 and plan.save_at == aligned(300)  # the block before the edit
    # Even a state saved under the edited prefix is not used when its tokens are not the prompt's (a state serves
    # only as a whole): the prefix is evaluated and saved again.
    prompts.store.put(edited, State(tuple(llama.tokenize(paper.encode()))[:256], b"kv"))
    llama.reset()
    plan = prompts.plan(tokens, edited)
    assert plan.state is None and plan.reuse == 0 and plan.save_at == aligned(300)


def test_a_prefix_the_context_holds_without_a_saved_state_gets_one(tmp_path: Path) -> None:
    llama, prompts = cache(tmp_path)
    prompts.warm("P" * 300)
    edited = "P" * 290 + "x" * 10  # the edit lies after the last whole block: every block is the old prefix's
    tokens = llama.tokenize((edited + "Question: q?").encode())
    plan = prompts.plan(tokens, edited)
    assert plan.reuse == plan.save_at == aligned(300) and plan.state is None
    prompts.start(plan, tokens, edited)
    assert prompts.store.get(edited)[0].tokens == tuple(tokens[: aligned(300)])
    assert prompts.plan(tokens, edited).save_at == 0


def test_warm_says_where_the_prefix_came_from(tmp_path: Path) -> None:
    llama, prompts = cache(tmp_path)
    progress: list[tuple[int, int]] = []
    assert prompts.warm("P" * 300, lambda done, total: progress.append((done, total))) == "evaluated"
    assert progress[-1] == (256, 256) and len(progress) == 4
    assert prompts.warm("P" * 300) == "context"
    prompts.warm("O" * 300)
    assert prompts.warm("P" * 300) == "memory"
    assert PromptCache(llama, prompts.positions, StateStore("m", tmp_path)).warm("P" * 300) == "context"
    llama.reset()
    assert PromptCache(llama, prompts.positions, StateStore("m", tmp_path)).warm("O" * 300) == "disk"
    assert prompts.warm("short") == ""  # less than a block: nothing to keep


def test_a_question_read_ahead_leaves_only_its_last_partial_block_to_the_call(tmp_path: Path) -> None:
    llama, prompts = cache(tmp_path)
    prefix = "P" * 300
    prompts.warm(prefix)
    likely = prefix + "Question: " + "q" * 100 + "?\nThought 1:"  # 423 tokens with BOS: ends inside the seventh block
    llama.batches.clear()
    assert prompts.read_ahead(likely) == aligned(423 - 1) - aligned(300) == 128
    # From the prefix's last whole block on, whole blocks only: the partial one is the call's, with its last token.
    assert llama.batches == [(256, 64), (320, 64)]
    assert prompts.store.get(prefix)[0].tokens == tuple(llama.tokenize(prefix.encode()))[: aligned(300)]
    assert prompts.read_ahead(likely) == 0  # read already
    asked = llama.tokenize(likely.encode())
    plan = prompts.plan(asked, prefix)
    assert plan.reuse == aligned(len(asked) - 1) == 384 and plan.state is None and plan.save_at == 0
    # Another question keeps what it has in common with the prompt read ahead: the prefix's whole blocks.
    other = llama.tokenize((prefix + "Question: something else entirely?\nThought 1:").encode())
    assert prompts.plan(other, prefix).reuse == aligned(300)


# -- speed -------------------------------------------------------------------------------------------------


def test_slow_when_live_generation_falls_under_half_the_normal_rate(tmp_path: Path) -> None:
    activity = Activity("gemma abc", tmp_path)
    assert activity.needs_normal() and activity.status().state == "idle"
    with activity.doing("generating"):
        for _ in range(WINDOW):
            activity.on_eval(1, 1 / 40)  # 40 tokens/s
        status = activity.status()
        assert status.state == "generating" and round(status.tokens_per_second) == 40 and not status.slow
    assert round(activity.normal["generating"]) == 40
    # A restart knows this machine's normal rate; another process holding the cores makes it slow.
    again = Activity("gemma abc", tmp_path)
    assert not again.needs_normal()
    with again.doing("reading"):
        again.on_eval(BLOCK, BLOCK / 500)
        for _ in range(WINDOW):
            again.on_eval(1, 1 / (40 * SLOW * 0.9))
        status = again.status()
    assert status.state == "generating" and status.slow and status.normal_tokens_per_second == pytest.approx(40)
    assert "the machine is busy" in status.describe() and "normally 40" in status.describe()
    assert round(again.normal["generating"]) == 40  # a slow spell never lowers the normal rate
    assert set(json.loads((tmp_path / "speed.json").read_text())) == {"gemma abc"}


# -- warm-up -------------------------------------------------------------------------------------------------


def test_a_warm_up_runs_once_per_prefix_and_reports_its_progress(tmp_path: Path) -> None:
    from react_core.providers import llama_warmup

    llama, prompts = cache(tmp_path)
    shared = SimpleNamespace(llama=llama, lock=threading.Lock(), prompts=prompts, activity=Activity("m", tmp_path))
    prompts.positions.listeners.append(shared.activity.on_eval)
    loaded = threading.Event()

    class Provider:
        model_path = tmp_path / "model.gguf"

        def prepare(self):
            assert loaded.wait(30)
            return shared

    provider = Provider()
    first = llama_warmup.start(provider, "P" * 300)
    assert llama_warmup.start(provider, "P" * 300) is first  # asked again while it runs: the same warm-up
    assert first.state == "loading" and not first.finished
    loaded.set()
    assert first.wait(30) and first.state == "warm" and first.source == "evaluated" and first.progress == 1.0
    assert first.tokens == aligned(300) and not shared.lock.locked()
    assert not shared.activity.needs_normal()  # the first warm-up measured this machine's generation
    again = llama_warmup.start(provider, "P" * 300)
    assert again is not first and again.wait(30) and again.source == "context"


def test_a_warm_up_that_cannot_load_the_model_says_why(tmp_path: Path) -> None:
    from react_core.providers.local import LocalProvider

    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a model")
    provider = LocalProvider(broken, on_progress=None)
    assert provider.status().state == "not loaded"
    warm = provider.warm("Instructions and examples")
    assert warm.wait(60) and warm.state == "failed" and "cannot load" in warm.error
