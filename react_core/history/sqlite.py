"""The embedded history: one SQLite file (``REACT_HISTORY_DB``, else ``history.sqlite`` in the user data folder).

WAL mode, so readers (other browser sessions, the History page) never block the writer; each save is one transaction,
so a process killed mid-run leaves every earlier entry intact. A connection is opened per operation: Streamlit serves
sessions from many threads and the agent saves from its own, and SQLite connections must not be shared across threads.

When the file cannot be written (a read-only file, folder or disk) the store opens it read-only: earlier runs stay
readable, and every write says why it is refused. A folder SQLite cannot even create its lock files in is read as an
immutable file. A damaged file is never written to.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from typing import Any

from react_core.base.paths import history_db
from react_core.history import status as st
from react_core.history.migrations import LATEST, upgrade, version
from react_core.history.status import HistoryError
from react_core.history.store import Store

LOCK_WAIT = 15  # seconds a write waits for another program's lock before the person is told

_HAPPENED = {
    st.DAMAGED: "is damaged or is not a history file",
    st.NOT_WRITABLE: "cannot be written",
    st.CANNOT_CREATE: "cannot be created",
    st.UNREADABLE: "cannot be opened",
    st.FULL: "could not be written because the disk is full",
    st.BUSY: "is locked by another program",
    st.FAILED: "could not be read or written",
}
_FIX = {
    st.DAMAGED: "Move it aside to start a new history, or set REACT_HISTORY_DB to another file.",
    st.NOT_WRITABLE: "Make the file and its folder writable, or set REACT_HISTORY_DB to a writable file.",
    st.CANNOT_CREATE: "Make the folder writable, or set REACT_HISTORY_DB to a writable file.",
    st.UNREADABLE: "Make the file readable, or set REACT_HISTORY_DB to another file.",
    st.FULL: "Free some disk space, or set REACT_HISTORY_DB to a file on another disk.",
    st.BUSY: "Close the other program and try again, or set REACT_HISTORY_DB to another file.",
    st.NEWER: "Use that newer version, or set REACT_HISTORY_DB to another file.",
    st.NEEDS_UPGRADE: "Make it writable once so it can be upgraded, or set REACT_HISTORY_DB to another file.",
    st.FAILED: "Check the disk, or set REACT_HISTORY_DB to another file.",
}


def _kind(e: sqlite3.Error) -> str:
    name = getattr(e, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")):
        return st.DAMAGED
    if name.startswith(("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH", "SQLITE_CANTOPEN")):
        return st.NOT_WRITABLE
    if name.startswith("SQLITE_FULL"):
        return st.FULL
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return st.BUSY
    return st.FAILED


def _use_wal(conn: sqlite3.Connection) -> None:
    # Two processes creating the file at once both hold a read lock while switching it to WAL; SQLite answers the
    # second "locked" at once rather than wait on a deadlock (its busy timeout does not apply), so it tries again.
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if _kind(e) != st.BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _casefold(text: Any) -> Any:
    return text.casefold() if isinstance(text, str) else text


def _rollback(conn: sqlite3.Connection) -> None:
    # SQLite may already have rolled back on its own (a full disk does): a second ROLLBACK would hide the real error.
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


class _Tx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self.conn.execute(sql, params).fetchall()]

    def run(self, sql: str, params: Any = ()) -> int:
        return self.conn.execute(sql, params).rowcount


class SQLiteStore(Store):
    """A SQLite file of runs. ``SQLiteStore(path)`` (also exported as ``HistoryStore``) opens that file;
    without a path, REACT_HISTORY_DB or the user data folder's ``history.sqlite``."""

    variable = "REACT_HISTORY_DB"

    def __init__(self, path: str | Path | None = None, *, owner: str = "") -> None:
        super().__init__(owner)
        self.path = Path(path) if path else history_db()
        self._read_uri: str | None = None  # set when the file can only be read

    @property
    def where(self) -> str:
        return str(self.path)

    def _error(self, kind: str, detail: object, happened: str = "") -> HistoryError:
        text = f"The history file {self.path} {happened or _HAPPENED[kind]} ({' '.join(str(detail).split())})."
        return HistoryError(kind, self.where, text, _FIX[kind])

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Per-connection settings; a subclass may add its own (the tests cap the file with max_page_count)."""
        # NORMAL is durable against a killed process (committed pages are in the WAL file); only a power cut
        # can lose the very last commit, and never corrupts earlier ones.
        conn.execute("PRAGMA synchronous=NORMAL")

    def _connect(self, target: str, uri: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(target, timeout=LOCK_WAIT, isolation_level=None, uri=uri)
        try:
            conn.row_factory = sqlite3.Row
            # A hand-edited row with bytes that are not UTF-8 reads with replacement characters instead of failing.
            conn.text_factory = lambda b: b.decode("utf-8", "replace")
            conn.create_function("react_casefold", 1, _casefold, deterministic=True)
            self._prepare(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _open_backend(self) -> HistoryError | None:
        existed = self.path.exists()
        if not existed:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise self._error(st.CANNOT_CREATE, e, f"cannot have its folder {self.path.parent} created") from None
        try:
            with closing(self._connect(str(self.path))) as conn:
                _use_wal(conn)
                self._migrate(conn)
            return None
        except sqlite3.Error as e:
            kind = _kind(e)
            if kind != st.NOT_WRITABLE:
                raise self._error(kind, e) from e
            if not existed:
                raise self._error(st.CANNOT_CREATE, e) from e
            return self._open_read_only(e)

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")  # the write lock: two processes opening at once migrate one after the other
        try:
            tx = _Tx(conn)
            known = tx.rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
            current = version(tx) if known else 0
            if current > LATEST:
                raise self._newer(current)
            if current < LATEST:
                upgrade(tx, "sqlite")
                conn.execute("COMMIT")
            else:
                # A write that is rolled back: a read-only file is found now, not at the first save.
                conn.execute("UPDATE schema_version SET version = version WHERE version = ?", (current,))
                conn.execute("ROLLBACK")
        finally:
            _rollback(conn)

    def _newer(self, found: int) -> HistoryError:
        return self._error(
            st.NEWER, f"schema {found}; this version reads up to {LATEST}", "was written by a newer version"
        )

    def _open_read_only(self, write_error: sqlite3.Error) -> HistoryError:
        base = self.path.resolve().as_uri()
        failure: sqlite3.Error | None = None
        # Without write access to the folder SQLite cannot make a WAL file's lock files: read it as immutable.
        for uri in (f"{base}?mode=ro", f"{base}?mode=ro&immutable=1"):
            try:
                with closing(self._connect(uri, uri=True)) as conn:
                    tx = _Tx(conn)
                    known = tx.rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
                    current = version(tx) if known else 0
            except sqlite3.Error as e:
                if _kind(e) == st.DAMAGED:
                    raise self._error(st.DAMAGED, e) from e
                failure = e
                continue
            if current > LATEST:
                raise self._newer(current)
            if current < LATEST:
                raise self._error(st.NEEDS_UPGRADE, write_error, "was made by an older version and cannot be written")
            self._read_uri = uri
            return self._error(st.NOT_WRITABLE, write_error)
        raise self._error(st.UNREADABLE, failure) from failure

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[_Tx]:
        try:
            conn = self._connect(self._read_uri or str(self.path), uri=self._read_uri is not None)
        except sqlite3.Error as e:
            raise self._error(_kind(e), e) from e
        with closing(conn):
            try:
                conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield _Tx(conn)
                conn.execute("COMMIT")
            except sqlite3.Error as e:
                _rollback(conn)
                raise self._error(_kind(e), e) from e
            except BaseException:
                _rollback(conn)
                raise
