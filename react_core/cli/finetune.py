"""``python -m react_core finetune``: teach the on-device model a method from trajectories (the paper's Figure 3).

``--recipe`` names the recipe to start from (``v1``, the first shipped adapter's, by default; ``v2`` adds trajectories
that miss a Search and recover, and ones that answer from what they read, over 3 epochs; the shipped adapter's is
``recipe.SHIPPED``'s, named in ``--help``); the options below change it.
Gold trajectories are written from HotpotQA files with supporting facts (``--gold``, default the shared 996 train
questions); ``--from-history`` adds your right and grounded runs; ``--teacher PROVIDER[:MODEL]`` with
``--teacher-questions`` adds a teacher's right and grounded runs (the paper's recipe, with a hosted key). The adapter is
written into the run's folder (``--out``, resumable: the same command goes on where it stopped) with its manifest;
``--export-chat`` / ``--export-instructions`` also write the examples as standard fine-tuning files. Training needs
the training environment (``make finetune-env``). Exits 0 with the adapter written, 3 when stopped, 2 on a bad option.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

from react_core.providers.adapters import DEFAULT_ADAPTER
from react_core.training.recipe import SHIPPED, Recipe

STOPPED = 3
SHIPPED_RECIPE = Recipe.name_of(SHIPPED[DEFAULT_ADAPTER])  # the recipe that made the on-device default


def _each(field: str) -> str:
    """Each named recipe's value of ``field``, for a default the help states (``v1 all, …, v4 600``; 0: all)."""
    return ", ".join(f"{name} {getattr(r, field) or 'all'}" for name, r in Recipe.ALL.items())


def register(sub: Any) -> None:
    p = sub.add_parser("finetune", help="teach the on-device model a method from trajectories (LoRA, on the CPU)")
    p.add_argument(
        "--recipe",
        choices=list(Recipe.ALL),
        default="v1",
        help=f"the recipe to start from, v1 by default (the shipped adapter is {SHIPPED_RECIPE}'s: docs/finetune.md; "
        "the options below change it): " + "; ".join(f"{name}, {recipe.note}" for name, recipe in Recipe.ALL.items()),
    )
    p.add_argument("--method", choices=list(Recipe.METHODS), help="what to learn (default: the recipe's, react)")
    p.add_argument(
        "--gold",
        nargs="*",
        help="HotpotQA files with supporting facts to write gold trajectories from (default: the recipe's, the shared "
        "996 train questions; none: --gold with no file)",
    )
    p.add_argument(
        "--limit",
        type=int,
        help=f"at most this many gold questions, 0 for all (default: the recipe's: {_each('limit')})",
    )
    p.add_argument("--from-history", action="store_true", help="add your right and grounded runs from History")
    p.add_argument("--teacher", metavar="PROVIDER[:MODEL]", help="a teacher answers --teacher-questions first")
    p.add_argument("--teacher-questions", help="the question set the teacher answers (HotpotQA, .csv or .jsonl)")
    p.add_argument("--teacher-limit", type=int, help="at most this many teacher questions")
    p.add_argument("--out", type=Path, help="the run's folder (default: one per recipe in the data folder)")
    p.add_argument("--title", default="", help="what the app calls the adapter")
    p.add_argument("--base-model", type=Path, help="the GGUF model to adapt (default: the packaged Gemma 3 270M)")
    p.add_argument("--rank", type=int, help="LoRA rank (default: the recipe's, 16)")
    p.add_argument("--alpha", type=int, help="LoRA alpha (default: the recipe's, 32)")
    p.add_argument(
        "--epochs",
        type=int,
        help=f"passes over the data (default: the recipe's: {_each('epochs')})",
    )
    p.add_argument("--batch", type=int, help="examples a step (default: the recipe's, 8)")
    p.add_argument("--lr", type=float, help="peak learning rate (default: the recipe's, 2e-4)")
    p.add_argument("--seed", type=int, help="the seed: order, initial adapter, which questions miss (default 0)")
    p.add_argument(
        "--bf16", action="store_true", default=None, help="compute in bfloat16 (faster on CPUs with it; not exact)"
    )
    p.add_argument("--export-chat", type=Path, help="also write the examples as chat messages (JSON Lines)")
    p.add_argument("--export-instructions", type=Path, help="also write them as instruction/output records (JSON)")
    p.add_argument("--no-train", action="store_true", help="write trajectories and exports only")
    p.set_defaults(func=_cmd_finetune)


def plan_from_args(args: argparse.Namespace) -> Any:
    from react_core.cli.options import UsageError
    from react_core.training.finetune import FinetunePlan

    options = {
        "method": args.method,
        "gold": None if args.gold is None else tuple(args.gold),
        "limit": args.limit,
        "rank": args.rank,
        "alpha": args.alpha,
        "epochs": args.epochs,
        "batch": args.batch,
        "learning_rate": args.lr,
        "seed": args.seed,
        "bf16": args.bf16,
    }
    recipe = Recipe.ALL[args.recipe].updated(**{k: v for k, v in options.items() if v is not None})
    if bool(args.teacher) != bool(args.teacher_questions):
        raise UsageError("--teacher and --teacher-questions go together")
    history = None
    if args.from_history:
        from react_core.history import open_history

        history = open_history()
    return FinetunePlan(
        recipe=recipe,
        out=args.out,
        title=args.title,
        base_model=args.base_model,
        history=history,
        export_chat=args.export_chat,
        export_instructions=args.export_instructions,
    )


def _teacher(args: argparse.Namespace, plan: Any) -> list[Any]:
    from react_core.loop.settings import RunSettings
    from react_core.providers.choice import ModelChoice
    from react_core.training.sources import from_teacher

    base = RunSettings.from_env()
    settings = base.updated(**ModelChoice.parse(args.teacher).changes(base.to_dict()))
    folder = plan.folder / "teacher"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"teacher: {args.teacher} answers {args.teacher_questions}…", file=sys.stderr, flush=True)
    return from_teacher(args.teacher_questions, settings, folder, method=args.method, limit=args.teacher_limit)


def _cmd_finetune(args: argparse.Namespace) -> int:
    from react_core.training.finetune import KINDS

    plan = plan_from_args(args)
    if args.teacher:
        plan.extra = _teacher(args, plan)
    bar: Any = None

    def on_progress(event: dict[str, Any]) -> None:
        nonlocal bar
        kind = event["kind"]
        if kind == "phase":
            print(f"{event['phase']}…", file=sys.stderr, flush=True)
        elif kind == "trajectories":
            counts = ", ".join(f"{event[k]} {k}" for k in KINDS if k in event)
            held = f", {event['held_out']} of held-out questions left out" if event["held_out"] else ""
            print(
                f"  {event['written']} trajectories: {counts} ({event['skipped']} questions skipped{held})",
                file=sys.stderr,
            )
            asked = {"miss": plan.recipe.misses, "partial": plan.recipe.partial}
            for k, n in asked.items():
                if event.get(k, 0) < n:
                    print(f"  the recipe asks {n} {k}: these questions gave {event.get(k, 0)}", file=sys.stderr)
        elif kind == "examples":
            print(f"  {event['examples']} examples, {event['tokens']:,} tokens", file=sys.stderr)
        elif kind in ("step", "resumed"):
            from tqdm import tqdm

            if bar is None:  # a resumed run starts the bar where it was, so its rate and time left are this run's
                start = event["step"] if kind == "resumed" else 0
                bar = tqdm(total=event["steps"], initial=start, file=sys.stderr, unit="step", desc="training")
            bar.n = event["step"]
            if kind == "step":
                bar.set_postfix(loss=event["loss"])
            bar.refresh()

    cancel = threading.Event()
    try:
        if args.no_train:
            print(plan.write_only(on_progress=on_progress))
            return 0
        result = plan.run(on_progress=on_progress, cancel=cancel)
    except KeyboardInterrupt:
        cancel.set()
        print(f"Stopped: run the same command to resume ({plan.folder}).", file=sys.stderr)
        return STOPPED
    finally:
        if bar is not None:
            bar.close()
    print(result.message)
    if result.adapter is not None and plan.recipe.method == "react":
        measure = f"python -m react_core figure3 --adapter {result.adapter}"
        print(f"Measure it as the shipped one was: {measure}", file=sys.stderr)
    return STOPPED if result.stopped else 0
