"""The history store on both backends (SQLite and a real PostgreSQL server): exact round trips, search, delete,
import, remembered settings without secrets, prompt versions and labels, each owner's history theirs alone, and
writers on many threads at once."""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest

from react_core.base.errors import ConfigError
from react_core.base.trace import Action, Observation, Source, Step, Trace, Usage
from react_core.history import HistoryStore, SQLiteStore, open_history, parse_trace_json
from react_core.report.exports import to_json


def make_trace(question: str = "Who?", answer: str | None = "Ann", observation: str = "Ann wrote it.") -> Trace:
    return Trace(
        question=question,
        settings={"provider": "scripted", "model": "script", "dialect": "paper", "api_key": "sk-never"},
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


def test_a_trace_round_trips_exactly(open_store):
    store = open_store()
    trace = make_trace()
    run_id = store.save(trace, conversation="c1")
    record = store.get(run_id)
    assert record.trace.to_dict() == trace.to_dict() and record.damaged == ""
    assert (record.question, record.final_answer, record.steps, record.tokens) == ("Who?", "Ann", 2, 235)
    assert record.conversation == "c1" and record.origin == "chat"
    assert store.status().state == "usable"


def test_text_neither_database_can_hold_in_a_column_still_round_trips(open_store):
    # NUL is refused by PostgreSQL text columns, a lone surrogate by UTF-8: the columns get U+FFFD, the trace's JSON
    # keeps NUL as an escape (a surrogate is replaced where it enters, as everywhere).
    store = open_store()
    trace = make_trace(question="nul\x00here", answer="a\ud800b")
    record = store.get(store.save(trace))
    assert record.question == "nul\ufffdhere" and record.final_answer == "a\ufffdb"
    assert record.trace.question == "nul\x00here" and record.trace.final_answer == "a\ufffdb"
    assert [r.id for r in store.list("nul")] == [record.id]


def test_the_sqlite_file_is_in_wal_mode_and_holds_no_key(tmp_path):
    HistoryStore(tmp_path / "h.sqlite").save(make_trace())
    with sqlite3.connect(tmp_path / "h.sqlite") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert b"sk-never" not in (tmp_path / "h.sqlite").read_bytes()


def test_search_matches_every_word_in_any_case(open_store):
    store = open_store()
    a = store.save(make_trace("Who wrote the book?", observation="Ann wrote it in Paris."))
    b = store.save(make_trace("Where is Rome?", answer="Italy", observation="Rome is in Italy."))
    c = store.save(make_trace("ÉCOLE normale?", answer="Straße", observation="Über alles."))
    assert [r.id for r in store.list()] == [c, b, a]
    assert [r.id for r in store.list("paris ANN")] == [a]
    assert [r.id for r in store.list("italy")] == [b]
    assert [r.id for r in store.list("Search the book")] == [c, b, a]  # thoughts count
    assert [r.id for r in store.list("école über STRASSE")] == [c]  # case-insensitive beyond ASCII
    assert store.list("paris rome") == []  # every word must occur
    assert [r.id for r in store.list("rome", limit=1)] == [b]


def test_like_wildcards_in_a_search_are_literal(open_store):
    store = open_store()
    percent = store.save(make_trace("Is it 50% done?"))
    store.save(make_trace("Is it 50x done?"))
    underscore = store.save(make_trace("What is a_b?"))
    store.save(make_trace("What is axb?"))
    backslash = store.save(make_trace("Path c:\\temp?"))
    assert [r.id for r in store.list("50%")] == [percent]
    assert [r.id for r in store.list("a_b")] == [underscore]
    assert [r.id for r in store.list("c:\\temp")] == [backslash]
    assert [r.id for r in store.list("%")] == [percent]
    assert [r.id for r in store.list("_")] == [underscore]


def test_delete_and_count(open_store):
    store = open_store()
    run_id = store.save(make_trace())
    assert store.count() == 1
    assert store.delete(run_id) is True and store.delete(run_id) is False
    assert store.get(run_id) is None and store.count() == 0


def test_import_accepts_an_exported_trace_and_explains_what_is_wrong_otherwise(open_store):
    store = open_store()
    trace = make_trace()
    run_id = store.import_json(json.dumps(trace.to_dict()).encode()).run_id
    assert store.get(run_id).trace.to_dict() == trace.to_dict() and store.get(run_id).origin == "import"
    for bad, message in (
        (b"not json", "Not valid JSON"),
        (b"[1, 2]", "Not a ReAct Lab trace"),
        (b'{"question": "q", "steps": [{"thought": "no index"}]}', r"steps\[0\].index is missing"),
        (b'{"question": "q", "surprise": 1}', "surprise is not a known field"),
    ):
        with pytest.raises(ConfigError, match=message):
            store.import_json(bad)
    with pytest.raises(ConfigError, match="larger than"):
        parse_trace_json(b" " * 5_000_001)
    assert store.count() == 1


def test_importing_a_run_already_in_history_names_it_instead_of_storing_a_copy(open_store):
    ann, bob = open_store("ann@example.org"), open_store("bob@example.org")
    trace = make_trace()
    saved = ann.save(trace, conversation="chat-1")  # as the chat saved it; then exported and imported again
    again = ann.import_json(to_json(trace))
    assert (again.run_id, again.existing, ann.count()) == (saved, True, 1)
    assert again.message == f"This run is already in History as run #{saved}; it is opened below."
    theirs = bob.import_json(to_json(trace))  # another person's history does not hold it
    assert not theirs.existing and bob.count() == 1
    changed = make_trace(answer="Bob")  # the same question, another run
    new = ann.import_json(to_json(changed))
    assert not new.existing and new.run_id != saved and ann.count() == 2
    assert new.message == f"Imported as run #{new.run_id}."
    assert ann.import_json(to_json(changed)).run_id == new.run_id  # and from then on, that one is named


def test_remembered_settings_never_hold_anything_that_looks_like_a_secret(open_store, tmp_path):
    store = open_store()
    assert store.last_settings() is None
    store.remember_settings({"temperature": 0.5, "api_key": "sk-x", "token": "t", "provider": "gemini"})
    store.remember_settings({"temperature": 0.7, "api_key": "sk-y", "provider": "gemini"})
    assert store.last_settings() == {"temperature": 0.7, "provider": "gemini"}
    if (tmp_path / "h.sqlite").exists():
        assert b"sk-" not in (tmp_path / "h.sqlite").read_bytes()


def test_prompt_versions_are_numbered_never_replaced_and_labels_move(open_store):
    store = open_store()
    assert store.version_lines() == {} and store.get_version("mine", 1) is None
    first = store.save_version("mine", 'dialect = "paper"\n')
    second = store.save_version("mine", "x = 2\n", note="edited")
    store.save_version("another", "x = 1\n")
    assert (first.ref, second.ref) == ("mine@1", "mine@2") and first.saved_at
    assert store.version_lines() == {"another": 1, "mine": 2}
    assert store.get_version("mine", 1) == first  # saving again added a version; the first is unchanged
    assert [v.toml for v in store.versions("mine")] == ['dialect = "paper"\n', "x = 2\n"]
    assert store.save_version("paper", "x = 1\n", first=2).number == 2  # a shipped line: 1 is the shipped file
    store.move_label("mine", "best", 1)
    store.move_label("mine", "best", 2)
    store.move_label("mine", "lesson-1", 1)
    assert store.labels("mine") == {"best": 2, "lesson-1": 1} and store.labels("another") == {}
    assert store.remove_label("mine", "best") is True and store.remove_label("mine", "best") is False
    for name, toml in (("", "x = 1"), ("n" * 201, "x = 1"), ("big", "x" * 1_000_001)):
        with pytest.raises(ConfigError, match="prompt version"):
            store.save_version(name, toml)


def test_runs_are_found_by_the_prompt_version_they_used(open_store):
    store = open_store()
    old = store.save(make_trace("Before versions"))  # an older run records no version
    with_version = make_trace("With a version")
    with_version.settings["prompt_version"] = "mine@2"
    used = store.save(with_version)
    assert [r.id for r in store.list(version="mine@2")] == [used] and store.get(used).prompt_version == "mine@2"
    assert [r.id for r in store.list(version="")] == [old] and store.list(version="mine@1") == []
    assert [r.id for r in store.list()] == [used, old]
    assert store.run_versions() == {"mine@2": 1}
    assert open_store("someone-else").run_versions() == {}


def test_each_owner_sees_only_their_own_history(open_store):
    ann, bob = open_store("ann@example.org"), open_store("bob@example.org")
    a = ann.save(make_trace("Ann's question about Paris"))
    b = bob.save(make_trace("Bob's question about Paris"))
    ann.remember_settings({"temperature": 0.1})
    bob.remember_settings({"temperature": 0.9})
    ann.save_version("shared-name", "owner = 'ann'")
    bob.save_version("shared-name", "owner = 'bob'")
    ann.move_label("shared-name", "best", 1)

    assert [r.id for r in ann.list()] == [a] and [r.id for r in bob.list()] == [b]
    assert [r.id for r in ann.list("paris")] == [a] and ann.count() == 1 and bob.count() == 1
    assert ann.last_settings() == {"temperature": 0.1} and bob.last_settings() == {"temperature": 0.9}
    assert ann.get_version("shared-name", 1).toml == "owner = 'ann'"
    assert [p.toml for p in bob.versions("shared-name")] == ["owner = 'bob'"] and bob.labels("shared-name") == {}
    # The local single-user app's default owner is yet another history.
    assert open_store().count() == 0 and open_store().last_settings() is None

    # A crafted request for the other owner's run id finds nothing and deletes nothing.
    assert ann.get(b) is None and ann.delete(b) is False
    assert bob.get(a) is None and bob.delete(a) is False
    assert bob.remove_label("shared-name", "best") is False and ann.labels("shared-name") == {"best": 1}
    assert ann.get(a) is not None and bob.get(b) is not None
    ann.import_json(json.dumps(make_trace("imported").to_dict()))
    assert bob.list("imported") == []


def test_a_conversation_comes_back_in_order_and_only_for_its_owner(open_store):
    ann, bob = open_store("ann@example.org"), open_store("bob@example.org")
    first = ann.save(make_trace("first"), conversation="chat-1")
    ann.save(make_trace("elsewhere"), conversation="chat-2")
    second = ann.save(make_trace("second"), conversation="chat-1", origin="retry")
    bob.save(make_trace("bob's"), conversation="chat-1")  # the same chat id from someone else
    got = ann.conversation("chat-1")
    assert [r.id for r in got] == [first, second] and [r.trace.question for r in got] == ["first", "second"]
    assert [r.trace.question for r in bob.conversation("chat-1")] == ["bob's"]
    assert ann.conversation("") == [] and ann.conversation("missing") == []


def test_ids_that_are_not_ids_find_nothing(open_store):
    store = open_store()
    run_id = store.save(make_trace())
    for crafted in ("1 OR 1=1", "abc", None, -1, 0, 2**70, True):
        assert store.get(crafted) is None and store.delete(crafted) is False
    assert store.get(str(run_id)).id == run_id and store.count() == 1


def test_an_owner_is_bounded_text(tmp_path):
    for bad in ("x" * 201, "a\x00b", 3):
        with pytest.raises(ConfigError, match="owner"):
            SQLiteStore(tmp_path / "h.sqlite", owner=bad)


def test_many_threads_save_at_once_without_losing_a_run(open_store):
    store = open_store()
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(10):
                open_store().save(make_trace(f"q{n}-{i}"))
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


def test_many_writers_adding_to_one_line_at_once_each_get_their_own_number(open_store):
    start, errors, numbers = threading.Barrier(6), [], []

    def writer(n: int) -> None:
        try:
            start.wait()  # released together, as replicas saving at the same moment
            for i in range(3):
                numbers.append(open_store().save_version("shared", f"x = {n * 10 + i}\n").number)
        except BaseException as e:  # collected and re-raised on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert sorted(numbers) == list(range(1, 19)) and len(open_store().versions("shared")) == 18


def test_the_default_path_follows_react_history_db(monkeypatch, tmp_path):
    monkeypatch.setenv("REACT_HISTORY_DB", str(tmp_path / "x" / "h.sqlite"))
    monkeypatch.delenv("REACT_HISTORY_URL", raising=False)
    HistoryStore().save(make_trace())  # creates the folder
    assert (tmp_path / "x" / "h.sqlite").is_file()
    assert isinstance(open_history(), SQLiteStore) and open_history().count() == 1


def test_react_history_url_chooses_postgresql(monkeypatch, postgres_url):
    monkeypatch.setenv("REACT_HISTORY_URL", postgres_url)
    store = open_history("someone")
    assert type(store).__name__ == "PostgresStore" and store.owner == "someone"
    run_id = store.save(make_trace())
    assert open_history("someone").get(run_id).question == "Who?"


def test_an_unwritable_location_is_a_history_error_naming_the_fix(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="REACT_HISTORY_DB"):
        HistoryStore(blocker / "h.sqlite").save(make_trace())
