"""What ``early_stopping="generate"`` would have made of a measured evaluation, without running it again: each
episode that stopped without an answer (a loop, the budget) is given the one more call the setting makes, on its own
recorded steps, and scored as the evaluation scores. With greedy decoding the steps before that call are the ones a
run under "generate" takes, so this is the same figure for the cost of one call per unfinished episode (the docs say
which figures were replayed this way and which were measured by a whole run).

Reads the per-question results an evaluation writes (``figure3 --cells fine-tuned-react --out DIR`` leaves
``DIR/fine-tuned-react.jsonl``) and runs the model its header names (its adapter, preset, knowledge, budget, grammar).
Run: ``.venv/bin/python bench/answer_at_stop.py DIR/fine-tuned-react.jsonl [--out replayed.jsonl]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from react_core.base.answers import exact_match, f1_score
from react_core.base.events import final_trace
from react_core.base.trace import Trace
from react_core.evaluation.results import read_file
from react_core.loop.agent import ASKABLE_STOPS, Agent
from react_core.loop.settings import RunSettings, build_run_config


def settings_of(header: dict) -> RunSettings:
    config = header["config"]
    strategy = header["strategy"]
    return RunSettings(
        provider=config["provider"],
        adapter=config.get("adapter") or "",
        preset=config["presets"][strategy],
        max_calls=int(config["max_calls"]),
        tools=list(config["tools"]),
        grammar=bool(config["grammar"]),
        knowledge=config["knowledge"],
        sentences=int(config.get("sentences", 5)),
        early_stopping="generate",
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", type=Path)
    p.add_argument("--adapter", help="the adapter file (default: the one the results' header names)")
    p.add_argument("--out", type=Path, help="write every record, the replayed ones changed, here (JSON lines)")
    args = p.parse_args()
    header, records = read_file(args.results)
    assert header is not None, f"{args.results} has no header: not an evaluation's results"
    settings = settings_of(header)
    if args.adapter:
        settings = settings.updated(adapter=args.adapter)
    agent = Agent(build_run_config(settings))
    out = []
    for r in records:
        if r["stop_reason"] in ASKABLE_STOPS:
            trace = final_trace(agent.drive(Trace.from_dict(r["trace"]), iter(()), None))
            r = {
                **r,
                "prediction": trace.final_answer or "",
                "em": exact_match(trace.final_answer, r["gold"]),
                "f1": f1_score(trace.final_answer, r["gold"]),
                "stop_reason": trace.stop_reason,
                "steps": len(trace.steps),
                "trace": trace.to_dict(),
            }
            print(f"{r['id']:>4} {r['stop_reason']:<17} {r['em']:.0f} {r['prediction'][:50]!r} / {r['gold'][:30]!r}")
        out.append(r)
    n = len(out)
    em, f1 = (100 * sum(r[k] for r in out) / n for k in ("em", "f1"))
    ended = Counter(r["stop_reason"] for r in out)
    print(f"EM {em:.1f}  F1 {f1:.1f}  n={n}  ended: {dict(ended)}")
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in out), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
