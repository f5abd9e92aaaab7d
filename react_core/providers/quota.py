"""A per-person limit on model calls: a provider wrapper that refuses a call beyond ``per_minute`` calls in the last
minute, with a message saying when to try again (public demo mode gives each visitor one window). Everything else is
the wrapped provider's."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from react_core.base.errors import ProviderError
from react_core.providers.base import Chunk, CompletionRequest, Provider

WINDOW_SECONDS = 60.0


class CallWindow:
    """The times of one person's recent calls (thread-safe; shared by all of that person's runs)."""

    def __init__(self, per_minute: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._calls: deque[float] = deque()
        self._lock = threading.Lock()

    def take(self) -> float | None:
        """Record a call and return None, or return how many seconds until one is allowed (recording nothing)."""
        with self._lock:
            now = self._clock()
            while self._calls and now - self._calls[0] >= WINDOW_SECONDS:
                self._calls.popleft()
            if len(self._calls) >= self.per_minute:
                return WINDOW_SECONDS - (now - self._calls[0])
            self._calls.append(now)
            return None


class QuotaLimited:
    def __init__(self, inner: Provider, window: CallWindow) -> None:
        self.inner = inner
        self.window = window

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        wait = self.window.take()
        if wait is not None:
            raise ProviderError(
                f"This public demo allows {self.window.per_minute} model calls a minute per visitor; "
                f"try again in {max(1, round(wait))} s."
            )
        yield from self.inner.stream(request)
