"""Fine-tuning on this machine's CPU, measured (issue 31's goal: 100 trajectories in at most 20 minutes and 4 GB on
2 cores). Writes the ``finetune`` section of docs/benchmarks.md.

Runs ``python -m react_core finetune`` as a person would, with recipe v1 (or ``--recipe NAME``; every recipe trains
with the same LoRA settings) on the first ``--limit`` (default 100) of the shared train questions, into a temporary
folder (or ``--work DIR``), and reads the worker's own report: wall time of the training, CPU seconds, peak memory,
tokens; the adapter's size. The shipped adapter's own figures (the questions its recipe names) are in its manifest
(adapters/react-hotpotqa/adapter.json) and quoted beside.
Run: ``.venv/bin/python bench/bench_finetune.py [--limit 100] [--work DIR]`` (about 20 minutes on 2 idle cores).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, table, write_section
from react_core.providers.adapters import read_manifest, shipped_adapter
from react_core.training.recipe import Recipe


def row(what: str, manifest: Any, adapter: Path, wall: float | None) -> list[str]:
    """One adapter's figures from its manifest (the trainer's own report)."""
    t, n = manifest.training, manifest.data["trajectories"]
    return [
        f"{n:,} ({what})",
        f"{t['tokens']:,}",
        f"{t['seconds'] / 60:.1f} min",
        f"{t['seconds'] / 60 * 100 / n:.1f} min",
        f"{t['cpu_seconds'] / 60:.1f} min",
        f"{t['peak_mb'] / 1024:.1f} GB",
        f"{adapter.stat().st_size / 1e6:.1f} MB",
        f"{wall / 60:.1f} min" if wall is not None else "—",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--recipe", choices=list(Recipe.ALL), default="v1")
    args = parser.parse_args()
    recipe = Recipe.ALL[args.recipe]
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-finetune-"))
    started = time.monotonic()
    command = [sys.executable, "-m", "react_core", "finetune", "--recipe", args.recipe, "--limit", str(args.limit)]
    command += ["--out", str(work)]
    subprocess.run(command, cwd=ROOT, check=True)
    wall = time.monotonic() - started
    manifest = read_manifest(work / "adapter.gguf")
    rows = [row(f"{args.limit} questions and the recipe's others", manifest, work / "adapter.gguf", wall)]
    shipped = shipped_adapter()
    if shipped is not None:
        s = read_manifest(shipped)
        rows.append(row(f"the shipped adapter: {s.recipe.get('limit') or 'all 996'} questions", s, shipped, None))
    body = (
        f"Recipe {args.recipe} ({recipe.note}) on the first {args.limit} train questions: LoRA rank {recipe.rank} on "
        f"every linear layer, {recipe.epochs} epochs, {recipe.batch} examples a step, float32, through "
        f"`python -m react_core finetune --recipe {args.recipe} --limit {args.limit}` on a machine doing nothing "
        "else. Training time is the worker's own (model loading and the conversion to GGUF are in the whole "
        "command's time); peak memory is the worker process's.\n\n"
        + table(
            [
                "trajectories",
                "tokens (all epochs)",
                "training",
                "per 100 trajectories",
                "CPU",
                "peak memory",
                "adapter",
                "whole command",
            ],
            rows,
        )
        + "\n\nThe shipped adapter's row is copied from its manifest: it trained in several runs resumed from "
        "checkpoints, at times beside other work, so its wall time is longer than the same work alone (its README "
        "says by how much)."
    )
    write_section("finetune", "Fine-tuning on the CPU", body)
    print(json.dumps(manifest.training))


if __name__ == "__main__":
    main()
