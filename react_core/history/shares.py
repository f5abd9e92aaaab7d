"""Read-only share links: a person makes a link to one of their runs, and anyone holding it can read that run (and
nothing else) until the person revokes it or deletes the run. What a link shows of the run is ``SharedView.of``'s: the
run's own question, steps and answer, never the earlier turns of its conversation.

A link is an unguessable token (``secrets.token_urlsafe``, 32 bytes: 256 bits) stored with its owner and run. It is
the only key: ``resolve`` reads the run of whichever owner made it, and only while that owner still has the run.
Creating, listing and revoking are the owner's (each query filters by owner, as every other one in the store).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import ClassVar

from react_core.base.errors import ConfigError
from react_core.base.trace import Trace
from react_core.history.migrations import Tx
from react_core.history.records import COLUMNS, RunRecord, now, record, row_id, with_trace

__all__ = [
    "Share",
    "ShareStore",
    "SharedView",
    "TOKEN_BYTES",
    "TOKEN_SHAPE",
    "new_token",
    "well_formed",
]

TOKEN_BYTES = 32
# What a token looks like (token_urlsafe's alphabet, its length for TOKEN_BYTES); anything else is refused unread.
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")


@dataclass(frozen=True)
class Share:
    token: str
    run_id: int
    created_at: str


@dataclass(frozen=True)
class SharedView:
    """What a share link shows of a run (``SharedView.of``)."""

    # Said where a shared follow-up's model calls would be, and in the Share popover before a link is made.
    CALLS_LEFT_OUT: ClassVar[str] = (
        "A follow-up question is shared without the earlier questions and answers of its conversation, and so "
        "without its model calls, whose prompts carry them."
    )

    trace: Trace  # the run's own question, steps and answer: no earlier turns (``context``)
    calls_left_out: str = ""  # why its model calls are not shown ('' when they are)

    @classmethod
    def of(cls, trace: Trace) -> SharedView:
        """The run as a link shows it. A follow-up (a run with earlier turns) loses them and its model calls'
        records, so nothing that draws or exports the shared run can show them; a first question keeps its calls."""
        if not trace.context:
            return cls(trace)
        steps = [replace(step, call=None) for step in trace.steps]
        return cls(replace(trace, context=[], steps=steps), cls.CALLS_LEFT_OUT)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def well_formed(token: object) -> bool:
    return isinstance(token, str) and TOKEN_SHAPE.fullmatch(token) is not None


class ShareStore:
    """Mixed into ``Store``: ``owner``, ``_read`` and ``_write`` come from there."""

    owner: str
    _read: Callable[[], AbstractContextManager[Tx]]
    _write: Callable[[], AbstractContextManager[Tx]]

    def create_share(self, run_id: int) -> Share:
        """A new read-only link to this owner's run ``run_id``; ConfigError when the owner has no such run."""
        n = row_id(run_id)
        share = Share(new_token(), n or 0, now())
        with self._write() as tx:
            if n is None or not tx.rows("SELECT id FROM runs WHERE id = ? AND owner = ?", (n, self.owner)):
                raise ConfigError(f"Run #{run_id} is not in your history, so it cannot be shared.")
            tx.run(
                "INSERT INTO shares (token, owner, run_id, created_at) VALUES (?, ?, ?, ?)",
                (share.token, self.owner, share.run_id, share.created_at),
            )
        return share

    def shares(self, run_id: int | None = None) -> list[Share]:
        """This owner's live links (to one run, or to all of them), newest first."""
        n = row_id(run_id) if run_id is not None else None
        if run_id is not None and n is None:
            return []
        where, params = ("AND run_id = ?", (self.owner, n)) if n is not None else ("", (self.owner,))
        with self._read() as tx:
            rows = tx.rows(
                f"SELECT token, run_id, created_at FROM shares WHERE owner = ? {where} ORDER BY created_at DESC, token",
                params,
            )
        return [Share(r["token"], int(r["run_id"]), r["created_at"]) for r in rows]

    def revoke_share(self, token: str) -> bool:
        """Revoke one of this owner's links (False when they have no such link)."""
        if not well_formed(token):
            return False
        with self._write() as tx:
            return tx.run("DELETE FROM shares WHERE token = ? AND owner = ?", (token, self.owner)) > 0

    def resolve_share(self, token: str) -> RunRecord | None:
        """The run a link shows, whoever's it is (the token is the key), while the link stands and its owner still has
        the run; None for anything else (a malformed, unknown or revoked token, a deleted run)."""
        if not well_formed(token):
            return None
        with self._read() as tx:
            found = tx.rows("SELECT owner, run_id FROM shares WHERE token = ?", (token,))
            if not found:
                return None
            rows = tx.rows(
                f"SELECT {COLUMNS}, trace_json FROM runs WHERE id = ? AND owner = ?",
                (found[0]["run_id"], found[0]["owner"]),
            )
        if not rows:
            return None
        data = dict(rows[0])
        return with_trace(record(data), data.pop("trace_json"))
