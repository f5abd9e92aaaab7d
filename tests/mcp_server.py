"""A small MCP server of our own, on the official SDK's MCPServer (FastMCP in mcp 1.x), for the client's error cases.

``python tests/mcp_server.py PORT [TOKEN]`` serves streamable HTTP on 127.0.0.1:PORT/mcp; with TOKEN, every request
must carry ``Authorization: Bearer TOKEN`` (else 401), as a person's own server with credentials would.
``python tests/mcp_server.py stdio`` serves the same tools over stdio, as an operator's command.
``MCP_TEST_ECHO_SAYS`` in its environment is added to ``echo``'s description (another person's server, or one that
injects an instruction); ``MCP_TEST_REPLIES=json`` answers each request with one JSON body instead of a stream of
events, ``=gzip`` with one compressed whatever the client asked for, ``=quote`` with a JSON-RPC error that quotes
the request's Authorization header. ``MCP_TEST_ERA=2025-11-25`` makes it a server of the revision before today's:
it does not know ``server/discover`` (method not found), so a client falls back to the ``initialize`` handshake.

Tools: ``echo`` (one text), ``add`` (two integers: a JSON object), ``fail`` (raises: the result is an error),
``slow`` (writes ``marker`` then sleeps, for deadlines and a server killed mid-call), ``picture`` (image content and
a line of text), ``big`` (that many characters of text, or an image of that many bytes, in as many blocks as asked: a
result far larger than any message should be), ``table`` (structured content), ``whoami`` (quotes the request's
Authorization header in its result, or in a JSON-RPC error), each declared read-only; ``wipe`` (annotated
destructive), ``run_command`` (no annotations: destructive by the MCP schema's defaults) and ``append_note``
(declared merely additive, ``destructiveHint: false``); ``where_notes`` answers with a resource link; ``book``
asks the person how many seats (an elicitation: at today's revision its questions come back with the call's result);
``stages`` reports its progress (waiting for a gate file before its last stage, if given); ``long_job`` is listed as
running only as a task (``taskSupport: required``). Resources: ``notes://meeting`` (text), ``notes://picture`` (a
PNG) and ``notes://big/{size}`` (that many characters).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.utilities.types import Image
from mcp.shared.exceptions import MCPError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

# A 1x1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f1f1a10000000049454e44ae426082"
)

server = MCPServer("react-lab-test")


ECHO_SAYS = os.environ.get("MCP_TEST_ECHO_SAYS", "")


@server.tool(description="Returns the text it is given." + ECHO_SAYS, annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    return f"echo: {text}"


READ_ONLY = ToolAnnotations(read_only_hint=True)


@server.tool(description="Adds two integers.", annotations=READ_ONLY)
def add(a: int, b: int) -> str:
    return str(a + b)


@server.tool(description="Always fails.", annotations=READ_ONLY)
def fail(reason: str) -> str:
    raise ValueError(f"it failed on purpose: {reason}")


@server.tool(description="Writes the marker file, then waits.", annotations=READ_ONLY)  # the test's own file
def slow(marker: str, seconds: float = 60.0) -> str:
    Path(marker).write_text("started", encoding="utf-8")
    time.sleep(seconds)
    return "done"


@server.tool(description="Returns a picture and a caption.", annotations=READ_ONLY)
def picture() -> list:
    return [Image(data=PNG, format="png"), "a one-pixel picture"]


@server.tool(description="Returns that many characters of text, or an image of that many bytes.", annotations=READ_ONLY)
def big(size: int, image: bool = False, blocks: int = 1) -> list:
    return [Image(data=b"\0" * size, format="png") if image else "x" * size for _ in range(blocks)]


@server.tool(
    description="Returns a table of that many rows as structured content.",
    annotations=READ_ONLY,
    structured_output=True,
)
def table(rows: int) -> dict[str, list[dict[str, int | str]]]:
    return {"rows": [{"id": n, "name": f"row {n}"} for n in range(rows)]}


@server.tool(
    description="Says which credentials it was called with, in its result or in an error.", annotations=READ_ONLY
)
def whoami(ctx: Context, fail: bool = False) -> str:
    said = f"called with Authorization: {(ctx.headers or {}).get('authorization')}"
    if fail:
        raise MCPError(code=-32001, message=said)  # a JSON-RPC error, not a result
    return said


@server.tool(description="Deletes everything.", annotations=ToolAnnotations(destructive_hint=True))
def wipe(target: str) -> str:
    return f"wiped {target}"


@server.tool(description="Runs a shell command (here: only says it did).")
def run_command(command: str) -> str:
    return f"ran {command}"


@server.tool(description="Appends a note.", annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def append_note(note: str) -> str:
    return f"noted {note}"


# Resources: a text, a picture (binary), and one as large as a caller asks (through its template's URI).
NOTES = "The notes say: the meeting moved to Thursday."


@server.resource("notes://meeting", name="meeting", description="The meeting notes.", mime_type="text/plain")
def meeting() -> str:
    return NOTES


@server.resource("notes://picture", name="picture", mime_type="image/png")
def picture_resource() -> bytes:
    return PNG


@server.resource("notes://big/{size}", name="big", mime_type="text/plain")
def big_resource(size: str) -> str:
    return "y" * int(size)


@server.tool(description="Points to the meeting notes (a resource link) instead of giving them.", annotations=READ_ONLY)
def where_notes() -> list:
    from mcp.types import ResourceLink

    link = ResourceLink(uri="notes://meeting", name="meeting", mime_type="text/plain")
    return ["The notes are in a resource.", link]


class RequireToken:
    """Plain ASGI: an HTTP request without ``Authorization: Bearer TOKEN`` is answered 401 (the token never in it)."""

    def __init__(self, app, token: str) -> None:
        self.app, self.wanted = app, f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != self.wanted:
            from starlette.responses import PlainTextResponse

            await PlainTextResponse("a bearer token is required", status_code=401)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class QuoteCredentials:
    """Plain ASGI: every request answered with a JSON-RPC error quoting its Authorization header, as a server that
    refuses credentials and says which it got."""

    async def __call__(self, scope, receive, send) -> None:
        import json

        from starlette.responses import JSONResponse

        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        got = dict(scope["headers"]).get(b"authorization", b"").decode()
        request_id = (json.loads(body or b"{}") or {}).get("id")
        error = {"code": -32001, "message": f"credentials not accepted: Authorization: {got}"}
        await JSONResponse({"jsonrpc": "2.0", "id": request_id, "error": error})(scope, receive, send)


class ForceGzip:
    """Plain ASGI: every reply compressed, as if the client had asked for it (it asks for none)."""

    def __init__(self, app) -> None:
        from starlette.middleware.gzip import GZipMiddleware

        self.app = GZipMiddleware(app, minimum_size=1)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            kept = [(k, v) for k, v in scope["headers"] if k != b"accept-encoding"]
            scope = {**scope, "headers": [*kept, (b"accept-encoding", b"gzip")]}
        await self.app(scope, receive, send)


@server.tool(description="Works through that many stages, saying how far it has got.", annotations=READ_ONLY)
async def stages(ctx: Context, n: int, gate: str = "") -> str:
    import anyio

    for k in range(1, n + 1):
        if k == n and gate:  # the last stage waits for the test's file: the progress so far can be seen meanwhile
            with anyio.move_on_after(60):
                while not Path(gate).exists():
                    await anyio.sleep(0.05)
        await ctx.report_progress(k, n, f"stage {k}")
    return f"{n} stages done"


class Booking(BaseModel):
    seats: int = Field(ge=1, le=12, description="How many seats")
    name: str = Field(description="The name to book under")


def ask_booking() -> Elicit[Booking]:
    return Elicit("How many seats, and under what name?", Booking)


@server.tool(description="Books a table for a day; asks the person how many seats.", annotations=READ_ONLY)
def book(day: str, booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
    if booking.action != "accept":
        return f"not booked: the person chose to {booking.action}"
    return f"booked {booking.data.seats} seats for {booking.data.name} on {day}"


@server.tool(description="A long job that runs only as a task.", annotations=READ_ONLY)
def long_job(n: int) -> str:
    return f"done {n}"


_listing = server._lowlevel_server._request_handlers["tools/list"]


async def _marking_tasks(ctx, params):
    """The listing, with ``long_job`` declared as running only as a task (MCPServer has no switch for it)."""
    from mcp.types import ToolExecution

    result = await _listing.handler(ctx, params)
    for tool in result.tools:
        if tool.name == "long_job":
            tool.execution = ToolExecution(task_support="required")
    return result


server._lowlevel_server.add_request_handler("tools/list", _listing.params_type, _marking_tasks)


if os.environ.get("MCP_TEST_ERA") == "2025-11-25":

    async def _no_discover(ctx, params):
        from mcp.types import METHOD_NOT_FOUND

        raise MCPError(code=METHOD_NOT_FOUND, message="Method not found: server/discover")

    from mcp.types import RequestParams

    server._lowlevel_server.add_request_handler("server/discover", RequestParams, _no_discover)


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
        sys.exit()
    from served_on import serve

    replies = os.environ.get("MCP_TEST_REPLIES", "")
    app = server.streamable_http_app(host="127.0.0.1", json_response=bool(replies))
    if replies == "quote":
        app = QuoteCredentials()
    if replies == "gzip":
        app = ForceGzip(app)
    if len(sys.argv) > 2:
        app = RequireToken(app, sys.argv[2])
    serve(app, int(sys.argv[1]))
