"""What this server process keeps between browser sessions: the turns running, by chat, so that a session that reloads
finds its running turn again (its finished turns come back from the history store; a turn is found only by its own
chat id and owner), and the public demo's windows of recent model calls: one per visitor (the same across their tabs
and reloads), each within one for all visitors together."""

from __future__ import annotations

import threading

from react_core import CallWindow
from ui.chat.job import TurnJob

MAX_KEPT = 500  # finished turns nobody came back for are forgotten first
# Visitors' windows kept before the idle ones (no call in the last minute) are forgotten. A window with a call in the
# last minute holds one of the server window's calls too, so at most ``total`` of them are ever busy: forgetting only
# idle ones bounds the memory and never resets a busy visitor's limit.
MAX_WINDOWS = 5000

_lock = threading.Lock()
_jobs: dict[str, TurnJob] = {}
_windows: dict[str, CallWindow] = {}  # visitor -> their recent model calls (public demo mode's limit)
_everyone: list[CallWindow] = []  # the one window of all visitors' calls together (none until a visitor calls)


def register(job: TurnJob) -> None:
    with _lock:
        _jobs[job.request.chat_id] = job
        if len(_jobs) > MAX_KEPT:
            for chat_id in [c for c, j in _jobs.items() if j.done][: len(_jobs) - MAX_KEPT]:
                del _jobs[chat_id]


def find(chat_id: str, owner: str) -> TurnJob | None:
    with _lock:
        job = _jobs.get(chat_id)
    return job if job is not None and job.allowance.owner == owner else None


def window(visitor: str, per_minute: int, total: int) -> CallWindow:
    """One visitor's call window, the same across their turns, tabs and reloads, within the window of all visitors'
    calls together (``total`` a minute)."""
    with _lock:
        if not _everyone or _everyone[0].per_minute != total:
            _everyone[:] = [CallWindow(total, scope="for all its visitors together")]
        current = _windows.get(visitor)
        if current is None or current.per_minute != per_minute or current.within is not _everyone[0]:
            if len(_windows) >= MAX_WINDOWS:
                for idle in [v for v, w in _windows.items() if w.idle()]:
                    del _windows[idle]
            current = _windows[visitor] = CallWindow(per_minute, within=_everyone[0])
        return current


def forget(job: TurnJob) -> None:
    with _lock:
        if _jobs.get(job.request.chat_id) is job:
            del _jobs[job.request.chat_id]
