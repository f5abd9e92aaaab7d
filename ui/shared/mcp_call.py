"""A step's MCP call, drawn under its observation like its Model call section: the request as the server received it
and the result as the server sent it, recorded on the observation (``Observation.mcp``)."""

from __future__ import annotations

import html
import json
from typing import Any

import streamlit as st

from react_core import md_escape


def _details(summary: str, value: Any, *, open_: bool = False) -> str:
    text = html.escape(json.dumps(value, ensure_ascii=False, indent=2))
    return f"<details{' open' if open_ else ''}><summary>{html.escape(summary)}</summary><pre>{text}</pre></details>"


def request_of(mcp: Any) -> dict[str, Any]:
    """The call as the server received it: a JSON-RPC ``tools/call`` request (or ``resources/read``)."""
    if mcp.method != "tools/call":
        return {"jsonrpc": "2.0", "method": mcp.method, "params": mcp.arguments}
    return {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": mcp.tool, "arguments": mcp.arguments}}


def render_mcp_call(mcp: Any) -> None:
    """The MCP request and result behind an observation."""
    st.markdown("**MCP call**")
    what = f"tool {mcp.tool}" if mcp.method == "tools/call" else mcp.method
    st.caption(md_escape(f"server {mcp.server} · {what} · {mcp.seconds:.2f} s"))
    body = _details("Request as the server received it", request_of(mcp))
    if mcp.result is not None:
        body += _details("Result as the server sent it", mcp.result, open_=True)
    st.html(body)
    if mcp.error:
        st.caption(md_escape(f"No result: {mcp.error}"))
