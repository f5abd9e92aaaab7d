"""What the on-device model is doing, and how fast against how fast it normally runs on this machine.

Another process holding the cores slows llama.cpp down several times over, and a person waiting cannot tell that from
a hang. ``Activity`` hears every batch the model evaluates (``llama_states.Positions`` reports them): generating (one
token a batch) and reading a prompt (whole blocks) are timed apart, each over its last ``WINDOW`` tokens. The normal
rate of each is the best this model has shown with these threads on this machine, kept in a small file beside the
saved states so a restart knows it (the first warm-up measures generation when it is unknown). ``Status.slow`` says
the live rate is under ``SLOW`` times the normal one. ``evaluated`` counts every token evaluated, by any call: the
progress a call's deadline watches (``LocalProvider.progress``).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

WINDOW = 16  # tokens a live rate is measured over
SLOW = 0.5  # live ÷ normal below this: the machine is busy
RECENT = 3.0  # seconds: a rate older than this is no longer live
NORMAL_FILE = "speed.json"


@dataclass(frozen=True)
class Status:
    """A snapshot for a status line. ``state``: "idle", "loading", "warming" (reading a prompt prefix in advance),
    "reading" (a question's prompt) or "generating"; the rates in tokens per second (None when not measured)."""

    state: str
    tokens_per_second: float | None = None  # live: generating, or reading while reading or warming
    normal_tokens_per_second: float | None = None  # the same activity's normal rate here
    slow: bool = False
    warming_progress: float | None = None  # 0..1 while warming

    def describe(self) -> str:
        """One line for a person, e.g. "generating at 9.1 tokens/s (normally 38): the machine is busy"."""
        line = self.state
        if self.tokens_per_second is not None:
            line += f" at {self.tokens_per_second:.1f} tokens/s"
            if self.normal_tokens_per_second:
                line += f" (normally {self.normal_tokens_per_second:.0f})"
        return line + (": the machine is busy" if self.slow else "")


class Rate:
    """Tokens per second over the last ``WINDOW`` tokens of one kind of batch."""

    def __init__(self) -> None:
        self._batches: deque[tuple[float, int, float]] = deque()  # (ended, tokens, seconds)

    def add(self, tokens: int, seconds: float, now: float) -> None:
        self._batches.append((now, tokens, seconds))
        while len(self._batches) > 1 and sum(b[1] for b in self._batches) - self._batches[0][1] >= WINDOW:
            self._batches.popleft()

    def live(self, now: float) -> float | None:
        """The rate if the window is full and its last batch recent."""
        if not self._batches or now - self._batches[-1][0] > RECENT:
            return None
        return self.full()

    def full(self) -> float | None:
        tokens = sum(b[1] for b in self._batches)
        seconds = sum(b[2] for b in self._batches)
        return tokens / seconds if tokens >= WINDOW and seconds > 0 else None

    def clear(self) -> None:
        self._batches.clear()


class Activity:
    def __init__(self, key: str, folder: Path | None) -> None:
        self.key, self.folder = key, folder
        self.state = "idle"
        self.warming_progress: float | None = None
        self.generating, self.reading = Rate(), Rate()
        self.evaluated = 0
        self.normal = self._load()
        self._lock = threading.Lock()

    def on_eval(self, tokens: int, seconds: float) -> None:
        now = time.monotonic()
        with self._lock:
            self.evaluated += tokens
            (self.generating if tokens == 1 else self.reading).add(tokens, seconds, now)
            if tokens == 1 and self.state == "reading":
                self.state = "generating"

    def on_batch(self, tokens: int, seconds: float, sampling: bool) -> None:
        """A batch of several samples decoded (``llama_batch``): its prompt blocks are reading; its sampled tokens,
        one per sample, count as progress but not in a rate (a step of 21 tokens is no single sample's speed)."""
        if not sampling:
            self.on_eval(tokens, seconds)
            return
        with self._lock:
            self.evaluated += tokens
            if self.state == "reading":
                self.state = "generating"

    @contextmanager
    def doing(self, state: str) -> Iterator[None]:
        """The model is busy with ``state`` for the block; the best full-window rates seen become the normal ones."""
        with self._lock:
            previous, self.state = self.state, state
            self.generating.clear()
            self.reading.clear()
        try:
            yield
        finally:
            with self._lock:
                self.state, self.warming_progress = previous, None
                self._settle()

    def needs_normal(self) -> bool:
        return "generating" not in self.normal

    def status(self) -> Status:
        now = time.monotonic()
        with self._lock:
            kind = "generating" if self.state == "generating" else "reading"
            live = (self.generating if kind == "generating" else self.reading).live(now)
            normal = self.normal.get(kind)
            if self.state in ("idle", "loading"):
                live = None
            slow = live is not None and normal is not None and live < SLOW * normal
            return Status(self.state, live, normal, slow, self.warming_progress)

    def _settle(self) -> None:
        changed = False
        for kind, rate in (("generating", self.generating), ("reading", self.reading)):
            value = rate.full()
            if value is not None and value > self.normal.get(kind, 0.0):
                self.normal[kind] = value
                changed = True
        if changed:
            self._save()

    def _file(self) -> Path | None:
        return self.folder / NORMAL_FILE if self.folder else None

    def _load(self) -> dict[str, float]:
        file = self._file()
        try:
            known = json.loads(file.read_text(encoding="utf-8")) if file else {}
            return {k: float(v) for k, v in known.get(self.key, {}).items() if k in ("generating", "reading")}
        except (OSError, ValueError, AttributeError, TypeError):
            return {}

    def _save(self) -> None:
        file = self._file()
        if file is None:
            return
        try:
            known = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
        except (OSError, ValueError):
            known = {}
        known = known if isinstance(known, dict) else {}
        known[self.key] = dict(self.normal)
        partial = file.with_name(f".{file.name}.{os.getpid()}.{threading.get_ident()}.partial")
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            partial.write_text(json.dumps(known, indent=1), encoding="utf-8")
            os.replace(partial, file)
        except OSError:
            partial.unlink(missing_ok=True)
