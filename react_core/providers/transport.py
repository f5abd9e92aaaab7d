"""The HTTP client the hosted providers hand to their SDKs: split timeouts, a User-Agent, the request as sent, streams
that Stop and the deadline can cut, and server-sent events read within bounds.

- **Timeouts.** The Gemini SDK passes one timeout for every phase (or none at all); this client forces the
  connect/read timeouts on every request.
- **What was sent.** Each thread's last request (URL and JSON body, exactly the bytes that went out) is kept for the
  provider's ``sent`` record (``take_request``); keys travel in headers, which are never recorded.
- **Cutting a waiting read.** Closing a response from another thread does not wake a thread blocked in ``recv``
  (it waits for its read timeout). So every socket this client opens is tracked, the socket a call is reading or
  writing is remembered, and ``cancel.on_abort`` (Stop, or the call's deadline) shuts that socket down: the blocked
  read returns at once, whether it waits for the response headers (a silent server) or for the next event.
- **Server-sent events.** Comment lines (``: keepalive``, legal SSE that the Gemini SDK takes for a broken JSON chunk)
  are dropped before the SDK sees them; a line longer than ``MAX_EVENT_BYTES`` ends the reply with a ProviderError
  instead of growing in memory; the last ``data:`` line is remembered (``last_event``) so a provider can tell a stream
  that ended with ``[DONE]`` from one cut short. Streams are requested uncompressed so this reads the bytes as sent.
- **Closing.** The SDK never closes a streamed response when its generator is abandoned; ``take_stream`` gives the
  provider the response this thread opened last, so it can close it.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpcore2
import httpx2

from react_core import cancel
from react_core.errors import ProviderError
from react_core.providers.retry import CONNECT_TIMEOUT, READ_TIMEOUT

USER_AGENT = "react-lab/0.1 (ReAct Lab)"
# No event of a ReAct step comes near this; a server that sends more in one line is not answering a step.
MAX_EVENT_BYTES = 1 << 20
# Query parameters that may carry a key (Google APIs accept ?key=); never recorded.
_LINE_END = re.compile(rb"[\r\n]")
_SECRET_PARAMS = frozenset({"key", "api_key", "apikey", "access_token"})

# The call each thread is making: its reads and writes attach their socket to it.
_current = threading.local()


def timeouts(read: float = READ_TIMEOUT, connect: float = CONNECT_TIMEOUT) -> httpx2.Timeout:
    return httpx2.Timeout(read, connect=connect)


class StreamingClient(httpx2.Client):
    """An httpx2 client with fixed timeouts that records what it sends and lets Stop cut what it waits for."""

    def __init__(self, *, read: float = READ_TIMEOUT, connect: float = CONNECT_TIMEOUT) -> None:
        transport = httpx2.HTTPTransport()
        _track_sockets(transport)
        super().__init__(
            timeout=timeouts(read, connect),
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"},
            transport=transport,
        )
        self._fixed = timeouts(read, connect).as_dict()
        self._local = threading.local()

    def send(self, request: httpx2.Request, **kwargs):  # type: ignore[override]
        # The SDK sets its own (often absent) timeout on the request; ours are the contract.
        request.extensions = {**request.extensions, "timeout": self._fixed}
        self._local.request = (_public_url(request.url), _body(request))
        call = _Call()
        _current.call = call
        cancel.on_abort(call.abort)
        response = super().send(request, **kwargs)
        if kwargs.get("stream"):
            if _is_event_stream(response):
                response.stream = EventStream(response.stream)
            self._local.response = response
        return response

    def take_request(self) -> tuple[str, Any] | None:
        """(endpoint, JSON body) of the request this thread sent last (forgotten once taken)."""
        sent = getattr(self._local, "request", None)
        self._local.request = None
        return sent

    def take_stream(self) -> httpx2.Response | None:
        """The streamed response this thread opened last (forgotten once taken)."""
        response = getattr(self._local, "response", None)
        self._local.response = None
        return response


def last_event(response: Any) -> bytes | None:
    """The payload of the last ``data:`` line a streamed response delivered (None when it was not read here)."""
    stream = getattr(response, "stream", None)
    while stream is not None and not isinstance(stream, EventStream):
        stream = getattr(stream, "_stream", None)  # httpx wraps the transport's stream once
    return stream.last_data if stream is not None else None


class EventStream(httpx2.SyncByteStream):
    """Server-sent events as the SDK should read them: comment lines dropped, lines bounded, the last data kept."""

    def __init__(self, inner: httpx2.SyncByteStream) -> None:
        self._inner = inner
        self.last_data: bytes | None = None
        self._comment = False  # inside a comment line
        self._line_start = True
        self._cr: bool | None = None  # a CR ended the last line (True when that line was kept)
        self._length = 0
        self._head = b""  # the first bytes of the current line, enough to recognise "data: [DONE]"

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._inner:
            kept = self._filter(chunk)
            if kept:
                yield kept

    def close(self) -> None:
        self._inner.close()

    def _filter(self, chunk: bytes) -> bytes:
        out = bytearray()
        i, n = 0, len(chunk)
        while i < n:
            if self._cr is not None:  # the last line ended with CR: an LF right after it is part of that line end
                kept, self._cr = self._cr, None
                if chunk[i] == 0x0A:
                    if kept:
                        out.append(0x0A)
                    i += 1
                    continue
            if self._line_start:
                self._comment = chunk[i] == 0x3A  # a line starting with ":" is a comment
                self._line_start, self._length, self._head = False, 0, b""
            m = _LINE_END.search(chunk, i)
            end = m.start() if m else n
            if not self._comment:
                piece = chunk[i:end]
                out += piece
                self._length += len(piece)
                if len(self._head) < 16:
                    self._head += piece[: 16 - len(self._head)]
                if self._length > MAX_EVENT_BYTES:
                    raise ProviderError(
                        f"The model's server sent a single event of more than {MAX_EVENT_BYTES >> 20} MiB; "
                        "nothing it sent was used."
                    )
            if m is None:
                break
            if not self._comment:
                out.append(chunk[end])
                if self._head.startswith(b"data:"):
                    self.last_data = self._head[5:].strip() if self._length <= 16 else b"..."
            if chunk[end] == 0x0D:
                self._cr = not self._comment
            self._line_start = True
            i = end + 1
        return bytes(out)


def _is_event_stream(response: httpx2.Response) -> bool:
    kind = response.headers.get("content-type", "")
    # A compressed body (a server ignoring our Accept-Encoding) is left to the SDK as it is.
    return kind.startswith("text/event-stream") and not response.headers.get("content-encoding")


def _public_url(url: httpx2.URL) -> str:
    parts = urlsplit(str(url))
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in _SECRET_PARAMS]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def _body(request: httpx2.Request) -> Any:
    try:
        raw = request.content
    except httpx2.RequestNotRead:
        return None
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


# -- sockets that Stop can shut ---------------------------------------------------------------------------


class _Call:
    """One request and the reads of its response: the socket in use, and whether the call was aborted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stream: _TrackedStream | None = None
        self.aborted = False

    def attach(self, stream: _TrackedStream) -> None:
        with self._lock:
            self._stream = stream
            aborted = self.aborted
        if aborted:
            stream.shut()

    def abort(self) -> None:
        with self._lock:
            self.aborted = True
            stream = self._stream
        if stream is not None:
            stream.shut()


class _TrackedStream(httpcore2.NetworkStream):
    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def _attach(self) -> None:
        call = getattr(_current, "call", None)
        if call is not None:
            call.attach(self)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._attach()
        return self._inner.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._attach()
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> _TrackedStream:  # type: ignore[override]
        return _TrackedStream(self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)

    def shut(self) -> None:
        """Shut the socket down: a read blocked on it in another thread returns at once (closing would not)."""
        sock = self._inner.get_extra_info("socket")
        if sock is not None:
            try:
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's, also under TLS
            except OSError:
                pass


class _TrackedBackend(httpcore2.NetworkBackend):
    def __init__(self, inner: httpcore2.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):  # type: ignore[override]
        return _TrackedStream(self._inner.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):  # type: ignore[override]
        return _TrackedStream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _track_sockets(transport: httpx2.HTTPTransport) -> None:
    # httpx2 offers no argument for the network backend; its connection pool takes one and reads it when it opens a
    # connection. A test (a Stop reaching a silent server) fails if a new release moves it.
    pool = transport._pool
    pool._network_backend = _TrackedBackend(pool._network_backend)
