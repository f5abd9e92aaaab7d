"""Prompt evaluation that a cold run reproduces bit for bit, and saved states of prompt prefixes.

llama.cpp computes a position's keys and values with kernels that depend on how many tokens it evaluates together (one
while generating, a short batch at the end of a prompt), so a call that reused whatever the cache held gave logits
that differ in their last digits from a fresh run of the same prompt, and sometimes another greedy token: "Copy as
Python" did not reproduce step 2 of a run. So every prompt is evaluated in blocks of ``BLOCK`` tokens aligned to
absolute positions (``n_batch = BLOCK``), and a call reuses the cache only up to a block boundary whose positions were
all computed that way: never positions written while generating, never a prompt's last, partial block. A fresh
``Llama(n_batch=BLOCK)`` evaluating the whole prompt then computes every position as the warm call did, and gives the
same logits (the model tests compare them bit for bit, and the thread count does not change them).

A restored state is reusable only as a whole: llama.cpp saves a sliding-window layer's keys and values only for the
positions still inside its window (Gemma 3: 512), so going on from an earlier position would attend to missing ones.

``Positions`` keeps that account for one context by watching every ``Llama.eval``, whoever calls it, and tells its
listeners of each block evaluated. ``StateStore``
keeps snapshots of a context that holds a prompt prefix (the instructions and examples before the question), in memory
(least recently used out beyond ``MEMORY_BYTES``) and on disk in ``paths.llama_states_dir()`` (beyond ``DISK_BYTES``,
same rule), keyed by the model file, the block, llama.cpp's version and the exact bytes of the prefix. A state carries
its tokens and serves only the tokens a prompt has in common with them, so an edited prompt never reuses a stale one.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Positions per block: a prompt's blocks are evaluated as batches of exactly this many tokens (the last one shorter).
# With 64, Gemma 3 270M reads a prompt within 10 % of llama.cpp's default (512) on 2 cores; 32 is 30 % slower.
BLOCK = 64
MEMORY_BYTES = 256 * 2**20  # about twenty prefixes of the paper's size (12 MB each)
DISK_BYTES = 1024 * 2**20
SUFFIX = ".kv"
_MAGIC = b"REACT-LAB-KV 1\n"

EvalListener = Callable[[int, float], None]  # (tokens evaluated in one batch, seconds)


def common_prefix(a: Sequence[int], b: Sequence[int], limit: int | None = None) -> int:
    n = min(len(a), len(b)) if limit is None else min(len(a), len(b), limit)
    same = 0
    while same < n and a[same] == b[same]:
        same += 1
    return same


def aligned(n: int, block: int = BLOCK) -> int:
    return max(0, n) // block * block


class Positions:
    """Which leading positions of one context hold keys and values computed as a cold run computes them.

    ``install`` wraps the model's ``eval`` and ``reset``: an evaluation rewrites every position from where it starts,
    and adds the full blocks it computes when it starts on a block boundary after nothing but such positions."""

    def __init__(self, llama: Any, block: int = BLOCK) -> None:
        if llama.n_batch != block:
            raise ValueError(f"the model must evaluate batches of {block} tokens (n_batch), not {llama.n_batch}")
        self.llama, self.block = llama, block
        self.canonical: list[int] = []
        # After a restore: the restored length, below which no evaluation may start (see the module's docstring).
        self.floor = 0
        self.listeners: list[EvalListener] = []

    def install(self) -> Positions:
        llama, evaluate, reset = self.llama, self.llama.eval, self.llama.reset

        def batch(tokens: Sequence[int]) -> None:
            start = llama.n_tokens
            del self.canonical[start:]
            if start == 0:
                self.floor = 0
            began = time.perf_counter()
            evaluate(tokens)
            seconds = time.perf_counter() - began
            if start == len(self.canonical) and start % self.block == 0:
                self.canonical.extend(list(tokens)[: aligned(len(tokens), self.block)])
            for listener in self.listeners:
                listener(len(tokens), seconds)

        def eval(tokens: Sequence[int]) -> None:
            # A block at a time, as llama.cpp batches them itself (n_batch == block: the same batches, the same
            # numbers), so the listeners hear a long prompt being read block by block, not once at its end.
            for at in range(0, len(tokens), self.block):
                batch(tokens[at : at + self.block])

        def forget() -> None:
            self.canonical.clear()
            self.floor = 0
            reset()

        llama.eval, llama.reset = eval, forget
        return self

    def reusable(self, tokens: Sequence[int]) -> int:
        """How many leading ``tokens`` the context may keep: what it has in common with them, all but the last token
        at most (its logits must be computed), down to a block boundary; nothing short of a restored state."""
        return self.keepable(common_prefix(self.canonical, tokens, len(tokens) - 1))

    def keepable(self, n: int) -> int:
        """The most of the first ``n`` canonical positions the context can keep: a block boundary, and either none or
        at least a restored state's length."""
        keep = aligned(min(n, len(self.canonical)), self.block)
        return keep if keep >= self.floor else 0

    def rewind(self, n: int) -> None:
        """Keep the first ``n`` positions (a block boundary of what ``reusable`` allows); the next evaluation starts
        there (``Llama.eval`` drops the rest of the cache first)."""
        if n % self.block or n > len(self.canonical) or 0 < n < self.floor:
            raise ValueError(f"cannot keep {n} positions: {len(self.canonical)} are reusable, by {self.block}")
        self.llama.n_tokens = n

    def evaluate(self, tokens: Sequence[int], start: int, end: int, on_block: Callable[[int], None] | None = None):
        """Evaluate ``tokens[start:end]`` after the first ``start`` positions, a block at a time."""
        self.rewind(start)
        for at in range(start, end, self.block):
            self.llama.eval(tokens[at : min(end, at + self.block)])
            if on_block:
                on_block(min(end, at + self.block))

    def snapshot(self, n: int) -> State:
        """The keys and values of the first ``n`` positions (a block boundary of the canonical ones). Whatever the
        context held after them is dropped."""
        import llama_cpp as lib

        self.rewind(n)
        del self.canonical[n:]
        ctx = self.llama._ctx.ctx
        lib.llama_memory_seq_rm(lib.llama_get_memory(ctx), -1, n, -1)
        size = lib.llama_state_seq_get_size(ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = lib.llama_state_seq_get_data(ctx, buffer, size, 0)
        return State(tuple(self.canonical), ctypes.string_at(buffer, written))

    def restore(self, state: State) -> None:
        """Make the context hold exactly ``state`` (what it held before is gone)."""
        import llama_cpp as lib

        ctx = self.llama._ctx.ctx
        lib.llama_memory_clear(lib.llama_get_memory(ctx), False)
        self.canonical.clear()
        self.llama.n_tokens = 0
        data = (ctypes.c_uint8 * len(state.data)).from_buffer_copy(state.data)
        if not lib.llama_state_seq_set_data(ctx, data, len(state.data), 0):
            lib.llama_memory_clear(lib.llama_get_memory(ctx), False)
            raise ValueError("llama.cpp refused the saved state")
        n = len(state.tokens)
        self.llama.input_ids[:n] = state.tokens
        self.llama.n_tokens = n
        self.llama._requires_eval = True  # no logits yet: the next call evaluates at least its last token
        self.canonical[:] = state.tokens
        self.floor = n


@dataclass(frozen=True)
class State:
    """A context's keys and values for ``tokens`` (llama.cpp's sequence state), every position canonical."""

    tokens: tuple[int, ...]
    data: bytes

    @property
    def nbytes(self) -> int:
        return len(self.data) + 4 * len(self.tokens)


def model_identity(path: Path, block: int = BLOCK, adapter: Path | None = None) -> str:
    """What a state depends on besides its prefix: the model file (path, size, modification time), its LoRA adapter
    (the same), the block and llama.cpp's version (its state format and kernels)."""
    import llama_cpp

    from react_core.providers.llama_support import extra_buffers_wanted

    def file(p: Path) -> list[Any]:
        stat = p.stat()
        return [str(p.resolve()), stat.st_size, stat.st_mtime_ns]

    fields = [*file(path), block, llama_cpp.__version__, extra_buffers_wanted()]
    return json.dumps(fields + ([file(adapter)] if adapter is not None else []))


class StateStore:
    """Saved prefix states: the most recent in memory, all of them (within a bound) on disk."""

    def __init__(
        self, identity: str, folder: Path | None, *, memory_bytes: int = MEMORY_BYTES, disk_bytes: int = DISK_BYTES
    ) -> None:
        self.identity, self.folder = identity, folder
        self.memory_bytes, self.disk_bytes = memory_bytes, disk_bytes
        self._memory: OrderedDict[str, State] = OrderedDict()
        self._lock = threading.Lock()

    def key(self, prefix: str) -> str:
        digest = hashlib.sha256(self.identity.encode("utf-8") + b"\0" + prefix.encode("utf-8"))
        return digest.hexdigest()

    def get(self, prefix: str) -> tuple[State, str] | None:
        """The state saved for exactly this prefix, and where it came from: "memory" or "disk"."""
        key = self.key(prefix)
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key], "memory"
        state = self._read(key)
        if state is None:
            return None
        self._remember(key, state)
        return state, "disk"

    def holds(self, prefix: str) -> str:
        """Where this prefix's state is ("memory", "disk") without loading it; '' when nowhere."""
        key = self.key(prefix)
        with self._lock:
            if key in self._memory:
                return "memory"
        return "disk" if self.folder and (self.folder / f"{key}{SUFFIX}").is_file() else ""

    def put(self, prefix: str, state: State) -> None:
        key = self.key(prefix)
        self._remember(key, state)
        self._write(key, state)

    def clear(self) -> None:
        """Forget every state, in memory and on disk (the files of every model in the folder)."""
        with self._lock:
            self._memory.clear()
        if self.folder and self.folder.is_dir():
            for file in self.folder.glob(f"*{SUFFIX}"):
                file.unlink(missing_ok=True)

    def _remember(self, key: str, state: State) -> None:
        with self._lock:
            self._memory[key] = state
            self._memory.move_to_end(key)
            while len(self._memory) > 1 and sum(s.nbytes for s in self._memory.values()) > self.memory_bytes:
                self._memory.popitem(last=False)

    def _write(self, key: str, state: State) -> None:
        """Atomically (written beside, then renamed); a disk that refuses only costs the next restart an evaluation."""
        if self.folder is None:
            return
        target = self.folder / f"{key}{SUFFIX}"
        partial = target.with_name(f".{key}.{os.getpid()}.{threading.get_ident()}.partial")
        header = json.dumps({"identity": self.identity, "key": key, "tokens": list(state.tokens)}).encode("utf-8")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(partial, "wb") as out:
                out.write(_MAGIC + len(header).to_bytes(8, "little") + header)
                out.write(state.data)
            os.replace(partial, target)
            self._prune()
        except OSError:
            pass
        finally:
            partial.unlink(missing_ok=True)

    def _read(self, key: str) -> State | None:
        if self.folder is None:
            return None
        path = self.folder / f"{key}{SUFFIX}"
        try:
            blob = path.read_bytes()
        except OSError:
            return None
        try:
            if not blob.startswith(_MAGIC):
                raise ValueError("not a state file")
            at = len(_MAGIC)
            size = int.from_bytes(blob[at : at + 8], "little")
            header = json.loads(blob[at + 8 : at + 8 + size])
            if header["identity"] != self.identity or header["key"] != key:
                raise ValueError("a state of another model or prefix")
            state = State(tuple(int(t) for t in header["tokens"]), blob[at + 8 + size :])
        except (ValueError, KeyError, TypeError):
            path.unlink(missing_ok=True)  # damaged or foreign: the next use evaluates the prefix again
            return None
        os.utime(path)  # recently used: the last to be pruned
        return state

    def _prune(self) -> None:
        files = []
        for file in self.folder.glob(f"*{SUFFIX}"):
            try:
                stat = file.stat()
            except OSError:
                continue
            files.append((stat.st_mtime, stat.st_size, file))
        files.sort(reverse=True)
        total = 0
        for index, (_, size, file) in enumerate(files):
            total += size
            if total > self.disk_bytes and index > 0:
                file.unlink(missing_ok=True)
