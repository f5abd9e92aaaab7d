"""The in-process on-device model shared by several sessions, without the app: is the model or its lock the limit?

Five first steps of five HotpotQA questions through ``LocalProvider.stream`` (the paper preset, greedy, under the
grammar), as five chat sessions send them: one after another, then from five threads at once (they queue at the
model's lock). Then one step again while N Python threads each keep the interpreter busy for 40 ms every 0.3 s, a
stand-in for N pages redrawing their live turn (the chat's fragment runs every 0.3 s): the model's per-token work
needs Python's interpreter lock between its calls into llama.cpp. Writes the ``queue`` section of
docs/benchmarks.md; ``bench_load.py`` has the same sessions in real browsers.
Run: ``.venv/bin/python bench/bench_model_queue.py``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import table, write_section
from react_core.base.paths import shared_data_dir
from react_core.dialects import DIALECTS
from react_core.presets.preset import Preset, load_preset
from react_core.presets.render import render_prefix, render_question
from react_core.providers.base import CompletionRequest
from react_core.providers.local import LocalProvider

SESSIONS = 5
TOOLS = ["search", "lookup", "calculator"]
BUSY_MS, EVERY_S = 40, 0.3


def main() -> None:
    source = shared_data_dir() / "hotpotqa" / "dev_distractor_first100.json"
    questions = [row["question"] for row in json.loads(source.read_text(encoding="utf-8"))[:SESSIONS]]
    f = DIALECTS["paper"]
    preset = load_preset(Preset.default_for("paper"))
    provider = LocalProvider(on_progress=None)
    provider.prepare()

    def step(question: str, took: list[float]) -> None:
        request = CompletionRequest(
            system=render_prefix(preset, TOOLS),
            prompt=render_question(preset, question) + f.step_prefix(1),
            stop=tuple(f.stop),
            grammar=f.grammar(TOOLS, 1),
        )
        started = time.perf_counter()
        for _chunk in provider.stream(request):
            pass
        took.append(time.perf_counter() - started)

    step(questions[0], [])  # the few-shot prompt into llama.cpp's KV cache, as after a warm-up turn
    rows = []

    took: list[float] = []
    started = time.perf_counter()
    for question in questions:
        step(question, took)
    rows.append([f"{SESSIONS} steps one after another", f"{time.perf_counter() - started:.1f}", _each(took)])

    took = []
    threads = [threading.Thread(target=step, args=(q, took)) for q in questions]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    at_once = time.perf_counter() - started
    rows.append([f"{SESSIONS} steps from {SESSIONS} threads at once", f"{at_once:.1f}", _each(took)])

    for busy in (0, 5, 20):
        took = []
        with _busy_threads(busy):
            step(questions[0], took)
        label = f"1 step beside {busy} busy Python threads" if busy else "1 step alone"
        rows.append([label, f"{took[0]:.1f}", ""])

    body = table(["what", "seconds in all", "each step, s (in order of finishing)"], rows) + (
        f"\n\nFirst steps of `{source.name}` questions 0–{SESSIONS - 1}, the paper preset, tools "
        f"{', '.join(TOOLS)}, greedy under the grammar, after one step that leaves the few-shot prompt in the KV "
        f"cache. A busy thread runs Python for {BUSY_MS} ms every {EVERY_S} s. Read with the load section, where "
        "five browser sessions share this model through the app."
    )
    write_section("queue", "On-device model: five sessions' calls without the app", body)


def _each(took: list[float]) -> str:
    return ", ".join(f"{t:.1f}" for t in sorted(took))


class _busy_threads:
    """N threads that each hold Python's interpreter lock in bursts, like pages redrawing a live turn."""

    def __init__(self, n: int) -> None:
        self.n, self.stop, self.threads = n, threading.Event(), []

    def _run(self) -> None:
        while not self.stop.is_set():
            end = time.perf_counter() + BUSY_MS / 1000
            while time.perf_counter() < end:
                pass
            self.stop.wait(EVERY_S - BUSY_MS / 1000)

    def __enter__(self) -> None:
        self.threads = [threading.Thread(target=self._run) for _ in range(self.n)]
        for t in self.threads:
            t.start()

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()


if __name__ == "__main__":
    main()
