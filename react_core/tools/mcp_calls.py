"""The requests a connection sends for a run, as coroutines its event loop awaits (``McpConnection.run``): a page by
page listing, and a tool call that may come back with a server's questions for a person (``mcp_asks``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any


async def pages(fetch: Callable[..., Awaitable[Any]], field: str, *, optional: bool = False) -> list[Any]:
    """Every page of a listing (``field`` of each); with ``optional``, a server that fails it lists nothing."""
    from mcp.shared.exceptions import MCPError

    items, cursor = [], None
    try:
        for _ in range(100):  # a server that pages forever is not waited for
            listed = await fetch(cursor=cursor)
            items += getattr(listed, field)
            cursor = listed.next_cursor
            if not cursor:
                break
    except MCPError:
        if not optional:
            raise
    return items


def tool_call(
    name: str,
    arguments: dict[str, Any],
    seconds: float,
    on_progress: Callable[[float, float | None, str], None] | None,
    answer: dict[str, Any] | None,
    hidden: Callable[[str], str],
) -> Callable[[Any], Awaitable[Any]]:
    """``tools/call`` on a ``mcp.Client``: its CallToolResult, or its InputRequiredResult (the questions are the
    person's, not answered by the SDK on the spot); ``answer`` (``mcp_asks.answered``) goes with the call sent again.
    ``on_progress(progress, total, message)`` hears its progress notifications (the message masked by ``hidden``)."""

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        assert on_progress is not None
        on_progress(progress, total, hidden(message or ""))

    async def call(client: Any) -> Any:
        from mcp.shared.exceptions import MCPError
        from mcp.types import HEADER_MISMATCH

        from react_core.tools.mcp_asks import input_responses

        def send() -> Awaitable[Any]:
            return client.session.call_tool(
                name,
                arguments,
                read_timeout_seconds=seconds,
                progress_callback=heard if on_progress is not None else None,
                input_responses=input_responses(answer) if answer else None,
                request_state=(answer or {}).get("state"),
                allow_input_required=True,
            )

        try:
            return await send()
        except MCPError as e:  # as the SDK's Client.call_tool: a stale listing is fetched again, and sent once more
            if e.code != HEADER_MISMATCH:
                raise
            await client.list_tools(cache_mode="refresh")
            return await send()

    return call
