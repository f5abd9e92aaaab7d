"""The evaluation harness: run a strategy over HotpotQA questions, score, write JSON lines, resume, report.

One JSON line per question (id, question, gold, prediction, em, f1, steps, stop_reason, tokens, seconds, trace);
ids already in the output file are skipped, so an interrupted run resumes where it stopped. A provider failure
stops the evaluation with a message (the failed question is not written, so rerunning retries it). Hosted
providers run questions concurrently under a requests-per-minute limit. UI-free: progress goes to a callback (the
CLI shows a tqdm bar, the Evaluate page a progress bar).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from react_core.cancel import Cancelled
from react_core.errors import ConfigError, ProviderError, ReactLabError
from react_core.evaluation.data import Question
from react_core.evaluation.scoring import exact_match, f1_score
from react_core.evaluation.strategies import STRATEGIES, EvalContext, run_strategy

ProgressHandler = Callable[[dict[str, Any]], None]


def result_record(q: Question, strategy: str, outcome_trace: dict[str, Any], extra: dict[str, Any]) -> dict:
    prediction = outcome_trace.get("final_answer")
    totals = outcome_trace["totals"]
    return {
        "id": q.id,
        "index": q.index,
        "question": q.question,
        "gold": q.answer,
        "prediction": prediction,
        "em": exact_match(prediction, q.answer),
        "f1": round(f1_score(prediction, q.answer), 4),
        "strategy": strategy,
        "steps": totals["steps"],
        "stop_reason": outcome_trace["stop_reason"],
        "tokens": totals["tokens"],
        "seconds": totals["seconds"],
        **extra,
        "trace": outcome_trace,
    }


def read_results(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue  # a line cut short by a crash: the question will simply run again
    return out


@dataclass
class Summary:
    n: int
    em: float
    f1: float
    finished: float
    well_formed: float
    avg_steps: float
    avg_seconds: float

    def line(self) -> str:
        return f"EM {self.em * 100:.1f}  F1 {self.f1 * 100:.1f}  n={self.n}"

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def summarize(results: Iterable[dict]) -> Summary:
    results = list(results)
    n = len(results)
    if not n:
        return Summary(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    steps = [s for r in results for s in r["trace"]["steps"]]
    ok = sum(1 for s in steps if not (s.get("observation") or {}).get("is_error"))
    return Summary(
        n=n,
        em=sum(r["em"] for r in results) / n,
        f1=sum(r["f1"] for r in results) / n,
        finished=sum(1 for r in results if r["stop_reason"] == "finished") / n,
        well_formed=ok / len(steps) if steps else 0.0,
        avg_steps=sum(r["steps"] for r in results) / n,
        avg_seconds=sum(r["seconds"] for r in results) / n,
    )


def evaluate(
    questions: list[Question],
    strategy: str,
    ctx: EvalContext,
    out: str | Path,
    *,
    concurrency: int = 1,
    on_progress: ProgressHandler | None = None,
) -> Summary:
    """Run, append results to ``out``, and summarise every result in ``out`` for these questions."""
    if strategy not in STRATEGIES:
        raise ConfigError(f"Unknown strategy {strategy!r}: choose one of {', '.join(STRATEGIES)}.")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    wanted = {q.id for q in questions}
    done = {r["id"] for r in read_results(out) if r.get("strategy", strategy) == strategy}
    todo = [q for q in questions if q.id not in done]
    if not ctx.provider.concurrent:
        concurrency = 1  # a script is consumed in order; the on-device model runs one call at a time anyway
    notify = on_progress or (lambda _e: None)
    notify({"kind": "start", "total": len(questions), "done": len(questions) - len(todo)})
    lock = threading.Lock()

    def one(q: Question) -> dict:
        outcome = run_strategy(strategy, q.question, ctx)
        trace = outcome.trace.to_dict()
        if trace["stop_reason"] == "error":
            raise ProviderError(f"Question {q.id} stopped: {trace['error']}")
        if trace["stop_reason"] == "cancelled":
            raise Cancelled
        record = result_record(q, strategy, trace, outcome.extra)
        with lock, out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
        return record

    failure: BaseException | None = None
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        pending = set()
        queue = list(todo)
        while queue or pending:
            while queue and len(pending) < max(1, concurrency) and failure is None:
                if ctx.cancel is not None and ctx.cancel.is_set():
                    queue.clear()
                    break
                pending.add(pool.submit(one, queue.pop(0)))
            if not pending:
                break
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                try:
                    notify({"kind": "result", "result": fut.result()})
                except Cancelled:
                    queue.clear()
                except ReactLabError as e:
                    failure = failure or e
                    queue.clear()
    results = [r for r in read_results(out) if r["id"] in wanted and r.get("strategy", strategy) == strategy]
    summary = summarize(results)
    notify({"kind": "done", "summary": summary.to_dict()})
    if failure is not None:
        raise ProviderError(
            f"{failure} — {summary.n} results are saved in {out}; run the same evaluation again to resume."
        )
    return summary
