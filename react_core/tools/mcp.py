"""MCP servers' tools as registered tools: named, described and called like Search, Lookup and Calculator.

Each tool a server lists becomes a ``ToolSpec`` named ``{server}_{tool}``, so it can never shadow a built-in tool, with
the server's description and input JSON Schema, carried by the run's own tool (``Tool.spec``, known only while that run
runs: ``react_core.base.tool_specs.known``): the dialects write the prompt's tool section, the native function
declarations and the on-device grammar from it like any other tool's.

An action's input is one text. A tool whose only required argument is a string takes the text as that argument, or a
JSON object of its arguments (to set optional ones too); any other tool takes a JSON object, and text that is not one
with the required arguments is an error observation quoting the schema. The result's text content, joined, is the
observation (the registry caps it like every other); other content is named ("[image content omitted]"), never
dropped silently; a result the server marks as an error is an error observation. A server that cannot be reached or
dies, and a call past its deadline, are error observations too, and the run goes on. Every call is recorded on its
observation (``Observation.mcp``).

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

from react_core.base.errors import ConfigError, ToolError
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import McpCall, Observation
from react_core.tools.mcp_client import POOL, McpFailure
from react_core.tools.mcp_config import ServerConfig, all_servers, destructive_allowed, hidden
from react_core.tools.mcp_results import content_text, recorded
from react_core.tools.registry import Tool, bounded

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

    @property
    def destructive(self) -> bool:
        """Not declared read-only (the module's docstring says why that is destructive)."""
        return not self.read_only

    @property
    def single(self) -> str:
        """The one required argument when it is a string ('' when the tool needs a JSON object)."""
        required = self.schema.get("required") or []
        props = self.schema.get("properties") or {}
        if len(required) == 1 and (props.get(required[0]) or {}).get("type") == "string":
            return str(required[0])
        return ""

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


def compact(schema: dict[str, Any]) -> str:
    """The schema's properties and required arguments as one short JSON line (titles left out)."""
    props = {
        k: {n: v for n, v in (p or {}).items() if n != "title"} for k, p in (schema.get("properties") or {}).items()
    }
    shown = {"properties": props, "required": schema.get("required") or []}
    return json.dumps(shown, ensure_ascii=False, separators=(",", ":"))


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
    )


def arguments(tool: McpTool, text: str) -> dict[str, Any]:
    """The call's arguments from the action's one text; ToolError (quoting the schema) when it does not fit."""
    text = text.strip()
    given: Any = None
    if text.startswith("{"):
        try:
            given = json.loads(text)
        except ValueError:
            given = None
    if isinstance(given, dict):
        missing = [k for k in tool.schema.get("required") or [] if k not in given]
        if not missing:
            return given
        if not tool.single:
            raise ToolError(f"{tool.name} needs the arguments {', '.join(missing)}: {compact(tool.schema)}")
    if tool.single:
        return {tool.single: text}
    if not (tool.schema.get("required") or []) and not text.strip("{} "):
        return {}
    raise ToolError(f"{tool.name} takes a JSON object of its arguments: {compact(tool.schema)}")


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


def make_tool(config: ServerConfig, tool: McpTool) -> Tool:
    """The registered tool that calls ``tool`` on ``config``'s server (reconnecting when the server went away). Built
    under the job's rules: whether this person may approve a destructive call is decided now (``guard``)."""
    from react_core.providers.keys import visitor

    how = guard(config, tool, visitor=visitor())

    def call(text: str, approved: bool = False) -> Observation:
        record = McpCall(server=config.name, tool=tool.original, transport=config.transport)
        record.url = config.where if config.url else ""
        started = time.perf_counter()
        try:
            record.arguments = arguments(tool, text)
            if tool.destructive and not destructive_allowed() and not (approved and how == ASKS):
                raise ToolError(refusal(tool, how))
            connection = POOL.get(config)
            record.protocol_version = connection.protocol_version
            result = connection.call_tool(tool.original, record.arguments)
        except (ToolError, McpFailure) as e:
            record.error = str(e)
            record.seconds = round(time.perf_counter() - started, 6)
            return Observation(text=str(e), is_error=True, mcp=record)
        # What the server says of the credentials it was sent (its own, but never for a trace) is masked.
        record.result = recorded(result, partial(hidden, config))
        record.seconds = round(time.perf_counter() - started, 6)
        failed = bool(result.is_error)
        return Observation(text=hidden(config, content_text(result)), is_error=failed, mcp=record, evidence=not failed)

    approvable = partial(call, approved=True) if how == ASKS else None
    return Tool(name=tool.name, function=call, spec=tool.spec(), run_approved=approvable)


def _unavailable(config: ServerConfig, name: str, why: str) -> Tool:
    def call(text: str) -> Observation:
        return Observation(text=why, is_error=True, mcp=McpCall(server=config.name, tool=name, error=why))

    return Tool(name=name, function=call)


def server_tools(config: ServerConfig, wait: float | None = None) -> list[McpTool]:
    """The server's tools, connecting when needed (waiting at most ``wait`` seconds, else the connection's deadline);
    McpFailure when it cannot be reached."""
    conn = POOL.get(config) if wait is None else POOL.get(config, wait)
    return [listed(config.name, t) for t in conn.tools]


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
            offered = {t.name: t for t in server_tools(config)}
        except McpFailure as e:
            tools += [_unavailable(config, n, str(e)) for n in sorted(mine)]
            continue
        for name in sorted(mine):
            if name in offered:
                tools.append(make_tool(config, offered[name]))
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

    @property
    def connected(self) -> bool:
        return not self.error

    def marking(self, tool: McpTool) -> str:
        """How Settings marks ``tool``: read-only, or destructive and how it runs here (``guard``)."""
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
        status = ServerStatus(config.name, config.transport, config.where, config.operators, visitor=visitor)
        try:
            status.tools = server_tools(config, None if until is None else max(0.0, until - time.monotonic()))
        except McpFailure as e:
            status.error, status.connecting = str(e), POOL.connecting(config)
        out.append(status)
    return out


def mcp_statuses(urls: dict[str, Any] | None = None, *, visitor: bool = False) -> tuple[list[ServerStatus], str]:
    """The operator's servers and the person's own (``urls``), each with its state and tools, and '' or why the
    configuration itself could not be read. A page waits ``PAGE_WAIT_SECONDS`` at most: a server still connecting
    then is shown so, and goes on connecting."""
    try:
        servers = all_servers(urls or {}, visitor=visitor)
    except ConfigError as e:
        return [], str(e)
    return server_statuses(servers, visitor=visitor, wait=PAGE_WAIT_SECONDS), ""
