"""A connection to one MCP server with the official SDK, usable from the loop's plain threads.

The SDK is async and its transports (``stdio_client``, ``streamable_http_client``) and ``ClientSession`` are context
managers that must be entered and left by one task. So each connection runs its own event loop on a background thread:
one task holds the transport and the session open until ``close``; calls are sent into that loop and waited for with
a deadline. Whatever goes wrong (the command cannot start, the URL does not answer, the server dies, a call outlives
its deadline) is an ``McpFailure`` with one line for the person or the model, never a hang and never another
exception. A connection that failed or whose server died is opened again on its next use (``McpPool.get``).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from react_core.base.paths import APP_NAME
from react_core.tools.mcp_asks import decline_mid_call
from react_core.tools.mcp_calls import pages, tool_call
from react_core.tools.mcp_config import ServerConfig, hidden
from react_core.tools.mcp_oauth import SIGN_IN_SECONDS, StoredTokens, auth_for, needs_sign_in

T = TypeVar("T")
# Starting a server (a stdio command may first install itself) and listing its tools.
CONNECT_SECONDS = 60.0
# Closing: the SDK asks a stdio server to exit, then terminates it.
CLOSE_SECONDS = 10.0
# A server that could not be reached is tried again on use after this long, not at every use before it.
RETRY_SECONDS = 10.0


class McpFailure(Exception):
    """An MCP server could not be reached or did not answer in time; the message says so in one line."""


def describe(error: BaseException) -> str:
    """One line for an exception out of the SDK (task groups wrap the real cause in an ExceptionGroup)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = " ".join(str(error).split())[:300]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class McpConnection:
    """One server: ``open`` connects and lists its tools, ``call`` runs one, ``close`` ends it."""

    def __init__(self, config: ServerConfig, redirect: str = "") -> None:
        self.config = config
        # Where a person's browser comes back after signing in (OAuth): set only for a connection opened to ask one.
        self.redirect = redirect
        self.sign_in_url = ""  # the authorization page a person is asked to open ('' when none is)
        self._asking = threading.Event()  # the sign-in page is known, or the connection settled
        self.tools: list[Any] = []  # mcp.types.Tool, as listed
        self.error = ""  # why the connection failed or ended ('' while it is up)
        self.protocol_version = ""  # as negotiated: "2026-07-28", or "2025-11-25" with a server of the one before
        self.server_info = ""  # the server's name and version, as it gives them ('' when it does not)
        self.capabilities: Any = None  # mcp.types.ServerCapabilities
        self.resources: list[Any] = []  # mcp.types.Resource, as listed (when the server offers resources)
        self.templates: list[Any] = []  # mcp.types.ResourceTemplate
        self._refused = ""  # the HTTP status of a request the server refused (401, 403), for a clear reason
        self._loop: asyncio.AbstractEventLoop | None = None
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._gone: asyncio.Event | None = None  # set in the loop when the session ends, for calls waiting on it
        self._started = threading.Event()
        self._ready = threading.Event()  # connected, or failed
        self._done = threading.Event()
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115 (kept open)

    @property
    def alive(self) -> bool:
        # ``error`` is set as soon as the transport ends the connection, before it has wound down.
        return self._ready.is_set() and not self._done.is_set() and self._session is not None and not self.error

    @property
    def connecting(self) -> bool:
        """Started, and neither connected nor failed yet."""
        return self._started.is_set() and not self._ready.is_set()

    # -- opening and closing --------------------------------------------------------------------------
    def start(self, timeout: float = CONNECT_SECONDS) -> None:
        """Begin to connect and list the tools, in the background; given up after ``timeout`` seconds."""
        self._started.set()
        thread = threading.Thread(target=self._thread, args=(timeout,), name=f"mcp-{self.config.name}", daemon=True)
        thread.start()

    def wait(self, timeout: float | None) -> bool:
        """Whether the connection has settled (connected, or failed) within ``timeout`` seconds."""
        return self._ready.wait(timeout)

    def open(self, timeout: float = CONNECT_SECONDS) -> None:
        """Connect and list the tools; McpFailure when the server cannot be reached in ``timeout`` seconds."""
        self.start(timeout)
        if not self.wait(timeout + CLOSE_SECONDS):  # given up at ``timeout``; this is the bound on winding down
            self.close()
            raise McpFailure(f"MCP server {self.config.name!r} did not answer within {timeout:g} s.")
        self.check()

    def check(self) -> None:
        """McpFailure saying why, when the connection has settled without connecting."""
        if self._session is None or self.error:
            raise McpFailure(f"MCP server {self.config.name!r} could not be reached: {self.error}")

    def _thread(self, timeout: float) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._task = loop.create_task(self._main())
        self._deadline = loop.call_later(timeout, self._give_up, timeout)
        try:
            loop.run_until_complete(self._task)
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _main(self) -> None:
        from mcp import Client
        from mcp.types import Implementation

        self._stop, self._gone = asyncio.Event(), asyncio.Event()
        try:
            if self.config.oauth and not self.redirect and not StoredTokens(self.config).has_tokens():
                self.error = needs_sign_in(self.config)  # no one to ask here, and nothing to send: said at once
                return
            # The SDK's own client negotiates the revision: ``server/discover`` at today's (2026-07-28), else the
            # ``initialize`` handshake of the one before (2025-11-25) with a server that does not know discover.
            client = Client(
                self._transport(),
                mode="auto",
                client_info=Implementation(name=APP_NAME, version=""),
                read_timeout_seconds=self.config.timeout,
                elicitation_callback=decline_mid_call,  # and a person answers today's questions (``mcp_asks``)
            )
            async with client:
                self.protocol_version = client.protocol_version
                info = client.server_info
                self.server_info = f"{info.name} {info.version}".strip() if info is not None else ""
                self.capabilities = client.server_capabilities
                self._refused = ""  # signed in, if it had to: a refusal from now on is news
                self.tools = await pages(client.list_tools, "tools")
                if self.capabilities.resources is not None:
                    self.resources = await pages(client.list_resources, "resources", optional=True)
                    self.templates = await pages(client.list_resource_templates, "resource_templates", optional=True)
                self._session = client
                self._ready.set()
                self._asking.set()
                await self._stop.wait()
        except BaseException as e:  # the thread's end: record why, never raise into nothing
            self.error = self.error or self._why(e)
        finally:
            self._session = None
            self.error = self.error or "the connection was closed"
            self._gone.set()
            self._done.set()
            self._ready.set()
            self._asking.set()

    def _give_up(self, timeout: float) -> None:
        """Still connecting at the deadline: the attempt ends, and says why."""
        if not self._ready.is_set() and self._task is not None:
            self.error = self.error or f"it did not answer within {timeout:g} s"
            self._task.cancel()

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        from react_core.tools.mcp_transport import http_transport, stdio_transport

        if self.config.command:
            return stdio_transport(self.config, self._stderr, self._ending)
        auth = auth_for(self.config, self.redirect, self._asks) if self.config.oauth else None
        return http_transport(self.config, auth, self._noted)

    async def _noted(self, response: Any) -> None:
        # The SDK turns any refused request into "Server returned an error response": keep the status.
        if response.status_code in (401, 403):
            self._refused = f"{response.status_code} {response.reason_phrase}".strip()

    def _asks(self, url: str) -> None:
        """The OAuth flow needs a person: ``url`` is the page they open ('' when this connection cannot ask one)."""
        if not url:
            self.error = self.error or needs_sign_in(self.config)
            return
        self.sign_in_url = url
        self._deadline.cancel()  # a person takes their time: the sign-in has its own bound
        assert self._loop is not None
        self._deadline = self._loop.call_later(SIGN_IN_SECONDS + CONNECT_SECONDS, self._give_up, SIGN_IN_SECONDS)
        self._asking.set()

    def wait_for_person(self, timeout: float) -> None:
        """Wait until the sign-in page is known or the connection settled, at most ``timeout`` seconds."""
        self._asking.wait(timeout)

    def _ending(self, why: str) -> None:
        """The transport is ending the connection, for this reason (the call waiting on it gives it)."""
        self.error = self.error or why

    def _why(self, error: BaseException) -> str:
        """The failure, with the last line the server wrote to its stderr when it is a command."""
        why = self._refusal() or describe(error)
        with contextlib.suppress(OSError, ValueError):
            self._stderr.seek(0)
            lines = [ln.strip() for ln in self._stderr.read()[-4000:].splitlines() if ln.strip()]
            if lines:
                why += f" (the server said: {lines[-1][:200]})"
        return self.hidden(why)

    def _refusal(self) -> str:
        """Why, when the server refused a request for want of credentials ('' otherwise)."""
        if not self._refused:
            return ""
        if self.config.oauth:
            return needs_sign_in(self.config)
        where = (
            "the operator's REACT_MCP_SERVERS entry" if self.config.operators else "your server's headers in Settings"
        )
        return (
            f"the server refused the request (HTTP {self._refused}): it needs credentials, or did not accept the ones "
            f"given ({where})"
        )

    def hidden(self, text: str) -> str:
        """``text`` without the values of this server's headers (an error that echoes a token never carries it)."""
        return hidden(self.config, text)

    def close(self) -> None:
        loop, stop, task = self._loop, self._stop, self._task
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop ended meanwhile
                if self._session is not None and stop is not None:
                    loop.call_soon_threadsafe(stop.set)  # leave the session and transport in order
                elif task is not None:
                    loop.call_soon_threadsafe(task.cancel)  # still connecting: give up
        self._done.wait(CLOSE_SECONDS)
        with contextlib.suppress(OSError):
            self._stderr.close()

    # -- calls ----------------------------------------------------------------------------------------
    def run(self, make: Callable[[Any], Awaitable[T]], timeout: float) -> T:
        """``make(session)`` awaited in the connection's loop; McpFailure when the server is gone or it outlives
        ``timeout`` seconds (the request is then cancelled)."""
        loop, session = self._loop, self._session
        if loop is None or session is None or not self.alive:
            raise McpFailure(f"MCP server {self.config.name!r} is not connected ({self.error or 'closed'}).")

        async def guarded() -> T:
            # The server ending while a call waits fails the call, as a deadline does.
            waiting = asyncio.ensure_future(make(session))
            ended = asyncio.ensure_future(self._ended())
            finished, _ = await asyncio.wait({waiting, ended}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            ended.cancel()
            if waiting in finished:
                return waiting.result()
            waiting.cancel()
            if ended in finished:
                raise McpFailure(f"MCP server {self.config.name!r} stopped during the call: {self.error}")
            raise McpFailure(f"MCP server {self.config.name!r} did not answer within {timeout:g} s.")

        try:
            future = asyncio.run_coroutine_threadsafe(guarded(), loop)
        except RuntimeError:
            raise McpFailure(f"MCP server {self.config.name!r} is not connected.") from None
        try:
            return future.result(timeout + CLOSE_SECONDS)
        except McpFailure:
            raise
        except TimeoutError:
            future.cancel()
            raise McpFailure(f"MCP server {self.config.name!r} did not answer within {timeout:g} s.") from None
        except Exception as e:  # the SDK's own error for a failed request (MCPError, a closed stream, …)
            if self._done.is_set() or self.error:
                raise McpFailure(f"MCP server {self.config.name!r} stopped during the call: {self.error}") from None
            raise McpFailure(
                f"MCP server {self.config.name!r} failed the call: {self._refusal() or self.hidden(describe(e))}"
            ) from None

    async def _ended(self) -> None:
        assert self._gone is not None
        await self._gone.wait()

    def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        timeout: float | None = None,
        on_progress: Any = None,
        answer: dict[str, Any] | None = None,
    ) -> Any:
        """The server's CallToolResult for ``name`` with ``arguments``, or its InputRequiredResult when it asks a
        person first (``answer``: their answer, sent with the call again); ``on_progress`` hears its progress
        (``mcp_calls.tool_call``)."""
        seconds = timeout or self.config.timeout
        return self.run(tool_call(name, arguments, seconds, on_progress, answer, self.hidden), seconds)

    def read_resource(self, uri: str, timeout: float | None = None) -> Any:
        """The server's ReadResourceResult for ``uri``."""
        return self.run(lambda c: c.read_resource(uri), timeout or self.config.timeout)


class McpPool:
    """The process's connections, one per server configuration, opened on first use and again after a failure.

    Each server is connected to on its own thread, and the pool's lock is held only to look up and change its tables,
    never while a server answers: a server that accepts and never answers holds up only those who wait for it, each
    as long as it chooses (a run's tool call up to the connection's deadline; the Settings page a moment)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connections: dict[ServerConfig, McpConnection] = {}
        self.failures: dict[ServerConfig, tuple[float, str]] = {}

    def get(self, config: ServerConfig, wait: float = CONNECT_SECONDS + CLOSE_SECONDS) -> McpConnection:
        """A live connection to ``config``'s server, waiting at most ``wait`` seconds for one being opened; McpFailure
        (remembered for ``RETRY_SECONDS``) when there is none, or one that says it is still connecting."""
        conn = self._connection(config)
        if conn.sign_in_url and conn.connecting:  # a run never waits for a person to sign in
            raise McpFailure(f"MCP server {config.name!r} is waiting for a person to sign in with OAuth.")
        if not conn.wait(wait):
            raise McpFailure(f"MCP server {config.name!r} is still connecting (it has not answered yet).")
        try:
            conn.check()
        except McpFailure as e:
            with self._lock:
                if self._connections.get(config) is conn:
                    del self._connections[config]
                    self.failures[config] = (time.monotonic(), str(e))
            conn.close()
            raise
        with self._lock:
            self.failures.pop(config, None)
        return conn

    def sign_in(self, config: ServerConfig, redirect: str, wait: float) -> McpConnection:
        """A connection to ``config``'s OAuth server opened to ask a person to sign in (the browser comes back to
        ``redirect``), in place of the one there was; returned once its sign-in page is known (``sign_in_url``) or it
        settled (connected with the tokens kept, or failed), at most ``wait`` seconds later."""
        with self._lock:
            stale = self._connections.pop(config, None)
            self.failures.pop(config, None)
            conn = self._connections[config] = McpConnection(config, redirect)
            conn.start()
        if stale is not None:
            stale.close()
        conn.wait_for_person(wait)
        return conn

    def forget(self, config: ServerConfig) -> None:
        """Close ``config``'s connection, if any, and its failure: the next use connects anew."""
        with self._lock:
            conn = self._connections.pop(config, None)
            self.failures.pop(config, None)
        if conn is not None:
            conn.close()

    def sign_in_url(self, config: ServerConfig) -> str:
        """The page a person is asked to open to sign in to ``config``'s server ('' when none)."""
        with self._lock:
            conn = self._connections.get(config)
        return conn.sign_in_url if conn is not None and conn.connecting else ""

    def start(self, config: ServerConfig) -> None:
        """Begin to connect to ``config``'s server unless it is connected, connecting or failed a moment ago."""
        with contextlib.suppress(McpFailure):
            self._connection(config)

    def connecting(self, config: ServerConfig) -> bool:
        with self._lock:
            conn = self._connections.get(config)
        return conn is not None and conn.connecting

    def _connection(self, config: ServerConfig) -> McpConnection:
        """The live connection, the one being opened, or one started now; McpFailure while a recent failure stands
        (a page drawn again does not wait on it again)."""
        with self._lock:
            conn = self._connections.get(config)
            if conn is not None and (conn.alive or conn.connecting):
                return conn
            stale = self._connections.pop(config, None)
            when, why = self.failures.get(config, (0.0, ""))
            if why and time.monotonic() - when < RETRY_SECONDS:
                raise McpFailure(why)
            conn = self._connections[config] = McpConnection(config)
            conn.start()
        if stale is not None:
            stale.close()  # its server died or ended the connection: left to wind down
        return conn

    def close_all(self) -> None:
        with self._lock:
            connections, self._connections = list(self._connections.values()), {}
        for conn in connections:
            conn.close()


POOL = McpPool()
atexit.register(POOL.close_all)
