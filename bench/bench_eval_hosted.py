"""A hosted evaluation's wall time: 100 ReAct questions against a local OpenAI stand-in that answers each call in
0.5 s, one question at a time against the default (``HOSTED_CONCURRENCY`` at once within ``HOSTED_RPM``), and the
default against a stand-in that allows fewer calls a second and answers the rest 429 with ``Retry-After``.

The stand-in is the tests' ``FakeOpenAI`` (tests/provider_helpers.py): each question's first call searches, its second
finishes (what it answers depends on the request, so questions running at once get their own replies). Search reads
the offline pack. The goal (issue 34): the default at least 6x faster than one at a time, 0 questions lost to 429s
that carry Retry-After. Writes the ``eval-hosted`` section of docs/benchmarks.md. Run: ``.venv/bin/python
bench/bench_eval_hosted.py`` (about three minutes, mostly waiting on the stand-in; ``--questions N`` for fewer).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the tests' OpenAI stand-in

from provider_helpers import FakeOpenAI

from bench.common import table, write_section
from react_core.base.errors import ProviderError
from react_core.base.paths import shared_data_dir
from react_core.evaluation.plan import HOSTED_CONCURRENCY, HOSTED_RPM
from react_core.evaluation.run import EvalPlan
from react_core.knowledge.default_pack import ensure_default_pack
from react_core.loop.settings import RunSettings

LATENCY = 0.5  # seconds per call
SEARCH = " I should search for it.\nAction 1: Search[Scott Derrickson]"
FINISH = " So the answer is yes.\nAction 2: Finish[yes]"


class StandIn(FakeOpenAI):
    """Answers every call after ``LATENCY``: a search first, then Finish. With ``per_second``, calls beyond that many
    in the last second get a 429 with Retry-After: 1."""

    def __init__(self, per_second: int | None = None) -> None:
        super().__init__()
        self.per_second = per_second
        self.refused = 0
        self._starts: deque[float] = deque()
        self._mine = threading.local()

    def _post(self, h, body, fault):
        if self.per_second is not None and fault is None:
            with self._lock:
                now = time.monotonic()
                while self._starts and now - self._starts[0] >= 1.0:
                    self._starts.popleft()
                if len(self._starts) >= self.per_second:
                    self.refused += 1
                    fault = {"status": 429, "headers": {"Retry-After": "1"}, "message": "Rate limit reached"}
                else:
                    self._starts.append(now)
        if fault is None:
            time.sleep(LATENCY)
        # This question's own Observation, after its "Question:" (the prompt's examples hold Observations too).
        self._mine.searched = "Observation 1" in str(body.get("messages")).rpartition("Question:")[2]
        super()._post(h, body, fault)

    def _next_output(self, stops):
        text = FINISH if self._mine.searched else SEARCH
        cut = min((i for i in (text.find(s) for s in stops if s) if i >= 0), default=len(text))
        return text[:cut], []


def one_run(n: int, concurrency: int, per_second: int | None) -> tuple[float, int, int, str]:
    """Seconds, questions answered, 429s sent, and how it ended."""
    pack = ensure_default_pack()
    dataset = shared_data_dir() / "hotpotqa" / "dev_distractor_first100.json"
    with StandIn(per_second) as server, tempfile.TemporaryDirectory() as out:
        settings = RunSettings(
            provider="openai", model="stand-in", base_url=server.root + "/v1", knowledge=f"pack:{pack}"
        )
        plan = EvalPlan([str(dataset)], ["react"], out, settings, limit=n, concurrency=concurrency, rpm=HOSTED_RPM)
        started = time.perf_counter()
        try:
            run = plan.run(api_key="sk-bench-stand-in")
            answered, ended = run.summaries["react"].n, "complete" if not run.stopped else "stopped"
        except ProviderError as e:
            answered, ended = -1, f"failed: {str(e)[:80]}"
        return time.perf_counter() - started, answered, server.refused, ended


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=100)
    args = parser.parse_args()
    n = args.questions
    load = os.getloadavg()
    one_run(1, 1, None)  # untimed: imports the SDK, opens the pack
    rows, times = [], {}
    for label, concurrency, per_second in (
        ("one at a time", 1, None),
        (f"default: {HOSTED_CONCURRENCY} at once", HOSTED_CONCURRENCY, None),
        ("default, stand-in allows 6 calls a second (429 + Retry-After: 1 beyond)", HOSTED_CONCURRENCY, 6),
    ):
        seconds, answered, refused, ended = one_run(n, concurrency, per_second)
        times[label] = seconds
        base = times["one at a time"]
        rows.append([label, f"{seconds:.1f} s", f"{base / seconds:.1f}x", f"{answered}/{n}", refused, ended])
        print(rows[-1], flush=True)
    body = (
        f"{n} ReAct questions of HotpotQA `dev_distractor_first100.json` against the tests' OpenAI stand-in answering "
        f"each call in {LATENCY} s (a Search, then Finish: 2 calls a question; Search reads the offline pack), through "
        f"`EvalPlan.run` as the Evaluate page and `eval` run it, at the default {HOSTED_RPM:g} calls a minute. "
        "*One at a time* is the old default (`--concurrency 1`; its old 60 calls a minute would have made it slower "
        "still). The last row's stand-in refuses calls beyond 6 a second with 429 and `Retry-After: 1`: the "
        "evaluation's pace waits and slows down, and no question may be lost. The goal: the default at least 6x "
        "faster than one at a time. Load average when it started: "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min).\n\n"
        + table(["run", "wall time", "vs one at a time", "answered", "429s sent", "ended"], rows)
    )
    write_section("eval-hosted", "Hosted evaluation: questions at once vs one at a time", body)


if __name__ == "__main__":
    main()
