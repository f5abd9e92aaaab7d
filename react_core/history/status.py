"""What state the history is in, and the one error every storage failure becomes.

A store is ``usable``, ``read_only`` (earlier runs can be read, nothing new is saved) or ``unavailable`` (nothing can
be read or saved); the app asks ``store.status()`` and carries on chatting either way. Every failure of the storage
itself (a damaged file, a read-only folder, a full disk, a database server that cannot be reached) raises
``HistoryError``, whose message says which store, what happened and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass

from react_core.base.errors import ConfigError

USABLE, READ_ONLY, UNAVAILABLE = "usable", "read_only", "unavailable"

# What went wrong (HistoryError.kind).
DAMAGED = "damaged"  # not a database, or a damaged one
NOT_WRITABLE = "not_writable"  # read-only file, folder or database, or no permission to write
CANNOT_CREATE = "cannot_create"  # no history yet, and the place for it cannot be made
UNREADABLE = "unreadable"  # it cannot even be opened for reading
FULL = "full"  # the disk (or the database server's disk) is full
BUSY = "busy"  # another program holds the lock for too long
UNREACHABLE = "unreachable"  # the database server cannot be reached
NEWER = "newer"  # made by a newer version of ReAct Lab
NEEDS_UPGRADE = "needs_upgrade"  # made by an older version, and it cannot be written to upgrade it
FAILED = "failed"  # anything else the storage reported

_WHAT = {
    DAMAGED: "History is off: earlier runs cannot be shown and new runs are not saved; the file is left untouched.",
    NOT_WRITABLE: "Earlier runs can be read, but new runs and settings are not saved.",
    CANNOT_CREATE: "History is off: new runs are not saved.",
    UNREADABLE: "History is off: earlier runs cannot be shown and new runs are not saved.",
    FULL: "This change was not saved; earlier runs are intact.",
    BUSY: "This change was not saved; earlier runs are intact.",
    UNREACHABLE: "History is off: earlier runs cannot be shown and new runs are not saved.",
    NEWER: "History is off so that this older version cannot harm it.",
    NEEDS_UPGRADE: "History is off until it can be upgraded.",
    FAILED: "This change was not saved.",
}


class HistoryError(ConfigError):
    """The history store failed. ``kind`` says how (the constants above), ``where`` names the store (a file path, or
    a database URL without its password); the message is written for the person."""

    def __init__(self, kind: str, where: str, happened: str, fix: str) -> None:
        self.kind, self.where = kind, where
        super().__init__(f"{happened} {_WHAT[kind]} {fix}")


@dataclass(frozen=True)
class StoreStatus:
    """``state`` is USABLE, READ_ONLY or UNAVAILABLE; ``reason`` (empty when usable) is a message for the person."""

    state: str
    where: str
    reason: str = ""

    @property
    def readable(self) -> bool:
        return self.state != UNAVAILABLE

    @property
    def writable(self) -> bool:
        return self.state == USABLE
