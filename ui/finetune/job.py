"""A fine-tuning run on a background thread, so the Fine-tune page can show its phase, the step, the loss, the time
left and Stop; the same function as ``python -m react_core finetune``. And an adapter's measurement on the 200
held-out dev questions, as the shipped one was measured (``react_core.measure_adapter``, ``figure3 --adapter``).

Each takes the machine's cores for a long while, so there is one such job per server process (``current``), found
again by any page after a reload. Stop keeps what was done: starting the same again goes on where it stopped.
Never calls Streamlit.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from react_core import Adapter, Allowance, FinetunePlan, measure_adapter
from ui.shared.job import ResultJob

_lock = threading.Lock()
_current: list[FinetuneJob | MeasureJob] = []


class FinetuneJob(ResultJob):
    name = "finetune"
    failed = "Fine-tuning failed"

    def __init__(self, plan: FinetunePlan) -> None:
        super().__init__(Allowance.OPERATOR)  # local mode only: the person is the operator
        self.plan = plan
        self._state: dict[str, Any] = {"phase": "", "step": 0, "steps": 0, "loss": None, "eta": None}

    def progress(self) -> dict[str, Any]:
        return {**self._state, "folder": str(self.plan.folder)}

    def compute(self) -> Any:
        return self.plan.run(on_progress=self._on_progress, cancel=self._cancel)

    def _on_progress(self, event: dict[str, Any]) -> None:
        with self._lock:
            kind = event["kind"]
            if kind == "phase":
                self._state["phase"] = event["phase"]
            elif kind in ("step", "resumed"):
                self._state.update({k: event[k] for k in ("step", "steps", "loss", "eta") if k in event})
            elif kind in ("trajectories", "examples"):
                self._state[kind] = {k: v for k, v in event.items() if k != "kind"}


@dataclass
class Measured:
    """How a measurement ended, as the page says it (a fine-tuning run's result says the same three things)."""

    adapter: Path | None
    stopped: bool
    message: str


class MeasureJob(ResultJob):
    name = "measure"
    failed = "Measuring failed"
    clock = staticmethod(time.monotonic)  # a test's own clock, as the evaluation job's

    def __init__(self, adapter: Path) -> None:
        super().__init__(Allowance.OPERATOR)  # local mode only, as fine-tuning
        self.adapter = adapter
        self._started: float | None = None  # when the first question started: loading the model is not a question
        self._state: dict[str, Any] = {"phase": "measuring", "unit": "Question", "step": 0, "steps": 0, "eta": None}

    def progress(self) -> dict[str, Any]:
        return {**self._state, "folder": str(self.adapter.parent)}

    def compute(self) -> Measured:
        done = measure_adapter(self.adapter, on_progress=self._on_progress, cancel=self._cancel)
        if not done:
            return Measured(None, True, "Stopped; Measure again goes on where it stopped.")
        measured = Adapter.at(self.adapter)  # its manifest now holds the figures
        summary = measured.manifest.scores.get("summary", "") if measured.manifest else ""
        return Measured(self.adapter, False, f"Measured {measured.title}: {summary}")

    def _on_progress(self, event: dict[str, Any]) -> None:
        with self._lock:
            if event["kind"] == "start":
                self._state.update(step=event["done"], steps=event["total"], begun=event["done"])
                self._started = self.clock()
            elif event["kind"] == "result":
                state = self._state
                state["step"] += 1
                fresh = state["step"] - state.get("begun", 0)
                now = self.clock()
                rate = (now - (now if self._started is None else self._started)) / max(1, fresh)
                state["eta"] = round(rate * (state["steps"] - state["step"]), 1)


def current() -> FinetuneJob | MeasureJob | None:
    with _lock:
        return _current[0] if _current else None


def start(plan: FinetunePlan) -> FinetuneJob | MeasureJob:
    """Start a run unless a job is under way (then that one is returned)."""
    return _start(lambda: FinetuneJob(plan))


def measure(adapter: Path) -> FinetuneJob | MeasureJob:
    """Start measuring an adapter unless a job is under way (then that one is returned)."""
    return _start(lambda: MeasureJob(adapter))


def _start(make: Any) -> FinetuneJob | MeasureJob:
    with _lock:
        if _current and not _current[0].done:
            return _current[0]
        job = make().start()
        _current[:] = [job]
        return job
