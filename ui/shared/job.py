"""The one job class: work on a background thread, a lock for its picture of progress, Stop, and "done".

The work runs inside ``react_core.Run.scope`` with the job's cancel event, so Stop reaches a call that is
waiting (a model stream, a retry's backoff, a Wikipedia request), and under the person's allowance
(``ui.shared.identity.allowance``): every job is given one, its key rules hold for every provider built in the work, and
the job wraps the provider it builds with ``allowance.limit`` (the person's call window). A job never touches session
state: the page reads ``snapshot()`` and, once ``done``, takes the results on its own thread.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Self

from react_core import Allowance, ReactLabError, Run

log = logging.getLogger(__name__)


class Job:
    name = "job"

    def __init__(self, allowance: Allowance) -> None:
        self.allowance = allowance
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"react-{self.name}", daemon=True)

    def start(self) -> Self:
        self._thread.start()
        return self

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelling(self) -> bool:
        return self._cancel.is_set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job is done (or ``timeout``); True when it is."""
        return self._done.wait(timeout)

    def _run(self) -> None:
        try:
            with Run.scope(self._cancel), self.allowance.keys():
                self.work()
        except Exception as e:  # a bug must still end the job visibly, never leave a page waiting
            log.exception("%s failed", self.name)
            self.crashed(f"Unexpected error ({type(e).__name__}: {e}). Please report it.")
        finally:
            self._done.set()

    def work(self) -> None:
        raise NotImplementedError

    def crashed(self, message: str) -> None:
        """Record a failure that escaped ``work`` so the page can show it."""
        raise NotImplementedError

    def snapshot(self) -> dict[str, Any]:
        raise NotImplementedError


class ResultJob(Job):
    """A job whose work is one engine call: its result, or the one clear message the engine raised, beside a picture
    of progress (``progress``) that the page draws while it runs."""

    failed = "The job failed"  # how an unexpected failure is introduced to the person

    def __init__(self, allowance: Allowance) -> None:
        super().__init__(allowance)
        self._result: Any = None
        self._error: str | None = None

    def compute(self) -> Any:
        raise NotImplementedError

    def progress(self) -> dict[str, Any]:
        """Where the work is (read under the lock)."""
        return {}

    def work(self) -> None:
        try:
            result = self.compute()
            with self._lock:
                self._result = result
        except ReactLabError as e:
            with self._lock:
                self._error = str(e)

    def crashed(self, message: str) -> None:
        with self._lock:
            self._error = f"{self.failed}: {message}"

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                **self.progress(),
                "result": self._result,
                "error": self._error,
                "finished": self.done,
                "cancelling": self.cancelling,
            }
