"""The history store: WAL mode, exact round trips, search, delete, import, remembered settings without secrets,
and writers on many threads at once."""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest

from react_core.errors import ConfigError
from react_core.history import HistoryStore, parse_trace_json
from react_core.trace import Action, Observation, Source, Step, Trace, Usage


def make_trace(question: str = "Who?", answer: str | None = "Ann", observation: str = "Ann wrote it.") -> Trace:
    return Trace(
        question=question,
        settings={"provider": "scripted", "model": "script", "format": "paper", "api_key": "sk-never"},
        steps=[
            Step(
                1,
                thought="Search the book.",
                action=Action("search", "The Book"),
                observation=Observation(observation, sources=[Source("The Book", "https://en.wikipedia.org/wiki/B")]),
                usage=Usage(100, 10),
                seconds=0.5,
            ),
            Step(2, thought="Found it.", final_answer=answer, usage=Usage(120, 5), seconds=0.25),
        ],
        final_answer=answer,
        stop_reason="finished" if answer is not None else "max_calls",
        started_at="2026-01-01T00:00:00+00:00",
    )


def test_the_file_is_in_wal_mode_and_a_trace_round_trips_exactly(tmp_path):
    store = HistoryStore(tmp_path / "h.sqlite")
    trace = make_trace()
    run_id = store.save(trace, conversation="c1")
    with sqlite3.connect(tmp_path / "h.sqlite") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    record = store.get(run_id)
    assert record.trace.to_dict() == trace.to_dict()
    assert (record.question, record.final_answer, record.steps, record.tokens) == ("Who?", "Ann", 2, 235)
    assert record.conversation == "c1" and record.origin == "chat"
    assert b"sk-never" not in (tmp_path / "h.sqlite").read_bytes()


def test_search_matches_every_word_in_questions_thoughts_and_observations(tmp_path):
    store = HistoryStore(tmp_path / "h.sqlite")
    a = store.save(make_trace("Who wrote the book?", observation="Ann wrote it in Paris."))
    b = store.save(make_trace("Where is Rome?", answer="Italy", observation="Rome is in Italy."))
    assert [r.id for r in store.list()] == [b, a]
    assert [r.id for r in store.list("paris ANN")] == [a]
    assert [r.id for r in store.list("italy")] == [b]
    assert [r.id for r in store.list("Search the book")] == [b, a]  # thoughts count
    assert store.list("100%_") == []  # LIKE wildcards are literal


def test_delete_and_count(tmp_path):
    store = HistoryStore(tmp_path / "h.sqlite")
    run_id = store.save(make_trace())
    assert store.count() == 1
    assert store.delete(run_id) is True and store.delete(run_id) is False
    assert store.get(run_id) is None and store.count() == 0


def test_import_accepts_an_exported_trace_and_explains_what_is_wrong_otherwise(tmp_path):
    store = HistoryStore(tmp_path / "h.sqlite")
    trace = make_trace()
    run_id = store.import_json(json.dumps(trace.to_dict()).encode())
    assert store.get(run_id).trace.to_dict() == trace.to_dict() and store.get(run_id).origin == "import"
    for bad, message in (
        (b"not json", "Not valid JSON"),
        (b"[1, 2]", "Not a ReAct Lab trace"),
        (b'{"question": "q", "steps": [{"thought": "no index"}]}', "Not a ReAct Lab trace"),
        (b'{"question": "q", "surprise": 1}', "surprise is not a known field"),
    ):
        with pytest.raises(ConfigError, match=message):
            parse_trace_json(bad)
    with pytest.raises(ConfigError, match="larger than"):
        parse_trace_json(b" " * 5_000_001)


def test_remembered_settings_never_hold_anything_that_looks_like_a_secret(tmp_path):
    store = HistoryStore(tmp_path / "h.sqlite")
    assert store.last_settings() is None
    store.remember_settings({"temperature": 0.5, "api_key": "sk-x", "token": "t", "provider": "gemini"})
    store.remember_settings({"temperature": 0.7, "api_key": "sk-y", "provider": "gemini"})
    assert store.last_settings() == {"temperature": 0.7, "provider": "gemini"}
    assert b"sk-" not in (tmp_path / "h.sqlite").read_bytes()


def test_many_threads_save_at_once_without_losing_a_run(tmp_path):
    store = HistoryStore(tmp_path / "h.sqlite")
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(10):
                HistoryStore(tmp_path / "h.sqlite").save(make_trace(f"q{n}-{i}"))
                store.list(f"q{n}")
        except BaseException as e:  # collected and re-raised on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert store.count() == 60
    assert {r.question for r in store.list(limit=100)} == {f"q{n}-{i}" for n in range(6) for i in range(10)}


def test_the_default_path_follows_react_history_db(monkeypatch, tmp_path):
    monkeypatch.setenv("REACT_HISTORY_DB", str(tmp_path / "x" / "h.sqlite"))
    HistoryStore().save(make_trace())  # creates the folder
    assert (tmp_path / "x" / "h.sqlite").is_file()


def test_an_unwritable_location_is_a_config_error_naming_the_fix(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="REACT_HISTORY_DB"):
        HistoryStore(blocker / "h.sqlite").save(make_trace())
