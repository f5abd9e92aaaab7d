"""The MCP sections of the app: a step's MCP call (like its Model call section) and the servers on the Settings page.

Drawing only; the engine lists servers and their tools (``react_core.mcp_statuses``) and records each call on its
observation (``Observation.mcp``)."""

from __future__ import annotations

import html
import json
from typing import Any

import streamlit as st

from react_core import TOOL_ORDER, check_mcp_server, may_add_mcp_server, mcp_statuses, md_escape
from ui import identity, state


def _details(summary: str, value: Any, *, open_: bool = False) -> str:
    text = html.escape(json.dumps(value, ensure_ascii=False, indent=2))
    return f"<details{' open' if open_ else ''}><summary>{html.escape(summary)}</summary><pre>{text}</pre></details>"


def request_of(mcp: Any) -> dict[str, Any]:
    """The call as the server received it: a JSON-RPC ``tools/call`` request."""
    return {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": mcp.tool, "arguments": mcp.arguments}}


def render_mcp_call(mcp: Any) -> None:
    """The MCP request and result behind an observation."""
    st.markdown("**MCP call**")
    st.caption(md_escape(f"server {mcp.server} · tool {mcp.tool} · {mcp.seconds:.2f} s"))
    body = _details("Request as the server received it", request_of(mcp))
    if mcp.result is not None:
        body += _details("Result as the server sent it", mcp.result, open_=True)
    st.html(body)
    if mcp.error:
        st.caption(md_escape(f"No result: {mcp.error}"))


def render_servers(statuses: list[Any], enabled: set[str], on_toggle: Any) -> None:
    """Each server with its state, and its tools with their descriptions and input schemas, each a checkbox."""
    for status in statuses:
        where = f"{status.transport} · {status.where}" + ("" if status.operators else " · yours")
        if not status.connected:
            st.markdown(f":red[**{md_escape(status.name)}**] — failed · {md_escape(where)}")
            st.caption(md_escape(status.error))
            continue
        st.markdown(f":green[**{md_escape(status.name)}**] — connected · {md_escape(where)}")
        for tool in status.tools:
            key = f"set-tool-{tool.name}"
            st.session_state.setdefault(key, tool.name in enabled)
            note = " · destructive" if tool.destructive else (" · read-only" if tool.read_only else "")
            st.checkbox(f"{tool.name}{note}", key=key, help=tool.description or None, on_change=on_toggle)
            with st.popover("Input schema", width="content"):
                st.caption(md_escape(tool.description or "(no description)"))
                st.json(tool.schema, expanded=True)


def tools_from_checkboxes(current: list[str]) -> list[str]:
    """The enabled tools the Settings checkboxes say: built-in ones in their order, then MCP tools. An MCP tool whose
    checkbox is not drawn this time (its server is down) stays as it was."""
    checked = {k.removeprefix("set-tool-"): bool(v) for k, v in st.session_state.items() if k.startswith("set-tool-")}
    builtin = [t for t in TOOL_ORDER if checked.get(t)]
    mcp = {t for t in current if t not in TOOL_ORDER and checked.get(t, True)}
    mcp |= {t for t, on in checked.items() if on and t not in TOOL_ORDER}
    return builtin + sorted(mcp)


def _add_server() -> None:
    name, url = st.session_state["set-mcp-name"].strip(), st.session_state["set-mcp-url"].strip()
    why = check_mcp_server(name, url)
    if why:
        state.flash("error", md_escape(why))
        return
    state.change_settings(lambda: {"mcp_servers": {**state.settings().get("mcp_servers", {}), name: url}})
    st.session_state["set-mcp-name"] = st.session_state["set-mcp-url"] = ""


def _remove_server(name: str) -> None:
    def changes() -> dict[str, Any]:
        servers = {k: v for k, v in state.settings().get("mcp_servers", {}).items() if k != name}
        tools = [t for t in state.settings().get("tools", []) if not t.startswith(name + "_")]
        return {"mcp_servers": servers, "tools": tools}

    state.change_settings(changes)


def render_mcp_settings() -> None:
    """The MCP servers section of Settings: the servers with their state and tools, and the person's own servers."""
    s = state.settings()
    visitor = identity.own_endpoints()
    with st.spinner("Connecting to MCP servers…"):
        statuses, problem = mcp_statuses(s.get("mcp_servers", {}), visitor=visitor)
    if problem:
        st.error(md_escape(problem))
    if not statuses and not problem:
        st.caption("No MCP servers configured. The operator lists them in REACT_MCP_SERVERS (see docs/tools.md).")

    def toggled() -> None:
        state.change_settings(lambda: {"tools": tools_from_checkboxes(state.settings().get("tools", []))})

    render_servers(statuses, set(s.get("tools", [])), toggled)
    why_not = may_add_mcp_server(visitor)
    if why_not:
        st.caption(md_escape(why_not))
        return
    for name in s.get("mcp_servers", {}):
        st.button(f"Remove {name}", key=f"set-mcp-remove-{name}", on_click=_remove_server, args=(name,))
    with st.popover("Add a server by URL"):
        st.text_input("Name (letters and digits)", key="set-mcp-name")
        st.text_input("Streamable-HTTP URL", key="set-mcp-url", placeholder="https://example.org/mcp")
        st.button("Add", key="set-mcp-add", on_click=_add_server)
