"""The ``warm`` section of docs/benchmarks.md from ``bench_warm.py``'s results."""

from __future__ import annotations

import argparse

from bench.common import median, table, write_section


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def _s(seconds: float) -> str:
    return f"{seconds:.2f} s"


def _steps(runs: list[list[float]]) -> tuple[float, float]:
    first = [r[0] for r in runs if r]
    second = [r[1] for r in runs if len(r) > 1]
    return median(first), median(second)


def report(results: dict, args: argparse.Namespace) -> None:
    ttft = results["ttft"]
    rows = []
    for key, label in (
        ("warm", "freshly started, warm-up done (paper)"),
        ("switch", "right after a preset switch, its warm-up done"),
        ("back", "switching back without a warm-up (state in memory)"),
        ("cold", "no saved state, nothing cached (cold)"),
    ):
        one, two = _steps(ttft[key])
        rows.append([label, len(ttft[key]), _s(one), _s(two), f"{one / two:.2f}"])
    body = "First-token time of step 1 and step 2 of the same run (medians; target step 1 ÷ step 2 ≤ 1.5):\n\n"
    body += table(["situation", "runs", "step 1", "step 2", "step 1 ÷ step 2"], rows)
    warmups = ", ".join(f"{p} {s} in {_s(t)}" for p, s, t in ttft["warmups"])
    body += f"\n\nWarm-ups before those runs: {warmups}.\n\n"

    states = results["states"]
    body += "Per saved state (a preset's prefix, before the question; whole blocks of 64 tokens are kept):\n\n"
    body += table(
        ["preset", "prefix tokens", "kept", "memory", "disk", "evaluate", "save", "load from disk", "load from memory"],
        [
            [
                p, r["tokens"], r["kept"], f"{r['memory'] / 2**20:.1f} MB", f"{r['disk'] / 2**20:.1f} MB",
                _ms(r["evaluate"]), _ms(r["snapshot"] + r["save"]), _ms(r["from_disk"]), _ms(r["from_memory"]),
            ]
            for p, r in states.items()
        ],
    )  # fmt: skip

    first, again = results["first"]
    body += "\n\nA freshly started process (imports, model load, the paper preset's warm-up, its first question):\n\n"
    body += table(
        ["states folder", "warm-up", "start → warm", "ask → first streamed token"],
        [
            ["empty (first start)", f"{first['source']} in {_s(first['warm_up'])}", _s(first["ready"]),
             _ms(first["first_token"])],
            ["the state saved by that start", f"{again['source']} in {_s(again['warm_up'])}", _s(again["ready"]),
             _ms(again["first_token"])],
        ],
    )  # fmt: skip

    rows = []
    for key, label in (("before", "before (the engine of --before)"), ("eval", "after")):
        if key not in results:
            continue
        r = results[key]
        one = [c[0] for c in r["calls"] if c]
        later = [t for c in r["calls"] for t in c[1:]]
        n = sum(len(c) for c in r["calls"])
        rows.append([label, _s(r["seconds"]), _s(r["cpu"]), n, _s(median(one)), _s(median(later))])
    questions = len(results["eval"]["calls"])
    body += (
        f"\n\n{questions} HotpotQA questions with one prompt (paper preset, offline pack, at most 7 calls each, "
        "temperature 0, grammar on), one at a time. Each engine runs in a process of its own whose states folder "
        "starts empty; the two take the questions in turn, so both meet the same load from the rest of the "
        "machine:\n\n"
    )
    headers = ["engine", "total", "CPU time", "model calls", "first token, step 1 (median)", "steps 2.. (median)"]
    body += table(headers, rows)
    body += (
        "\n\nEvery reply is now the one a cold run gives (test_provider_local_exact.py). The price: each call "
        "re-reads the tokens generated one at a time and the last partial block of the prompt before (at most 63 "
        "tokens), which the engine before took from the cache with other rounding; with one prompt it already "
        "reused the prefix from question to question, so such an evaluation gains nothing from saved states. They "
        "pay off at a start, a preset switch and between prompts (the tables above). States are kept in memory up "
        "to 256 MB and on disk up to 1 GB (least recently used first out)."
    )
    if args.questions < 100:
        body += f" {questions} questions rather than 100 to keep the run under a quarter of an hour on 2 cores."
    write_section("warm", "On-device model: saved prefix states and warm-up", body)
