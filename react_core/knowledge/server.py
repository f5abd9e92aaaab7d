"""A local MediaWiki-compatible server: ``api.php`` answered from a pack, on 127.0.0.1, with injectable faults.

The live client's tests and benchmark run against it over real HTTP, and it lets the app run offline demos
(``python -m react_core wiki-server --pack PACK --port N``). ``start_wiki_server(...)`` returns a running
``WikiServer`` handle: ``.url`` (the api.php URL), ``.stop()``, ``.requests`` (how many it received), ``.log``
(what each asked), ``.delay_ms`` (added to every answer) and fault injection for the next N requests (``inject``):

- ``status``: an HTTP status (500, 503, 429 with ``Retry-After``); ``malformed``: JSON cut short; ``drop``: the
  connection closes with no answer; ``slow``: the answer after ``seconds``;
- ``stall``: nothing at all until ``seconds`` pass (0: until ``release()``, ``reset()`` or ``stop()``);
- ``trickle``: the real answer, one byte every ``seconds``;
- ``huge``: a valid answer of ``size`` bytes, streamed without a Content-Length;
- ``redirect``: ``status`` (default 302) with ``Location: location``;
- ``body``: ``body`` (bytes) as a 200 JSON answer, e.g. JSON with a lone ``\\ud800`` escape.

``.received`` is set when a request arrives and ``.waiting`` when a stalled or trickled answer has begun, so a test
can act while the client waits (``reset()`` clears both). Standard library HTTP only.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from react_core.knowledge.pack import PackSource
from react_core.knowledge.server_api import WikiApi

API_PATH = "/w/api.php"
FAULT_KINDS = ("status", "malformed", "slow", "drop", "stall", "trickle", "huge", "redirect", "body")
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Fault:
    kind: str
    status: int = 500
    retry_after: str | None = None
    seconds: float = 0.0
    size: int = 0
    location: str = ""
    body: bytes = b""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as Wikipedia does: a reused client pays for one connection
    # Headers and body go out in two writes; with Nagle on, the client's delayed ACK adds ~40 ms to each answer.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, dialect: str, *args: Any) -> None:  # quiet: the CLI prints its own one-line log
        if self.server.wiki.verbose:
            super().log_message(format, *args)

    def do_GET(self) -> None:
        self._answer(dict(parse_qsl(urlsplit(self.path).query, keep_blank_values=True)))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        params = dict(parse_qsl(urlsplit(self.path).query, keep_blank_values=True))
        params.update(parse_qsl(body, keep_blank_values=True))
        self._answer(params)

    def _answer(self, params: dict[str, str]) -> None:
        wiki = self.server.wiki
        path = urlsplit(self.path).path
        fault = wiki._record(path, params, self.headers.get("User-Agent", ""))
        if wiki.delay_ms:
            time.sleep(wiki.delay_ms / 1000)
        if not path.endswith("api.php"):
            self._send(404, b"Not found: this server answers only api.php\n", "text/plain; charset=utf-8")
            return
        if fault and fault.kind == "drop":
            self.close_connection = True  # no answer at all: the client sees the connection close
            return
        if fault and fault.kind == "slow":
            time.sleep(fault.seconds)
        if fault and fault.kind == "stall":
            release = wiki._release
            wiki.waiting.set()
            release.wait(fault.seconds or None)
            self.close_connection = True
            return
        if fault and fault.kind == "redirect":
            self._send(fault.status, b"", "text/plain; charset=utf-8", {"Location": fault.location})
            return
        if fault and fault.kind == "body":
            self._send(200, fault.body, "application/json; charset=utf-8")
            return
        if fault and fault.kind == "huge":
            self._huge(fault.size)
            return
        if fault and fault.kind == "status":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            body = f"<html><body>Injected fault: HTTP {fault.status}</body></html>".encode()
            self._send(fault.status, body, "text/html; charset=utf-8", headers)
            return
        if fault and fault.kind == "malformed":
            self._send(200, b'{"batchcomplete": true, "query": {"pages": [{"title": ', "application/json")
            return
        status, data = wiki.api.handle(params)
        headers = {"MediaWiki-API-Error": data["error"]["code"]} if "error" in data else {}
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
        if fault and fault.kind == "trickle":
            self._trickle(body, fault.seconds)
            return
        self._send(status, body, "application/json; charset=utf-8", headers)

    def _trickle(self, body: bytes, seconds: float) -> None:
        release = self.server.wiki._release
        try:
            self._head(200, "application/json; charset=utf-8", {"Content-Length": str(len(body))})
            self.server.wiki.waiting.set()
            for i in range(len(body)):
                self.wfile.write(body[i : i + 1])
                if release.wait(seconds):
                    break
        except OSError:  # the client gave up: what a trickle test expects
            pass
        self.close_connection = True

    def _huge(self, size: int) -> None:
        """A valid answer of about ``size`` bytes whose length is not declared: only reading it all tells its size."""
        head = b'{"batchcomplete": true, "query": {"pages": [{"ns": 0, "title": "Huge", "extract": "'
        tail = b'"}]}}'
        try:
            self._head(200, "application/json; charset=utf-8", {"Connection": "close"})
            self.wfile.write(head)
            left = max(0, size - len(head) - len(tail))
            chunk = b"a" * _CHUNK
            while left > 0:
                self.wfile.write(chunk[: min(left, _CHUNK)])
                left -= _CHUNK
            self.wfile.write(tail)
        except OSError:
            pass
        self.close_connection = True

    def _head(self, status: int, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test): nothing to do
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    wiki: WikiServer


class WikiServer:
    """A running server's handle. Use ``start_wiki_server``; ``with`` stops it on exit."""

    def __init__(self, pack_path: str | Path, host: str = "127.0.0.1", port: int = 0, delay_ms: float = 0) -> None:
        self.pack = PackSource(pack_path)
        self.api = WikiApi(self.pack)
        self.delay_ms = delay_ms
        self.verbose = False
        self.log: list[dict[str, Any]] = []
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._release = threading.Event()
        self.received = threading.Event()
        self.waiting = threading.Event()
        self._httpd = _Server((host, port), _Handler)
        self._httpd.wiki = self
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return str(self._httpd.server_address[0])

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{API_PATH}"

    @property
    def requests(self) -> int:
        with self._lock:
            return len(self.log)

    def start(self) -> WikiServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="wiki-server", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (the CLI)."""
        self._httpd.serve_forever(poll_interval=0.2)

    def stop(self) -> None:
        self._release.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()
        self.pack.close()

    def __enter__(self) -> WikiServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    # -- faults and counting -----------------------------------------------------------------------------

    def inject(
        self,
        kind: str,
        count: int = 1,
        *,
        status: int | None = None,
        retry_after: str | int | None = None,
        seconds: float = 0,
        size: int = 0,
        location: str = "",
        body: bytes = b"",
    ) -> None:
        """Make the next ``count`` requests fail this way (faults queue up in the order injected)."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"fault kind must be one of {FAULT_KINDS}, not {kind!r}")
        status = status if status is not None else 302 if kind == "redirect" else 500
        fault = Fault(kind, status, None if retry_after is None else str(retry_after), seconds, size, location, body)
        with self._lock:
            self._faults.extend([fault] * count)

    def release(self) -> None:
        """End every stalled or trickling answer now."""
        with self._lock:
            self._release.set()
            self._release = threading.Event()

    def reset(self) -> None:
        """Forget the log and any pending faults, and end stalled answers."""
        self.release()
        with self._lock:
            self.log.clear()
            self._faults.clear()
            self.received.clear()
            self.waiting.clear()

    def _record(self, path: str, params: dict[str, str], agent: str) -> Fault | None:
        with self._lock:
            self.log.append({"path": path, "params": params, "user_agent": agent})
            self.received.set()
            return self._faults.popleft() if self._faults else None


def start_wiki_server(pack_path: str | Path, host: str = "127.0.0.1", port: int = 0, delay_ms: float = 0) -> WikiServer:
    """Start serving ``pack_path`` in a background thread; port 0 picks a free port (see ``.url``)."""
    return WikiServer(pack_path, host=host, port=port, delay_ms=delay_ms).start()
