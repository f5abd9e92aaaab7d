"""Fine-tuning on this machine's CPU, measured (issue 31's goal: 100 trajectories in at most 20 minutes and 4 GB on
2 cores). Writes the ``finetune`` section of docs/benchmarks.md.

Runs ``python -m react_core finetune`` as a person would, with recipe v1 (the shipped adapter's LoRA settings) on the
first ``--limit`` (default 100) of the shared train questions, into a temporary folder (or ``--work DIR``), and reads
the worker's own report: wall time of the training, CPU seconds, peak memory, tokens; the adapter's size. The shipped
adapter's own figures (the questions its recipe names) are in its manifest (adapters/react-hotpotqa/adapter.json) and
quoted beside.
Run: ``.venv/bin/python bench/bench_finetune.py [--limit 100] [--work DIR]`` (about 15 minutes on 2 idle cores).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, table, write_section
from react_core.providers.adapters import read_manifest, shipped_adapter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-finetune-"))
    started = time.monotonic()
    command = [sys.executable, "-m", "react_core", "finetune", "--limit", str(args.limit), "--out", str(work)]
    subprocess.run(command, cwd=ROOT, check=True)
    wall = time.monotonic() - started
    manifest = read_manifest(work / "adapter.gguf")
    t = manifest.training
    rows = [
        [
            f"{manifest.data['trajectories']:,} ({args.limit} questions + arithmetic)",
            f"{t['tokens']:,}",
            f"{t['seconds'] / 60:.1f} min",
            f"{t['cpu_seconds'] / 60:.1f} min",
            f"{t['peak_mb'] / 1024:.1f} GB",
            f"{(work / 'adapter.gguf').stat().st_size / 1e6:.1f} MB",
            f"{wall / 60:.1f} min",
        ]
    ]
    shipped = shipped_adapter()
    if shipped is not None:
        s = read_manifest(shipped)
        st = s.training
        rows.append(
            [
                f"{s.data['trajectories']:,} (the shipped adapter: {s.recipe.get('limit') or 'all 996'} questions)",
                f"{st['tokens']:,}",
                f"{st['seconds'] / 60:.1f} min",
                f"{st['cpu_seconds'] / 60:.1f} min",
                f"{st['peak_mb'] / 1024:.1f} GB",
                f"{shipped.stat().st_size / 1e6:.1f} MB",
                "—",
            ]
        )
    body = (
        "Recipe v1's data (gold trajectories of the first questions and 120 Calculator ones) with the shipped "
        "adapter's settings (LoRA rank 16 on every linear layer, 2 epochs, 8 examples a step, float32) through "
        f"`python -m react_core finetune --limit {args.limit}`. Training time is the worker's own (model loading "
        "and the conversion to GGUF are in the whole command's time); peak memory is the worker process's.\n\n"
        + table(
            ["trajectories", "tokens (2 epochs)", "training", "CPU", "peak memory", "adapter", "whole command"],
            rows,
        )
        + "\n\nThe shipped adapter's row is copied from its manifest: it trained while other work shared the cores, "
        "so its wall time is longer than the same work alone."
    )
    write_section("finetune", "Fine-tuning on the CPU", body)
    print(json.dumps(t))


if __name__ == "__main__":
    main()
