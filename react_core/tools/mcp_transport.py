"""The transports a connection to an MCP server runs over, as the SDK's own client takes them (a
``mcp.client.Transport``): a stdio command, read through ``mcp_bounds``' bounded reader, or streamable HTTP on the SDK's
HTTP client with the server's headers, its OAuth sign-in (``mcp_oauth``) and every reply bounded
(``mcp_bounds.bound_reply``)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TextIO

from react_core.tools.mcp_config import ServerConfig


def stdio_transport(
    config: ServerConfig, stderr: TextIO, on_failure: Callable[[str], None]
) -> contextlib.AbstractAsyncContextManager[Any]:
    """The operator's command, its stderr kept in ``stderr``; ``on_failure`` hears why the connection ends."""
    from mcp import StdioServerParameters

    from react_core.tools.mcp_bounds import bounded_stdio_client

    params = StdioServerParameters(
        command=config.command, args=list(config.args), env=dict(config.env) or None, cwd=config.cwd or None
    )
    return bounded_stdio_client(params, stderr, on_failure)


def http_transport(
    config: ServerConfig, auth: Any, noted: Callable[[Any], Awaitable[None]]
) -> contextlib.AbstractAsyncContextManager[Any]:
    """Streamable HTTP to ``config.url`` with its headers and ``auth`` (the SDK's OAuth provider, or None); ``noted``
    hears every response first (a refusal's status)."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT, create_mcp_http_client

    from react_core.tools.mcp_bounds import bound_reply

    # The SDK's client, its read timeout beyond the call's deadline: today's revision streams each reply on its own
    # request, and a read timing out there ends the whole connection (the deadline ends just the call).
    client = create_mcp_http_client(
        headers={**dict(config.headers), "Accept-Encoding": "identity"},  # a compressed reply is refused
        timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, connect=10.0, read=config.timeout + MCP_DEFAULT_SSE_READ_TIMEOUT),
        auth=auth,
    )
    client.event_hooks = {"response": [noted, bound_reply]}
    return _owning(client, streamable_http_client(config.url, http_client=client))


@contextlib.asynccontextmanager
async def _owning(client: Any, transport: contextlib.AbstractAsyncContextManager[Any]) -> Any:
    """The HTTP transport, with the client we made for it closed after it."""
    async with client, transport as streams:
        yield streams
