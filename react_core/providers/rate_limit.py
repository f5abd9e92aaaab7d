"""A provider wrapper that starts calls at most ``rpm`` times a minute, across threads (for evaluations of hosted
providers). Everything else, capabilities included, is the wrapped provider's.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from react_core.base import cancel
from react_core.providers.base import Chunk, CompletionRequest, Provider


class RateLimited:
    def __init__(self, inner: Provider, rpm: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if rpm <= 0:
            raise ValueError("rpm must be positive")
        self.inner = inner
        self.interval = 60.0 / rpm
        self._clock = clock
        self._next = 0.0
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes this wrapper does not have: every capability is the wrapped provider's.
        return getattr(self.inner, name)

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            cancel.sleep(start - now)  # Stop interrupts the wait for a turn
        yield from self.inner.stream(request)
