"""Storage failures never take the app down and always say the real cause: a damaged file, a read-only location, a
full disk, an unreachable database server. Earlier history stays intact in every case."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from app_helpers import ROOT, ask, new_session, use_app

from react_core.base.trace import Observation, Step, Trace
from react_core.history import READ_ONLY, UNAVAILABLE, USABLE, HistoryError, HistoryStore, open_history
from react_core.history import status as kinds

CALC = ["Thought 1: Multiply.\nAction 1: Calculator[6 * 7]", "Thought 2: Done.\nAction 2: Finish[42]"]


def a_run(question: str = "q", observation: str = "o") -> Trace:
    return Trace(
        question=question, steps=[Step(1, thought="t", observation=Observation(observation))], stop_reason="finished"
    )


def _every_operation_fails(store, kind: str) -> None:
    for call in (
        store.count,
        store.list,
        lambda: store.get(1),
        lambda: store.save(a_run()),
        store.last_settings,
        store.version_lines,
    ):
        with pytest.raises(HistoryError) as caught:
            call()
        assert caught.value.kind == kind


# -- a damaged file -------------------------------------------------------------------------------------------


def test_a_file_that_is_not_a_database_makes_history_unavailable_and_is_left_untouched(tmp_path):
    path = tmp_path / "h.sqlite"
    garbage = b"this is not a database\n" * 300
    path.write_bytes(garbage)
    store = HistoryStore(path)
    status = store.status()
    assert status.state == UNAVAILABLE and not status.readable and status.where == str(path)
    assert str(path) in status.reason and "damaged" in status.reason and "REACT_HISTORY_DB" in status.reason
    assert "\n" not in status.reason
    _every_operation_fails(store, kinds.DAMAGED)
    assert path.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.sqlite"]


def test_the_app_starts_and_chats_with_a_damaged_history_file(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, CALC)
    path = tmp_path / "history.sqlite"
    garbage = b"\x00garbage" * 1000
    path.write_bytes(garbage)
    at = new_session()  # used to crash at start-up with "file is not a database"
    assert any("REACT_HISTORY_DB" in w.value for w in at.warning)
    at = ask(at, "What is 6 * 7?")
    assert at.session_state.chat["turns"][-1].trace.final_answer == "42"
    assert any("could not be saved" in w.value and "damaged" in w.value for w in at.warning)
    assert path.read_bytes() == garbage


# -- a read-only location -------------------------------------------------------------------------------------

READER = """
import json, os, sys
from react_core.history import HistoryError, HistoryStore
from react_core.base.trace import Trace

if os.geteuid() == 0:  # root writes anywhere: read as an unprivileged user, as a real deployment would
    try:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    except OSError as e:
        print(json.dumps({"cannot_drop": str(e)}))
        sys.exit(0)
store = HistoryStore(sys.argv[1])
out = {"status": vars(store.status()), "list": [r.question for r in store.list()], "get": store.get(1).trace.question}
out["settings"] = store.last_settings()
for name, call in (("save", lambda: store.save(Trace(question="new"))), ("delete", lambda: store.delete(1)),
                   ("remember", lambda: store.remember_settings({"temperature": 1.0}))):
    try:
        call()
        out[name] = "done"
    except HistoryError as e:
        out[name] = [e.kind, str(e)]
print(json.dumps(out))
"""


@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_read_only_location_is_read_and_every_write_says_why(what):
    # Not tmp_path: pytest's folder is private to root, and the reader runs as an unprivileged user.
    folder = Path(tempfile.mkdtemp(prefix="react-ro-history-"))
    try:
        path = folder / "h.sqlite"
        store = HistoryStore(path)
        store.save(a_run("first"))
        store.save(a_run("second"))
        store.remember_settings({"temperature": 0.5})
        before = path.read_bytes()
        folder.chmod(0o555 if what == "folder" else 0o777)
        path.chmod(0o444 if what == "file" else 0o644)
        out = subprocess.run(
            [sys.executable, "-c", READER, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60
        )
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        if "cannot_drop" in result:
            pytest.skip(f"cannot switch to the unprivileged user nobody to simulate a read-only place: {result}")
        status = result["status"]
        assert status["state"] == READ_ONLY and str(path) in status["reason"] and "REACT_HISTORY_DB" in status["reason"]
        assert result["list"] == ["second", "first"] and result["get"] == "first"
        assert result["settings"] == {"temperature": 0.5}
        for name in ("save", "delete", "remember"):
            kind, message = result[name]
            assert kind == kinds.NOT_WRITABLE and "cannot be written" in message and "writable" in message
        assert path.read_bytes() == before
    finally:
        folder.chmod(0o755)
        for p in folder.iterdir():
            p.unlink()
        folder.rmdir()


# -- a full disk ----------------------------------------------------------------------------------------------


class CappedStore(HistoryStore):
    """A store whose file may not grow past ``pages`` pages: SQLite's own limit, so a save fails with a real
    SQLITE_FULL exactly as on a full disk."""

    pages: int | None = None

    def _prepare(self, conn: sqlite3.Connection) -> None:
        super()._prepare(conn)
        if self.pages:
            conn.execute(f"PRAGMA max_page_count = {int(self.pages)}")


def test_a_full_disk_says_so_and_keeps_every_earlier_run(tmp_path):
    path = tmp_path / "h.sqlite"
    store = CappedStore(path)
    ids = [store.save(a_run(f"q{i}")) for i in range(3)]
    with sqlite3.connect(path) as conn:
        store.pages = conn.execute("PRAGMA page_count").fetchone()[0]
    with pytest.raises(HistoryError) as caught:
        store.save(a_run("too big", "x" * 1_000_000))
    message = str(caught.value)
    assert caught.value.kind == kinds.FULL
    assert "disk is full" in message and str(path) in message and "REACT_HISTORY_DB" in message
    assert "rollback" not in message and "no transaction" not in message
    with pytest.raises(HistoryError, match="disk is full"):
        store.remember_settings({"notes": "y" * 1_000_000})

    fresh = HistoryStore(path)
    assert [r.id for r in fresh.list()] == ids[::-1] and fresh.get(ids[0]).trace.question == "q0"
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert fresh.save(a_run("after space was freed", "x" * 1_000_000)) > ids[-1]


# -- PostgreSQL -----------------------------------------------------------------------------------------------


def test_an_unreachable_database_server_is_unavailable_and_never_shows_the_password():
    with socket_closed_port() as port:
        store = open_history(url=f"postgresql://react:very-secret-pw@127.0.0.1:{port}/history")
        status = store.status()
    assert status.state == UNAVAILABLE and status.where == f"postgresql://react@127.0.0.1:{port}/history"
    assert "cannot be reached" in status.reason and "REACT_HISTORY_URL" in status.reason
    assert "very-secret-pw" not in status.reason + status.where
    with pytest.raises(HistoryError) as caught:
        store.save(a_run())
    assert caught.value.kind == kinds.UNREACHABLE and "very-secret-pw" not in str(caught.value)


def test_a_wrong_password_is_reported_without_the_password(postgres_server):
    store = open_history(url=postgres_server.url(password="wrong-pw-123"))
    status = store.status()
    assert status.state == UNAVAILABLE and "password authentication failed" in status.reason
    assert "wrong-pw-123" not in status.reason


def test_a_url_that_is_not_postgresql_is_reported_not_raised():
    status = open_history(url="mysql://x@127.0.0.1/db").status()
    assert status.state == UNAVAILABLE and "postgresql://" in status.reason


def test_a_read_only_postgresql_user_can_read_but_not_write(postgres_server, postgres_url):
    writer = open_history(url=postgres_url)
    run_id = writer.save(a_run("kept"))
    schema = postgres_url.rsplit("%3D", 1)[1]
    postgres_server.execute(
        f"CREATE ROLE {schema}_reader LOGIN PASSWORD 'reader-pw'; GRANT USAGE ON SCHEMA {schema} TO {schema}_reader; "
        f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {schema}_reader"
    )
    url = postgres_url.replace("react:pg-test-secret-7Q", f"{schema}_reader:reader-pw")
    reader = open_history(url=url)
    status = reader.status()
    assert status.state == READ_ONLY and "is not granted" in status.reason and "reader-pw" not in status.reason
    assert reader.get(run_id).question == "kept"
    with pytest.raises(HistoryError) as caught:
        reader.save(a_run())
    assert caught.value.kind == kinds.NOT_WRITABLE
    assert writer.status().state == USABLE


def test_psycopg_is_imported_only_when_postgresql_is_used(tmp_path):
    code = (
        "import sys\nfrom react_core.history import open_history\n"
        f"open_history(url='', path={str(tmp_path / 'h.sqlite')!r}).count()\n"
        "print('psycopg' in sys.modules)"
    )
    env = {**os.environ, "REACT_HISTORY_URL": ""}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


class socket_closed_port:
    """A port on 127.0.0.1 with nothing listening (bound, never listened on, for the test's duration)."""

    def __enter__(self) -> int:
        import socket

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        return self.sock.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        self.sock.close()
