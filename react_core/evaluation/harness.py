"""The harness: run one strategy over a task's questions (HotpotQA's, or FEVER's claims), score each answer as the
task does, append it to a results file, resume.

One JSON line per question (id, question, gold, prediction, em, f1, steps, stop_reason, tokens, seconds, trace; see
``results`` for the file's header); ids already in the file are skipped, so an interrupted run resumes where it
stopped. A provider failure stops the evaluation with a message (the failed question is not written, so rerunning
retries it); Stop (``ctx.cancel``) stops it before the next question and the question under way is not written
either. Hosted providers run questions concurrently. Each question runs inside ``react_core.base.cancel.scope``, so Stop
also reaches a wait inside it (a retry's backoff, a Wikipedia request). UI-free: progress goes to a callback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from react_core.base import cancel
from react_core.base.errors import ConfigError, ProviderError, ReactLabError
from react_core.base.trace import Trace
from react_core.evaluation import results
from react_core.evaluation.data import Question
from react_core.evaluation.strategies import STRATEGIES, EvalContext, Outcome, run_strategy
from react_core.evaluation.summary import Summary, summarize
from react_core.evaluation.tasks import HOTPOTQA, Task

ProgressHandler = Callable[[dict[str, Any]], None]


def result_record(
    q: Question, strategy: str, outcome_trace: dict[str, Any], extra: dict[str, Any], task: Task = HOTPOTQA
) -> dict:
    """A question's line, scored as ``task`` scores an answer. Tokens and seconds are what the strategy cost: a hybrid
    that backed off counts both halves (also when a half was reused from another file: the figure is the strategy's,
    not this run's)."""
    prediction = outcome_trace.get("final_answer")
    totals = outcome_trace["totals"]
    first = (extra.get("first_trace") or {}).get("totals", {})
    em, f1 = task.scores(prediction, q.answer)
    return {
        "id": q.id,
        "index": q.index,
        "question": q.question,
        "gold": q.answer,
        "prediction": prediction,
        "em": em,
        "f1": f1,
        "strategy": strategy,
        "steps": totals["steps"],
        "stop_reason": outcome_trace["stop_reason"],
        "tokens": totals["tokens"] + first.get("tokens", 0),
        "seconds": round(totals["seconds"] + first.get("seconds", 0.0), 6),
        **extra,
        "trace": outcome_trace,
    }


def outcome_of(record: dict[str, Any]) -> Outcome:
    """A result line back as the strategy's outcome (what a hybrid reuses)."""
    return Outcome(Trace.from_dict(record["trace"]), {k: record[k] for k in ("votes", "samples") if k in record})


def evaluate(
    questions: list[Question],
    strategy: str,
    ctx: EvalContext,
    out: str | Path,
    *,
    header: dict[str, Any] | None = None,
    known: Mapping[str, Mapping[str, dict[str, Any]]] | None = None,
    concurrency: int = 1,
    task: Task = HOTPOTQA,
    on_progress: ProgressHandler | None = None,
) -> Summary:
    """Run, append results to ``out``, and summarise every result in ``out`` for these questions.

    ``header``: how the results are made (``results.prepare`` checks a resumed file against it). ``known``: for a
    hybrid, results of its component strategies by id, reused instead of recomputed."""
    if strategy not in STRATEGIES:
        raise ConfigError(f"Unknown strategy {strategy!r}: choose one of {', '.join(STRATEGIES)}.")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    existing = results.prepare(out, header) if header is not None else results.read_results(out)
    wanted = {q.id for q in questions}
    done = {r["id"] for r in existing if r.get("strategy", strategy) == strategy}
    todo = [q for q in questions if q.id not in done]
    if not ctx.provider.concurrent:
        concurrency = 1  # a script is consumed in order; the on-device model runs one call at a time anyway
    concurrency = max(1, concurrency)
    if ctx.cancel is None:
        ctx.cancel = threading.Event()
    notify = on_progress or (lambda _e: None)
    notify({"kind": "start", "total": len(questions), "done": len(questions) - len(todo)})
    lock = threading.Lock()

    def one(q: Question) -> dict:
        reuse = {name: outcome_of(by_id[q.id]) for name, by_id in (known or {}).items() if q.id in by_id}
        with cancel.scope(ctx.cancel):
            outcome = run_strategy(strategy, q.question, ctx, known=reuse, expected=q.answer)
        outcome.trace.expected_answer = q.answer  # the trace, opened on its own, shows the gold answer too
        trace = outcome.trace.to_dict()
        if trace["stop_reason"] == "error":
            raise ProviderError(f"Question {q.id} stopped: {trace['error']}")
        if trace["stop_reason"] == "cancelled":
            raise cancel.Cancelled
        record = result_record(q, strategy, trace, outcome.extra, task)
        with lock:
            results.append(out, record)
        return record

    failure: BaseException | None = None
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        pending: set = set()
        queue = list(todo)
        try:
            while queue or pending:
                while queue and len(pending) < concurrency and failure is None and not ctx.cancel.is_set():
                    pending.add(pool.submit(one, queue.pop(0)))
                if not pending:
                    break
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    try:
                        notify({"kind": "result", "result": fut.result()})
                    except cancel.Cancelled:
                        queue.clear()
                    except ReactLabError as e:
                        failure = failure or e
                        queue.clear()
        except KeyboardInterrupt:
            ctx.cancel.set()  # the questions under way stop too, instead of running to their end
            raise
    kept = [r for r in results.read_results(out) if r["id"] in wanted and r.get("strategy", strategy) == strategy]
    summary = summarize(kept, planned=len(questions))
    notify({"kind": "done", "summary": summary.to_dict()})
    if failure is not None:
        raise ProviderError(
            f"{failure} — {summary.n} results are saved in {out}; run the same evaluation again to resume."
        )
    return summary
