"""The HTTP transport the live export's OTLP exporter sends through: the SDK's exporter (its encoding, headers,
compression and retries) over a client that bounds what an endpoint can cost.

The SDK's own transport (``requests``) reads an endpoint's whole reply into memory, inflating it when it says it is
compressed (a 500 MB body took 1 GB, a gzip bomb 2.1 GB), and its timeout is per socket read, so an endpoint sending a
byte a second held an export for as long as it liked. Here:

- **The deadline is the whole request's.** The exporter's timeout (``OTEL_EXPORTER_OTLP_TIMEOUT``, what is left of it
  on a retry) runs as a guarded call (``cancel.guarded_call``) over the providers' ``AbortableClient``: when it passes,
  the socket is shut down, whether the endpoint is silent, trickling its headers or its body.
- **The reply is read raw and only its head kept.** The exporter needs the status and headers (Retry-After); at most
  ``MAX_REPLY_BYTES`` of the body are kept and the rest is never read (the connection is closed), and a compressed
  body is never inflated.
- **TLS as the SDK resolves it**: ``OTEL_EXPORTER_OTLP_[TRACES_]CERTIFICATE`` to verify the endpoint, and
  ``…_CLIENT_CERTIFICATE`` with ``…_CLIENT_KEY`` to present one.

``failure`` says what went wrong with the last request, for ``live``'s one line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx2
from opentelemetry.exporter.http.transport._base import BaseHTTPResult, BaseHTTPTransport
from opentelemetry.sdk.environment_variables import (
    OTEL_EXPORTER_OTLP_CERTIFICATE,
    OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE,
    OTEL_EXPORTER_OTLP_CLIENT_KEY,
    OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE,
    OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE,
    OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY,
)

from react_core.base import cancel
from react_core.providers.transport import AbortableClient

# An OTLP reply is an ExportTraceServiceResponse (a few bytes, a partial-success message at most) or a short error.
MAX_REPLY_BYTES = 64 << 10


@dataclass(frozen=True, slots=True)
class Result(BaseHTTPResult):
    kept: bytes = b""
    header_map: Mapping[str, str] = field(default_factory=dict)

    def content(self) -> bytes:
        return self.kept

    def headers(self) -> Mapping[str, str]:
        return self.header_map


class TimedOut(TimeoutError):
    """The endpoint did not answer within the export's time."""


class BoundedTransport(BaseHTTPTransport):
    def __init__(self) -> None:
        verify, cert = _tls()
        # The guarded call's deadline is the contract; these only bound a single wait should the guard not be there.
        self._client = AbortableClient(read=60, connect=60, transport=httpx2.HTTPTransport(verify=verify, cert=cert))
        self.failure = ""

    def request(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
        data: bytes | None = None,
    ) -> BaseHTTPResult:
        result = self._request(method, url, headers, timeout, data)
        if isinstance(result.error, TimedOut):
            self.failure = str(result.error)
        elif result.error is not None:
            self.failure = f"it could not be reached ({type(result.error).__name__}: {result.error})"
        elif result.status_code is not None and not 200 <= result.status_code < 400:
            self.failure = f"it answered HTTP {result.status_code} {result.reason or ''}".rstrip()
        else:
            self.failure = ""
        return result

    def _request(
        self, method: str, url: str, headers: dict[str, str] | None, timeout: float | None, data: bytes | None
    ) -> Result:
        with cancel.guarded_call(timeout) as guard:
            try:
                request = self._client.build_request(method, url, headers=headers, content=data)
                response = self._client.send(request, stream=True)
            except Exception as e:  # the exporter reads failures from the result, never from an exception
                if guard.expired:
                    return Result(error=TimedOut(f"it did not answer within {timeout:.3g} s"))
                return Result(error=e)
            try:
                kept = _head(response)
            except Exception:  # the status is known; a body cut short (the deadline, a reset) changes nothing
                kept = b""
            finally:
                response.close()
        return Result(
            status_code=response.status_code,
            reason=response.reason_phrase,
            kept=kept,
            header_map=response.headers,
        )

    def is_connection_error(self, exception: Exception | None) -> bool:
        return isinstance(exception, httpx2.TransportError)

    def close(self) -> None:
        self._client.close()


def exported(inner: Any, transport: BoundedTransport, batch: Any, success: Any, failure: Any) -> tuple[Any, str]:
    """One batch through the SDK's exporter ``inner``: its result, and why it failed ('' when sent). The exporter
    should not raise; if it does, that is the sending thread's problem, said like any other failure."""
    try:
        result = inner.export(batch)
    except Exception as e:
        return failure, str(e)
    if result is success:
        return result, ""
    return result, transport.failure or "it could not be reached or did not accept them"


def _head(response: httpx2.Response) -> bytes:
    """The first ``MAX_REPLY_BYTES`` of the body as sent (never inflated); the rest is left unread."""
    kept = bytearray()
    for piece in response.iter_raw():
        kept += piece[: MAX_REPLY_BYTES - len(kept)]
        if len(kept) >= MAX_REPLY_BYTES:
            break
    return bytes(kept)


def _tls() -> tuple[bool | str, str | tuple[str, str] | None]:
    """(verify, cert) from the certificate variables, resolved as the SDK's own transport resolves them."""
    verify = os.environ.get(OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE) or os.environ.get(OTEL_EXPORTER_OTLP_CERTIFICATE)
    key = os.environ.get(OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY) or os.environ.get(OTEL_EXPORTER_OTLP_CLIENT_KEY)
    cert = os.environ.get(OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE) or os.environ.get(
        OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE
    )
    return verify or True, (cert, key) if cert and key else cert
