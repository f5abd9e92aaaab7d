"""A fine-tuning run on a background thread, so the Fine-tune page can show its phase, the step, the loss, the time
left and Stop; the same function as ``python -m react_core finetune``.

Training takes the machine for an hour or more, so there is one such job per server process (``current``), found
again by any page after a reload. Stop keeps a checkpoint: starting the same recipe again goes on where it stopped.
Never calls Streamlit.
"""

from __future__ import annotations

import threading
from typing import Any

from react_core import Allowance, FinetunePlan
from ui.shared.job import ResultJob

_lock = threading.Lock()
_current: list[FinetuneJob] = []


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


def current() -> FinetuneJob | None:
    with _lock:
        return _current[0] if _current else None


def start(plan: FinetunePlan) -> FinetuneJob:
    """Start a run unless one is under way (then that one is returned)."""
    with _lock:
        if _current and not _current[0].done:
            return _current[0]
        job = FinetuneJob(plan).start()
        _current[:] = [job]
        return job
