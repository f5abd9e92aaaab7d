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

__all__ = ["CallWindow", "CallWindows", "QuotaLimited", "WINDOW_SECONDS"]

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


class CallWindows:
    """The public demo's windows of recent model calls: one per visitor (the same across their turns, tabs and
    reloads), each within the one window of all visitors' calls together. Beyond ``max_kept`` visitors the idle ones
    (no call in the last minute) are forgotten: a window with a call in the last minute holds one of the server
    window's calls too, so at most its ``total`` are ever busy; forgetting only idle ones bounds the memory and never
    resets a busy visitor's limit."""

    def __init__(self, max_kept: int = 5000) -> None:
        self.max_kept = max_kept
        self._lock = threading.Lock()
        self._windows: dict[str, CallWindow] = {}  # visitor -> their recent model calls
        self._everyone: CallWindow | None = None  # none until a visitor calls

    def of(self, visitor: str, per_minute: int, total: int) -> CallWindow:
        """``visitor``'s window of ``per_minute`` calls, within the window of ``total`` calls a minute for all."""
        with self._lock:
            if self._everyone is None or self._everyone.per_minute != total:
                self._everyone = CallWindow(total, scope="for all its visitors together")
            current = self._windows.get(visitor)
            if current is None or current.per_minute != per_minute or current.within is not self._everyone:
                if len(self._windows) >= self.max_kept:
                    for idle in [v for v, w in self._windows.items() if w.idle()]:
                        del self._windows[idle]
                current = self._windows[visitor] = CallWindow(per_minute, within=self._everyone)
            return current

    def __len__(self) -> int:
        return len(self._windows)


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
