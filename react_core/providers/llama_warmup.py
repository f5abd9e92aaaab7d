"""Warming a prompt prefix up in the background: ``LocalProvider.warm`` returns a ``WarmUp`` at once and a thread
loads the model if needed, then (under the model's lock, so a question asked meanwhile waits for it and never
evaluates the prefix a second time) loads or evaluates the prefix's state (``llama_reuse.PromptCache.warm``).

With ``ahead`` (the whole prompt of a question the person is likely to ask first), the warm-up then reads that
prompt's whole blocks too (``PromptCache.read_ahead``): asking it waits only for its last, partial block.

A page polls the handle (``state``, ``progress``, ``seconds``) or waits on it; the same prefix warming already is
the same handle. The first warm-up on a machine whose normal generation speed is not known yet also measures it
(``llama_activity``): sixteen tokens, a fraction of a second.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from react_core.providers.llama_activity import WINDOW


@dataclass
class WarmUp:
    """One prefix warming up. ``state``: "loading" (the model), "waiting" (another call holds the model), "warming"
    (evaluating or loading its state), then "warm" or "failed" (``error`` says why). ``source``: where the prefix came
    from ("context", "memory", "disk", "evaluated"; '' when shorter than a block)."""

    key: str
    state: str = "loading"
    source: str = ""
    done_tokens: int = 0
    tokens: int = 0
    seconds: float = 0.0
    ahead_tokens: int = 0  # positions of the likely question's prompt read after the prefix
    error: str = ""
    _done: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def finished(self) -> bool:
        return self._done.is_set()

    @property
    def progress(self) -> float:
        if self.state == "warm":
            return 1.0
        return self.done_tokens / self.tokens if self.tokens else 0.0

    def wait(self, timeout: float | None = None) -> bool:
        """True once the warm-up has finished (warm or failed)."""
        return self._done.wait(timeout)


_RUNNING: dict[tuple[str, str], WarmUp] = {}
_RUNNING_LOCK = threading.Lock()


def start(provider: Any, prefix: str, ahead: str = "") -> WarmUp:
    """The warm-up of ``prefix`` (and ``ahead``) on ``provider``'s model: the one already running, else a new one."""
    key = hashlib.sha256(f"{len(prefix)}:{prefix}{ahead}".encode()).hexdigest()
    slot = (str(provider.model_path or ""), key)
    with _RUNNING_LOCK:
        if slot in _RUNNING:
            return _RUNNING[slot]
        handle = _RUNNING[slot] = WarmUp(key)
    thread = threading.Thread(
        target=_run, args=(provider, prefix, ahead, handle, slot), name="react-lab-warm-up", daemon=True
    )
    thread.start()
    return handle


def _run(provider: Any, prefix: str, ahead: str, handle: WarmUp, slot: tuple[str, str]) -> None:
    from react_core.base import cancel
    from react_core.base.errors import ReactLabError

    started = time.perf_counter()
    try:
        shared = provider.prepare()
        handle.state = "waiting"
        with cancel.held(shared.lock), shared.activity.doing("warming"):
            handle.state = "warming"

            def progress(done: int, total: int) -> None:
                handle.done_tokens, handle.tokens = done, total
                shared.activity.warming_progress = done / total

            handle.source = shared.prompts.warm(prefix, progress)
            if shared.activity.needs_normal():
                _measure_generation(shared, shared.prompts.tokens_of(prefix))
            if ahead:  # after the state is saved: it stays the prefix's alone
                handle.ahead_tokens = shared.prompts.read_ahead(ahead)
        handle.state = "warm"
    except (ReactLabError, ValueError, RuntimeError, OSError) as e:
        handle.state, handle.error = "failed", str(e) or type(e).__name__
    finally:
        handle.seconds = time.perf_counter() - started
        with _RUNNING_LOCK:
            if _RUNNING.get(slot) is handle:
                del _RUNNING[slot]
            handle._done.set()


def _measure_generation(shared: Any, tokens: list[int]) -> None:
    """Generate-sized steps (one token a batch) after the prefix, timed by ``Activity``. They land after the
    canonical positions, so nothing reuses them."""
    for token in (tokens * WINDOW)[1 : WINDOW + 1]:
        shared.llama.eval([token])
