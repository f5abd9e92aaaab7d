"""Stopping a run from another thread, including a call that is waiting.

The loop runs a question inside ``scope(event)``; anything that waits on its behalf (a model stream, a retry's backoff,
a Wikipedia request) calls ``check()`` between reads or ``sleep()`` instead of ``time.sleep``, so Stop interrupts the
wait instead of taking effect only at the next step. Outside a scope nothing is ever cancelled.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

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
