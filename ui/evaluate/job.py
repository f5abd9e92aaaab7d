"""An evaluation on a background thread, so the Evaluate page can show progress and a Stop button.

The job calls ``EvalPlan.run`` (the same method as ``python -m react_core eval``) with
the plan the page gathered and the person's allowance (whose keys, which call window), and keeps a lock-protected
picture of where it is: preparing, which strategy of how many, how many questions of how many, stopping, stopped,
failed. Results are not kept here: they are written to the plan's
folder as they come, and the page reads them from there (as it reads any past evaluation). Never calls Streamlit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from react_core import Allowance, EvalPlan, LiveTarget, ReactLabError
from ui.shared.job import Job


@dataclass
class _Progress:
    message: str = ""  # what is being prepared before the first question (the on-device model, say)
    strategy: str = ""  # '' until the first strategy starts; with prompt versions, e.g. ``react@paper@2``
    position: int = 0
    done: int = 0
    total: int = 0
    counts: dict[str, list[int]] = field(default_factory=dict)  # unit -> [done, total]
    error: str | None = None
    stopped: bool = False
    started: float | None = None  # when the first question started (the job's clock)
    answered: int = 0  # questions answered since, in every unit
    last: float | None = None  # when the last one was answered


class EvalJob(Job):
    name = "evaluation"
    clock = staticmethod(time.monotonic)  # a test's own clock: an estimate is checked on figures, not on waiting

    def __init__(
        self, plan: EvalPlan, allowance: Allowance, api_key: str = "", export: LiveTarget | None = None
    ) -> None:
        """``export``: where its runs are sent (the Settings page's choice; the operator's endpoint when None)."""
        super().__init__(allowance)
        self.plan = plan
        self._api_key = api_key
        self._export = export
        self._p = _Progress()

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            p = self._p
            return {
                "message": p.message,
                "strategy": p.strategy,
                "position": p.position,
                "done": p.done,
                "total": p.total,
                "counts": {k: list(v) for k, v in p.counts.items()},
                "error": p.error,
                "stopped": p.stopped,
                "finished": self.done,
                "cancelling": self.cancelling,
                "strategies": [unit.key for unit in self.plan.units()],
                "versions": self.plan.unit_versions(),
                "models": self.plan.unit_models(),
                "out_dir": str(self.plan.out_dir),
                "per_question": (p.last - p.started) / p.answered if p.answered and p.started is not None else None,
                "left": self._left(p),
            }

    def _left(self, p: _Progress) -> int:
        """Questions still to answer: what the units under way lack, and every question of the units not begun."""
        units = self.plan.units()
        begun = sum(t - d for d, t in p.counts.values())
        per_unit = max((t for _, t in p.counts.values()), default=0)
        return begun + per_unit * max(0, len(units) - len(p.counts))

    def crashed(self, message: str) -> None:
        with self._lock:
            self._p.error = f"The evaluation failed: {message}"

    def work(self) -> None:
        try:
            run = self.plan.run(
                api_key=self._api_key or None,
                allowance=self.allowance,
                on_progress=self._on_progress,
                cancel=self._cancel,
                export=self._export,
            )
            with self._lock:
                self._p.stopped = run.stopped
        except ReactLabError as e:
            with self._lock:
                self._p.error = str(e)
                self._p.stopped = self.cancelling

    def _on_progress(self, event: dict[str, Any]) -> None:
        """Counts are kept per unit, since hosted models run their units at the same time; the bar follows the unit
        that started last."""
        kind = event["kind"]
        unit = event.get("unit") or event.get("strategy", "")
        with self._lock:
            p = self._p
            if kind == "preparing":
                p.message = event["message"]
            elif kind == "strategy":
                p.strategy, p.position = unit, event["position"]
                p.counts[unit] = [0, event["total"]]
            elif kind == "start":
                p.counts[unit] = [event["done"], event["total"]]
                p.started = self.clock() if p.started is None else p.started
            elif kind == "result" and unit in p.counts:
                p.counts[unit][0] += 1
                p.answered, p.last = p.answered + 1, self.clock()
            if p.strategy in p.counts:
                p.done, p.total = p.counts[p.strategy]
