"""An MCP server's resources: the ``{server}_read_resource`` tool that follows a resource link, and what a read gives.

A tool's result may point to data instead of holding it (a ``resource_link`` content block: a URI). A server that
offers resources (its ``resources`` capability) gets one more tool beside its own, ``{server}_read_resource``, which
takes a URI (a link a tool returned, one the server lists, or one its URI templates describe) and asks the server for
it with ``resources/read``; like Lookup after Search, the model follows a link when it needs what is behind it. It is
read-only by the protocol. What it returns is the observation: each text content, binary content named with its type
and size, capped by the registry like every observation; the record (``McpCall``, method ``resources/read``) keeps the
result as the server sent it, cut like a tool's (``mcp_results``). The message itself is at most 1 MiB
(``mcp_bounds``). A server whose own tools include one named ``read_resource`` keeps its own: no reader is added.
"""

from __future__ import annotations

import base64
import binascii
import time
from functools import partial
from typing import Any

from react_core.base.errors import ToolError
from react_core.base.trace import Observation
from react_core.tools.mcp_client import POOL, McpFailure
from react_core.tools.mcp_config import ServerConfig, hidden
from react_core.tools.mcp_results import call_record, recorded

READ_RESOURCE = "read_resource"
METHOD = "resources/read"
SCHEMA = {
    "type": "object",
    "properties": {"uri": {"type": "string", "minLength": 1, "description": "The resource's URI, as a link gives it."}},
    "required": ["uri"],
}


def offers_resources(conn: Any) -> bool:
    caps = conn.capabilities
    return caps is not None and caps.resources is not None


def about(server: str) -> str:
    return (
        f"Reads a resource of the MCP server {server} by its URI: a resource link one of its tools returned, or a "
        "resource it offers. Returns the resource's text."
    )


def resource_text(result: Any) -> str:
    """The observation of a read: each content's text, binary content named (its type and size)."""
    parts = []
    for item in result.contents or []:
        text = getattr(item, "text", None)
        if text is not None:
            parts.append(text)
            continue
        blob = getattr(item, "blob", "") or ""
        try:
            size = f"{len(base64.b64decode(blob, validate=True)):,} bytes"
        except (binascii.Error, ValueError):
            size = f"{len(blob):,} characters of base64"
        parts.append(f"[binary resource omitted: {item.uri} ({item.mime_type or 'unknown type'}, {size})]")
    return "\n".join(parts) if parts else "(The resource has no content.)"


def read(config: ServerConfig, arguments: Any, text: str) -> Observation:
    """The ``read_resource`` action: ``arguments(text)`` gives ``{"uri": …}`` (checked against ``SCHEMA``)."""
    record = call_record(config, "", METHOD)
    started = time.perf_counter()
    try:
        record.arguments = arguments(text)
        conn = POOL.get(config)
        record.protocol_version = conn.protocol_version
        result = conn.read_resource(record.arguments["uri"])
    except (ToolError, McpFailure) as e:
        record.error, record.seconds = str(e), round(time.perf_counter() - started, 6)
        return Observation(text=str(e), is_error=True, mcp=record)
    record.result = recorded(result, partial(hidden, config))
    record.seconds = round(time.perf_counter() - started, 6)
    return Observation(text=hidden(config, resource_text(result)), mcp=record, evidence=True)


def listing(conn: Any) -> list[dict[str, Any]]:
    """The server's resources and URI templates as ``mcp list`` prints them."""
    items = [
        {"uri": r.uri, "name": r.name, "description": r.description or "", "mime_type": r.mime_type or ""}
        for r in conn.resources
    ]
    items += [
        {"uri": t.uri_template, "name": t.name, "description": t.description or "", "mime_type": t.mime_type or ""}
        for t in conn.templates
    ]
    return items
