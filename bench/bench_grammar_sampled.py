"""The on-device model's sampled steps under a grammar (temperature 0.7, as CoT-SC and Regenerate sample): time per
token with llama-cpp-python's sampler (the grammar checks the whole vocabulary at every token, before the draw) and
with ours (``llama_grammar.SampledUnderGrammar``: draw, ask the grammar about the drawn token, constrain everything
only when it refuses), against a greedy step under the grammar with ours (the goal, issue 34: within 1.2x of it).

For each text dialect, step 1 of one HotpotQA question with the dialect's preset and the stop sequences a run sends,
after one untimed call that leaves the prompt in llama.cpp's KV cache (so the figures are generation, not prompt
reading); seeds 1..N, the same for both samplers. The two samplers draw differently for the same seed (see
llama_grammar), so the texts are not compared; each text must parse as the dialect. Writes the ``grammar-sampled``
section of docs/benchmarks.md. Run: ``.venv/bin/python bench/bench_grammar_sampled.py [--seeds N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import median, table, write_section
from bench.grammar_steps import SOURCE, TOOLS, dialect_steps, samplers

TEMPERATURE = 0.7


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="timed calls per dialect and sampler (median)")
    args = parser.parse_args()

    from llama_cpp import LlamaGrammar

    model = samplers()
    llama, ours, theirs = model.llama, model.ours, model.theirs

    def per_token(text: str, stop: list[str], grammar: str, sampler, temperature: float) -> tuple[float, list[str]]:
        """Median seconds per generated token over the seeds, and the texts."""
        model.use(sampler)
        llama.create_completion(text, max_tokens=1, temperature=0.0)  # the prompt into the KV cache
        times, texts = [], []
        for seed in range(1, args.seeds + 1):
            options = {"max_tokens": 120, "temperature": temperature, "stop": stop, "seed": seed}
            started = time.perf_counter()
            out = llama.create_completion(text, grammar=LlamaGrammar.from_string(grammar, verbose=False), **options)
            times.append((time.perf_counter() - started) / max(1, out["usage"]["completion_tokens"]))
            texts.append(out["choices"][0]["text"])
        return median(times), texts

    rows, all_parse = [], True
    try:
        for step in dialect_steps():
            name, f, text, stop, grammar = step.name, step.dialect, step.text, step.stop, step.grammar
            greedy, _ = per_token(text, stop, grammar, ours, 0.0)
            slow, slow_texts = per_token(text, stop, grammar, theirs, TEMPERATURE)
            fast, fast_texts = per_token(text, stop, grammar, ours, TEMPERATURE)
            parse = all(f.parse(t).error is None for t in slow_texts + fast_texts)
            all_parse &= parse
            rows.append(
                [
                    name,
                    f"{greedy * 1000:.0f} ms",
                    f"{slow * 1000:.0f} ms ({slow / greedy:.1f}x)",
                    f"{fast * 1000:.0f} ms ({fast / greedy:.1f}x)",
                    "yes" if parse else "**no**",
                ]
            )
            print(" | ".join(rows[-1]), flush=True)
    finally:
        model.restore()
    headers = [
        "dialect", "greedy, ours", f"t={TEMPERATURE}, llama-cpp-python's sampler", f"t={TEMPERATURE}, ours",
        "every text parses",
    ]  # fmt: skip
    body = table(headers, rows) + (
        f"\n\nTime per generated token (median over seeds 1 to {args.seeds}) of step 1 of HotpotQA `{SOURCE.name}` "
        f"question 0 with each dialect's preset and the tools {', '.join(TOOLS)}, the dialect's grammar and stop "
        "sequences, at most 120 tokens, after a call that leaves the prompt in the KV cache. In brackets: against "
        "greedy decoding under the grammar (the goal: ours within 1.2x). "
        + ("Every sampled text parsed as its dialect." if all_parse else "**A sampled text did not parse: a bug.**")
    )  # fmt: skip
    write_section("grammar-sampled", "On-device model: sampled steps under the grammar", body)


if __name__ == "__main__":
    main()
