"""The shared history for deployments with several replicas: PostgreSQL at ``REACT_HISTORY_URL`` (postgresql://…).

psycopg 3 is imported only when such a store is opened. A connection is made per operation (no connection outlives
a call, so a store can be handed between threads); migrations run under a transaction-scoped advisory lock, so
replicas starting together apply each one once. The password never appears in ``where``, statuses or messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from react_core.history import status as st
from react_core.history.migrations import LATEST, upgrade, version
from react_core.history.status import HistoryError
from react_core.history.store import Store

SCHEMES = ("postgresql", "postgres")
CONNECT_TIMEOUT = 5  # seconds: an unreachable server is reported, not waited on
_MIGRATION_LOCK = 7_236_101  # any constant shared by every replica: pg_advisory_xact_lock's key
_WRITE_PRIVILEGES = (
    ("runs", "INSERT"),
    ("runs", "DELETE"),
    ("remembered", "INSERT"),
    ("remembered", "UPDATE"),
    ("prompt_versions", "INSERT"),
    ("prompt_labels", "INSERT"),
    ("prompt_labels", "UPDATE"),
    ("prompt_labels", "DELETE"),
    ("shares", "INSERT"),
    ("shares", "DELETE"),
    ("question_sets", "INSERT"),
    ("question_sets", "UPDATE"),
    ("question_sets", "DELETE"),
)
_HAPPENED = {
    st.UNREACHABLE: "cannot be reached",
    st.NOT_WRITABLE: "cannot be written",
    st.FULL: "is out of disk space",
    st.BUSY: "is busy",
    st.FAILED: "reported an error",
}
_FIX = {
    st.UNREACHABLE: "Check REACT_HISTORY_URL and that the server is running.",
    st.NOT_WRITABLE: "Connect to the primary server as a user who may insert, update and delete in its tables, "
    "or set REACT_HISTORY_URL to another database.",
    st.FULL: "Free disk space on the database server.",
    st.BUSY: "Try again.",
    st.CANNOT_CREATE: "Let this user create tables in the database once, or set REACT_HISTORY_URL to another database.",
    st.NEWER: "Use that newer version, or set REACT_HISTORY_URL to another database.",
    st.NEEDS_UPGRADE: "Connect once as a user who may change its tables, so it can be upgraded.",
    st.FAILED: "Check the database server's log, or set REACT_HISTORY_URL to another database.",
}


def redact(url: str) -> tuple[str, list[str]]:
    """The URL without password or query, for people to read, and the secrets to blank out of any message."""
    try:
        parts = urlsplit(url)
        secrets = [p for p in [parts.password or "", *parse_qs(parts.query).get("password", [])] if p]
        host = parts.hostname or ""
        host = f"[{host}]" if ":" in host else host
        netloc = (f"{parts.username}@" if parts.username else "") + host + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, "", "")), secrets
    except ValueError:  # a malformed port or host
        return "the database at REACT_HISTORY_URL", []


def _kind(e: Exception) -> str:
    code = getattr(e, "sqlstate", None) or ""
    if code.startswith(("08", "28", "3D", "57P")):
        return st.UNREACHABLE
    if code.startswith("53"):
        return st.FULL
    if code in ("25006", "42501"):  # read-only transaction (a standby); no privilege
        return st.NOT_WRITABLE
    if code in ("40001", "40P01", "55P03", "57014"):
        return st.BUSY
    return st.FAILED


class _Tx:
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        return self.conn.execute(sql.replace("?", "%s"), tuple(params)).fetchall()

    def run(self, sql: str, params: Any = ()) -> int:
        return self.conn.execute(sql.replace("?", "%s"), tuple(params)).rowcount


class PostgresStore(Store):
    """Runs in a PostgreSQL database, behind the same interface as ``SQLiteStore``."""

    variable = "REACT_HISTORY_URL"

    def __init__(self, url: str, *, owner: str = "", connect_timeout: float = CONNECT_TIMEOUT) -> None:
        super().__init__(owner)
        self.url = url
        self.connect_timeout = connect_timeout
        self._where, self._secrets = redact(url)

    @property
    def where(self) -> str:
        return self._where

    def _error(self, kind: str, detail: object, happened: str = "") -> HistoryError:
        text = " ".join(str(detail).split())[:400]
        for secret in self._secrets:
            text = text.replace(secret, "***")
        happened = happened or _HAPPENED[kind]
        return HistoryError(kind, self.where, f"The history database {self.where} {happened} ({text}).", _FIX[kind])

    def _connect(self) -> Any:
        if urlsplit(self.url).scheme not in SCHEMES:
            raise self._error(st.UNREACHABLE, "REACT_HISTORY_URL must start with postgresql://", "is not a URL")
        try:
            import psycopg
            from psycopg.rows import dict_row
        except ImportError as e:
            raise HistoryError(
                st.UNREACHABLE,
                self.where,
                f"REACT_HISTORY_URL is set, but psycopg (the PostgreSQL driver) is not installed ({e}).",
                "Install it with pip install -r requirements.txt, or unset REACT_HISTORY_URL to keep history in a "
                "local SQLite file.",
            ) from None
        try:
            return psycopg.connect(self.url, connect_timeout=max(1, int(self.connect_timeout)), row_factory=dict_row)
        except psycopg.Error as e:
            raise self._error(st.UNREACHABLE, e) from None

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        import psycopg  # loaded by _connect

        conn = self._connect()
        try:
            yield conn
            conn.commit()
        except psycopg.Error as e:
            with suppress(psycopg.Error):
                conn.rollback()
            raise self._error(_kind(e), e) from None
        except BaseException:
            with suppress(psycopg.Error):
                conn.rollback()
            raise
        finally:
            conn.close()

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[_Tx]:
        with self._connection() as conn:
            yield _Tx(conn)

    def _open_backend(self) -> HistoryError | None:
        with self._connection() as conn:
            tx = _Tx(conn)
            known = tx.rows("SELECT to_regclass('schema_version') IS NOT NULL AS known")[0]["known"]
            current = version(tx) if known else 0
            if current > LATEST:
                raise self._newer(current)
            if current < LATEST:
                read_only = self._cannot_write(tx, tables_exist=False)
                if read_only:
                    raise self._error(st.NEEDS_UPGRADE, read_only, "was made by an older version and cannot be written")
                self._upgrade(tx, current)
            reason = self._cannot_write(tx, tables_exist=True)
        return self._error(st.NOT_WRITABLE, reason) if reason else None

    def _upgrade(self, tx: _Tx, current: int) -> None:
        import psycopg

        try:
            tx.rows("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))
            before, _ = upgrade(tx, "postgres")
        except psycopg.Error as e:
            if current:
                raise self._error(st.NEEDS_UPGRADE, e, "was made by an older version and cannot be upgraded") from None
            raise self._error(st.CANNOT_CREATE, e, "cannot have its tables created") from None
        if before > LATEST:  # a replica of a newer version got there first
            raise self._newer(before)

    def _newer(self, found: int) -> HistoryError:
        return self._error(
            st.NEWER, f"schema {found}; this version reads up to {LATEST}", "was written by a newer version"
        )

    def _cannot_write(self, tx: _Tx, *, tables_exist: bool) -> str:
        if tx.rows("SELECT current_setting('transaction_read_only') AS ro")[0]["ro"] == "on":
            return "the server only allows reading"
        if tables_exist:
            for table, privilege in _WRITE_PRIVILEGES:
                if not tx.rows("SELECT has_table_privilege(?, ?) AS ok", (table, privilege))[0]["ok"]:
                    return f"{privilege} on {table} is not granted to this user"
        return ""
