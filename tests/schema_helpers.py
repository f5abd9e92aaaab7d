"""A history file as an older version of the app left it: the first ``version`` migrations applied, no more. Tests of
a later migration start from it, so they never undo by hand what the migrations after theirs do."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from react_core.history.migrations import MIGRATIONS, VERSION_TABLE


def sqlite_history_at(path: Path, version: int) -> None:
    with sqlite3.connect(path) as conn:
        conn.create_function("react_casefold", 1, str.casefold)
        conn.execute(VERSION_TABLE)
        for m in MIGRATIONS[:version]:
            for sql in m.sqlite:
                conn.execute(sql)
            conn.execute("INSERT INTO schema_version VALUES (?, 'old', '2026-01-01')", (m.version,))
