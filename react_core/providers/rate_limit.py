"""Calls per minute for evaluations of hosted providers: a provider wrapper (``RateLimited``) that starts a call only
at its turn in its key's ``Pace``, across threads and jobs. Everything else, capabilities included, is the wrapped
provider's.

One ``Pace`` per key (``pace_for``: the API, where calls go and the key, as a digest), shared by every evaluation
that calls with that key in this process, so two jobs of one key stay within one bound. A service that answers "too
many requests" and says how long to wait (Retry-After; Gemini's retryDelay) slows the whole pace down instead of
failing the question: every call of the key waits that long, calls start at half the rate until they succeed again
(each success takes back a little of the slowdown), and the refused call is tried again at its turn, not counted
among the retry policy's tries (``retry.RetryPolicy.paced``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from react_core.base import cancel
from react_core.providers.base import Chunk, CompletionRequest, Provider

# An evaluation runs unattended: it waits for a service asking up to this long (a chat waits at most 30 s).
PACED_MAX_RETRY_AFTER = 300.0
MAX_SLOWDOWN = 64.0  # after 429 upon 429, calls start at most this many times further apart than asked
EASE = 0.9  # each call that succeeds takes back a tenth of the slowdown


class Pace:
    """When the next call of one key may start (thread-safe; shared by every job of the key)."""

    def __init__(
        self, *, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = cancel.sleep
    ) -> None:
        self._clock = clock
        self._sleep = sleep  # Stop interrupts a wait for a turn
        self._next = 0.0
        self._held_until = 0.0
        self.slowdown = 1.0
        self._lock = threading.Lock()

    def turn(self, interval: float) -> None:
        """Wait for this call's turn: ``interval`` (times the slowdown) after the previous call's start."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + interval * self.slowdown
        if start > now:
            self._sleep(start - now)

    def hold(self, seconds: float) -> None:
        """The service asked to wait: no call of the key starts for ``seconds``, and calls start half as often. 429s
        of calls already under way when an earlier hold began slow nothing further (one overload, one halving)."""
        with self._lock:
            now = self._clock()
            if now >= self._held_until:
                self.slowdown = min(self.slowdown * 2, MAX_SLOWDOWN)
            self._held_until = max(self._held_until, now + seconds)
            self._next = max(self._next, self._held_until)

    def eased(self) -> None:
        with self._lock:
            self.slowdown = max(1.0, self.slowdown * EASE)


PACES: dict[str, Pace] = {}
_paces_lock = threading.Lock()


def pace_for(key: str) -> Pace:
    with _paces_lock:
        return PACES.setdefault(key, Pace())


class RateLimited:
    def __init__(self, inner: Provider, rpm: float, *, pace: Pace | None = None) -> None:
        if rpm <= 0:
            raise ValueError("rpm must be positive")
        self.inner = inner
        self.interval = 60.0 / rpm
        pace_key = getattr(inner, "pace_key", None)
        self.pace = pace or (pace_for(pace_key()) if pace_key else Pace())
        paced = getattr(inner, "paced", None)  # a hosted provider's retries wait at the pace (through any wrapper)
        if paced is not None:
            paced(self._retry_at_pace)

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes this wrapper does not have: every capability is the wrapped provider's.
        return getattr(self.inner, name)

    def _retry_at_pace(self, seconds: float) -> None:
        self.pace.hold(seconds)
        self.pace.turn(self.interval)

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        self.pace.turn(self.interval)
        yield from self.inner.stream(request)
        self.pace.eased()


def pace_policy(policy: Any, hold: Callable[[float], None]) -> Any:
    """``policy`` (a ``retry.RetryPolicy``) whose waits the service asks for go through ``hold``."""
    return replace(policy, paced=hold, max_retry_after=max(policy.max_retry_after, PACED_MAX_RETRY_AFTER))
