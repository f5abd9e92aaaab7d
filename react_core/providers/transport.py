"""The HTTP client the hosted providers hand to their SDKs: split timeouts, a User-Agent, the request as sent, streams
that Stop and the deadline can cut, and bodies read within bounds. ``AbortableClient`` is the part of it that any
request the app makes to a server it does not control can use (the live OpenTelemetry export does).

- **Timeouts.** The Gemini SDK passes one timeout for every phase (or none at all); this client forces the
  connect/read timeouts on every request.
- **What was sent.** Each thread's last request (URL and JSON body, exactly the bytes that went out) is kept for the
  provider's ``sent`` record (``take_request``); keys travel in headers, which are never recorded.
- **Cutting a waiting read.** Closing a response from another thread does not wake a thread blocked in ``recv``
  (it waits for its read timeout). So every socket this client opens is tracked, the socket a call is reading or
  writing is remembered, and ``cancel.on_abort`` (Stop, or the call's deadline) shuts that socket down: the blocked
  read returns at once, whether it waits for the response headers (a silent server) or for the next event.
- **Bounded bodies.** Every response body goes through ``bodies.bounded`` before an SDK reads it: inflated here when
  a server compresses it anyway, events filtered and bounded by line, any other body bounded in all; the abort of a
  call reaches the inflating too. ``last_event`` says what the last ``data:`` line of a stream was, so a provider can
  tell a stream that ended with ``[DONE]`` from one cut short.
- **A reply that is not a stream.** A server may ignore the request to stream and answer with one body. The
  provider says what events such a body stands for (``whole``), and the SDK reads those events as it reads any
  stream; a provider can instead refuse the body with one clear line.
- **Closing.** The SDK never closes a streamed response when its generator is abandoned; ``take_stream`` gives the
  provider the response this thread opened last, so it can close it.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpcore2
import httpx2

from react_core.base import cancel
from react_core.providers.bodies import EventStream, bounded, events_body, is_event_stream
from react_core.providers.retry import CONNECT_TIMEOUT, READ_TIMEOUT

USER_AGENT = "react-lab/0.1 (ReAct Lab)"
# Query parameters that may carry a key (Google APIs accept ?key=); never recorded.
_SECRET_PARAMS = frozenset({"key", "api_key", "apikey", "access_token"})

# The call each thread is making: its reads and writes attach their socket to it.
_current = threading.local()


def timeouts(read: float = READ_TIMEOUT, connect: float = CONNECT_TIMEOUT) -> httpx2.Timeout:
    return httpx2.Timeout(read, connect=connect)


class AbortableClient(httpx2.Client):
    """An httpx2 client with fixed timeouts, asking for uncompressed bodies, whose request Stop and the deadline of
    the guarded call it runs in (``cancel.guarded_call``) can cut wherever it waits: the socket is shut down."""

    def __init__(
        self,
        *,
        read: float = READ_TIMEOUT,
        connect: float = CONNECT_TIMEOUT,
        transport: httpx2.HTTPTransport | None = None,
    ) -> None:
        transport = transport or httpx2.HTTPTransport()
        _track_sockets(transport)
        super().__init__(
            timeout=timeouts(read, connect),
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"},
            transport=transport,
        )
        self._fixed = timeouts(read, connect).as_dict()

    def send(self, request: httpx2.Request, **kwargs):  # type: ignore[override]
        # The SDK sets its own (often absent) timeout on the request; ours are the contract.
        request.extensions = {**request.extensions, "timeout": self._fixed}
        call = _Call()
        _current.call = call
        cancel.on_abort(call.abort)
        return super().send(request, **kwargs)


class StreamingClient(AbortableClient):
    """The hosted providers' client: it records what it sends and hands every body on bounded (``bodies``)."""

    def __init__(
        self,
        *,
        read: float = READ_TIMEOUT,
        connect: float = CONNECT_TIMEOUT,
        whole: Callable[[bytes, str], list[Any] | None] | None = None,
    ) -> None:
        """``whole(body, content_type)``: the events (JSON-able values, or strings sent as they are) that a streamed
        request's successful reply stands for when it is not a stream of events; None leaves the body to the SDK."""
        super().__init__(read=read, connect=connect, transport=_BoundedTransport())
        self._local = threading.local()
        self._whole = whole

    def send(self, request: httpx2.Request, **kwargs):  # type: ignore[override]
        self._local.request = (_public_url(request.url), _body(request))
        response = super().send(request, **kwargs)
        if kwargs.get("stream"):
            if self._whole is not None and response.is_success and not is_event_stream(response):
                response = self._as_events(response, self._whole)
            self._local.response = response
        return response

    @staticmethod
    def _as_events(response: httpx2.Response, whole: Callable[[bytes, str], list[Any] | None]) -> httpx2.Response:
        """A streamed request answered with one body (bounded): the stream of events it stands for."""
        try:
            events = whole(response.read(), response.headers.get("content-type", ""))
        except BaseException:
            response.close()
            raise
        if events is None:
            return response  # the SDK reads the bytes read here
        replaced = ("content-type", "content-length")
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in replaced]
        return httpx2.Response(
            response.status_code,
            headers=[*headers, ("content-type", "text/event-stream")],
            stream=EventStream([events_body(events)]),
            request=response.request,
            extensions=response.extensions,
        )

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


class _BoundedTransport(httpx2.HTTPTransport):
    """The transport that hands every body on bounded (``bodies.bounded``), cut at once when its call is aborted."""

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle_request(request)
        call = getattr(_current, "call", None)
        return bounded(response, (lambda: call.aborted) if call is not None else None)


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
