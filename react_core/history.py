"""The history store: every finished run, with its full Trace and settings, in one SQLite file.

WAL mode so readers (other browser sessions, the History page) never block the writer; each save is one
transaction, so a process killed mid-run leaves every earlier entry intact. A connection is opened per operation:
Streamlit serves sessions from many threads and the agent saves from its own, and SQLite connections must not be
shared across threads. Keys never reach this file: traces drop unknown settings, and remembered settings are
filtered through ``SAFE_SETTING``. The default path is the user's data folder (``REACT_HISTORY_DB`` overrides).
UI-free: depends only on the trace and the errors; never imports streamlit.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from react_core.errors import ConfigError
from react_core.paths import history_db
from react_core.trace import Trace

MAX_IMPORT_BYTES = 5_000_000
# A remembered setting may never look like a secret, whatever a future settings field is called.
_SECRET_NAME = re.compile(r"key|token|secret|password|credential", re.IGNORECASE)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    question TEXT NOT NULL,
    final_answer TEXT,
    stop_reason TEXT,
    provider TEXT,
    model TEXT,
    format TEXT,
    steps INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER NOT NULL DEFAULT 0,
    seconds REAL NOT NULL DEFAULT 0,
    origin TEXT NOT NULL DEFAULT 'chat',
    conversation TEXT NOT NULL DEFAULT '',
    parent_id INTEGER,
    fork_step INTEGER,
    search_text TEXT NOT NULL DEFAULT '',
    trace_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at);
CREATE TABLE IF NOT EXISTS remembered (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


def safe_setting(name: str) -> bool:
    return not _SECRET_NAME.search(name)


@dataclass
class RunRecord:
    """One stored run: its row and (when loaded) its trace."""

    id: int
    created_at: str
    question: str
    final_answer: str | None
    stop_reason: str | None
    provider: str
    model: str
    format: str
    steps: int
    tokens: int
    seconds: float
    origin: str
    conversation: str
    parent_id: int | None
    fork_step: int | None
    trace: Trace | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "trace"}
        d["trace"] = self.trace.to_dict() if self.trace else None
        return d


_COLUMNS = (
    "id, created_at, question, final_answer, stop_reason, provider, model, format, steps, tokens, seconds, "
    "origin, conversation, parent_id, fork_step"
)


def _search_text(trace: Trace) -> str:
    parts = [trace.question, trace.final_answer or "", trace.error or ""]
    for s in trace.steps:
        parts.append(s.thought)
        if s.action:
            parts.append(f"{s.action.tool} {s.action.input}")
        if s.observation:
            parts.append(s.observation.text)
            parts += [src.title for src in s.observation.sources]
    return "\n".join(parts)


def _like(term: str) -> str:
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


class HistoryStore:
    """A SQLite file of runs. Cheap to create: the schema is made on first use."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else history_db()
        self._ready = False

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        if not self._ready:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise ConfigError(
                    f"Cannot create the history folder {self.path.parent}: {e}. "
                    "Set REACT_HISTORY_DB to a writable file."
                ) from None
        try:
            conn = sqlite3.connect(self.path, timeout=15, isolation_level=None)
        except sqlite3.Error as e:
            raise ConfigError(
                f"Cannot open the history file {self.path}: {e}. Set REACT_HISTORY_DB to a writable file."
            ) from None
        with closing(conn):
            conn.row_factory = sqlite3.Row
            if not self._ready:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
                self._ready = True
            # NORMAL is durable against a killed process (committed pages are in the WAL file); only a power cut
            # can lose the very last commit, and never corrupts earlier ones.
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            yield conn

    # -- runs -----------------------------------------------------------------------------------------

    def save(
        self,
        trace: Trace,
        *,
        origin: str = "chat",
        conversation: str = "",
        parent_id: int | None = None,
        fork_step: int | None = None,
    ) -> int:
        """Store a finished run in one transaction; returns its id."""
        totals = trace.totals
        row = (
            datetime.now(UTC).isoformat(timespec="seconds"),
            trace.question,
            trace.final_answer,
            trace.stop_reason,
            str(trace.settings.get("provider", "")),
            str(trace.settings.get("model", "")),
            str(trace.settings.get("format", "")),
            totals["steps"],
            totals["tokens"],
            totals["seconds"],
            origin,
            conversation,
            parent_id,
            fork_step,
            _search_text(trace),
            json.dumps(trace.to_dict(), ensure_ascii=False),
        )
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                cur = conn.execute(
                    "INSERT INTO runs (created_at, question, final_answer, stop_reason, provider, model, format, "
                    "steps, tokens, seconds, origin, conversation, parent_id, fork_step, search_text, trace_json) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            return int(cur.lastrowid)

    def list(self, query: str = "", *, limit: int = 200) -> list[RunRecord]:
        """Newest first; every word of ``query`` must occur in the question, answer, thoughts or observations."""
        terms = query.split()
        where = " AND ".join("search_text LIKE ? ESCAPE '\\'" for _ in terms) or "1=1"
        with self._connect() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM runs WHERE {where} ORDER BY id DESC LIMIT ?",
                [*map(_like, terms), int(limit)],
            ).fetchall()
        return [RunRecord(**dict(r)) for r in rows]

    def get(self, run_id: int) -> RunRecord | None:
        with self._connect() as conn:
            row = conn.execute(f"SELECT {_COLUMNS}, trace_json FROM runs WHERE id = ?", (int(run_id),)).fetchone()
        if row is None:
            return None
        data = dict(row)
        trace = Trace.from_dict(json.loads(data.pop("trace_json")))
        return RunRecord(**data, trace=trace)

    def delete(self, run_id: int) -> bool:
        with self._connect() as conn:
            return conn.execute("DELETE FROM runs WHERE id = ?", (int(run_id),)).rowcount > 0

    def count(self) -> int:
        with self._connect() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def import_json(self, data: bytes | str) -> int:
        """Store a trace exported as JSON (by the app or ``ask --json``); ConfigError says what is wrong."""
        trace = parse_trace_json(data)
        return self.save(trace, origin="import")

    # -- remembered settings --------------------------------------------------------------------------

    def remember_settings(self, settings: dict[str, Any]) -> None:
        clean = {k: v for k, v in settings.items() if safe_setting(k)}
        with self._connect() as conn:
            conn.execute(
                "INSERT INTO remembered (name, value) VALUES ('settings', ?) "
                "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                (json.dumps(clean, ensure_ascii=False),),
            )

    def last_settings(self) -> dict[str, Any] | None:
        with self._connect() as conn:
            row = conn.execute("SELECT value FROM remembered WHERE name = 'settings'").fetchone()
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except ValueError:
            return None
        return {k: v for k, v in value.items() if safe_setting(k)} if isinstance(value, dict) else None


def parse_trace_json(data: bytes | str) -> Trace:
    """A Trace from exported JSON, with a message naming the problem when it is not one."""
    if len(data) > MAX_IMPORT_BYTES:
        raise ConfigError(f"The file is larger than {MAX_IMPORT_BYTES // 1_000_000} MB; a trace is far smaller.")
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise ConfigError(f"Not valid JSON: {e}.") from None
    if not isinstance(value, dict) or not isinstance(value.get("question"), str):
        raise ConfigError("Not a ReAct Lab trace: expected a JSON object with a 'question' and 'steps'.")
    try:
        return Trace.from_dict(value)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise ConfigError(f"Not a ReAct Lab trace: {e}.") from None
