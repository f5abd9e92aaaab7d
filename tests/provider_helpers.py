"""Test fixtures for the providers: fake Gemini and OpenAI-compatible servers on 127.0.0.1 with fault injection,
the real ``llama_cpp.server`` in a subprocess, a pass-through that holds a stream part-way, a recording sleep for
retry policies, and the key-leak check.

The fake servers are real HTTP servers (``http.server`` in a thread) so the SDKs run their whole stack. Each plays
a scripted model: a list of outputs, consumed one per request, streamed in word-sized pieces; it honours the
request's stop sequences unless told to ignore them. An output is a string, or ``{"text": …, "tool_calls": [{"name":
…, "arguments": {…} or "raw text"}]}`` for a reply that calls tools natively (streamed as each API streams them:
OpenAI's argument pieces in ``delta.tool_calls``, Gemini's whole ``functionCall`` parts with a thought signature).
``comments=True`` sends an SSE comment line (``: keepalive``) before every event. Faults are consumed before
outputs, one per request:

    {"status": 503, "headers": {"Retry-After": "0"}, "message": "..."}   an HTTP error
        (OpenAI: "code": "insufficient_quota"; Gemini: "retry_delay": "23s", its RetryInfo in the body)
    {"hang": 2.0}            wait that long before answering (a read timeout on the client)
    {"drop": True}           close the connection without answering
    {"stall_after": 2, "hang": 2.0}   stream 2 pieces, then go silent (a timeout mid-answer)
    {"cut_after": 2}         stream 2 pieces, then end the stream cleanly without saying the reply is complete
    {"blocked": "SAFETY", "where": "prompt"|"answer"}   a refusal with no text (OpenAI: the content filter)
  and hostile servers, each ending by itself (bounded) or when the client hangs up or the server closes:
    {"silent": True}         accept the request and say nothing (not even headers)
  (``server.holding`` is set once a silent or hostile reply has begun)
    {"forever": True}        stream tokens without end
    {"keepalive": True}      send headers, then only ``: keepalive`` comments
    {"trickle": 0.05}        a streamed reply one byte at a time, this many seconds apart
    {"huge": 30_000_000}     one event carrying that many characters of text
  and hostile bodies, each far larger than a client may read:
    {"gzip_bomb": 64 << 20}  a small gzip body that inflates to one event line of that many bytes, never ended
    {"gzip_bomb": 64 << 20, "comments": True}   ... to that many bytes of ``: keepalive`` lines instead
    {"flood": 64 << 20, "status": 200, "content_type": "application/json"}   a body that is not a stream of
        events (or, with an error status, an error page) of that many bytes, until the client hangs up
    {"flood": 64 << 20, "content_type": "text/event-stream", "lines": True}   ... of short ``data:`` lines and no
        blank line: one event that never ends (with an error status: an error sent as events)

OpenAI-compatible servers differ in how they stream (``FakeOpenAI`` options): ``calls="split"`` names a tool call
once and splits its arguments (OpenAI, vLLM, llama.cpp), ``"repeat_name"`` repeats the id and name in every piece
(MiniMax through NVIDIA NIM), ``"whole_twice"`` sends the whole call twice, ``"name_split"`` splits the name too;
``ignore_stream=True`` answers a streamed request with one whole ``chat.completion`` JSON body; ``content_parts=True``
sends ``content`` as a list of typed parts, a thinking part first (Mistral's API); ``responses_api=True`` answers with
the Responses API's events (or, with ``ignore_stream``, its ``response`` body) instead of a chat completion.
``cached=N`` (either server) reports N prompt tokens reused from the server's cache.

Imports from the project only the retry policy (for ``fast_retry``); never a UI.
"""

from __future__ import annotations

import base64
import functools
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
import zlib
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_PIECES = re.compile(r"\S+\s*|\s+")


def _retry_info_type() -> str:
    """The ``@type`` of a google.rpc.RetryInfo detail, as protobuf names it (a type URL, never fetched)."""
    from google.protobuf import any_pb2
    from google.rpc import error_details_pb2

    packed = any_pb2.Any()
    packed.Pack(error_details_pb2.RetryInfo())
    return packed.type_url


RETRY_INFO_TYPE = _retry_info_type()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout: float = 15.0) -> bool:
    """Poll until ``predicate()`` holds (a server thread catching up); False if it never did."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@dataclass
class RecordingSleep:
    """Stands in for time.sleep in a RetryPolicy: records the waits, never waits."""

    waits: list[float] = field(default_factory=list)

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def fast_retry(sleep: RecordingSleep | None = None, attempts: int = 3):
    from react_core.providers.retry import RetryPolicy

    return RetryPolicy(attempts=attempts, sleep=sleep or RecordingSleep())


# -- fake model servers -----------------------------------------------------------------------------------


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeModelServer:
    """A scripted model behind a real HTTP server. Subclasses speak one API."""

    def __init__(
        self,
        outputs: Iterable[str | dict[str, Any]] = (),
        *,
        ignore_stop: bool = False,
        piece_delay: float = 0.0,
        trailing: str = "",
        comments: bool = False,
        cached: int = 0,
    ) -> None:
        self.outputs: deque[str | dict[str, Any]] = deque(outputs)
        self.comments = comments
        self.cached = cached  # prompt tokens the server says it reused from its cache (reported in the usage)
        # Set while a {"silent": True} fault holds a request; released (and every hostile loop ended) on exit.
        self.holding = threading.Event()
        self.closing = threading.Event()
        self.faults: deque[dict[str, Any]] = deque()
        self.ignore_stop = ignore_stop
        self.piece_delay = piece_delay
        # Streamed after the first scripted output, piece by piece, until the client hangs up (a model that
        # rambles on after its action instead of stopping).
        self.trailing = trailing
        self.requests: list[Recorded] = []
        self.aborted = 0  # streams the client closed before the server had finished
        self.completed = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                server._get(self)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with server._lock:
                    server.requests.append(
                        Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    fault = server.faults.popleft() if server.faults else None
                server._post(self, body, fault)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    # -- life cycle
    def __enter__(self) -> FakeModelServer:
        self.thread.start()
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def root(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def fail(self, *faults: dict[str, Any]) -> FakeModelServer:
        self.faults.extend(faults)
        return self

    # -- the scripted model
    def _next_output(self, stops: list[str]) -> tuple[str, list[dict[str, Any]]]:
        """The next reply: its text (cut at the stop sequences unless told to ignore them) and its tool calls."""
        with self._lock:
            item = self.outputs.popleft() if self.outputs else "Thought: (the script is empty)"
        text, calls = (item, []) if isinstance(item, str) else (item.get("text", ""), item.get("tool_calls", []))
        if not self.ignore_stop:
            cut = min((i for i in (text.find(s) for s in stops if s) if i >= 0), default=len(text))
            text = text[:cut]
        return text, calls

    # -- HTTP plumbing
    def _get(self, h: BaseHTTPRequestHandler) -> None:
        self._json(h, 404, {"error": {"code": 404, "message": "not found"}})

    def _post(self, h: BaseHTTPRequestHandler, body: Any, fault: dict[str, Any] | None) -> None:
        raise NotImplementedError

    def _apply_fault(self, h: BaseHTTPRequestHandler, fault: dict[str, Any] | None) -> bool:
        """Play a fault that happens before the answer; True when nothing more should be sent."""
        if not fault or "stall_after" in fault or "cut_after" in fault:
            return False
        if fault.get("silent"):
            self.holding.set()
            self.closing.wait(60)
            h.close_connection = True
            return True
        if fault.get("keepalive") or fault.get("trickle") or fault.get("huge") or fault.get("forever"):
            self._hostile(h, fault)
            return True
        if fault.get("gzip_bomb") or fault.get("flood"):
            self._hostile_body(h, fault)
            return True
        if fault.get("drop"):
            h.close_connection = True
            h.connection.shutdown(socket.SHUT_RDWR)
            return True
        if fault.get("hang"):
            time.sleep(float(fault["hang"]))
            h.close_connection = True
            return True
        status = int(fault.get("status", 500))
        body = self._error_body(status, fault.get("message", "injected failure"), fault)
        self._json(h, status, body, fault.get("headers"))
        return True

    def _error_body(self, status: int, message: str, fault: dict[str, Any] | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def _text_event(self, text: str) -> Any:
        """One streamed event carrying ``text``, in this API's form."""
        raise NotImplementedError

    def _hostile(self, h: BaseHTTPRequestHandler, fault: dict[str, Any]) -> None:
        """A stream that never ends properly; bounded, and over when the client hangs up or the server closes."""
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        h.close_connection = True
        self.holding.set()

        def send(raw: bytes) -> None:
            h.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
            h.wfile.flush()

        try:
            if fault.get("huge"):
                send(f"data: {json.dumps(self._text_event('x' * int(fault['huge'])))}\n\n".encode())
                self.closing.wait(30)
            elif fault.get("trickle"):
                event = f"data: {json.dumps(self._text_event('slow '))}\n\n".encode() * 1000
                for byte in event:
                    if self.closing.wait(float(fault["trickle"])):
                        break
                    send(bytes([byte]))
            else:
                for _ in range(200_000):
                    if self.closing.is_set():
                        break
                    if fault.get("keepalive"):
                        send(b": keepalive\n\n")
                        time.sleep(0.005)
                    else:
                        send(f"data: {json.dumps(self._text_event('blah '))}\n\n".encode())
        except (BrokenPipeError, ConnectionResetError):
            with self._lock:
                self.aborted += 1

    def _hostile_body(self, h: BaseHTTPRequestHandler, fault: dict[str, Any]) -> None:
        """A body far larger than any reply: a gzip bomb, or a flood of bytes sent until the client hangs up."""
        h.close_connection = True
        self.holding.set()
        if fault.get("gzip_bomb"):
            body = gzip_bomb(int(fault["gzip_bomb"]), comments=bool(fault.get("comments")))
            h.send_response(200)
            h.send_header("Content-Type", "text/event-stream")
            h.send_header("Content-Encoding", "gzip")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            try:
                h.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                with self._lock:
                    self.aborted += 1
            return
        h.send_response(int(fault.get("status", 200)))
        h.send_header("Content-Type", fault.get("content_type", "application/json"))
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        piece = b"data: x\n" * (8 << 10) if fault.get("lines") else b"x" * (64 << 10)
        frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
        try:
            for _ in range(int(fault["flood"]) // len(piece)):
                if self.closing.is_set():
                    return
                h.wfile.write(frame)
            h.wfile.write(b"0\r\n\r\n")
            with self._lock:
                self.completed += 1
        except (BrokenPipeError, ConnectionResetError):
            with self._lock:
                self.aborted += 1

    @staticmethod
    def _json(h: BaseHTTPRequestHandler, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        raw = json.dumps(data).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(raw)

    def _sse(self, h: BaseHTTPRequestHandler, events: Iterable[Any], fault: dict[str, Any] | None) -> None:
        """Stream events as server-sent events (chunked), noting whether the client hung up early."""
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        stall_after = fault.get("stall_after") if fault else None
        cut_after = fault.get("cut_after") if fault else None
        try:
            for n, event in enumerate(events):
                if stall_after is not None and n == stall_after:
                    time.sleep(float(fault.get("hang", 2.0)))
                    h.close_connection = True
                    return
                if cut_after is not None and n == cut_after:
                    break  # the body ends properly, but the reply does not
                data = event if isinstance(event, str) else json.dumps(event)
                payload = f"data: {data}\r\n\r\n".encode()
                if self.comments:
                    payload = b": keepalive\r\n\r\n" + payload
                h.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
                h.wfile.flush()
                if self.piece_delay:
                    time.sleep(self.piece_delay)
            h.wfile.write(b"0\r\n\r\n")
            h.wfile.flush()
            with self._lock:
                self.completed += 1
        except (BrokenPipeError, ConnectionResetError):
            with self._lock:
                self.aborted += 1
            h.close_connection = True

    def _stream_text(self, text: str) -> Iterable[str]:
        with self._lock:
            trailing, self.trailing = self.trailing, ""
        yield from _PIECES.findall(text)
        if trailing:
            for _ in range(2000):  # the client is expected to hang up long before this ends
                yield from _PIECES.findall(trailing)


@functools.lru_cache(maxsize=4)
def gzip_bomb(size: int, *, comments: bool = False) -> bytes:
    """gzip of ``size`` bytes: one event line that never ends (``data: {"x": "xxx…``), or ``: keepalive`` comments."""
    unit = b": keepalive\n\n" if comments else b"x"
    block = unit * ((1 << 20) // len(unit))
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [packer.compress(b"" if comments else b'data: {"x": "')]
    parts += [packer.compress(block) for _ in range(size // len(block))]
    return b"".join(parts) + packer.flush()


class FakeGemini(FakeModelServer):
    """``POST /v1beta/models/{model}:generateContent`` and ``:streamGenerateContent?alt=sse``. ``whole="object"``
    answers a stream with one ``generateContent`` JSON body, ``whole="array"`` with the JSON array Gemini sends for
    ``streamGenerateContent`` without ``alt=sse``: servers that ignore the request to stream events."""

    def __init__(self, outputs: Iterable[str | dict[str, Any]] = (), *, whole: str = "", **kw: Any) -> None:
        super().__init__(outputs, **kw)
        self.whole = whole

    def _error_body(self, status: int, message: str, fault: dict[str, Any] | None = None) -> dict[str, Any]:
        names = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED"}
        error: dict[str, Any] = {"code": status, "message": message, "status": names.get(status, "UNAVAILABLE")}
        if fault and fault.get("retry_delay"):  # Gemini's way of saying how long to wait: RetryInfo in the body
            retry_info = {"@type": RETRY_INFO_TYPE, "retryDelay": fault["retry_delay"]}
            error["details"] = [retry_info]
        return {"error": error}

    def _post(self, h: BaseHTTPRequestHandler, body: Any, fault: dict[str, Any] | None) -> None:
        m = re.match(r"^/(v1beta|v1)/models/([^:]+):(generateContent|streamGenerateContent)", h.path)
        if not m:
            self._json(h, 404, self._error_body(404, f"no route {h.path}"))
            return
        if fault and fault.get("blocked"):  # a refusal: the prompt or the answer blocked, no text at all
            if fault.get("where") == "prompt":
                event = {"promptFeedback": {"blockReason": fault["blocked"]}}
            else:
                event = {"candidates": [_gemini_candidate("", fault["blocked"])]}
            self._sse(h, [event], None)
            return
        if self._apply_fault(h, fault):
            return
        config = body.get("generationConfig", {}) if isinstance(body, dict) else {}
        text, calls = self._next_output(config.get("stopSequences", []))
        prompt_chars = len(json.dumps(body))
        usage = {
            "promptTokenCount": prompt_chars // 4,
            "candidatesTokenCount": max(1, len(text) // 4),
            "totalTokenCount": prompt_chars // 4 + max(1, len(text) // 4),
        }
        if self.cached:
            usage["cachedContentTokenCount"] = self.cached
        if m.group(3) == "generateContent" or self.whole == "object":
            self._json(h, 200, {"candidates": [_gemini_candidate(text, "STOP")], "usageMetadata": usage})
            return
        if self.whole == "array":
            pieces = [{"candidates": [_gemini_candidate(p)]} for p in self._stream_text(text)]
            pieces.append({"candidates": [_gemini_candidate("", "STOP")], "usageMetadata": usage})
            raw = ("[" + ",\r\n".join(json.dumps(p, indent=2) for p in pieces) + "]").encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json; charset=UTF-8")
            h.send_header("Content-Length", str(len(raw)))
            h.end_headers()
            h.wfile.write(raw)
            return

        def events() -> Iterable[Any]:
            for piece in self._stream_text(text):
                yield {"candidates": [_gemini_candidate(piece)], "modelVersion": m.group(2)}
            if calls:  # whole functionCall parts in one event, the first with its thought signature
                parts = [_gemini_call(c, first=n == 0) for n, c in enumerate(calls)]
                yield {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}]}
            yield {"candidates": [_gemini_candidate("", "STOP")], "usageMetadata": usage, "modelVersion": m.group(2)}

        self._sse(h, events(), fault)

    def _text_event(self, text: str) -> Any:
        return {"candidates": [_gemini_candidate(text)]}


# What a thought signature looks like to a client: opaque base64 that must come back with the call.
GEMINI_SIGNATURE = base64.b64encode(b"opaque-thought-signature").decode()


def _gemini_call(call: dict[str, Any], *, first: bool) -> dict[str, Any]:
    args = call.get("arguments", {})
    part: dict[str, Any] = {"functionCall": {"name": call["name"], "args": args}}
    if first:
        part["thoughtSignature"] = GEMINI_SIGNATURE
    return part


def _gemini_candidate(text: str, finish: str | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}] if text else []}, "index": 0}
    if finish:
        c["finishReason"] = finish
    return c


class FakeOpenAI(FakeModelServer):
    """``POST /v1/chat/completions`` (streamed or not) as OpenAI and compatible servers answer it."""

    def __init__(
        self,
        outputs: Iterable[str | dict[str, Any]] = (),
        *,
        refuse: Iterable[str] = (),
        key: str | None = None,
        calls: str = "split",
        ignore_stream: bool = False,
        content_parts: bool = False,
        responses_api: bool = False,
        **kw: Any,
    ) -> None:
        super().__init__(outputs, **kw)
        self.responses_api = responses_api
        self.refuse = list(refuse)  # parameters this "model" rejects (in this order), as reasoning models do stop
        self.key = key  # when set, any other bearer token gets a 401 that echoes it, as OpenAI's does
        self.calls = calls  # how tool calls are streamed (see the module's docstring)
        self.ignore_stream = ignore_stream
        self.content_parts = content_parts

    def _error_body(
        self, status: int, message: str, fault: dict[str, Any] | None = None, param: str | None = None
    ) -> dict[str, Any]:
        code = (fault or {}).get("code")
        return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}

    def _get(self, h: BaseHTTPRequestHandler) -> None:
        self._json(h, 200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})

    def _post(self, h: BaseHTTPRequestHandler, body: Any, fault: dict[str, Any] | None) -> None:
        if not h.path.endswith("/chat/completions"):
            self._json(h, 404, self._error_body(404, f"no route {h.path}"))
            return
        if self.key is not None:
            token = h.headers.get("Authorization", "").removeprefix("Bearer ")
            if token != self.key:
                self._json(h, 401, self._error_body(401, f"Incorrect API key provided: {token}."))
                return
        for param in self.refuse:
            if param in body:
                message = f"Unsupported parameter: '{param}' is not supported with this model."
                self._json(h, 400, self._error_body(400, message, param=param))
                return
        if fault and fault.get("blocked"):  # a refusal: the content filter, no text at all
            head = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}
            choice = {"index": 0, "delta": {}, "finish_reason": "content_filter"}
            self._sse(h, [{**head, "choices": [choice]}, "[DONE]"], None)
            return
        if self._apply_fault(h, fault):
            return
        stop = body.get("stop") or []
        text, calls = self._next_output([stop] if isinstance(stop, str) else list(stop))
        usage = {"prompt_tokens": len(json.dumps(body["messages"])) // 4, "completion_tokens": max(1, len(text) // 4)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if self.cached:
            usage["prompt_tokens_details"] = {"cached_tokens": self.cached}
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}
        finish = "tool_calls" if calls else "stop"
        if self.responses_api:
            self._responses(h, text, streamed=body.get("stream") and not self.ignore_stream)
            return
        if not body.get("stream") or self.ignore_stream:
            message: dict[str, Any] = {"role": "assistant", "content": self._content(text, first=True)}
            if calls:
                message["tool_calls"] = [
                    {"id": f"call_{n}", "type": "function", "function": {"name": c["name"], "arguments": _raw(c)}}
                    for n, c in enumerate(calls)
                ]
            choice = {"index": 0, "message": message, "finish_reason": finish}
            self._json(h, 200, {**base, "object": "chat.completion", "choices": [choice], "usage": usage})
            return

        def events() -> Iterable[Any]:
            yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
            for n, piece in enumerate(self._stream_text(text)):
                delta = {"content": self._content(piece, first=n == 0)}
                yield {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            for n, call in enumerate(calls):
                for piece in self._call_pieces(n, call, f"call_{n}_{len(self.requests)}"):
                    yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": [piece]}}]}
            yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
            if (body.get("stream_options") or {}).get("include_usage"):
                yield {**base, "choices": [], "usage": usage}
            yield "[DONE]"

        self._sse(h, events(), fault)

    def _responses(self, h: BaseHTTPRequestHandler, text: str, *, streamed: bool) -> None:
        """The Responses API's answer (``POST /v1/responses``), sent where a chat completion belongs."""
        item = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
        done = {"id": "resp_fake", "object": "response", "status": "completed", "output": [item]}
        if not streamed:
            self._json(h, 200, done)
            return
        started = {**done, "status": "in_progress", "output": []}
        events: list[Any] = [{"type": "response.created", "sequence_number": 0, "response": started}]
        for n, piece in enumerate(self._stream_text(text), start=1):
            events.append({"type": "response.output_text.delta", "sequence_number": n, "delta": piece})
        events.append({"type": "response.completed", "sequence_number": len(events), "response": done})
        self._sse(h, events, None)

    def _content(self, text: str, *, first: bool) -> Any:
        """``content`` as this server sends it: a string, or (Mistral) a list of typed parts, a thinking part first."""
        if not self.content_parts:
            return text
        thinking = [{"type": "thinking", "thinking": [{"type": "text", "text": "Let me think."}]}] if first else []
        return [*thinking, {"type": "text", "text": text}, {"type": "reference", "reference_ids": [1]}]

    def _call_pieces(self, n: int, call: dict[str, Any], call_id: str) -> Iterable[dict[str, Any]]:
        """One tool call's ``delta.tool_calls`` pieces, as this server streams them."""
        raw, name = _raw(call), call["name"]
        head = {"index": n, "id": call_id, "type": "function"}
        if self.calls == "whole_twice":
            for _ in range(2):
                yield {**head, "function": {"name": name, "arguments": raw}}
            return
        if self.calls == "name_split":
            yield {**head, "function": {"name": name[:3], "arguments": ""}}
            yield {"index": n, "function": {"name": name[3:]}}
        else:
            yield {**head, "function": {"name": name, "arguments": ""}}
        for i in range(0, len(raw), 5):
            piece: dict[str, Any] = {"index": n, "function": {"arguments": raw[i : i + 5]}}
            if self.calls == "repeat_name":
                piece = {**head, "function": {"name": name, "arguments": raw[i : i + 5]}}
            yield piece

    def _text_event(self, text: str) -> Any:
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": "fake"}
        return {**base, "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def _raw(call: dict[str, Any]) -> str:
    arguments = call.get("arguments", {})
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


# -- the real llama_cpp.server ----------------------------------------------------------------------------


class LlamaServer:
    """``llama_cpp.server`` (through ``react_core.providers.llama_server``) serving a GGUF file on 127.0.0.1."""

    def __init__(self, model_path: Path, *, n_ctx: int = 4096, startup_timeout: float = 120.0) -> None:
        self.port = free_port()
        self.log = open(os.devnull, "wb")  # noqa: SIM115 (closed in stop)
        cmd = [sys.executable, "-m", "react_core.providers.llama_server", "--model", str(model_path)]
        cmd += ["--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(n_ctx), "--verbose", "False"]
        # One core: these tests run beside others (make test's first part); the count does not change the numbers.
        cmd += ["--n_threads", "1", "--n_threads_batch", "1"]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self.log, stderr=subprocess.PIPE)
        deadline = time.monotonic() + startup_timeout
        while True:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.stderr else ""
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}: {err}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("llama_cpp.server did not start in time")
            time.sleep(0.2)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.proc.stderr:
            self.proc.stderr.close()
        self.log.close()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-stream (the loop stops reading at a stop sequence) is normal here.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class StreamHold:
    """A pass-through in front of an OpenAI-compatible server (as a load balancer would sit) that can hold one streamed
    answer part-way: ``hold_next()`` arms it; the next streamed completion is forwarded until it has sent
    ``pieces`` pieces of text (or reaches its end), then ``holding`` is set and it waits for ``release()``. A test
    can then look at what the browser shows while the model is still writing: an event, not a race."""

    def __init__(self, upstream: str, *, pieces: int = 3) -> None:
        self.upstream = urllib.parse.urlsplit(upstream)
        self.pieces = pieces
        self.holding = threading.Event()
        self.streams = 0  # streamed completions forwarded
        self._released = threading.Event()
        self._armed = False
        self._lock = threading.Lock()
        hold = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                pass

            def do_GET(self) -> None:
                hold._forward(self)

            def do_POST(self) -> None:
                hold._forward(self)

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def hold_next(self) -> None:
        with self._lock:
            self._armed = True
            self.holding.clear()
            self._released.clear()

    def release(self) -> None:
        self._released.set()

    def stop(self) -> None:
        self._released.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _forward(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else None
        skip = {"host", "connection", "accept-encoding", "content-length"}
        headers = {k: v for k, v in h.headers.items() if k.lower() not in skip}
        conn = http.client.HTTPConnection(self.upstream.hostname, self.upstream.port, timeout=300)
        try:
            conn.request(h.command, h.path, body=body, headers=headers)
            answer = conn.getresponse()
            h.send_response(answer.status)
            for k, v in answer.getheaders():
                if k.lower() not in ("transfer-encoding", "content-length", "connection"):
                    h.send_header(k, v)
            if not answer.getheader("Content-Type", "").startswith("text/event-stream"):
                data = answer.read()
                h.send_header("Content-Length", str(len(data)))
                h.end_headers()
                h.wfile.write(data)
                return
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            self._stream(answer, h)
        finally:
            conn.close()

    def _stream(self, answer: http.client.HTTPResponse, h: BaseHTTPRequestHandler) -> None:
        with self._lock:
            hold, self._armed = self._armed, False
            self.streams += 1
        sent = 0
        event = b""
        for line in iter(answer.readline, b""):
            event += line
            if line.strip():
                continue  # an event ends with a blank line
            data = event.strip().removeprefix(b"data:").strip()
            text = ""
            if data and data != b"[DONE]":
                try:
                    choices = json.loads(data).get("choices") or [{}]
                    text = (choices[0].get("delta") or {}).get("content") or ""
                    ended = bool(choices[0].get("finish_reason"))
                except (ValueError, AttributeError):
                    ended = False
            else:
                ended = True
            if hold and (sent >= self.pieces or (ended and sent)):
                hold = False
                self.holding.set()
                self._released.wait(timeout=120)
            h.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
            h.wfile.flush()
            sent += bool(text)
            event = b""
        h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()


# -- the key-leak check -----------------------------------------------------------------------------------


def _texts(artefact: Any) -> Iterable[tuple[str, str]]:
    """(where, text) pairs for an artefact: a string, bytes, a Path (file or folder), or any JSON-able value."""
    if isinstance(artefact, bytes):
        yield "bytes", artefact.decode("utf-8", "replace")
    elif isinstance(artefact, str):
        yield "text", artefact
    elif isinstance(artefact, Path):
        files = [artefact] if artefact.is_file() else sorted(p for p in artefact.rglob("*") if p.is_file())
        for f in files:
            yield str(f), f.read_bytes().decode("utf-8", "replace")
    elif hasattr(artefact, "to_dict"):
        yield type(artefact).__name__, json.dumps(artefact.to_dict(), ensure_ascii=False)
    else:
        yield type(artefact).__name__, json.dumps(artefact, ensure_ascii=False, default=str)


def assert_no_secret(marker: str, *artefacts: Any) -> None:
    """Fail if ``marker`` (a fake key) appears in any artefact: output, trace, log text, files, folders, values.

    Reusable for every place a key must never reach (history database, exports, logs): pass them all.
    """
    assert len(marker) >= 8, "use a distinctive marker key"
    for artefact in artefacts:
        for where, text in _texts(artefact):
            assert marker not in text, f"the key leaked into {where}"
