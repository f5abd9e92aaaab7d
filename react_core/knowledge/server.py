"""A local MediaWiki-compatible server: ``api.php`` answered from a pack, on 127.0.0.1, with injectable faults.

The live client's tests and benchmark run against it over real HTTP, and it lets the app run offline demos
(``python -m react_core wiki-server --pack PACK --port N``). ``start_wiki_server(...)`` returns a running
``WikiServer`` handle: ``.url`` (the api.php URL), ``.stop()``, ``.requests`` (how many it received), ``.log``
(what each asked), ``.delay_ms`` (added to every answer) and fault injection for the next N requests: an HTTP
status (500, 503, 429 with ``Retry-After``), malformed JSON, a slow answer, or a dropped connection. Standard
library HTTP only; depends on the pack and the API emulation.
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
FAULT_KINDS = ("status", "malformed", "slow", "drop")


@dataclass(frozen=True)
class Fault:
    kind: str
    status: int = 500
    retry_after: str | None = None
    seconds: float = 0.0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as Wikipedia does: a reused client pays for one connection
    # Headers and body go out in two writes; with Nagle on, the client's delayed ACK adds ~40 ms to each answer.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the CLI prints its own one-line log
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
        self._send(status, body, "application/json; charset=utf-8", headers)

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
        self, kind: str, count: int = 1, *, status: int = 500, retry_after: str | int | None = None, seconds: float = 0
    ) -> None:
        """Make the next ``count`` requests fail this way (faults queue up in the order injected)."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"fault kind must be one of {FAULT_KINDS}, not {kind!r}")
        fault = Fault(kind, status, None if retry_after is None else str(retry_after), seconds)
        with self._lock:
            self._faults.extend([fault] * count)

    def reset(self) -> None:
        """Forget the log and any pending faults."""
        with self._lock:
            self.log.clear()
            self._faults.clear()

    def _record(self, path: str, params: dict[str, str], agent: str) -> Fault | None:
        with self._lock:
            self.log.append({"path": path, "params": params, "user_agent": agent})
            return self._faults.popleft() if self._faults else None


def start_wiki_server(pack_path: str | Path, host: str = "127.0.0.1", port: int = 0, delay_ms: float = 0) -> WikiServer:
    """Start serving ``pack_path`` in a background thread; port 0 picks a free port (see ``.url``)."""
    return WikiServer(pack_path, host=host, port=port, delay_ms=delay_ms).start()
