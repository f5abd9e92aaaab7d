"""Real MCP servers for the client's tests: the reference ``mcp-server-git`` over stdio on a repository the test
creates, and our own small server (``tests/mcp_server.py``) over streamable HTTP on a free 127.0.0.1 port. Each is
started by the test and stopped by the PID it was started with."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from provider_helpers import wait_for
from served_on import LISTEN_FD

HERE = Path(__file__).resolve().parent
GIT_SERVER = str(Path(sys.executable).parent / "mcp-server-git")


def git_repository(folder: Path) -> Path:
    """A repository with one commit ("first commit", adding notes.txt)."""
    folder.mkdir(parents=True, exist_ok=True)
    git = ["git", "-C", str(folder), "-c", "user.name=Test", "-c", "user.email=test@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    (folder / "notes.txt").write_text("hello\n", encoding="utf-8")
    subprocess.run([*git, "add", "notes.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first commit"], check=True)
    return folder


def _answers(port: int) -> bool:
    """Whether a server answers HTTP on ``port`` (any status: the app is up)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/")
        conn.getresponse()
        return True
    except OSError:
        return False
    finally:
        conn.close()


@contextmanager
def our_server(
    token: str = "", *, echo_says: str = "", replies: str = "", era: str = ""
) -> Iterator[tuple[str, subprocess.Popen]]:
    """Our server on a free port: its MCP URL and its process (kill only this one). With ``token``, it answers 401 to
    every request without ``Authorization: Bearer {token}``; ``echo_says`` is added to its echo tool's description;
    ``replies``: "json" (one JSON body a reply), "gzip" (compressed, asked for or not) or "quote" (every request an
    error quoting its Authorization header); ``era`` "2025-11-25": a server of the revision before today's (no
    ``server/discover``)."""
    env = {"MCP_TEST_ECHO_SAYS": echo_says, "MCP_TEST_REPLIES": replies, "MCP_TEST_ERA": era}
    with _served("mcp_server.py", *([token] if token else []), env=env) as started:
        yield started


@contextmanager
def oauth_server() -> Iterator[tuple[str, subprocess.Popen]]:
    """The OAuth-protected server (``tests/mcp_oauth_server.py``) on a free port: its MCP URL and its process."""
    with _served("mcp_oauth_server.py") as started:
        yield started


@contextmanager
def _served(script: str, *args: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    """``tests/{script} PORT *args`` on a free port until it listens (a loaded machine may take a while to start
    Python): its MCP URL and its process, killed at the end."""
    # The test opens the listening socket and hands it over: no other process (another worker's server, a client's
    # outgoing connection) can take the port between choosing it and serving on it.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = listener.getsockname()[1]
    with listener:
        proc = subprocess.Popen(
            [sys.executable, str(HERE / script), str(port), *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **(env or {}), LISTEN_FD: str(listener.fileno())},
            pass_fds=(listener.fileno(),),
        )
    try:
        if not wait_for(lambda: proc.poll() is not None or _answers(port), timeout=90):
            raise RuntimeError(f"the test MCP server {script} did not start")
        if proc.poll() is not None:
            raise RuntimeError(f"the test MCP server {script} exited with {proc.returncode}")
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


@pytest.fixture(scope="module")
def our_url() -> Iterator[str]:
    """Our server for a test module (import this fixture): its MCP URL; its connections closed at the end."""
    from react_core.tools.mcp_client import POOL

    with our_server() as (url, _proc):
        yield url
        POOL.close_all()


def approve(sign_in_url: str) -> dict[str, str]:
    """What a person's browser does on the authorization page (our test server approves at once): follows it to the
    redirect, and returns the redirect's query (code, state) without going there."""
    from urllib.parse import parse_qsl, urlsplit

    import httpx

    answer = httpx.get(sign_in_url, follow_redirects=False, timeout=10)
    assert answer.status_code in (302, 303, 307), (answer.status_code, answer.text[:200])
    return dict(parse_qsl(urlsplit(answer.headers["location"]).query))


def until_drawn(at, drawn) -> bool:
    """Whether an AppTest page comes to draw what ``drawn`` looks for, drawn again (as Check again does) while a
    server connects: a page waits a few seconds for servers, and a loaded machine may take longer."""
    return wait_for(lambda: drawn() or (at.run() and drawn()), timeout=90)
