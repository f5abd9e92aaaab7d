"""What the call inspector costs: bytes per run in an export and in the history store with every step's model call
recorded (compactly) beside the same runs without it and beside storing each step's whole prompt, for runs of 2, 8
and 20 steps; and the time to draw a step panel with its Model call section.

Run: ``.venv/bin/python bench/bench_calls.py`` (also part of ``make bench``); writes its section of
docs/benchmarks.md.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import median, table, write_section
from react_core.base import call_records
from react_core.base.trace import Observation, Trace
from react_core.history import SQLiteStore
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import load_preset
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.registry import Tool, ToolRegistry

THOUGHT = "I need to search the next entity and find the year it was founded, then compare the two years."
OBSERVATION = "Arthur's Magazine (1844–1846) was an American literary periodical published in Philadelphia. " * 5
SIZES = (2, 8, 20)


def run(steps: int) -> Trace:
    outputs = [f" {THOUGHT}\nAction {i}: Search[Entity number {i}]" for i in range(1, steps)]
    outputs.append(f" {THOUGHT}\nAction {steps}: Finish[1844]")
    tools = ToolRegistry([Tool("search", lambda q: Observation(text=OBSERVATION))])
    config = RunConfig(provider=ScriptedProvider(outputs), preset=load_preset("paper"), tools=tools, max_calls=steps)
    return Agent(config).run("Which magazine was started first, Arthur's Magazine or First for Women?")


def without_calls(trace: Trace) -> Trace:
    return Trace.from_dict({**trace.to_dict(), "steps": [{**s.to_dict(), "call": None} for s in trace.steps]})


def whole_prompts(trace: Trace) -> int:
    """Bytes if every step kept its whole request instead (the square of the steps)."""
    texts = call_records.CallTexts.of(trace.steps)
    return len(json.dumps(without_calls(trace).to_dict())) + sum(len(t.system) + len(t.prompt) for t in texts if t)


def stored_bytes(trace: Trace) -> int:
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(Path(folder) / "h.sqlite")
        run_id = store.save(trace)
        with store._read() as tx:  # the stored row: its JSON and its search text
            row = tx.rows("SELECT length(trace_json) + length(search_text) AS n FROM runs WHERE id = ?", (run_id,))
        return int(row[0]["n"])


def size_rows() -> tuple[list[list[object]], list[float]]:
    rows, exports = [], []
    for steps in SIZES:
        trace = run(steps)
        export = len(json.dumps(trace.to_dict(), ensure_ascii=False))
        before = len(json.dumps(without_calls(trace).to_dict(), ensure_ascii=False))
        rows.append(
            [
                steps,
                f"{before:,}",
                f"{export:,}",
                f"{whole_prompts(trace):,}",
                f"{stored_bytes(without_calls(trace)):,}",
                f"{stored_bytes(trace):,}",
            ]
        )
        exports.append(export)
    # What each further step adds to an export with calls: flat when storage is linear in the steps.
    marginal = [(b - a) / (n2 - n1) for a, b, n1, n2 in zip(exports, exports[1:], SIZES, SIZES[1:], strict=False)]
    return rows, marginal


RENDER = """
import sys, json
sys.path.insert(0, {root!r})
import streamlit as st
from react_core.base.trace import Trace
from ui.shared.render import render_steps
trace = json.loads(open({path!r}).read())
render_steps(trace, key="bench")
"""


def render_rows() -> list[list[object]]:
    from streamlit.testing.v1 import AppTest

    root = str(Path(__file__).resolve().parent.parent)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for label, trace in (("with its Model call", run(8)), ("without (an old run)", without_calls(run(8)))):
            path = Path(folder) / "trace.json"
            path.write_text(json.dumps(trace.to_dict()))
            times = []
            for _ in range(15):
                at = AppTest.from_string(RENDER.format(root=root, path=str(path)), default_timeout=60)
                started = time.perf_counter()
                at.run()
                times.append((time.perf_counter() - started) / len(trace.steps))
                assert not at.exception, at.exception
            rows.append([label, f"{median(times) * 1000:.1f}"])
    return rows


def main() -> None:
    body = (
        "Bytes per run of the paper preset (its prompt is about 5,600 characters), a five-sentence observation per "
        "step. *Export* is the JSON of `Trace.to_dict` (what `ask --json` prints and History exports); *stored* is "
        "the history row (trace JSON and search text). *Without calls* is the same run with no model call recorded "
        "(as runs were before the inspector); *whole prompt per step* is what storing each step's request in full "
        "would cost.\n\n"
    )
    rows, marginal = size_rows()
    body += table(
        [
            "steps",
            "export without calls",
            "export with calls",
            "whole prompt per step",
            "stored without calls",
            "stored with calls",
        ],
        rows,
    )
    body += (
        f"\n\nEach further step adds {marginal[0]:,.0f} bytes to an export between 2 and 8 steps and "
        f"{marginal[1]:,.0f} between 8 and 20: linear in the steps (the system prompt is stored once; each call "
        "keeps only its new text, parameters and timings), where whole prompts grow as their square.\n\n"
        "Time to draw one step panel (AppTest, median of 15 draws of an 8-step run, per panel):\n\n"
    )
    body += table(["step panel", "ms per panel"], render_rows())
    write_section("calls", "Call inspector: storage and drawing", body)


if __name__ == "__main__":
    main()
