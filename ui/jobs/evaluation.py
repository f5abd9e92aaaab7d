"""An evaluation running in a background thread, so the Evaluate page can show progress and a Stop button.

The job runs each chosen strategy in turn through ``react_core.evaluation.harness.evaluate`` (results are written
as JSON lines to a folder of the user's data directory, so they survive the session), keeps a lock-protected
picture of progress and results, and stops at the next question when cancelled. Never calls Streamlit. Depends on
the engine only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from react_core.errors import ReactLabError
from react_core.evaluation.data import load_indices, load_questions
from react_core.evaluation.harness import evaluate, read_results, summarize
from react_core.evaluation.strategies import EvalContext
from react_core.paths import evaluations_dir
from react_core.providers.rate_limit import RateLimited
from react_core.settings import RunSettings, provider_for
from ui.jobs.base import Job

HOSTED_RPM = 60.0


@dataclass
class EvalRequest:
    dataset: str
    strategies: list[str]
    limit: int
    settings: dict[str, Any]
    samples: int = 21
    indices: str | None = None
    api_key: str = ""
    out_dir: str = ""


@dataclass
class _Progress:
    strategy: str = ""
    done: int = 0
    total: int = 0
    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    error: str | None = None


class EvalJob(Job):
    name = "evaluation"

    def __init__(self, request: EvalRequest) -> None:
        super().__init__()
        if not request.out_dir:
            stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
            request.out_dir = str(evaluations_dir() / stamp)
        self.request = request
        self._p = _Progress()

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            p = self._p
            return {
                "strategy": p.strategy,
                "done": p.done,
                "total": p.total,
                "finished": self.done,
                "error": p.error,
                "cancelling": self._cancel.is_set(),
                "strategies": list(self.request.strategies),
                "results": {k: list(v) for k, v in p.results.items()},
                "summaries": dict(p.summaries),
                "out_dir": self.request.out_dir,
            }

    def crashed(self, message: str) -> None:
        with self._lock:
            self._p.error = f"The evaluation failed: {message}"

    def work(self) -> None:
        r = self.request
        try:
            settings = RunSettings.from_dict(r.settings)
            settings.check()
            indices = load_indices(r.indices) if r.indices else None
            questions = load_questions(r.dataset, indices=indices, limit=r.limit)
            provider = provider_for(settings, api_key=r.api_key or None)
            if provider.hosted:
                provider = RateLimited(provider, HOSTED_RPM)
            for strategy in r.strategies:
                if self._cancel.is_set():
                    break
                with self._lock:
                    self._p.strategy, self._p.done, self._p.total = strategy, 0, len(questions)
                    self._p.results[strategy] = []
                ctx = EvalContext(settings=settings, provider=provider, samples=r.samples, cancel=self._cancel)
                out = Path(r.out_dir) / f"{strategy}.jsonl"
                try:
                    summary = evaluate(questions, strategy, ctx, out, on_progress=self._on_progress(strategy))
                except ReactLabError:
                    # What finished before the failure is saved and still worth showing.
                    summary = summarize(r for r in read_results(out) if r.get("strategy") == strategy)
                    with self._lock:
                        self._p.summaries[strategy] = summary.to_dict()
                    raise
                with self._lock:
                    self._p.summaries[strategy] = summary.to_dict()
        except ReactLabError as e:
            with self._lock:
                self._p.error = str(e)

    def _on_progress(self, strategy: str) -> Callable[[dict[str, Any]], None]:
        def handle(event: dict[str, Any]) -> None:
            with self._lock:
                if event["kind"] == "start":
                    self._p.done = event["done"]
                elif event["kind"] == "result":
                    self._p.done += 1
                    self._p.results[strategy].append(event["result"])

        return handle
