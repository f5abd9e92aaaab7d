"""One reused HTTP client for a MediaWiki Action API endpoint: limits, retries with backoff, redirects, and Stop.

``ApiClient.query(params)`` never raises for network trouble: it returns an ``ApiResult`` holding the JSON, or an
error message, and always the number of HTTP requests it made (retries included) for ``stats.http_requests``. It
raises only ``react_core.base.cancel.Cancelled``, when the person stops the run while it waits.

Limits (the constants below are the defaults; each is a constructor option of the same name in lower case):
- a request gets ``connect_timeout`` to connect and ``read_timeout`` of silence at most between bytes, and the whole
  request, body included, must end within ``request_timeout`` (wall clock): a server that trickles bytes is cut off;
- a query with its retries ends within ``deadline``: no retry starts that could end past it;
- an answer larger than ``max_body_bytes`` (after decompression) is refused, read as a stream and never held whole;
- redirects are followed only within the endpoint's own scheme, host and port, at most ``max_redirects`` of them.

Retried: 429, 5xx, MediaWiki's ``maxlag``/``ratelimited`` errors, read timeouts and dropped connections, after a
backoff that honours ``Retry-After`` up to ``max_retry_after``. Not retried: a refused connection or an unknown host
(``unreachable``, so the caller can fall back at once), other 4xx, answers that are not JSON, too large or too slow,
and refused redirects.

Each request runs on a worker thread while the caller waits in slices of ``POLL_SECONDS``, checking
``react_core.base.cancel``: Stop ends the wait at once even while the server is silent, and the backoff between tries is
``cancel.sleep``. The worker, told to give up, stops at its next chunk (or its read timeout) and closes the
connection. Text in the answers is scrubbed of lone surrogates (``react_core.base.text``).
"""

from __future__ import annotations

import contextvars
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx2

from react_core.base import cancel
from react_core.base.retry_after import parse_retry_after
from react_core.base.text import scrub, scrub_value

CONNECT_TIMEOUT = 5.0  # seconds to open a connection
READ_TIMEOUT = 10.0  # seconds of silence while waiting for the next bytes
REQUEST_TIMEOUT = 15.0  # wall-clock seconds for one HTTP request, headers and body
DEADLINE = 30.0  # wall-clock seconds for one query, retries included
MAX_BODY_BYTES = 4_000_000  # the largest answer read (Wikipedia's longest articles are well under 1 MB of text)
RETRIES = 2
BACKOFF = 0.5  # seconds before the first retry, doubling after each
MAX_RETRY_AFTER = 10.0  # a server asking for a longer wait fails the query at once
MAX_REDIRECTS = 3
POLL_SECONDS = 0.1  # how often a waiting request looks at Stop
RETRIED_API_ERRORS = {"maxlag", "ratelimited", "internal_api_error_DBQueryError", "readonly"}
_MAX_REASON_CHARS = 300


@dataclass
class ApiResult:
    data: dict[str, Any] | None
    requests: int
    error: str = ""
    unreachable: bool = False


@dataclass
class _Reply:
    """What one HTTP request brought: a status, headers and body, or why it failed."""

    status: int = 0
    headers: httpx2.Headers | None = None
    body: bytes = b""
    problem: str = ""
    retry: bool = False  # the problem may pass: try again after a backoff
    unreachable: bool = False
    requests: int = 1  # HTTP requests made, redirects followed included


class ApiClient:
    def __init__(
        self,
        endpoint: str,
        user_agent: str,
        *,
        connect_timeout: float = CONNECT_TIMEOUT,
        read_timeout: float = READ_TIMEOUT,
        request_timeout: float = REQUEST_TIMEOUT,
        deadline: float = DEADLINE,
        max_body_bytes: int = MAX_BODY_BYTES,
        retries: int = RETRIES,
        backoff: float = BACKOFF,
        max_retry_after: float = MAX_RETRY_AFTER,
        max_redirects: int = MAX_REDIRECTS,
        transport: httpx2.BaseTransport | None = None,
        sleep: Callable[[float], None] = cancel.sleep,
    ) -> None:
        self.endpoint = endpoint
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.request_timeout = request_timeout
        self.deadline = deadline
        self.max_body_bytes = max_body_bytes
        self.retries = retries
        self.backoff = backoff
        self.max_retry_after = max_retry_after
        self.max_redirects = max_redirects
        self._sleep = sleep
        self._client = httpx2.Client(
            headers={"User-Agent": user_agent, "Accept": "application/json"},
            timeout=httpx2.Timeout(read_timeout, connect=connect_timeout),
            follow_redirects=False,  # followed by hand, within the endpoint's origin only
            transport=transport,
        )

    def close(self) -> None:
        self._client.close()

    def query(self, params: Mapping[str, str]) -> ApiResult:
        params = {"action": "query", "format": "json", "formatversion": "2", **params}
        started = time.monotonic()
        attempts = requests = 0
        while True:
            cancel.check()
            attempts += 1
            now = time.monotonic()
            if now + self.request_timeout <= started + self.deadline:
                until, limit = now + self.request_timeout, f"{self.request_timeout:g} s (request_timeout)"
            else:
                until, limit = started + self.deadline, f"the query's {self.deadline:g} s (deadline)"
            reply = self._attempt(params, until, limit)
            requests += reply.requests
            wait: float | None = None
            if reply.problem:
                if reply.unreachable or not reply.retry:
                    return ApiResult(None, requests, reply.problem, unreachable=reply.unreachable)
                problem = reply.problem
            else:
                status = reply.status
                if status == 429 or status >= 500:
                    problem = f"HTTP {status}" + (" (rate limited)" if status == 429 else "")
                    wait = parse_retry_after(reply.headers.get("Retry-After") if reply.headers else None)
                elif status >= 300:
                    return ApiResult(None, requests, f"HTTP {status} from {self.endpoint}: is it a MediaWiki api.php?")
                else:
                    try:
                        data = json.loads(reply.body)
                    except ValueError:
                        return ApiResult(None, requests, "the answer was not JSON (is the URL a MediaWiki api.php?)")
                    if not isinstance(data, dict):
                        return ApiResult(None, requests, "the answer was JSON of an unexpected shape")
                    data = scrub_value(data)
                    error = data.get("error")
                    if not isinstance(error, dict):
                        return ApiResult(data, requests)
                    code = _short(str(error.get("code", "unknown")))
                    problem = f"API error {code}: {_short(str(error.get('info', '')))}".strip()
                    if code not in RETRIED_API_ERRORS:
                        return ApiResult(None, requests, problem)
                    wait = parse_retry_after(reply.headers.get("Retry-After") if reply.headers else None)
            if attempts > self.retries:
                return ApiResult(None, requests, f"{problem}, after {attempts} tries")
            delay = wait if wait is not None else self.backoff * 2 ** (attempts - 1)
            if delay > self.max_retry_after:
                return ApiResult(None, requests, f"{problem}; the server asked to wait {delay:.0f} s before retrying")
            # Give up rather than start an attempt with no time to finish: a silent server needs read_timeout to fail.
            if time.monotonic() - started + delay + self.read_timeout > self.deadline:
                return ApiResult(None, requests, f"{problem}, giving up after {attempts} tries ({self.deadline:.0f} s)")
            self._sleep(delay)

    # -- one request ----------------------------------------------------------------------------------------

    def _attempt(self, params: Mapping[str, str], until: float, limit: str) -> _Reply:
        """One request on a worker thread, waited for in slices so that Stop and the wall-clock limit both hold."""
        outcome: list[_Reply | BaseException] = []
        done, give_up = threading.Event(), threading.Event()
        context = contextvars.copy_context()  # the worker sees the run's cancellation scope too

        def work() -> None:
            try:
                outcome.append(context.run(self._request, params, until, limit, give_up))
            except BaseException as e:  # handed to the caller's thread, as if it had run there
                outcome.append(e)
            finally:
                done.set()

        threading.Thread(target=work, name="wiki-request", daemon=True).start()
        try:
            while not done.wait(max(0.0, min(POLL_SECONDS, until - time.monotonic()))):
                cancel.check()
                if time.monotonic() >= until:
                    return _too_slow(limit)
        finally:
            give_up.set()  # the worker stops at its next chunk; harmless when it has finished
        cancel.check()
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    def _request(self, params: Mapping[str, str], until: float, limit: str, give_up: threading.Event) -> _Reply:
        try:
            request = self._client.build_request("GET", self.endpoint, params=params)
            for hop in range(1, self.max_redirects + 2):
                response = self._client.send(request, stream=True)
                try:
                    target = response.next_request
                    if target is None:
                        reply = self._read(response, until, limit, give_up)
                        reply.requests = hop
                        return reply
                    refusal = _redirect_refusal(request.url, target.url)
                    if refusal:
                        return _Reply(problem=refusal, requests=hop)
                    request = target
                finally:
                    response.close()
            return _Reply(problem=f"more than {self.max_redirects} redirects", requests=self.max_redirects + 1)
        except (httpx2.ConnectError, httpx2.ConnectTimeout) as e:
            return _Reply(problem=f"cannot connect ({_reason(e)})", unreachable=True)
        except httpx2.TimeoutException:
            return _Reply(problem="no answer in time (read timeout)", retry=True)
        except httpx2.TransportError as e:
            return _Reply(problem=f"the connection failed ({_reason(e)})", retry=True)
        except httpx2.DecodingError as e:
            return _Reply(problem=f"the answer could not be decoded ({_reason(e)})")

    def _read(self, response: httpx2.Response, until: float, limit: str, give_up: threading.Event) -> _Reply:
        """The body of a 2xx answer, streamed: stopped past ``until``, past ``max_body_bytes``, or when told to."""
        reply = _Reply(status=response.status_code, headers=response.headers)
        if not 200 <= response.status_code < 300:
            return reply  # the status says it all; the body is an error page
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            return self._too_large()
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            cancel.check()
            if give_up.is_set():
                return _Reply(problem="abandoned")
            size += len(chunk)
            if size > self.max_body_bytes:
                return self._too_large()
            if time.monotonic() >= until:
                return _too_slow(limit)
            chunks.append(chunk)
        reply.body = b"".join(chunks)
        return reply

    def _too_large(self) -> _Reply:
        return _Reply(
            problem=f"the answer is larger than {_megabytes(self.max_body_bytes)}, the most this client reads "
            "(max_body_bytes)"
        )


def _too_slow(limit: str) -> _Reply:
    return _Reply(problem=f"the answer did not arrive within {limit}; the server is too slow or sends too much")


def _redirect_refusal(origin: httpx2.URL, target: httpx2.URL) -> str:
    """Why a redirect must not be followed ('' when it stays on the endpoint's scheme, host and port)."""
    if target.scheme != origin.scheme:
        where = f"from {origin.scheme} to {target.scheme}"
    elif (target.host, target.port) != (origin.host, origin.port):
        where = "to another host"
    else:
        return ""
    shown = _short(str(target.copy_with(query=None)))
    return (
        f"it redirected {where} ({shown}), which this client refuses to follow; if that is the right API, "
        "set --wiki-url to it"
    )


def _megabytes(size: int) -> str:
    return f"{size / 1e6:g} MB" if size >= 1_000_000 else f"{size:,} bytes"


def _short(text: str) -> str:
    text = scrub(text)
    return text if len(text) <= _MAX_REASON_CHARS else text[: _MAX_REASON_CHARS - 3] + "..."


def _reason(e: Exception) -> str:
    return _short(str(e) or type(e).__name__)
