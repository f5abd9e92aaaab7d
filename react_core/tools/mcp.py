"""MCP servers' tools as registered tools: named, described and called like Search, Lookup and Calculator.

Each tool a server lists becomes a ``ToolSpec`` named ``{server}_{tool}``, so it can never shadow a built-in tool, with
the server's description and input JSON Schema, carried by the run's own tool (``Tool.spec``, known only while that run
runs: ``react_core.base.tool_specs.known``): the dialects write the prompt's tool section, the native function
declarations and the on-device grammar from it like any other tool's.

An action's input is one text, read into the call's arguments and held to the tool's whole input schema before the
call (``mcp_arguments``): text that does not fit is an error observation quoting the schema. The result's text
content, joined, is the observation (the registry caps it like every other); other content is named ("[image content
omitted]"), never dropped silently; a result the server marks as an error is an error observation. A server that
cannot be reached or dies, and a call past its deadline, are error observations too, and the run goes on. Every call
is recorded on its observation (``Observation.mcp``).

A tool its server does not declare read-only is destructive here. The MCP schema's ``ToolAnnotations`` say so by
default (``readOnlyHint`` false, ``destructiveHint`` true), and a tool that declares itself merely additive
(``destructiveHint`` false) still writes, sends or creates things: only ``readOnlyHint: true`` makes a tool harmless.
A destructive tool is refused unless the operator allows such tools (``mcp_config.destructive_allowed``); in step mode a
person may approve one call (the ``destructive`` breakpoint, ``Tool.run_approved``), except a visitor's call to one of
the operator's servers, which only the operator can allow (``guard``).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from react_core.base import progress
from react_core.base.errors import ConfigError, ToolError
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import McpCall, Observation
from react_core.tools.mcp_arguments import arguments as arguments  # the one home of a call's arguments
from react_core.tools.mcp_arguments import compact, single
from react_core.tools.mcp_asks import asked, summary
from react_core.tools.mcp_client import POOL, McpFailure
from react_core.tools.mcp_config import ServerConfig, destructive_allowed, hidden
from react_core.tools.mcp_resources import READ_RESOURCE, SCHEMA, about, listing, offers_resources, read
from react_core.tools.mcp_results import call_record, content_text, recorded
from react_core.tools.registry import Tool, bounded

__all__ = [
    "MAX_DESCRIPTION_CHARS",
    "McpTool",
    "NEEDS_TASKS",
    "PAGE_WAIT_SECONDS",
    "ServerStatus",
    "guard",
    "listed",
    "make_tool",
    "mcp_tools",
    "offered",
    "refusal",
    "server_statuses",
    "server_tools",
    "tool_name",
]

MAX_DESCRIPTION_CHARS = 1_500
# How long the Settings page waits for servers being connected to, all together.
PAGE_WAIT_SECONDS = 5.0


def tool_name(server: str, name: str) -> str:
    """The name-spaced, lower-case name a run knows a server's tool by (``git`` + ``git_status``)."""
    return f"{server}_{re.sub(r'[^a-z0-9_]', '_', name.lower())}"


@dataclass(frozen=True)
class McpTool:
    """A listed tool as the app shows it: where it comes from, what it says of itself and what it takes."""

    name: str  # name-spaced
    server: str
    original: str  # its name on the server
    description: str
    schema: dict[str, Any] = field(compare=False, hash=False)
    read_only: bool = False  # declared so by its server (``readOnlyHint: true``)
    reads: bool = False  # the server's resource reader (``mcp_resources``), not one of its tools
    needs_tasks: bool = False  # ``execution.taskSupport: required``: it runs only as a task, which is not supported

    @property
    def destructive(self) -> bool:
        """Not declared read-only (the module's docstring says why that is destructive)."""
        return not self.read_only

    @property
    def single(self) -> str:
        """The one required argument when it is a string ('' when the tool needs a JSON object)."""
        return single(self.schema)

    def spec(self) -> ToolSpec:
        props = self.schema.get("properties") or {}
        single = self.single
        about = " ".join((self.description or "").split())
        if single:
            param_description = " ".join(str((props.get(single) or {}).get("description") or single).split())
            about += f" Input: {single}."
            if len(props) > 1:
                about += f" Or a JSON object of its arguments: {compact(self.schema)}"
            example = single
        else:
            param_description = "A JSON object of the tool's arguments."
            about += f" Input: a JSON object of its arguments: {compact(self.schema)}"
            example = json.dumps({k: _placeholder(props.get(k) or {}) for k in self.schema.get("required") or []})
        if self.destructive:
            about += " (Not read-only: it may change or delete things.)"
        return ToolSpec(
            name=self.name,
            label=self.name,
            param=single or "input",
            example=example,
            description=bounded(about.strip(), MAX_DESCRIPTION_CHARS),
            param_description=param_description,
            schema=self.schema,
            takes_json=not single,
        )


def _placeholder(prop: dict[str, Any]) -> Any:
    return {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}.get(prop.get("type"), "text")


def listed(server: str, tool: Any) -> McpTool:
    """An ``mcp.types.Tool`` from ``server``'s listing."""
    notes = tool.annotations
    schema = dict(tool.input_schema or {"type": "object"})
    return McpTool(
        name=tool_name(server, tool.name),
        server=server,
        original=tool.name,
        description=tool.description or getattr(tool, "title", None) or "",
        schema=schema,
        read_only=bool(notes and notes.read_only_hint is True),
        needs_tasks=getattr(getattr(tool, "execution", None), "task_support", None) == "required",
    )


# Why a tool that runs only as a task is not offered (tasks, a 2025-11-25 feature, are not supported here).
NEEDS_TASKS = "it runs only as an MCP task (taskSupport: required), which ReAct Lab does not support yet"


# How a destructive tool runs here (``guard``): only a call a person approves in step mode, or never.
ASKS, REFUSED = "asks", "refused"


def guard(config: ServerConfig, tool: McpTool, *, visitor: bool) -> str:
    """'' when ``tool`` runs unasked (declared read-only, or the operator allows destructive tools); ``ASKS`` when only
    a call a person approves in step mode runs; ``REFUSED`` when it never runs: a visitor (``visitor``: public demo or
    signed-in mode) may not approve a destructive call on the operator's servers."""
    if not tool.destructive or destructive_allowed():
        return ""
    return REFUSED if visitor and config.operators else ASKS


def refusal(tool: McpTool, how: str) -> str:
    """Why a destructive tool was not run: the error observation the model hears."""
    why = (
        f"{tool.name} is not declared read-only by its MCP server, so it is treated as destructive and was not run: "
        "this deployment does not allow destructive tools (the operator can, with REACT_MCP_ALLOW_DESTRUCTIVE=1)"
    )
    return why + ("; in step mode a person can approve one call." if how == ASKS else ".")


def make_tool(config: ServerConfig, tool: McpTool, reader: str = "") -> Tool:
    """The registered tool that calls ``tool`` on ``config``'s server (reconnecting when the server went away). Built
    under the job's rules: whether this person may approve a destructive call is decided now (``guard``).
    ``reader``: the server's resource reader when this run has it, named beside each resource link."""
    from react_core.providers.keys import visitor

    if tool.reads:
        return Tool(name=tool.name, function=partial(read, config, partial(arguments, tool)), spec=tool.spec())
    how = guard(config, tool, visitor=visitor())

    def call(text: str, approved: bool = False, answer: dict[str, Any] | None = None) -> Observation:
        record = call_record(config, tool.original)
        started = time.perf_counter()
        try:
            record.arguments = arguments(tool, text)
            if tool.destructive and not destructive_allowed() and not (approved and how == ASKS):
                raise ToolError(refusal(tool, how))
            conn = POOL.get(config)
            record.protocol_version = conn.protocol_version
            result = conn.call_tool(tool.original, record.arguments, on_progress=progress.reporter(), answer=answer)
            if getattr(result, "result_type", "") == "input_required":  # the server asks a person first
                record.asks = asked(result)
                record.seconds = round(time.perf_counter() - started, 6)
                return Observation(text=hidden(config, f"The MCP server asks: {summary(record.asks)}"), mcp=record)
        except (ToolError, McpFailure, ConfigError) as e:
            record.error = hidden(config, str(e))
            record.seconds = round(time.perf_counter() - started, 6)
            return Observation(text=record.error, is_error=True, mcp=record)
        # What the server says of the credentials it was sent (its own, but never for a trace) is masked.
        record.result = recorded(result, partial(hidden, config))
        record.seconds = round(time.perf_counter() - started, 6)
        failed = bool(result.is_error)
        text = hidden(config, content_text(result, reader))
        return Observation(text=text, is_error=failed, mcp=record, evidence=not failed)

    approvable = partial(call, approved=True) if how == ASKS else None
    return Tool(
        name=tool.name, function=call, spec=tool.spec(), run_approved=approvable, reports_progress=True, answers=True
    )


def _unavailable(config: ServerConfig, name: str, why: str) -> Tool:
    def call(text: str) -> Observation:
        return Observation(text=why, is_error=True, mcp=McpCall(server=config.name, tool=name, error=why))

    return Tool(name=name, function=call)


def offered(server: str, conn: Any) -> list[McpTool]:
    """The tools a connected server offers: its own as listed, and its resource reader when it offers resources
    (unless a tool of its own has that name: it keeps it)."""
    tools = [listed(server, t) for t in conn.tools]
    reader = tool_name(server, READ_RESOURCE)
    if offers_resources(conn) and all(t.name != reader for t in tools):
        tools.append(McpTool(reader, server, "", about(server), dict(SCHEMA), read_only=True, reads=True))
    return tools


def server_tools(config: ServerConfig) -> list[McpTool]:
    """The server's tools, connecting when needed; McpFailure when it cannot be reached."""
    return offered(config.name, POOL.get(config))


def mcp_tools(enabled: Iterable[str], servers: Iterable[ServerConfig]) -> list[Tool]:
    """The enabled tools of these servers, each with its spec. A server that cannot be reached, or no longer
    offers a tool, gives that tool as one that answers with why, so the run goes on and the model hears it."""
    wanted = set(enabled)
    tools: list[Tool] = []
    for config in servers:
        mine = {n for n in wanted if n.startswith(config.name + "_")}
        if not mine:
            continue
        try:
            offers = {t.name: t for t in server_tools(config)}
        except McpFailure as e:
            tools += [_unavailable(config, n, str(e)) for n in sorted(mine)]
            continue
        reader = next((n for n in mine if n in offers and offers[n].reads), "")
        for name in sorted(mine):
            if name in offers and offers[name].needs_tasks:
                tools.append(_unavailable(config, name, f"{name} is not offered: {NEEDS_TASKS}."))
            elif name in offers:
                tools.append(make_tool(config, offers[name], reader))
            else:
                tools.append(_unavailable(config, name, f"MCP server {config.name!r} no longer offers {name}."))
    return tools


@dataclass
class ServerStatus:
    """A configured server as the Settings page shows it."""

    name: str
    transport: str
    where: str
    operators: bool
    error: str = ""  # '' when connected
    tools: list[McpTool] = field(default_factory=list)
    visitor: bool = False  # shown to a visitor (public demo or signed-in mode)
    connecting: bool = False  # not connected yet, not failed either (``error`` says so)
    protocol_version: str = ""  # the MCP revision negotiated with it
    server_info: str = ""  # its name and version, as it gives them
    resources: list[dict[str, Any]] = field(default_factory=list)  # its resources and URI templates (``listing``)
    oauth: bool = False  # signed in to with OAuth (``mcp_oauth``)
    sign_in_url: str = ""  # the page a person is asked to open to sign in, while it waits for one

    @property
    def speaks(self) -> str:
        """What it runs and which revision it speaks, for people: ``mcp-git 2026.10.19 · MCP 2026-07-28``."""
        revision = f"MCP {self.protocol_version}" if self.protocol_version else ""
        return " · ".join(p for p in (self.server_info, revision) if p)

    @property
    def connected(self) -> bool:
        return not self.error

    def marking(self, tool: McpTool) -> str:
        """How Settings marks ``tool``: read-only, or destructive and how it runs here (``guard``); one that runs
        only as a task, as not offered."""
        if tool.needs_tasks:
            return "not offered: it runs only as an MCP task, not supported here"
        if tool.read_only:
            return "read-only"
        how = guard(ServerConfig(self.name, operators=self.operators), tool, visitor=self.visitor)
        return (
            "destructive: "
            + {
                "": "allowed by the operator",
                ASKS: "refused unless you approve the call in step mode",
                REFUSED: "refused here (the operator has not allowed destructive tools)",
            }[how]
        )


def server_statuses(
    servers: Iterable[ServerConfig], *, visitor: bool = False, wait: float | None = None
) -> list[ServerStatus]:
    """Each server's state (connected, connecting, or failed and why) and its tools, as shown to a ``visitor`` or not.
    The servers are connected to at once, each on its own, and waited for at most ``wait`` seconds in all (None: each
    to its connection's deadline)."""
    servers = list(servers)
    for config in servers:
        POOL.start(config)
    until = None if wait is None else time.monotonic() + wait
    out = []
    for config in servers:
        status = ServerStatus(
            config.name, config.transport, config.where, config.operators, visitor=visitor, oauth=config.oauth
        )
        try:
            conn = POOL.get(config) if until is None else POOL.get(config, max(0.0, until - time.monotonic()))
            status.tools, status.resources = offered(config.name, conn), listing(conn)
            status.protocol_version, status.server_info = conn.protocol_version, conn.server_info
        except McpFailure as e:
            status.error, status.connecting = str(e), POOL.connecting(config)
            status.sign_in_url = POOL.sign_in_url(config)
        out.append(status)
    return out
