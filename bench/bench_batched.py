"""CoT-SC on the on-device model: its 21 samples of a question drawn one after another (today's default) and together
in one llama.cpp batch per token (``REACT_LLAMA_BATCH=1``, ``providers/llama_batch.py``), in the same run.

Each question runs the CoT-SC strategy itself (``run_strategy("cot-sc")``: the HotpotQA CoT preset, 21 samples at
temperature 0.7, at most 256 tokens each) both ways, with the model's seed set to the same value first, so both draw
the same 21 seeds. An untimed call first leaves the preset's prefix state saved, as any evaluation's first question
does. Reports the wall time of each way, the tokens written, how many batched samples have the text their seed gives
alone (a batch is not bit-exact with one sample: see llama_batch) and whether the two ways voted the same answer.
Writes the ``batched`` section of docs/benchmarks.md. Run: ``.venv/bin/python bench/bench_batched.py [--questions N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import table, write_section
from react_core.base.paths import shared_data_dir
from react_core.evaluation.strategies import (
    DEFAULT_PRESETS,
    PAPER_SC_SAMPLES,
    EvalContext,
    direct_request,
    run_strategy,
)
from react_core.loop.model_call import stream_completion
from react_core.loop.settings import RunSettings
from react_core.presets.store import PresetStore
from react_core.providers.local import LocalProvider

SEED = 1234


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=1, help="HotpotQA questions (the first N of the dev file)")
    parser.add_argument("--samples", type=int, default=PAPER_SC_SAMPLES)
    args = parser.parse_args()

    provider = LocalProvider(on_progress=None)
    llama = provider.llama
    source = shared_data_dir() / "hotpotqa" / "dev_distractor_first100.json"
    questions = [q["question"] for q in json.loads(source.read_text(encoding="utf-8"))[: args.questions]]
    preset = PresetStore("").load(DEFAULT_PRESETS["cot"])
    stream_completion(provider, direct_request(preset, questions[0], 0.0, provider.extra_stops))  # prefix state saved

    def cot_sc(question: str, batches: bool) -> tuple[float, list]:
        provider.batches = batches
        llama.set_seed(SEED)  # both ways draw the same seeds, each from the one before
        ctx = EvalContext(settings=RunSettings(provider="local"), provider=provider, samples=args.samples, export=None)
        started = time.perf_counter()
        outcome = run_strategy("cot-sc", question, ctx)
        return time.perf_counter() - started, outcome

    rows, totals, load = [], {"one": 0.0, "batch": 0.0}, os.getloadavg()[0]
    for number, question in enumerate(questions):
        if number % 2:  # alternate which way goes first: the machine's other work comes and goes
            batch_seconds, batch = cot_sc(question, batches=True)
            one_seconds, one = cot_sc(question, batches=False)
        else:
            one_seconds, one = cot_sc(question, batches=False)
            batch_seconds, batch = cot_sc(question, batches=True)
        totals["one"] += one_seconds
        totals["batch"] += batch_seconds
        seeds = [[s.call.body.get("seed") for s in o.trace.steps] for o in (one, batch)]
        same = sum(a.raw_output == b.raw_output for a, b in zip(one.trace.steps, batch.trace.steps, strict=True))
        written = [sum(s.usage.completion_tokens for s in o.trace.steps) for o in (one, batch)]
        rows.append(
            [
                number,
                f"{one_seconds:.1f} s ({written[0]} tokens)",
                f"{batch_seconds:.1f} s ({written[1]} tokens)",
                f"{one_seconds / batch_seconds:.1f}x",
                f"{same} of {len(one.trace.steps)}" + ("" if seeds[0] == seeds[1] else " (**seeds differ**)"),
                "yes" if one.trace.final_answer == batch.trace.final_answer else "no",
            ]
        )
        print(" | ".join(str(c) for c in rows[-1]), flush=True)
    headers = [
        "question", "one after another", "one batch (REACT_LLAMA_BATCH=1)", "speed-up",
        "batched samples with their seed's text alone", "same vote",
    ]  # fmt: skip
    body = table(headers, rows) + (
        f"\n\nCoT-SC ({args.samples} samples at temperature 0.7, at most 256 tokens each, the HotpotQA CoT preset) "
        f"of the first {len(questions)} question(s) of `{source.name}`, drawn one after another and then in one "
        f"batch, the model's seed set to {SEED} before each so that both draw the same seeds; the preset's prefix "
        f"state saved beforehand. In all: {totals['one']:.1f} s one after another, {totals['batch']:.1f} s batched "
        f"({totals['one'] / totals['batch']:.1f}x). Load average {load:.1f} at the start (1 minute), "
        f"{os.getloadavg()[0]:.1f} at the end; both ways ran back to back in the same process, which one first "
        "alternating from question to question (the goal, issue 34: the batch in at most a quarter of the time). "
        "A batched sample is not bit-exact with its seed drawn alone "
        "([On-device details](providers.md#on-device-details)): the column says how many still came out the same."
    )  # fmt: skip
    write_section("batched", "On-device model: CoT-SC's samples in one batch", body)


if __name__ == "__main__":
    main()
