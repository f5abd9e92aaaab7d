"""``python -m react_core figure3``: the paper's Figure 3 in small, regenerated in one command.

For each of Standard, CoT, Act and ReAct: the paper's prompt on the base model, and the method's own adapter (trained
here from its gold trajectories of the shared train questions, with the shipped recipe, unless it is already there:
the ReAct cell uses the shipped adapter) answering its zero-shot prompt; on the 200 shared dev questions (none of
them trained on), with the offline pack built from them. Then the table is written into docs/evaluation.md between
its markers. Resumable: every adapter and every cell already made is kept.

``--adapter FILE`` measures a ReAct adapter of one's own (a recipe's candidate) exactly as the shipped one is measured:
its cell alone unless others are asked for, in a folder of its own, its figures into its own manifest; the table is
printed, never written into the docs, which describe the shipped adapter.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("figure3", help="the paper's Figure 3 in small: four methods, prompted and fine-tuned")
    p.add_argument("--out", help="results folder (default results/figure3 in the project)")
    p.add_argument("--limit", type=int, help="at most this many dev questions (default: all 200)")
    p.add_argument("--no-train", action="store_true", help="only evaluate: every adapter must already be there")
    p.add_argument("--cells", nargs="*", help="only these cells, e.g. fine-tuned-react prompted-cot (default: all 8)")
    p.add_argument("--no-doc", action="store_true", help="print the table instead of rewriting docs/evaluation.md")
    p.add_argument(
        "--adapter",
        type=Path,
        help="measure this ReAct adapter instead of the shipped one, as the shipped one is measured: cell "
        "fine-tuned-react unless --cells, folder results/figure3-<its folder> unless --out, its scores into its own "
        "manifest, the table printed (never written into the docs)",
    )
    p.set_defaults(func=_cmd_figure3)


def adapters(no_train: bool, methods: set[str], react: Path | None = None) -> dict[str, str]:
    """Each method's adapter: ``react`` or else the shipped one for ReAct, else the one fine-tuning wrote for Figure 3
    (trained now when it is missing)."""
    from react_core.base.paths import finetune_dir
    from react_core.cli.options import UsageError
    from react_core.evaluation.figure3 import METHODS
    from react_core.providers.adapters import ADAPTER_FILE, shipped_adapter
    from react_core.training.finetune import FinetunePlan
    from react_core.training.recipe import Recipe

    found: dict[str, str] = {}
    for method in METHODS:
        if method not in methods:
            found[method] = ""
            continue
        shipped = react or shipped_adapter()
        if method == "react" and shipped is not None:
            found[method] = str(shipped)
            continue
        folder = finetune_dir() / f"figure3-{method}"
        adapter = folder / ADAPTER_FILE
        if not adapter.is_file():
            if no_train:
                raise UsageError(f"no {method} adapter at {adapter}: run without --no-train to train it")
            # v1's recipe (gold trajectories, 2 epochs), which trained every other method's cell: v2's lessons
            # (a missed Search recovered) are ReAct's own.
            recipe = Recipe.ALL["v1"].updated(method=method)
            print(f"training the {method} adapter into {folder}…", file=sys.stderr, flush=True)
            result = FinetunePlan(recipe=recipe, out=folder, title=f"{method} on HotpotQA (Figure 3)").run()
            if result.adapter is None:
                raise UsageError(result.message)
        found[method] = str(adapter)
    return found


def results_folder(out: str | None, candidate: Path | None) -> Path:
    """Where the cells' results go: ``--out``, else the project's results/figure3, or for a candidate adapter a folder
    named by its own (never the shipped adapter's folder, whose results were made with another adapter)."""
    from react_core.evaluation import figure3

    if out:
        return Path(out)
    return figure3.DEFAULT_DIR if candidate is None else figure3.candidate_dir(candidate)


def _recipe_name(adapter: Path | None) -> str:
    """Which of the named recipes made this adapter (its manifest's recipe), else "of its own"."""
    from react_core.providers.adapters import read_manifest
    from react_core.training.recipe import Recipe

    manifest = read_manifest(adapter) if adapter else None
    return Recipe.name_of(manifest.recipe if manifest else None) or "of its own"


def _cmd_figure3(args: argparse.Namespace) -> int:
    from react_core.cli.options import UsageError
    from react_core.evaluation import figure3, table
    from react_core.knowledge.default_pack import hotpotqa_sources
    from react_core.knowledge.spec import pack_spec
    from react_core.loop.settings import RunSettings
    from react_core.providers.adapters import shipped_adapter

    candidate = args.adapter.expanduser() if args.adapter else None
    if candidate is not None and not candidate.is_file():
        raise UsageError(f"no adapter at {candidate}: give a LoRA .gguf file")
    datasets = [str(p) for p in hotpotqa_sources()]
    out = results_folder(args.out, candidate)
    base = RunSettings(knowledge=pack_spec(table.ensure_pack(out, datasets)))
    every = [c.name for c in figure3.cells(dict.fromkeys(figure3.METHODS, ""))]
    wanted = set(args.cells or (["fine-tuned-react"] if candidate else every))
    tuned = {c.split("-", 2)[-1] for c in wanted if c.startswith("fine-tuned-")}
    found = adapters(args.no_train, tuned, react=candidate)
    started = time.monotonic()
    bars: dict[str, Any] = {}

    def on_progress(event: dict) -> None:  # one progress bar per cell on stderr
        from tqdm import tqdm

        unit = event.get("unit") or event.get("strategy", "")
        if event["kind"] == "start":
            bars[unit] = tqdm(total=event["total"], initial=event["done"], file=sys.stderr, unit="q", desc=unit)
        elif event["kind"] == "result" and unit in bars:
            bars[unit].update(1)
        elif event["kind"] == "done" and unit in bars:
            bars.pop(unit).close()

    done = figure3.run_cells(found, base, datasets, out, limit=args.limit, only=wanted, on_progress=on_progress)
    if not done:
        print(f"Stopped; run the same command to resume ({out}).", file=sys.stderr)
        return 3
    minutes = (time.monotonic() - started) / 60
    spent = figure3.cell_minutes(out)
    if not args.limit:  # a full cell's figures become its adapter's claim (the notice quotes the shipped one's)
        recorded = figure3.record_scores(found, out, wanted)
        for method in recorded:
            print(f"Recorded the {method} adapter's held-out scores in its manifest.", file=sys.stderr)
        if candidate is not None and "react" not in recorded and "fine-tuned-react" in wanted:
            print(f"{candidate} has no manifest beside it to keep its scores: they are printed only.", file=sys.stderr)
    command = (
        "python -m react_core figure3"
        + (f" --adapter {candidate}" if candidate else "")
        + (f" --limit {args.limit}" if args.limit else "")
    )
    names = ", ".join(Path(d).name for d in datasets)
    description = (
        f"_Generated by `{command}`._ Questions: {args.limit or 'all'} of {names} (dev; no adapter trained on any). "
        "Prompted: the paper's 6-shot prompts on Gemma 3 270M. Fine-tuned: each method's own adapter, trained on "
        "the gold trajectories of the 996 shared train questions with recipe v1 (ReAct's is "
        + (f"`{candidate}`" if candidate else "the shipped adapter")
        + f", recipe {_recipe_name(candidate or shipped_adapter())}; docs/finetune.md), answering its zero-shot "
        "prompt. Knowledge: the offline pack of the dev files. Greedy decoding, at most 7 model calls, Search and "
        f"Lookup. EM and F1 with 95 % bootstrap intervals. The cells' questions took "
        + ", ".join(f"{name} {m:.0f}" for name, m in spent.items())
        + f" minutes of model and tool time. This command ran on {date.today().isoformat()} for {minutes:.0f} "
        "minutes (cells already in the folder are not run again). A cell not measured yet shows —."
    )
    section = figure3.section(figure3.figure3_scores(out), description)
    if args.no_doc or candidate is not None:
        print(section)
    else:
        table.rewrite_section(figure3.DOC, section, figure3.BEGIN, figure3.END)
        print(f"Rewrote Figure 3 in {figure3.DOC}.", file=sys.stderr)
    return 0
