"""The history store: every finished run (with its full Trace and settings), remembered settings and prompt versions.

``open_history(owner=…)`` is the one way the app gets a store: PostgreSQL when ``REACT_HISTORY_URL`` is set (for
deployments with several replicas), else the embedded SQLite file (``REACT_HISTORY_DB`` or the user data folder).
Both sit behind ``Store``; ``HistoryStore(path)`` still opens a SQLite file directly (tests, tools). A store never
takes the app down: ``status()`` says whether it is usable, read-only or unavailable and why, and every storage
failure is a ``HistoryError`` written for the person.
"""

from __future__ import annotations

from pathlib import Path

from react_core.base.environment import environment_value
from react_core.base.trace_schema import MAX_IMPORT_BYTES, parse_trace_json
from react_core.history.arenas import ArenaSummary
from react_core.history.conversations import ConversationSummary
from react_core.history.records import RunRecord, SavedVersion, safe_setting
from react_core.history.sqlite import SQLiteStore
from react_core.history.status import READ_ONLY, UNAVAILABLE, USABLE, HistoryError, StoreStatus
from react_core.history.store import Store

HistoryStore = SQLiteStore  # the name the app and tools have always used for the SQLite store

__all__ = [
    "ArenaSummary",
    "ConversationSummary",
    "MAX_IMPORT_BYTES",
    "READ_ONLY",
    "UNAVAILABLE",
    "USABLE",
    "HistoryError",
    "HistoryStore",
    "RunRecord",
    "SQLiteStore",
    "SavedVersion",
    "Store",
    "StoreStatus",
    "open_history",
    "parse_trace_json",
    "safe_setting",
]


def open_history(owner: str = "", *, url: str | None = None, path: str | Path | None = None) -> Store:
    """The history of ``owner`` ('' for the local single-user app): PostgreSQL at ``url`` (default
    REACT_HISTORY_URL) when set, else SQLite at ``path`` (default REACT_HISTORY_DB, else the user data folder).
    Never raises for the storage: ask the store's ``status()``."""
    url = environment_value("REACT_HISTORY_URL") if url is None else url.strip()
    if url:
        from react_core.history.postgres import PostgresStore

        return PostgresStore(url, owner=owner)
    return SQLiteStore(path, owner=owner)
