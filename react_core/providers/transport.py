"""The HTTP client the hosted providers hand to their SDKs: split timeouts, a User-Agent, closable streams.

The Gemini SDK passes one timeout for every phase (or none at all) and never closes a streamed response when its
generator is abandoned, so the model would keep generating after the loop has stopped reading. This client forces the
connect/read timeouts on every request and remembers, per thread, the streamed response it opened last, so the provider
can close it.
"""

from __future__ import annotations

import threading

import httpx2

from react_core.providers.retry import CONNECT_TIMEOUT, READ_TIMEOUT

USER_AGENT = "react-lab/0.1 (ReAct Lab)"


def timeouts(read: float = READ_TIMEOUT, connect: float = CONNECT_TIMEOUT) -> httpx2.Timeout:
    return httpx2.Timeout(read, connect=connect)


class StreamingClient(httpx2.Client):
    """An httpx2 client with fixed timeouts that tracks the streamed responses it opens."""

    def __init__(self, *, read: float = READ_TIMEOUT, connect: float = CONNECT_TIMEOUT) -> None:
        super().__init__(timeout=timeouts(read, connect), headers={"User-Agent": USER_AGENT})
        self._fixed = timeouts(read, connect).as_dict()
        self._local = threading.local()

    def send(self, request: httpx2.Request, **kwargs):  # type: ignore[override]
        # The SDK sets its own (often absent) timeout on the request; ours are the contract.
        request.extensions = {**request.extensions, "timeout": self._fixed}
        response = super().send(request, **kwargs)
        if kwargs.get("stream"):
            self._local.response = response
        return response

    def take_stream(self) -> httpx2.Response | None:
        """The streamed response this thread opened last (forgotten once taken)."""
        response = getattr(self._local, "response", None)
        self._local.response = None
        return response
