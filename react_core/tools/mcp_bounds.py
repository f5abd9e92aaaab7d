"""Every message an MCP server sends, bounded to ``MAX_MESSAGE_BYTES`` (1 MiB, what one event of a model's reply may
hold: ``providers.bodies``).

**Stdio** (an operator's command): the SDK's ``stdio_client`` with a reader that never holds more than that of one
line (``bounded_stdio_client``). The SDK's own reader joins each chunk of a line to the line so far, as text, before it
parses it: a server writing a 20 MB image took the process from 68 to 195 MB and 12 s, a 50 MB one to 387 MB and 76 s.
Here a line is gathered as bytes up to the bound; a server that writes a longer one has broken what this client
accepts, so the connection ends with ``MessageTooLarge`` saying so (``on_failure`` hears it first): the call waiting
for it fails at once (an error observation; the run goes on) and the server is started again on its next use. The rest
is the SDK's own code, called as it calls it: starting the command in a session of its own, writing to its stdin, and
the shutdown the MCP spec asks for (close stdin, wait, terminate the process tree).

**Streamable HTTP** (an operator's server, or a person's own): the SDK bounds each event of a stream of events itself
(``max_sse_event_size``, 1 MiB) but reads a reply that is one JSON body whole. ``bound_reply`` (the HTTP client's
response hook, so it holds behind a proxy too) ends such a body past the bound, and refuses a compressed reply (the
client asks for none: a 1 MiB body can inflate to a gigabyte); the SDK turns either into an error for that call.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing, asynccontextmanager
from typing import Any, TextIO

import httpx2

from react_core.providers.bodies import MAX_EVENT_BYTES

log = logging.getLogger(__name__)
MAX_MESSAGE_BYTES = MAX_EVENT_BYTES


class MessageTooLarge(Exception):
    """The server wrote a message longer than this client reads (the connection gives ``on_failure``'s reason)."""


async def lines(stdout: Any, limit: int = MAX_MESSAGE_BYTES) -> AsyncIterator[bytes]:
    """The byte stream's lines (without their ``\\n``), each at most ``limit`` bytes: ``MessageTooLarge`` as soon as
    one is longer, holding no more than ``limit`` bytes of it."""
    line = bytearray()
    async for chunk in stdout:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if len(line) + end - start > limit:
                raise MessageTooLarge(_too_large(limit))
            line += chunk[start:end]
            yield bytes(line)
            line.clear()
            start = end + 1
        if len(line) + len(chunk) - start > limit:
            raise MessageTooLarge(_too_large(limit))
        line += chunk[start:]


def _too_large(limit: int) -> str:
    return (
        f"the server sent a message of more than {limit:,} bytes (a result that large is not read), so the "
        "connection was closed; it is opened again on the next call"
    )


class Refused(httpx2.StreamError):
    """A reply this client does not read (the SDK answers the call with an error that quotes it)."""


class _Bounded(httpx2.AsyncByteStream):
    """A reply's body, ended past ``limit`` bytes (None: a stream of events, which the SDK bounds event by event)."""

    def __init__(self, inner: Any, limit: int | None, refused: str) -> None:
        self._inner, self._limit, self._refused = inner, limit, refused

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._refused:
            raise Refused(self._refused)
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if self._limit is not None and seen > self._limit:
                raise Refused(f"the server sent a reply of more than {self._limit:,} bytes, which is not read")
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


async def bound_reply(response: httpx2.Response) -> None:
    """An HTTP client's response hook: the body of ``response`` (not read yet) bounded as the module says."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    events = response.headers.get("content-type", "").lower().startswith("text/event-stream")
    refused = ""
    if encoding not in ("", "identity"):
        refused = f"the server sent its reply compressed ({encoding[:40]}), which is not read"
    response.stream = _Bounded(response.stream, None if events else MAX_MESSAGE_BYTES, refused)


@asynccontextmanager
async def bounded_stdio_client(
    server: Any, errlog: TextIO, on_failure: Callable[[str], None], limit: int = MAX_MESSAGE_BYTES
) -> AsyncIterator[Any]:
    """``mcp.stdio_client(server, errlog)`` with every message at most ``limit`` bytes (``lines``); ``on_failure``
    hears why the connection ends before the call waiting on it does."""
    import anyio
    import anyio.lowlevel
    from mcp.client import stdio as sdk
    from mcp.shared.message import SessionMessage

    command = await sdk._get_executable_command(server.command)
    process = await sdk._create_platform_compatible_process(
        command=command,
        args=server.args,
        env=sdk.get_default_environment() | (server.env or {}),
        errlog=errlog,
        cwd=server.cwd,
    )
    # As in the SDK: no awaits until the task group is entered, or a cancellation would leak the live process.
    read_stream_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_stream_reader = anyio.create_memory_object_stream[SessionMessage](0)
    shutting_down = False
    writer_done = anyio.Event()

    async def stdout_reader() -> None:
        try:
            async with read_stream_writer, aclosing(lines(process.stdout, limit)) as reading:
                async for line in reading:
                    text = line.decode(server.encoding, server.encoding_error_handler)
                    try:
                        await read_stream_writer.send(sdk._parse_line(text))
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        break  # the session is gone
                # What the server still writes is read and dropped, as the SDK does, so that a full pipe never keeps it
                # from exiting. Not after MessageTooLarge: the rest of that line may never end.
                await sdk._drain_stdout(process)
        except MessageTooLarge as e:
            on_failure(str(e))
            raise
        except anyio.ClosedResourceError:
            pass  # our own shutdown closed stdout under the read
        except (anyio.BrokenResourceError, ConnectionError):
            if not shutting_down:
                log.exception("Reading from the MCP server's stdout failed mid-session")

    async def stdin_writer() -> None:
        try:
            async with write_stream_reader:
                async for session_message in write_stream_reader:
                    json = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    data = (json + "\n").encode(encoding=server.encoding, errors=server.encoding_error_handler)
                    await process.stdin.send(data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_stream_writer.aclose()  # the session sees the connection end instead of waiting forever
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(sdk._WRITER_FLUSH_TIMEOUT):
            await writer_done.wait()
        await sdk._stop_server_process(process)
        await sdk._aclose_all(read_stream, write_stream, read_stream_writer, write_stream_reader)
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            shutting_down = True
            with anyio.CancelScope(shield=True):  # the server process must not outlive a cancelled caller
                await shutdown()
            tg.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()
