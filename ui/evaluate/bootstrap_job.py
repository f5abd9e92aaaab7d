"""A bootstrap on a background thread, so the Evaluate page can show its phase, a progress bar and Stop.

The job calls ``BootstrapPlan.run`` (the same method as ``python -m react_core bootstrap``) with the plan the page
gathered and the person's allowance, and keeps a lock-protected picture of where it is: the phase (the teacher on the
train questions, the starting preset on dev, each candidate set on dev), how many questions of how many, and at the
end the engine's result (the preset written, or why none was). Never calls Streamlit.
"""

from __future__ import annotations

from typing import Any

from react_core import Allowance, BootstrapPlan, LiveTarget
from ui.shared.job import ResultJob


class BootstrapJob(ResultJob):
    name = "bootstrap"
    failed = "The bootstrap failed"

    def __init__(
        self, plan: BootstrapPlan, allowance: Allowance, api_key: str = "", export: LiveTarget | None = None
    ) -> None:
        """``export``: where its runs are sent (the Settings page's choice; the operator's endpoint when None)."""
        super().__init__(allowance)
        self.plan = plan
        self._api_key = api_key
        self._export = export
        self._phase, self._done_n, self._total = "", 0, 0

    def progress(self) -> dict[str, Any]:
        return {"phase": self._phase, "done": self._done_n, "total": self._total}

    def compute(self) -> Any:
        return self.plan.run(
            allowance=self.allowance,
            on_progress=self._on_progress,
            cancel=self._cancel,
            api_key=self._api_key or None,
            export=self._export,
        )

    def _on_progress(self, event: dict[str, Any]) -> None:
        with self._lock:
            if event["kind"] == "phase":
                self._phase, self._done_n, self._total = event["phase"], 0, 0
            elif event["kind"] == "start":
                self._done_n, self._total = event["done"], event["total"]
            elif event["kind"] == "result":
                self._done_n += 1
