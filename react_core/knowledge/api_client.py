"""One reused HTTP client for a MediaWiki Action API endpoint: timeouts, retries with backoff, ``Retry-After``.

``ApiClient.query(params)`` never raises for network trouble: it returns an ``ApiResult`` holding the JSON, or an
error message, and always the number of HTTP requests it made (retries included) for ``stats.http_requests``.
Retried: 429, 5xx, MediaWiki's ``maxlag``/``ratelimited`` errors, read timeouts and dropped connections. Not
retried: a refused connection or an unknown host (``unreachable``, so the caller can fall back at once), other
4xx, and answers that are not JSON. No retry starts that could end past ``deadline`` seconds, so nothing hangs.
Depends on httpx2 and the project's Retry-After reader only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx2

from react_core.retry_after import parse_retry_after

RETRIED_API_ERRORS = {"maxlag", "ratelimited", "internal_api_error_DBQueryError", "readonly"}


@dataclass
class ApiResult:
    data: dict[str, Any] | None
    requests: int
    error: str = ""
    unreachable: bool = False


class ApiClient:
    def __init__(
        self,
        endpoint: str,
        user_agent: str,
        *,
        connect_timeout: float = 5.0,
        read_timeout: float = 10.0,
        retries: int = 2,
        backoff: float = 0.5,
        max_retry_after: float = 10.0,
        deadline: float = 30.0,
        transport: httpx2.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.endpoint = endpoint
        self.retries = retries
        self.backoff = backoff
        self.max_retry_after = max_retry_after
        self.deadline = deadline
        self.read_timeout = read_timeout
        self._sleep = sleep
        self._clock = clock
        self._client = httpx2.Client(
            headers={"User-Agent": user_agent, "Accept": "application/json"},
            timeout=httpx2.Timeout(read_timeout, connect=connect_timeout),
            follow_redirects=True,
            transport=transport,
        )

    def close(self) -> None:
        self._client.close()

    def query(self, params: Mapping[str, str]) -> ApiResult:
        params = {"action": "query", "format": "json", "formatversion": "2", **params}
        started = self._clock()
        attempts = 0
        while True:
            attempts += 1
            wait: float | None = None
            try:
                response = self._client.get(self.endpoint, params=params)
            except (httpx2.ConnectError, httpx2.ConnectTimeout) as e:
                return ApiResult(None, attempts, f"cannot connect ({_reason(e)})", unreachable=True)
            except httpx2.TimeoutException:
                problem = "no answer in time (read timeout)"
            except httpx2.TransportError as e:
                problem = f"the connection failed ({_reason(e)})"
            else:
                status = response.status_code
                if status == 429 or status >= 500:
                    problem = f"HTTP {status}" + (" (rate limited)" if status == 429 else "")
                    wait = parse_retry_after(response.headers.get("Retry-After"))
                elif status >= 400:
                    return ApiResult(None, attempts, f"HTTP {status} from {self.endpoint}: is it a MediaWiki api.php?")
                else:
                    try:
                        data = response.json()
                    except ValueError:
                        return ApiResult(None, attempts, "the answer was not JSON (is the URL a MediaWiki api.php?)")
                    if not isinstance(data, dict):
                        return ApiResult(None, attempts, "the answer was JSON of an unexpected shape")
                    error = data.get("error")
                    if not isinstance(error, dict):
                        return ApiResult(data, attempts)
                    code = str(error.get("code", "unknown"))
                    problem = f"API error {code}: {error.get('info', '')}".strip()
                    if code not in RETRIED_API_ERRORS:
                        return ApiResult(None, attempts, problem)
                    wait = parse_retry_after(response.headers.get("Retry-After"))
            if attempts > self.retries:
                return ApiResult(None, attempts, f"{problem}, after {attempts} tries")
            delay = wait if wait is not None else self.backoff * 2 ** (attempts - 1)
            if delay > self.max_retry_after:
                return ApiResult(None, attempts, f"{problem}; the server asked to wait {delay:.0f} s before retrying")
            # Give up rather than start an attempt that could run past the deadline (a slow server times out).
            if self._clock() - started + delay + self.read_timeout > self.deadline:
                return ApiResult(None, attempts, f"{problem}, giving up after {attempts} tries ({self.deadline:.0f} s)")
            self._sleep(delay)


def _reason(e: Exception) -> str:
    text = str(e) or type(e).__name__
    return text if len(text) <= 160 else text[:157] + "..."
