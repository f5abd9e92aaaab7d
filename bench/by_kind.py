"""Where a fine-tuned agent's answers go wrong, by kind of question: the table in docs/finetune.md ("Where v3 to v6
lose").

Reads the per-question results a Figure 3 cell writes (``figure3 --cells fine-tuned-react --out DIR`` leaves
``DIR/fine-tuned-react.jsonl``) and counts, for each run: comparison and bridge questions (HotpotQA's own ``type``)
answered right, yes/no questions right, comparisons whose two pages were both read, and episodes that read no page
at all (every Search missed). A page counts as read when a Search or Lookup returned it without error.
Run: ``.venv/bin/python bench/by_kind.py v3=DIR/fine-tuned-react.jsonl v5=OTHER/fine-tuned-react.jsonl``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import table
from react_core.evaluation.results import read_results
from react_core.training.gold import GoldQuestion
from react_core.training.recipe import DEV_QUESTIONS
from react_core.training.sources import gold_questions, shared_path

ROWS = (
    ("comparison", "comparison questions right"),
    ("compared", "… of them, both pages read"),
    ("yes/no", "yes/no questions right"),
    ("bridge", "bridge questions right"),
    ("no page", "episodes that read no page at all"),
)


def pages_read(trace: dict) -> set[str]:
    read = set()
    for step in trace["steps"]:
        seen = step.get("observation") or {}
        if not seen.get("is_error"):
            read |= {source["title"] for source in seen.get("sources") or []}
    return read


def counts(path: Path, dev: dict[str, GoldQuestion]) -> dict[str, list[int]]:
    """Each row's [right or counted, out of]."""
    rows = {key: [0, 0] for key, _ in ROWS}
    for r in read_results(path):
        q, right = dev[r["id"]], int(bool(r["em"]))
        read = pages_read(r["trace"])
        rows[q.type][0] += right
        rows[q.type][1] += 1
        if q.type == "comparison":
            rows["compared"][0] += set(q.supporting) <= read
            rows["compared"][1] += 1
        if q.yes_no:
            rows["yes/no"][0] += right
            rows["yes/no"][1] += 1
        rows["no page"][0] += not read
        rows["no page"][1] += 1
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", help="NAME=PATH of a fine-tuned-react.jsonl")
    args = parser.parse_args()
    dev = {q.id: q for _, q in gold_questions([shared_path(name) for name in DEV_QUESTIONS])}
    named = [run.split("=", 1) for run in args.runs]
    columns = [counts(Path(path), dev) for _, path in named]
    rows = [[label, *(f"{c[key][0]} of {c[key][1]}" for c in columns)] for key, label in ROWS]
    print(table(["", *(name for name, _ in named)], rows))


if __name__ == "__main__":
    main()
