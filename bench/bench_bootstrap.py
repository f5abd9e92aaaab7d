"""Bootstrapped few-shot examples on the on-device model (issue 22), measured. Writes the ``bootstrap`` section of
docs/evaluation.md.

Everything runs through the command line a person would use (``python -m react_core bootstrap`` and ``eval``), on the
on-device model with the offline pack built from the shared HotpotQA files, grammar on, temperature 0:

1. a bootstrap of 20 train / 20 dev questions (the first 40 of ``dev_distractor_first100.json``), timed;
2. a bootstrap with more train questions (``--train``, default 78) and 20 dev questions, since the demo model answers
   few questions right and a trajectory must be right and grounded to become an example;
3. the paper's ReAct prompt (``hotpotqa-react``) and the best version written by 2 (or, if 2 wrote none, by 1) on 100
   questions that neither touched: ``dev_distractor_sample100.json`` without the questions 1 and 2 used, topped up from
   the end of ``first100``. EM and the grounded-answer rate, with 95 % intervals (a bootstrap over questions).

Scratch files (the pack, the held-out file, results) go to a temporary folder, or to ``--work DIR``, where a second run
resumes every phase (the bootstrap's and the evaluations'); only the section is written.
Run: ``.venv/bin/python bench/bench_bootstrap.py [--train N] [--candidates N] [--work DIR]`` (about 30 minutes on
2 cores).
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
from react_core.base.paths import shared_data_dir

START = "hotpotqa-react"
HELD_OUT = 100
DOC = ROOT / "docs" / "evaluation.md"


def cli(*args: str, ok: tuple[int, ...] = (0,)) -> tuple[float, str]:
    """Run ``python -m react_core ARGS``; its wall time and its last line (of standard output, else of errors)."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "react_core", *args], cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if done.returncode not in ok:
        raise SystemExit(f"{' '.join(args[:2])} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    lines = [line for line in (done.stdout.strip() or done.stderr).splitlines() if line.strip()]
    return seconds, lines[-1] if lines else ""


def run_bootstrap(work: Path, name: str, first: Path, pack: Path, train: int, dev: int, candidates: int) -> dict:
    out = work / f"{name}.toml"
    seconds, said = cli(
        "bootstrap", "--dataset", str(first), "--train", str(train), "--dev", str(dev), "--from", START,
        "--k", "3", "--candidates", str(candidates), "--out", str(out), "--no-progress",
        "--provider", "local", "--knowledge", f"pack:{pack}", "--temperature", "0", ok=(0, 1),
    )  # fmt: skip
    written = out if out.exists() else None
    return {"name": name, "train": train, "dev": dev, "seconds": seconds, "said": said, "out": written}


def held_out_file(work: Path, data: Path, used: int) -> Path:
    """100 questions neither bootstrap touched: sample100 without any of first100's first ``used``, then first100's
    last ones."""
    first = json.loads((data / "dev_distractor_first100.json").read_text(encoding="utf-8"))
    sample = json.loads((data / "dev_distractor_sample100.json").read_text(encoding="utf-8"))
    seen = {q["question"] for q in first[:used]}
    rows = [q for q in sample if q["question"] not in seen]
    rows += [q for q in first[used:] if q["question"] not in {r["question"] for r in rows}]
    path = work / "held-out.json"
    path.write_text(json.dumps(rows[:HELD_OUT]), encoding="utf-8")
    return path


def evaluate(work: Path, name: str, preset: str, dataset: Path, pack: Path) -> dict:
    from react_core.evaluation.repeats import score_results
    from react_core.evaluation.results import read_results, result_path

    folder = work / f"eval-{name}"
    cli(
        "eval", "--dataset", str(dataset), "--strategy", "react", "--preset", preset, "--out", str(folder),
        "--no-progress", "--provider", "local", "--knowledge", f"pack:{pack}", "--temperature", "0",
    )  # fmt: skip
    records = read_results(result_path(folder, "react"))
    return {"name": name, "time": sum(r.get("seconds", 0.0) for r in records), "scores": score_results(records)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", type=int, default=78, help="train questions of the second bootstrap")
    parser.add_argument("--candidates", type=int, default=8)
    parser.add_argument(
        "--work", help="a folder to keep the phases in: a second run resumes them (default: a temporary one)"
    )
    args = parser.parse_args()
    data = shared_data_dir() / "hotpotqa"
    first = data / "dev_distractor_first100.json"
    with tempfile.TemporaryDirectory(prefix="bench-bootstrap-") as scratch:
        work = Path(args.work or scratch)
        work.mkdir(parents=True, exist_ok=True)
        pack = work / "hotpotqa.sqlite"
        files = [str(p) for p in sorted(data.glob("dev_distractor_*.json"))]
        if not pack.exists():
            cli("pack", "build", "--hotpotqa", *files, "--out", str(pack))
        small = run_bootstrap(work, "twenty", first, pack, 20, 20, args.candidates)
        print(small, flush=True)
        large = run_bootstrap(work, "larger", first, pack, args.train, 20, args.candidates)
        print(large, flush=True)
        best = large["out"] or small["out"]
        dataset = held_out_file(work, data, args.train + 20)
        rows = [evaluate(work, "paper", START, dataset, pack)]
        if best is not None:
            rows.append(evaluate(work, "bootstrapped", str(best), dataset, pack))
        from react_core.presets.preset import load_preset_file

        examples = load_preset_file(best).examples if best is not None else None
        title = "Bootstrapped examples on the on-device model"
        write_section("bootstrap", title, report(work, small, large, rows, examples), DOC)


def phases(work: Path, name: str) -> list[tuple[str, int, float]]:
    """(phase, questions run, the runs' own seconds summed) of one bootstrap's work folder, in the order they ran."""
    from react_core.evaluation.results import read_results

    folder = work / f"{name}.bootstrap"
    order = ["teacher", "dev-start"] + [f"dev-candidate-{n}" for n in range(1, 100)]
    found = []
    for phase in order:
        path = folder / f"{phase}.jsonl"
        if path.exists():
            records = read_results(path)
            found.append((phase, len(records), sum(r.get("seconds", 0.0) for r in records)))
    return found


def report(work: Path, small: dict, large: dict, rows: list[dict], examples: str | None) -> str:
    runs = table(
        ["bootstrap", "train", "dev", "phases (questions · time)", "what it said"],
        [
            [
                b["name"],
                b["train"],
                b["dev"],
                ", ".join(f"{p} {n} · {sec / 60:.1f} min" for p, n, sec in phases(work, b["name"])),
                b["said"].replace("|", "/"),
            ]
            for b in (small, large)
        ],
    )
    shots = sum(1 for line in (examples or "").splitlines() if line.startswith("Question:"))
    per_question = [sec / n for b in (small, large) for _p, n, sec in phases(work, b["name"]) if n]
    mean = sum(per_question) / len(per_question) if per_question else 0.0
    scored = table(
        ["prompt", "questions", "EM [95 % interval]", "grounded answers [95 % interval]", "time"],
        [
            [
                "the paper's (hotpotqa-react, 6 examples)"
                if r["name"] == "paper"
                else f"bootstrapped ({shots} examples)",
                r["scores"].questions,
                r["scores"].em.text(),
                r["scores"].grounded.text(),
                f"{r['time'] / 60:.1f} min",
            ]
            for r in rows
        ],
    )
    body = [
        "On-device Gemma 3 270M (base, a demo model), offline pack, grammar on, temperature 0, from the paper's "
        "ReAct prompt (`hotpotqa-react`), `python -m react_core bootstrap --k 3 --candidates 8` (the teacher is the "
        "student). Train and dev are the first questions of `dev_distractor_first100.json`; a trajectory qualifies "
        "when it is right (exact match), finished, grounded in a tool's evidence (a yes/no answer: given after a tool "
        "returned evidence) and readable at every step. Times are the runs' own (model and tools), summed per phase.",
        "",
        runs,
        "",
        f"A whole bootstrap of 20 train / 20 dev questions with 8 candidate sets runs 20 + 20 + 8 × 20 = 200 "
        f"questions: at the {mean:.1f} s a question measured here, about {200 * mean / 60:.0f} minutes; when no "
        "trajectory qualifies it ends after the teacher's 20.",
        "",
        f"Then both prompts on {rows[0]['scores'].questions} held-out questions (neither train nor dev; HotpotQA, "
        "CC BY-SA, with its Wikipedia paragraphs):",
        "",
        scored,
    ]
    if examples is None:
        body += ["", "No bootstrap wrote a version, so there is nothing to compare with the paper's prompt."]
    else:
        body += ["", "The examples the bootstrap chose:", "", "```text", examples.strip(), "```"]
    return "\n".join(body)


if __name__ == "__main__":
    main()
