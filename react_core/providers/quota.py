"""Limits on model calls: a provider wrapper that refuses a call beyond a window's ``per_minute`` calls in the last
minute, with a message saying when to try again. Public demo mode gives each visitor one window, inside one window for
all visitors together (``within``): a call counts in both, and one that either refuses counts in neither. Everything
else is the wrapped provider's."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from react_core.base.errors import ProviderError
from react_core.providers.base import Chunk, CompletionRequest, Provider

WINDOW_SECONDS = 60.0


class CallWindow:
    """The times of recent calls (thread-safe; shared by every run it limits). ``scope`` says whose calls they are,
    as the refusal tells it ("per visitor")."""

    def __init__(
        self,
        per_minute: int,
        *,
        within: CallWindow | None = None,
        scope: str = "per visitor",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_minute = per_minute
        self.within = within
        self.scope = scope
        self._clock = clock
        self._calls: deque[float] = deque()
        self._lock = threading.Lock()

    def take(self) -> tuple[float, CallWindow] | None:
        """Record a call here and in the window this one is within, and return None; or return how many seconds until
        a call is allowed and the window that is full, recording nothing in either."""
        windows = [self] if self.within is None else [self, self.within]
        with contextlib.ExitStack() as held:
            for window in windows:  # always this one, then the wider one: two takes never wait on each other
                held.enter_context(window._lock)
            for window in windows:
                wait = window._wait()
                if wait is not None:
                    return wait, window
            for window in windows:
                window._calls.append(window._clock())
        return None

    def idle(self) -> bool:
        """Whether no call was made in the last minute (forgetting this window changes nothing)."""
        with self._lock:
            self._wait()
            return not self._calls

    def _wait(self) -> float | None:
        now = self._clock()
        while self._calls and now - self._calls[0] >= WINDOW_SECONDS:
            self._calls.popleft()
        if len(self._calls) < self.per_minute:
            return None
        return WINDOW_SECONDS - (now - self._calls[0]) if self._calls else WINDOW_SECONDS


class QuotaLimited:
    def __init__(self, inner: Provider, window: CallWindow) -> None:
        self.inner = inner
        self.window = window

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        refused = self.window.take()
        if refused is not None:
            wait, full = refused
            raise ProviderError(
                f"This public demo allows {full.per_minute} model calls a minute {full.scope}; "
                f"try again in {max(1, round(wait))} s."
            )
        yield from self.inner.stream(request)
