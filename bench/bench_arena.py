"""The arena's wall time: the paper's Figure 1 (Standard, CoT, Act, ReAct) as four columns at once, against the same
four runs one after another.

Every column has its own scripted provider with a fixed delay per model call, a stand-in for a hosted API's latency:
Standard and CoT make one call, Act and ReAct three (two Calculator steps and Finish). Hosted columns should overlap,
so the arena should take about as long as its slowest column (the aim: under 1.3x). Then the same columns with
providers that hold one shared lock for each whole call, as the on-device model does (one model, one call at a time):
the arena then costs about the sum of the columns, which is what the lock costs. Last, the same four columns on the
on-device model itself (one model call each, a question of the offline pack), once: the real lock, with the real
model's time per call. Writes the ``arena`` section of docs/benchmarks.md. Run: ``.venv/bin/python
bench/bench_arena.py`` (``--scripted-only`` skips the on-device row, which takes a few minutes on 2 cores).
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import table, write_section
from react_core.evaluation.arena import Arena, Variant
from react_core.knowledge.default_pack import ensure_default_pack
from react_core.loop.settings import RunSettings
from react_core.providers.base import Chunk, CompletionRequest
from react_core.providers.scripted import ScriptedProvider

DELAY = 0.2  # seconds per model call
REPEATS = 3
Q = "What is 6 * 7?"
ON_DEVICE_Q = "Were Scott Derrickson and Ed Wood of the same nationality?"  # in the offline pack
SCRIPTS = [
    [" 42\n"],
    [" Six sevens.\nAnswer: 42\n"],
    [" Calculator[6 * 7]", " Calculator[42 + 0]", " Finish[42]"],
    [" Multiply.\nAction 1: Calculator[6 * 7]", " Check.\nAction 2: Calculator[42 + 0]", " So.\nAction 3: Finish[42]"],
]
SETTINGS = RunSettings(provider="scripted", tools=["calculator"], max_calls=4)


class OneModel(ScriptedProvider):
    """A scripted provider whose calls hold one lock shared by every column: the on-device model's way."""

    def __init__(self, outputs, lock: threading.Lock) -> None:
        super().__init__(outputs, delay=DELAY)
        self.lock = lock

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        with self.lock:
            yield from super().stream(request)


def variants(lock: threading.Lock | None) -> list[Variant]:
    out = Variant.figure_one(SETTINGS, max_calls=SETTINGS.max_calls)
    for v, script in zip(out, SCRIPTS, strict=True):
        v.provider = OneModel(script, lock) if lock else ScriptedProvider(script, delay=DELAY)
    return out


def timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def measure(lock: threading.Lock | None) -> tuple[float, float, float]:
    """(arena wall time, the four columns one after another, the slowest column alone): medians of REPEATS."""
    arena, serial, slowest = [], [], []
    for _ in range(REPEATS):
        columns = []
        for v in variants(lock):
            # One column on its own: an arena of it and a column that answers at once (no delay) beside it.
            quick = Variant("standard", SETTINGS, provider=ScriptedProvider([" 42\n"]))
            columns.append(timed(lambda v=v, quick=quick: Arena(Q, [v, quick]).run()))
        serial.append(sum(columns))
        slowest.append(max(columns))
        four = Arena(Q, variants(lock))
        arena.append(timed(four.run))
        results = four.results
        assert [r.trace.stop_reason for r in results] == ["finished"] * 4, [r.trace.error for r in results]
    return statistics.median(arena), statistics.median(serial), statistics.median(slowest)


def measure_on_device() -> tuple[float, float, float]:
    """The four columns on the on-device model, one call each (max_calls 1), once: (arena, one after another,
    slowest column). Each column runs once untimed first, so neither figure includes loading the model or a prompt's
    prefix (measured the other way, the first pass paid for both and the arena looked faster than the lock allows)."""
    pack = ensure_default_pack()
    assert pack is not None, "the offline pack could not be built from the shared data"
    settings = RunSettings(provider="local", knowledge=f"pack:{pack}", max_calls=1)
    question = ON_DEVICE_Q

    def alone(v: Variant) -> float:
        quick = Variant("standard", SETTINGS, provider=ScriptedProvider([" 42\n"]))
        return timed(lambda: Arena(question, [v, quick]).run())

    def one_call_each() -> list[Variant]:  # not the paper's 7: every column's time is one model call
        return Variant.figure_one(settings, max_calls=1)

    for v in one_call_each():  # untimed: loads the model and each prompt's saved prefix state, for both figures
        alone(v)
    columns = [alone(v) for v in one_call_each()]
    four = Arena(question, one_call_each())
    arena = timed(four.run)
    assert all(r.trace.error is None for r in four.results), [r.trace.error for r in four.results]
    return arena, sum(columns), max(columns)


def row(name: str, arena: float, serial: float, slowest: float) -> list[str]:
    return [name, f"{arena:.2f} s", f"{serial:.2f} s", f"{slowest:.2f} s", f"{arena / slowest:.2f}x"]


def main() -> None:
    rows = []
    for name, lock in (("scripted, hosted (calls overlap)", None), ("scripted, one lock", threading.Lock())):
        rows.append(row(name, *measure(lock)))
    if "--scripted-only" not in sys.argv:
        rows.append(row("on-device model, 1 call a column", *measure_on_device()))
    body = (
        f"Figure 1's four columns (Standard 1 call, CoT 1, Act 3, ReAct 3) with scripted providers that take "
        f"{DELAY} s per call; medians of {REPEATS}. *One after another* is the four columns' times added up, "
        "*slowest column* the longest of them alone. The arena's aim with hosted providers is under 1.3x the slowest "
        "column; with the on-device model's lock the columns take turns call by call, so the arena costs about the "
        "sum (what the lock costs), while a hosted column beside it would still overlap. The last row, when present, "
        "runs the same four columns on the on-device model itself (one model call each: Max model calls 1, a "
        "question of the offline pack), once, after an untimed pass that loads the model and each prompt's prefix: "
        "its real lock and its real time per call, which depends on how busy the machine's cores are.\n\n"
        + table(["providers", "arena", "one after another", "slowest column", "arena / slowest"], rows)
    )
    write_section("arena", "Arena: four columns at once vs one after another", body)


if __name__ == "__main__":
    main()
