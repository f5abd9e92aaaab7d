"""Versioned migrations: a history made before ``schema_version`` existed opens with its runs intact; each migration
is applied once, in order, also when two openers race; a history from a newer version is left alone."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable

import pytest

from react_core.base.trace import Step, Trace
from react_core.history import UNAVAILABLE, HistoryStore, open_history
from react_core.history import status as kinds
from react_core.history.migrations import LATEST, MIGRATIONS, VERSION_TABLE

# The schema the first version of the store created (react_core/history.py before migrations), verbatim.
FIRST_SCHEMA = """
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


def old_history(path, questions: list[str]) -> list[dict]:
    """A history file as the first version wrote it (mixed-case search text, no owner, no version table)."""
    traces = [
        Trace(question=q, steps=[Step(1, thought=f"Thinking about {q}")], final_answer="A", stop_reason="finished")
        for q in questions
    ]
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(FIRST_SCHEMA)
        for t in traces:
            conn.execute(
                "INSERT INTO runs (created_at, question, final_answer, stop_reason, provider, model, format, steps, "
                "tokens, seconds, origin, conversation, search_text, trace_json) "
                "VALUES ('2025-06-01T10:00:00+00:00', ?, 'A', 'finished', 'scripted', 'm', 'paper', 1, 0, 0, "
                "'chat', 'c', ?, ?)",
                (t.question, f"{t.question}\nA\nThinking about {t.question}", json.dumps(t.to_dict())),
            )
        conn.execute("INSERT INTO remembered (name, value) VALUES ('settings', '{\"temperature\": 0.3}')")
    return [t.to_dict() for t in traces]


def versions(path) -> list[int]:
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY version")]


def test_a_history_made_by_the_first_version_opens_with_its_runs_intact(tmp_path):
    path = tmp_path / "h.sqlite"
    traces = old_history(path, ["Who wrote Ulysses?", "Where is the ÉCOLE?"])
    store = HistoryStore(path)
    assert store.status().state == "usable"
    assert versions(path) == [m.version for m in MIGRATIONS]
    assert [r.question for r in store.list()] == ["Where is the ÉCOLE?", "Who wrote Ulysses?"]
    assert [store.get(r.id).trace.to_dict() for r in store.list()[::-1]] == traces
    # Old rows are case-folded too (SQLite's LIKE folds only ASCII).
    assert [r.question for r in store.list("école")] == ["Where is the ÉCOLE?"]
    assert store.last_settings() == {"temperature": 0.3}  # remembered settings belong to the default owner
    assert open_history("someone", url="", path=path).count() == 0
    new_id = store.save(Trace(question="After the upgrade"))
    assert new_id == 3 and store.count() == 3
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_migrations_are_numbered_in_order_and_applied_once(tmp_path):
    numbers = [m.version for m in MIGRATIONS]
    # 1..N with no gap: a history at version k then has every migration up to k, and none is ever skipped.
    assert numbers == list(range(1, len(MIGRATIONS) + 1)) and numbers[-1] == LATEST
    path = tmp_path / "h.sqlite"
    HistoryStore(path).save(Trace(question="q"))
    HistoryStore(path).count()
    assert versions(path) == [m.version for m in MIGRATIONS]


def _at_once(save: Callable[[], None], n: int = 4) -> list[BaseException]:
    """Run ``save`` on ``n`` threads released together (as processes or replicas opening one history); what failed."""
    start, errors = threading.Barrier(n), []

    def one() -> None:
        start.wait()
        try:
            save()
        except BaseException as e:  # re-raised on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_two_processes_opening_a_new_history_at_once_migrate_it_once(tmp_path):
    # Both switching a new file to WAL at once made SQLite answer "locked" without waiting, about once in 25 rounds:
    # 25 rounds make that failure likely rather than rare.
    for round_ in range(25):
        path = tmp_path / f"h{round_}.sqlite"
        errors = _at_once(lambda path=path: HistoryStore(path).save(Trace(question="q")))
        assert not errors, errors
        assert versions(path) == [m.version for m in MIGRATIONS] and HistoryStore(path).count() == 4


def test_a_history_from_a_newer_version_is_left_alone(tmp_path):
    path = tmp_path / "h.sqlite"
    HistoryStore(path).save(Trace(question="q"))
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version VALUES (?, 'from the future', '2030-01-01')", (LATEST + 1,))
    before = path.read_bytes()
    status = HistoryStore(path).status()
    assert status.state == UNAVAILABLE and "newer version" in status.reason and f"schema {LATEST + 1}" in status.reason
    assert path.read_bytes() == before


def test_postgresql_migrates_a_fresh_database_once_even_when_replicas_race(postgres_url):
    assert not _at_once(lambda: open_history(url=postgres_url).save(Trace(question="q")))
    import psycopg

    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT version FROM schema_version ORDER BY version").fetchall()
    assert [r[0] for r in rows] == [m.version for m in MIGRATIONS]
    assert open_history(url=postgres_url).count() == 4


def test_postgresql_from_a_newer_version_is_left_alone(postgres_url):
    open_history(url=postgres_url).count()
    import psycopg

    with psycopg.connect(postgres_url) as conn:
        conn.execute("INSERT INTO schema_version VALUES (%s, 'from the future', '2030-01-01')", (LATEST + 1,))
    status = open_history(url=postgres_url).status()
    assert status.state == UNAVAILABLE and "newer version" in status.reason
    with pytest.raises(kinds.HistoryError) as caught:
        open_history(url=postgres_url).list()
    assert caught.value.kind == kinds.NEWER


SAVED_PRESETS = [("", "mine", "title = 'local'\n"), ("ann@example.org", "mine", "title = 'ann'\n")]


def _at_schema_3(run_sql: Callable[[str], None], placeholder: str) -> None:
    """A history as schema 3 left it: two owners' saved presets (one table row each)."""
    run_sql(VERSION_TABLE)
    for m in MIGRATIONS[:3]:
        for sql in m.postgres if placeholder == "%s" else m.sqlite:
            run_sql(sql)
        run_sql(f"INSERT INTO schema_version VALUES ({m.version}, 'old', '2026-01-01')")
    for owner, name, toml in SAVED_PRESETS:
        run_sql(
            "INSERT INTO presets (owner, name, toml, saved_at) VALUES "
            f"('{owner}', '{name}', '{toml.replace(chr(39), chr(39) * 2)}', '2026-01-02T00:00:00+00:00')"
        )


def _check_presets_became_versions(opener: Callable[[str], object]) -> None:
    for owner, name, toml in SAVED_PRESETS:
        store = opener(owner)
        saved = store.versions(name)
        assert [(v.ref, v.toml, v.saved_at) for v in saved] == [(f"{name}@1", toml, "2026-01-02T00:00:00+00:00")]
        assert store.save_version(name, "title = 'next'\n").ref == f"{name}@2"
    local = opener("")
    local.save(Trace(question="after the upgrade"))  # runs have a prompt version column now: none for this one
    assert [r.prompt_version for r in local.list()] == [""]


def test_saved_presets_become_version_1_of_their_lines(tmp_path):
    path = tmp_path / "h.sqlite"
    with sqlite3.connect(path) as conn:
        conn.create_function("react_casefold", 1, str.casefold)
        _at_schema_3(conn.execute, "?")
    _check_presets_became_versions(lambda owner: open_history(owner, url="", path=path))
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "presets" not in tables and versions(path) == list(range(1, LATEST + 1))


def test_saved_presets_become_version_1_of_their_lines_on_postgresql(postgres_url):
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        _at_schema_3(conn.execute, "%s")
    _check_presets_became_versions(lambda owner: open_history(owner, url=postgres_url))
