"""What this server process keeps between browser sessions: the turns running, by chat, so that a session that reloads
finds its running turn again (its finished turns come back from the history store; a turn is found only by its own
chat id and owner), and the public demo's windows of recent model calls: one per visitor (the same across their tabs
and reloads), each within one for all visitors together."""

from __future__ import annotations

import threading

from react_core import CallWindows
from ui.chat.job import TurnJob

MAX_KEPT = 500  # finished turns nobody came back for are forgotten first

_lock = threading.Lock()
_jobs: dict[str, TurnJob] = {}
windows = CallWindows()  # the public demo's limit: each visitor's recent model calls, within everyone's


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


def forget(job: TurnJob) -> None:
    with _lock:
        if _jobs.get(job.request.chat_id) is job:
            del _jobs[job.request.chat_id]
