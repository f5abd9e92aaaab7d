"""What this server process keeps between browser sessions: the turns running, by chat, so that a session that reloads
finds its running turn again (its finished turns come back from the history store; a turn is found only by its own
chat id and owner), and each public-demo visitor's window of recent model calls."""

from __future__ import annotations

import threading

from react_core import CallWindow
from ui.jobs.turn import TurnJob

MAX_KEPT = 500  # finished turns nobody came back for are forgotten first

_lock = threading.Lock()
_jobs: dict[str, TurnJob] = {}
_windows: dict[str, CallWindow] = {}  # owner -> their recent model calls (public demo mode's limit)


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


def window(owner: str, per_minute: int) -> CallWindow:
    """One owner's call window, the same across their turns (and their tabs)."""
    with _lock:
        current = _windows.get(owner)
        if current is None or current.per_minute != per_minute:
            current = _windows[owner] = CallWindow(per_minute)
            if len(_windows) > 10 * MAX_KEPT:
                _windows.pop(next(iter(_windows)))
        return current


def forget(job: TurnJob) -> None:
    with _lock:
        if _jobs.get(job.request.chat_id) is job:
            del _jobs[job.request.chat_id]
