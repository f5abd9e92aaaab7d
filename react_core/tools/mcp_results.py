"""What an MCP tool's result becomes: the observation's text (for the model) and the record the trace keeps (for
people: the step panel's MCP call, exports, History).

The observation is the text content joined, other content named, and is capped by the registry like every other. The
record is the result as the server sent it, as JSON, with binary data replaced by its size and everything else cut to
share ``MAX_RECORDED_CHARS``: one long text, thousands of small blocks and a large structured content all end there,
each cut saying so. A message is already at most 1 MiB (``mcp_bounds``); a trace keeps far less of it, for every call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from react_core.base.trace import McpCall
from react_core.tools.mcp_config import ServerConfig
from react_core.tools.registry import MAX_OBSERVATION_CHARS, bounded

# What the trace keeps of one result, in characters of its JSON (about): beyond what the observation shows.
MAX_RECORDED_CHARS = 2 * MAX_OBSERVATION_CHARS
# A text cut where little of the budget is left still shows its start and says how long it was.
_SHORTEST_CUT = 80


def call_record(config: ServerConfig, tool: str, method: str = "tools/call") -> McpCall:
    """A call's record before it is sent: the server, the request, and how the server is reached (the transport, and
    for HTTP its URL without query or credentials); the caller adds the revision its connection agreed."""
    url = config.where if config.url else ""
    return McpCall(server=config.name, tool=tool, method=method, transport=config.transport, url=url)


def content_text(result: Any, reader: str = "") -> str:
    """The observation's text: text content joined, other content named; structured content when there is nothing
    else. A resource link says which tool reads it when the run has one (``reader``)."""
    parts = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} content omitted ({getattr(block, 'mime_type', '') or 'unknown type'})]")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            parts.append(text if text is not None else f"[binary resource omitted: {resource.uri}]")
        elif kind == "resource_link":
            named = f" ({block.name})" if block.name and block.name != block.uri else ""
            parts.append(f"[resource link: {block.uri}{named}{f'; read it with {reader}' if reader else ''}]")
        else:
            parts.append(f"[{kind or 'unknown'} content omitted]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts) if parts else "(The tool returned no content.)"


def recorded(result: Any, hide: Callable[[str], str] = str) -> dict[str, Any]:
    """The result as the trace keeps it: JSON, with binary data replaced by its size, cut to share
    ``MAX_RECORDED_CHARS``, and every text passed through ``hide`` (the server's credentials masked)."""
    data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    for block in data.get("content") or data.get("contents") or []:  # a tool's result, or a resource read
        for holder in (block, block.get("resource") or {}):
            for key in ("data", "blob"):
                if isinstance(holder.get(key), str):
                    holder[key] = f"[{len(holder[key]):,} characters of base64 omitted]"
    return _kept(data, [MAX_RECORDED_CHARS], hide)


def _kept(value: Any, left: list[int], hide: Callable[[str], str]) -> Any:
    """``value`` with its texts cut and its lists and objects shortened so that all of it shares ``left[0]``
    characters of JSON; each cut says what it left out. Read in order: what comes first is kept first."""
    if isinstance(value, str):
        value = hide(value)
        size = len(json.dumps(value, ensure_ascii=False))
        if size > left[0]:  # cut in proportion, so that escaped characters are counted too
            value = bounded(value, max(_SHORTEST_CUT, left[0] * len(value) // size))
            size = len(json.dumps(value, ensure_ascii=False))
        left[0] -= size + 2
        return value
    if isinstance(value, dict | list):
        pairs = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        out: dict[str, Any] | list[Any] = {} if isinstance(value, dict) else []
        for n, (key, item) in enumerate(pairs):
            if left[0] <= 0:
                note = f"[{len(pairs) - n:,} more omitted]"
                if isinstance(out, dict):
                    out["…"] = note
                else:
                    out.append(note)
                break
            if isinstance(out, dict):
                name = _kept(str(key), left, hide)
                out[name] = _kept(item, left, hide)
            else:
                out.append(_kept(item, left, hide))
        return out
    left[0] -= 8  # a number, true, false or null
    return value
