"""Where a fine-tuned agent's answers go wrong, by kind of question: the tables in docs/finetune.md ("Where v3 to v6
lose").

Reads the per-question results a Figure 3 cell writes (``figure3 --cells fine-tuned-react --out DIR`` leaves
``DIR/fine-tuned-react.jsonl``) and counts, for each run: comparison and bridge questions (HotpotQA's own ``type``)
answered right, yes/no questions right, comparisons whose two pages were both read, episodes that read no page at all
(every Search missed), bridge answers that were wrong though the answer was in what the run read (it picked the wrong
words, not the wrong page), and unfinished episodes, with those where a Search writes a title its own thought does
not hold (``Next I need to search Viglen.`` then ``Search[Vigenlen]``: it could not copy the title). A page counts
as read when a Search or Lookup returned it without error.
Run: ``.venv/bin/python bench/by_kind.py v3=DIR/fine-tuned-react.jsonl v5=OTHER/fine-tuned-react.jsonl``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import table
from react_core.base.answers import normalize_answer
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
    ("seen", "bridge answers wrong with the answer in what it read"),
    ("unfinished", "episodes that did not finish"),
    ("miscopied", "… of them, a Search of a title its thought does not hold"),
)


def pages_read(trace: dict) -> set[str]:
    read = set()
    for step in trace["steps"]:
        seen = step.get("observation") or {}
        if not seen.get("is_error"):
            read |= {source["title"] for source in seen.get("sources") or []}
    return read


def seen_text(trace: dict) -> str:
    """Everything the run read, normalized as answers are."""
    return normalize_answer(" ".join((step.get("observation") or {}).get("text", "") for step in trace["steps"]))


def miscopied(trace: dict) -> bool:
    """Whether a Search after the first writes what its own thought does not hold (``Next I need to search Viglen.``,
    then ``Search[Vigenlen]``). The first Search is left out: its input is the question's words, not a copy."""
    for step in trace["steps"][1:]:
        action = step.get("action") or {}
        if action.get("tool") == "search" and action["input"] not in (step.get("thought") or ""):
            return True
    return False


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
        if q.type == "bridge" and not right:
            rows["seen"][0] += normalize_answer(q.answer) in seen_text(r["trace"])
            rows["seen"][1] += 1
        unfinished = r["stop_reason"] != "finished"
        rows["unfinished"][0] += unfinished
        rows["unfinished"][1] += 1
        if unfinished:
            rows["miscopied"][0] += miscopied(r["trace"])
            rows["miscopied"][1] += 1
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", help="NAME=PATH of a fine-tuned-react.jsonl")
    args = parser.parse_args()
    dev = {q.id: q for _, q in gold_questions([shared_path(name) for name in DEV_QUESTIONS])}
    named = [run.split("=", 1) for run in args.runs]
    for _, path in named:
        if not Path(path).is_file():
            parser.error(f"no results at {path}")
    columns = [counts(Path(path), dev) for _, path in named]
    rows = [[label, *(f"{c[key][0]} of {c[key][1]}" for c in columns)] for key, label in ROWS]
    print(table(["", *(name for name, _ in named)], rows))


if __name__ == "__main__":
    main()
