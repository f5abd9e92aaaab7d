"""Response bodies as the hosted providers' SDKs may read them: bounded, inflated here, events filtered.

No SDK bounds what it reads: they read an error page whole, and split a stream into lines however long. So every body
the HTTP client (``transport.StreamingClient``) hands on passes through here first.

- **Server-sent events.** Comment lines (``: keepalive``, legal SSE that the Gemini SDK takes for a broken JSON chunk)
  are dropped before the SDK sees them; an event longer than ``MAX_EVENT_BYTES`` ends the reply with a ProviderError
  instead of growing in memory, whether it is one long line or many short ones (the SDKs join an event's ``data:``
  lines until the blank line that ends it); the last ``data:`` line is remembered (``EventStream.last_data``) so a
  provider can tell a stream that ended with ``[DONE]`` from one cut short.
- **Any other body** (one that is not a stream of events, or an error) ends the call with a ProviderError past
  ``MAX_EVENT_BYTES`` in all, before the SDK has it whole.
- **Compression.** Bodies are requested uncompressed. A server that compresses anyway (gzip, deflate) is inflated
  here a piece at a time, so the bounds hold for the bytes after decompression (a 1 MB gzip body can inflate to a
  gigabyte); other encodings are refused with one line. Inflating bytes already received needs no socket read, so
  the call's abort (Stop, the deadline) is checked between pieces as well.
- **A reply that is not a stream** (a server ignoring the request to stream) is read whole, within the same bound;
  ``whole_json`` gives the providers its JSON, or one clear line when it is an error or not JSON at all.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import httpx2

from react_core.base.errors import ProviderError
from react_core.providers.messages import said

# No event of a ReAct step comes near this; a server that sends more in one line (or, in a body that is not a stream
# of events or is an error, more in all) is not answering a step.
MAX_EVENT_BYTES = 1 << 20
# The most a compressed body inflates to at once: what decompression holds in memory besides the bounded line.
_INFLATE_PIECE = 64 << 10
_ENCODINGS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
_LINE_END = re.compile(rb"[\r\n]")


def bounded(response: httpx2.Response, aborted: Callable[[], bool] | None) -> httpx2.Response:
    """``response`` with its body inflated and bounded: an ``EventStream`` for a successful stream of events, a
    ``_CappedBody`` for anything else. ``aborted`` says when the call was stopped."""
    encodings = [e.strip().lower() for e in response.headers.get_list("content-encoding", split_commas=True)]
    encodings = [e for e in encodings if e not in ("", "identity")]
    if len(encodings) > 1 or (encodings and encodings[0] not in _ENCODINGS):
        response.close()
        raise ProviderError(
            f"The model's server sent its reply compressed as {', '.join(encodings)}, which ReAct Lab does not "
            "read (it asks for an uncompressed reply); nothing it sent was used."
        )
    source = _Source(response.stream, aborted, encodings)
    if encodings:  # inflated here: the SDK must not inflate again, and the length on the wire no longer holds
        del response.headers["content-encoding"]
        response.headers.pop("content-length", None)
    if response.is_success and is_event_stream(response):
        response.stream = EventStream(source)
    else:
        response.stream = _CappedBody(source, response.status_code)
    return response


def is_event_stream(response: httpx2.Response) -> bool:
    return response.headers.get("content-type", "").lower().startswith("text/event-stream")


def events_body(events: Iterable[object]) -> bytes:
    """Events as a server would have streamed them: each a ``data:`` line (a string as it is, anything else as JSON)."""
    return b"".join(f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n".encode() for e in events)


def whole_json(body: bytes, kind: str, service: str, secrets: Iterable[str | None]) -> Any:
    """A successful reply that is not a stream, as the JSON a provider reads it from; None when it is events under
    another content type (the SDK reads those). An error sent as JSON, or a body that is not JSON, is one clear line
    (never one of ``secrets``)."""
    try:
        data = json.loads(body)
    except ValueError:
        if body.lstrip().startswith((b"data:", b":", b"event:")):
            return None
        data = None
    if data is None:
        raise ProviderError(
            f"{service} did not stream its reply ({kind or 'no content type'}) and what it sent is not JSON; "
            "nothing it sent was used."
        )
    error = data.get("error") if isinstance(data, dict) else None
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        detail = said(message, secrets)
        raise ProviderError(f"{service} answered with an error: {detail}")
    return data


class EventStream(httpx2.SyncByteStream):
    """Server-sent events as the SDK should read them: comment lines dropped, events bounded, the last data kept."""

    def __init__(self, inner: Iterable[bytes]) -> None:
        self._inner = inner
        self.last_data: bytes | None = None
        self._comment = False  # inside a comment line
        self._line_start = True
        self._cr: bool | None = None  # a CR ended the last line (True when that line was kept)
        self._length = 0  # of the current line
        self._event = 0  # of the current event: its lines so far (comments left out), until a blank line
        self._head = b""  # the first bytes of the current line, enough to recognise "data: [DONE]"

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._inner:
            kept = self._filter(chunk)
            if kept:
                yield kept

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()

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
                self._event += len(piece)
                if len(self._head) < 16:
                    self._head += piece[: 16 - len(self._head)]
                if self._event > MAX_EVENT_BYTES:
                    self.close()
                    raise ProviderError(
                        f"The model's server sent a single event of more than {MAX_EVENT_BYTES >> 20} MiB; "
                        "nothing it sent was used."
                    )
            if m is None:
                break
            if not self._comment:
                out.append(chunk[end])
                self._event = self._event + 1 if self._length else 0  # a blank line ends the event
                if self._head.startswith(b"data:"):
                    self.last_data = self._head[5:].strip() if self._length <= 16 else b"..."
            if chunk[end] == 0x0D:
                self._cr = not self._comment
            self._line_start = True
            i = end + 1
        return bytes(out)


class _Source(httpx2.SyncByteStream):
    """The body's bytes, inflated a piece at a time when compressed; ends at once when the call is aborted."""

    def __init__(self, raw: httpx2.SyncByteStream, aborted: Callable[[], bool] | None, encodings: list[str]) -> None:
        self._raw, self._aborted = raw, aborted
        self._wbits = _ENCODINGS[encodings[0]] if encodings else None

    def __iter__(self) -> Iterator[bytes]:
        pieces = self._raw if self._wbits is None else _inflate(self._raw, self._wbits)
        for piece in pieces:
            if self._aborted is not None and self._aborted():
                raise httpx2.ReadError("the call was stopped")
            yield piece

    def close(self) -> None:
        self._raw.close()


def _inflate(chunks: Iterable[bytes], wbits: int) -> Iterator[bytes]:
    """Inflate gzip or deflate (zlib-wrapped, or raw as some servers send it) without ever holding more than
    ``_INFLATE_PIECE`` of output at once. Like httpx, what follows the end of the compressed stream is ignored."""
    inflater, started = zlib.decompressobj(wbits), False
    for chunk in chunks:
        data = chunk
        while data:
            try:
                out = inflater.decompress(data, _INFLATE_PIECE)
            except zlib.error:
                if started or wbits != zlib.MAX_WBITS:
                    raise ProviderError(
                        "The model's server sent a compressed reply that does not inflate; nothing it sent was used."
                    ) from None
                inflater, wbits = zlib.decompressobj(-zlib.MAX_WBITS), -zlib.MAX_WBITS
                continue
            started = True
            if out:
                yield out
            if inflater.eof:
                return
            data = inflater.unconsumed_tail


class _CappedBody(httpx2.SyncByteStream):
    """A body that is not a stream of events (or is an error): read whole by the SDKs, so bounded in all."""

    def __init__(self, source: Iterable[bytes], status: int) -> None:
        self._source, self._status = source, status

    def __iter__(self) -> Iterator[bytes]:
        total = 0
        for piece in self._source:
            total += len(piece)
            if total > MAX_EVENT_BYTES:
                self.close()
                cap = f"{MAX_EVENT_BYTES >> 20} MiB"
                if self._status >= 400:
                    what = f"answered HTTP {self._status} with more than {cap}"
                else:
                    what = f"sent more than {cap} in a reply that is not a stream of events"
                raise ProviderError(f"The model's server {what}; nothing it sent was used.")
            yield piece

    def close(self) -> None:
        close = getattr(self._source, "close", None)
        if close is not None:
            close()
