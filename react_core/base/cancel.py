"""Stopping a run from another thread, including a call that is waiting.

The loop runs a question inside ``scope(event)``; anything that waits on its behalf (a model stream, a retry's backoff,
a Wikipedia request) calls ``check()`` between reads or ``sleep()`` instead of ``time.sleep``, so Stop interrupts the
wait instead of taking effect only at the next step. A read that blocks (a model stream that goes quiet) runs inside
``guarded_call``: at Stop or at its deadline, what the provider registered with ``on_abort`` closes the response under
it. A call whose work is measured in progress (a model computing on this machine) gets its deadline counted from its
last progress instead of its start. Outside a scope nothing is ever cancelled.

A person can also ask a run to pause ("Pause here"): within ``pausing(event)``, the loop stops at the next step the
model has written, before its action runs, as a step-mode breakpoint would (``loop.agent``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar

__all__ = [
    "CallGuard",
    "Cancelled",
    "aborted",
    "check",
    "current",
    "guarded_call",
    "held",
    "on_abort",
    "pause_requested",
    "pausing",
    "requested",
    "run_scope",
    "scope",
    "sleep",
]

_current: ContextVar[threading.Event | None] = ContextVar("react_cancel", default=None)


class Cancelled(Exception):
    """The person stopped the run; the loop turns it into stop reason ``cancelled``."""


@contextmanager
def scope(event: threading.Event | None) -> Iterator[None]:
    """Within this block (on this thread), ``event`` being set means: stop what you are waiting for."""
    token = _current.set(event)
    try:
        yield
    finally:
        _current.reset(token)


_pause: ContextVar[threading.Event | None] = ContextVar("react_pause", default=None)


@contextmanager
def pausing(event: threading.Event) -> Iterator[None]:
    """Within this block (on this thread), ``event`` being set means: pause at the next step written."""
    token = _pause.set(event)
    try:
        yield
    finally:
        _pause.reset(token)


@contextmanager
def run_scope(cancel: threading.Event | None, pause: threading.Event | None = None) -> Iterator[None]:
    """A run's Stop and Pause here within this block; either one None leaves the one around it (a job's) in place."""
    with scope(cancel) if cancel is not None else nullcontext(), pausing(pause) if pause is not None else nullcontext():
        yield


def pause_requested() -> bool:
    event = _pause.get()
    return event is not None and event.is_set()


def current() -> threading.Event | None:
    return _current.get()


def requested() -> bool:
    event = _current.get()
    return event is not None and event.is_set()


def check() -> None:
    """Raise Cancelled when the run was stopped."""
    if requested():
        raise Cancelled


def sleep(seconds: float) -> None:
    """``time.sleep`` that wakes at once when the run is stopped (and then raises Cancelled)."""
    event = _current.get()
    if event is None:
        time.sleep(max(0.0, seconds))
        return
    if event.wait(max(0.0, seconds)):
        raise Cancelled


class CallGuard:
    """One call that may block in a read (a model stream): at Stop or at its deadline, the callbacks registered with
    ``on_abort`` run on a watcher thread (closing the response makes the blocked read fail at once).

    With ``progress`` (a value that changes as the work advances, read by the watcher), the deadline counts from the
    last progress: the last change of that value or the last ``alive()``, so a call that keeps advancing however
    slowly is never cut, and one that stands still for ``deadline`` seconds is."""

    def __init__(self, deadline: float | None, progress: Callable[[], object] | None = None) -> None:
        self.deadline = deadline
        self.progress = progress
        self.expired = False
        self._since = time.monotonic()
        self._callbacks: list[Callable[[], object]] = []
        self._lock = threading.Lock()
        self._finished = threading.Event()
        self._fired = False

    def on_abort(self, callback: Callable[[], object]) -> None:
        with self._lock:
            if self._fired:
                fire_now = True
            else:
                self._callbacks.append(callback)
                fire_now = False
        if fire_now:
            _quietly(callback)

    def alive(self) -> None:
        """The call made progress (a piece of the reply arrived): with ``progress``, its deadline starts again."""
        if self.progress is not None:
            self._since = time.monotonic()

    def _advanced(self, seen: object) -> object:
        """The progress value now, the deadline starting again when it moved on from ``seen``."""
        try:
            value = self.progress() if self.progress is not None else None
        except Exception:  # a provider that cannot tell has not advanced
            return seen
        if value != seen:
            self._since = time.monotonic()
        return value

    def _watch(self, stop: threading.Event | None) -> None:
        seen = self._advanced(None)
        while not self._finished.is_set():
            seen = self._advanced(seen)
            left = None if self.deadline is None else self.deadline - (time.monotonic() - self._since)
            if left is not None and left <= 0:
                self.expired = True
                break
            if stop is not None and stop.is_set():
                break
            # Wake often enough to notice Stop promptly without a thread per event source.
            self._finished.wait(0.05 if left is None else min(0.05, left))
        else:
            return
        with self._lock:
            self._fired = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            _quietly(callback)


_guard: ContextVar[CallGuard | None] = ContextVar("react_call_guard", default=None)


@contextmanager
def guarded_call(deadline: float | None, progress: Callable[[], object] | None = None) -> Iterator[CallGuard]:
    """Run one blocking call under Stop and a wall-clock deadline (seconds, or None for Stop only), counted from the
    call's start, or with ``progress`` from its last progress (``CallGuard``)."""
    guard = CallGuard(deadline, progress)
    watcher = threading.Thread(target=guard._watch, args=(_current.get(),), name="react-call-guard", daemon=True)
    token = _guard.set(guard)
    watcher.start()
    try:
        yield guard
    finally:
        guard._finished.set()
        _guard.reset(token)
        watcher.join(1)


def aborted() -> bool:
    """Whether the current guarded call was stopped or ran out of time: its aborts have run, so trying again is no
    use (a provider's retry asks this before it waits)."""
    guard = _guard.get()
    return guard is not None and guard._fired


def on_abort(callback: Callable[[], object]) -> None:
    """Providers register how to abort what they opened (``response.close``); outside a guarded call, nothing."""
    guard = _guard.get()
    if guard is not None:
        guard.on_abort(callback)


def _quietly(callback: Callable[[], object]) -> None:
    try:
        callback()
    except Exception:  # aborting is best effort: the reader notices the closed stream or the flag either way
        pass


@contextmanager
def held(lock: threading.Lock) -> Iterator[None]:
    """``lock``, waited for in short slices: Stop reaches a call queued behind others (the on-device model's callers
    take turns) at once, instead of after all of them."""
    while not lock.acquire(timeout=0.05):
        check()
    try:
        yield
    finally:
        lock.release()
