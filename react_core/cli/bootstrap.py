"""``python -m react_core bootstrap``: build few-shot examples from runs that were right and grounded, try candidate
sets on dev questions, and write the best as a new preset TOML file (``react_core.evaluation.bootstrap``).

The run options (``--provider``, ``--model``, ``--knowledge`` …) name the student, the model the prompt is for; the
``--teacher-*`` options name the model that writes the trajectories, when another (e.g. a hosted model teaching the
on-device one). Prints what it wrote, with the dev scores; exits 1 when no trajectory qualified, 2 on a bad option.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from react_core.cli.options import add_run_options
from react_core.evaluation.strategies import PAPER_REACT_STEPS, PAPER_TOOLS


def register(sub: Any) -> None:
    p = sub.add_parser("bootstrap", help="few-shot examples from right and grounded runs, the best set on dev")
    p.add_argument("--dataset", required=True, help="a HotpotQA JSON file or your own .csv / .jsonl question set")
    p.add_argument("--train", type=int, required=True, help="the first N questions: the teacher runs them")
    p.add_argument("--dev", type=int, required=True, help="the next M questions: each candidate set is scored on them")
    p.add_argument("--from", dest="start", required=True, help="the starting preset (name or .toml path)")
    p.add_argument("--k", type=int, default=3, help="examples per candidate set (default 3)")
    p.add_argument("--candidates", type=int, default=8, help="candidate sets to try (default 8)")
    p.add_argument("--seed", type=int, default=0, help="the seed that draws the candidate sets (default 0)")
    p.add_argument("--out", required=True, help="the new preset, a .toml file")
    p.add_argument("--work", help="the folder of the phases' results files (default: OUT without .toml + .bootstrap)")
    from react_core.providers import PROVIDERS

    p.add_argument("--teacher-provider", choices=PROVIDERS, help="the teacher's provider (default: the student's)")
    p.add_argument("--teacher-model", help="the teacher's model")
    p.add_argument("--teacher-base-url", help="the teacher's API base URL")
    p.add_argument("--teacher-model-path", help="the teacher's GGUF file (local provider)")
    p.add_argument("--teacher-script", help="the teacher's script (scripted provider)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_run_options(p)
    p.set_defaults(func=_cmd_bootstrap)


def plan_from_args(args: argparse.Namespace) -> Any:
    from react_core.cli.options import UsageError, settings_from_args
    from react_core.evaluation.bootstrap import BootstrapPlan

    if args.dialect or args.preset:
        raise UsageError("bootstrap starts from --from PRESET; give no --dialect or --preset")
    student = settings_from_args(args)
    teacher = None
    given = {
        "provider": args.teacher_provider,
        "model": args.teacher_model,
        "base_url": args.teacher_base_url,
        "model_path": args.teacher_model_path,
        "script": args.teacher_script,
    }
    given = {k: v for k, v in given.items() if v}
    if given:  # another provider starts from its own defaults; the same one keeps the student's other options
        other = given.get("provider", student.provider) != student.provider
        reset = {"model": "", "base_url": "", "model_path": "", "script": ""} if other else {}
        teacher = student.updated(**{**reset, **given})
    return BootstrapPlan(
        dataset=args.dataset,
        start=args.start,
        out=args.out,
        settings=student,
        teacher=teacher,
        train=args.train,
        dev=args.dev,
        k=args.k,
        candidates=args.candidates,
        seed=args.seed,
        work_dir=args.work or "",
        max_calls=args.max_calls or PAPER_REACT_STEPS,
        tools=list(student.tools) if args.tools is not None else list(PAPER_TOOLS),
        temperature=args.temperature,
        sentences=args.sentences,
    )


def _cmd_bootstrap(args: argparse.Namespace) -> int:

    plan = plan_from_args(args)
    bar: Any = None

    def on_progress(event: dict) -> None:
        nonlocal bar
        if event["kind"] == "phase":
            print(f"{event['phase']}…", file=sys.stderr, flush=True)
        if args.no_progress:
            return
        if event["kind"] == "start":
            from tqdm import tqdm

            if bar is not None:
                bar.close()
            bar = tqdm(total=event["total"], initial=event["done"], file=sys.stderr, unit="q", desc=event["phase"])
        elif event["kind"] == "result" and bar is not None:
            bar.update(1)

    try:
        result = plan.run(on_progress=on_progress)
    except KeyboardInterrupt:
        print(f"Stopped: run the same command to resume ({plan.folder}).", file=sys.stderr)
        raise
    finally:
        if bar is not None:
            bar.close()
    print(result.message)
    return 1 if result.out is None else 0
