"""The on-device model's constrained steps: what the dialect's grammar costs per step, with llama-cpp-python's own
sampler (the grammar checks the whole 262,144-token vocabulary at every token) and with ours (``llama_grammar``:
the grammar is asked about the best token first, and constrains the whole vocabulary only when it refuses it).

For each text dialect, step 1 of one HotpotQA question with the dialect's preset, greedy, with the stop sequences a
run sends, after one untimed call that
leaves the prompt in llama.cpp's KV cache (so the figures are generation, not prompt reading): seconds and tokens per
second free, under llama-cpp-python's grammar sampler and under ours, and whether the two constrained texts are the
same (they must be). Writes the ``grammar`` section of docs/benchmarks.md.
Run: ``.venv/bin/python bench/bench_grammar.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import median, table, write_section
from bench.grammar_steps import SOURCE, TOOLS, dialect_steps, samplers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per dialect and sampler (median)")
    args = parser.parse_args()

    from llama_cpp import LlamaGrammar

    model = samplers()
    llama, ours, theirs = model.llama, model.ours, model.theirs

    def timed(text: str, stop: list[str], grammar: str | None, sampler) -> tuple[float, int, str]:
        model.use(sampler)
        options = {"max_tokens": 120, "temperature": 0.0, "stop": stop}
        llama.create_completion(text, max_tokens=1, temperature=0.0)  # the prompt into the KV cache
        runs = []
        for _ in range(args.repeats):
            extra = {"grammar": LlamaGrammar.from_string(grammar, verbose=False)} if grammar else {}
            started = time.perf_counter()
            out = llama.create_completion(text, **options, **extra)
            runs.append((time.perf_counter() - started, out["usage"]["completion_tokens"], out["choices"][0]["text"]))
        seconds = median([r[0] for r in runs])
        return seconds, runs[0][1], runs[0][2]

    rows, same_everywhere = [], True
    try:
        for step in dialect_steps():
            name, text, stop, grammar = step.name, step.text, step.stop, step.grammar
            free = timed(text, stop, None, ours)
            slow = timed(text, stop, grammar, theirs)
            fast = timed(text, stop, grammar, ours)
            same = slow[2] == fast[2]
            same_everywhere &= same
            rows.append(
                [
                    name,
                    f"{free[0]:.2f} s ({free[1] / free[0]:.0f} tok/s)",
                    f"{slow[0]:.2f} s ({slow[1] / slow[0]:.0f} tok/s)",
                    f"{fast[0]:.2f} s ({fast[1] / fast[0]:.0f} tok/s)",
                    f"{slow[0] / fast[0]:.1f}×",
                    "yes" if same else "**no**",
                ]
            )
            print(" | ".join(rows[-1]), flush=True)
    finally:
        model.restore()
    headers = [
        "dialect", "free step", "grammar, llama-cpp-python's sampler", "grammar, ours", "ours is faster by",
        "same text",
    ]  # fmt: skip
    body = table(headers, rows) + (
        f"\n\nStep 1 of HotpotQA `{SOURCE.name}` question 0 with each dialect's preset and the tools "
        f"{', '.join(TOOLS)}, greedy, the dialect's stop sequences, at most 120 tokens; median of {args.repeats} "
        "calls after one that leaves the prompt in the KV cache, so these are generation times. Tokens per second "
        "count the reply's tokens. "
        + ("The constrained texts were the same with both samplers in every dialect, as they must be."
           if same_everywhere else "**The constrained texts differed: a bug.**")
    )  # fmt: skip
    write_section("grammar", "On-device model: the cost of the grammar per step", body)


if __name__ == "__main__":
    main()
