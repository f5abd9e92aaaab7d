"""``python -m react_core eval``: score a strategy on HotpotQA the way the paper did.

Prints ``EM 27.4  F1 36.2  n=500`` and writes one JSON line per question to ``--out`` (resumable).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from react_core.cli_options import add_run_options
from react_core.evaluation.strategies import PAPER_REACT_STEPS, PAPER_SC_SAMPLES, STRATEGIES


def register(sub: Any) -> None:
    p = sub.add_parser("eval", help="evaluate a strategy on HotpotQA (EM/F1 as in the ReAct paper)")
    p.add_argument("--dataset", required=True, nargs="+", help="HotpotQA JSON file(s) (distractor or simplified)")
    p.add_argument("--strategy", required=True, choices=STRATEGIES)
    p.add_argument("--out", required=True, help="results file (JSON lines); existing ids are skipped")
    p.add_argument("--limit", type=int, help="at most this many questions")
    p.add_argument("--indices", help="JSON list of dataset rows to use (e.g. the paper's 500)")
    p.add_argument("--concurrency", type=int, default=1, help="questions at once (hosted providers only)")
    p.add_argument("--rpm", type=float, default=60.0, help="model calls per minute for hosted providers")
    p.add_argument("--samples", type=int, default=PAPER_SC_SAMPLES, help="CoT-SC samples (the paper: 21)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_run_options(p)
    p.set_defaults(func=_cmd_eval)

    r = sub.add_parser("eval-report", help="a Markdown table of results files beside the paper's Table 1")
    r.add_argument("results", nargs="+", help="results files written by eval --out (one strategy each or mixed)")
    r.set_defaults(func=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from react_core.cli_options import UsageError
    from react_core.evaluation.report import markdown_table

    missing = [f for f in args.results if not Path(f).is_file()]
    if missing:
        raise UsageError(f"no such results file: {missing[0]}")
    print(markdown_table([Path(f) for f in args.results]))
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from react_core.cli_options import UsageError, settings_from_args
    from react_core.evaluation.data import load_indices, load_questions
    from react_core.evaluation.harness import evaluate
    from react_core.evaluation.strategies import EvalContext
    from react_core.settings import provider_for

    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.concurrency < 1 or args.samples < 1 or args.rpm <= 0:
        raise UsageError("--concurrency, --samples and --rpm must be positive")
    indices = load_indices(args.indices) if args.indices else None
    if indices is not None and len(args.dataset) > 1:
        raise UsageError("--indices selects rows of one dataset file; give a single --dataset")
    questions = [q for path in args.dataset for q in load_questions(path, indices=indices)][: args.limit]
    # The paper's agents had Search and Lookup only, and 7 steps.
    settings = settings_from_args(args, max_calls=PAPER_REACT_STEPS, tools=["search", "lookup"])
    settings.check()
    provider = provider_for(settings)
    if provider.hosted:
        from react_core.providers.rate_limit import RateLimited

        provider = RateLimited(provider, args.rpm)
    ctx = EvalContext(settings=settings, provider=provider, samples=args.samples)
    if args.preset:
        ctx.presets["react" if args.strategy not in ("act", "standard", "cot") else args.strategy] = args.preset
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=len(questions), file=sys.stderr, unit="q", desc=args.strategy)

    def on_progress(event: dict) -> None:
        if bar is None:
            return
        if event["kind"] == "start":
            bar.update(event["done"])
        elif event["kind"] == "result":
            bar.update(1)

    try:
        summary = evaluate(
            questions, args.strategy, ctx, args.out, concurrency=args.concurrency, on_progress=on_progress
        )
    finally:
        if bar is not None:
            bar.close()
    print(summary.line())
    return 0
