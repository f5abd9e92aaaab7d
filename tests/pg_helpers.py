"""A real PostgreSQL server on 127.0.0.1 for the history tests, from Debian's postgresql package.

One server per test session, started on first use in a temporary folder (data directory and unix socket), on a free
port, as the ``postgres`` user when the tests run as root (PostgreSQL refuses to run as root). It is stopped when the
session ends, by the PID it was started with, and its folder removed. Each test gets a schema of its own (through
the URL's ``search_path``), so tests never see each other's rows. Password authentication is on, so the tests can
check the password never shows. ``tests/conftest.py`` registers these fixtures for every test module.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from itertools import count
from pathlib import Path
from typing import Any

import pytest

PASSWORD = "pg-test-secret-7Q"
USER = "react"
INSTALL_HINT = (
    "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb), and the history tests run against a real "
    "server: `make test` installs Debian's postgresql package first (or run: apt-get install postgresql)."
)
_schemas = count(1)


def initdb_path() -> Path | None:
    found = Path("/usr/lib/postgresql").glob("*/bin/initdb")
    versions = sorted(found, key=lambda p: [int(n) for n in re.findall(r"\d+", p.parent.parent.name)] or [0])
    return versions[-1] if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="react-pg-"))
        self.data = self.folder / "data"
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.log: list[str] = []
        self._as_user: dict[str, Any] = {}
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.folder, pw.pw_uid, pw.pw_gid)
            self._as_user = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}

    def _run(self, *args: str) -> None:
        out = subprocess.run(
            args, cwd=self.folder, capture_output=True, text=True, timeout=120, check=False, **self._as_user
        )
        if out.returncode:
            raise RuntimeError(f"{args[0]} failed: {out.stdout}{out.stderr}")

    def start(self) -> None:
        pwfile = self.folder / "pw"
        pwfile.write_text(PASSWORD)
        if self._as_user:
            os.chown(pwfile, self._as_user["user"], self._as_user["group"])
        self._run(
            str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", USER, "--pwfile", str(pwfile),
            "--auth-local=scram-sha-256", "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8",
        )  # fmt: skip
        for _ in range(3):  # the free port can be taken between finding it and binding it
            self.port = _free_port()
            if self._launch():
                return
        raise RuntimeError("PostgreSQL did not start:\n" + "".join(self.log[-30:]))

    def _launch(self) -> bool:
        settings = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.folder),
            "fsync": "off",  # a test server: durability is not what is tested here
            "full_page_writes": "off",
            "synchronous_commit": "off",
            "shared_buffers": "16MB",
            "max_connections": "40",
        }
        args = [str(self.bin_dir / "postgres"), "-D", str(self.data), "-p", str(self.port)]
        for k, v in settings.items():
            args += ["-c", f"{k}={v}"]
        self.proc = subprocess.Popen(
            args, cwd=self.folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **self._as_user
        )
        assert self.proc.stderr is not None
        for line in self.proc.stderr:  # an event, not a delay: the server says when it is ready
            self.log.append(line)
            if "ready to accept connections" in line:
                threading.Thread(target=self._drain, daemon=True).start()
                return True
        self.proc.wait()
        return False

    def _drain(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line)

    def url(self, schema: str = "", password: str = PASSWORD) -> str:
        options = f"?options=-csearch_path%3D{schema}" if schema else ""
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/postgres{options}"

    def execute(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # PostgreSQL's fast shutdown
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server():
    """The session's PostgreSQL server; fails (never skips) when PostgreSQL is not installed."""
    initdb = initdb_path()
    if initdb is None:
        pytest.fail(INSTALL_HINT, pytrace=False)
    server = PostgresServer(initdb.parent)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A URL whose tables live in a schema of this test's own."""
    schema = f"t{os.getpid()}_{next(_schemas)}"
    postgres_server.execute(f"CREATE SCHEMA {schema}")
    return postgres_server.url(schema)


@pytest.fixture(params=["sqlite", "postgres"])
def open_store(request, tmp_path):
    """``open_store(owner='')``: a store of that owner, on this test's own SQLite file or PostgreSQL schema."""
    from react_core.history import open_history

    if request.param == "sqlite":
        path = tmp_path / "h.sqlite"
        return lambda owner="": open_history(owner, url="", path=path)
    url = request.getfixturevalue("postgres_url")
    return lambda owner="": open_history(owner, url=url)
