"""The MCP servers on the Settings page (a step's MCP call is drawn by ``ui.shared.mcp_call``).

Drawing only; the engine lists servers and their tools (``react_core.McpServers``) and records each call on its
observation (``Observation.mcp``)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from react_core import (
    McpServers,
    ReactLabError,
    ToolSpec,
    md_escape,
)
from ui.settings.mcp_sign_in_view import finish_from_redirect, persons_servers, sign_in_controls
from ui.shared import state


def render_servers(statuses: list[Any], enabled: set[str], on_toggle: Any) -> None:
    """Each server with its state, and its tools with their descriptions and input schemas, each a checkbox."""
    for status in statuses:
        where = f"{status.transport} · {status.where}" + ("" if status.operators else " · yours")
        if status.connecting:
            st.markdown(f":orange[**{md_escape(status.name)}**] — connecting · {md_escape(where)}")
            if not status.sign_in_url:
                st.caption("It has not answered yet and goes on connecting: its tools show here once it has.")
            sign_in_controls(status)
            st.button("Check again", key=f"set-mcp-again-{status.name}")  # a rerun draws the list again
            continue
        if not status.connected:
            st.markdown(f":red[**{md_escape(status.name)}**] — failed · {md_escape(where)}")
            st.caption(md_escape(status.error))
            sign_in_controls(status)
            continue
        st.markdown(f":green[**{md_escape(status.name)}**] — connected · {md_escape(where)}")
        st.caption(md_escape(status.speaks))
        sign_in_controls(status)
        if status.resources:
            with st.popover(f"Resources ({len(status.resources)})", width="content"):
                st.caption(md_escape(f"Read by URI with {status.name}_read_resource, when it is ticked."))
                for item in status.resources:
                    st.caption(md_escape(f"{item['uri']} — {item['name']}: {item['description']}".rstrip(": ")))
        for tool in status.tools:
            key = f"set-tool-{tool.name}"
            st.session_state.setdefault(key, tool.name in enabled)
            st.checkbox(
                f"{tool.name} · {status.marking(tool)}",
                key=key,
                help=tool.description or None,
                on_change=on_toggle,
                disabled=tool.needs_tasks and not st.session_state[key],  # offered only to be turned off
            )
            with st.popover("Input schema", width="content"):
                st.caption(md_escape(tool.description or "(no description)"))
                st.json(tool.schema, expanded=True)


def tools_from_checkboxes(current: list[str]) -> list[str]:
    """The enabled tools the Settings checkboxes say: built-in ones in their order, then MCP tools. An MCP tool whose
    checkbox is not drawn this time (its server is down) stays as it was."""
    checked = {k.removeprefix("set-tool-"): bool(v) for k, v in st.session_state.items() if k.startswith("set-tool-")}
    builtin = [t for t in ToolSpec.ORDER if checked.get(t)]
    mcp = {t for t in current if t not in ToolSpec.ORDER and checked.get(t, True)}
    mcp |= {t for t, on in checked.items() if on and t not in ToolSpec.ORDER}
    return builtin + sorted(mcp)


def _headers_from(prefix: str, name: str) -> dict[str, str] | None:
    """The headers a form gives (its Authorization field and other headers' lines), or None after saying why not."""
    try:
        return McpServers.parse_headers(
            st.session_state.get(f"{prefix}-auth", ""), st.session_state.get(f"{prefix}-headers", ""), f"{name!r}"
        )
    except ReactLabError as e:
        state.flash("error", md_escape(str(e)))
        return None


def _clear(prefix: str, *fields: str) -> None:
    for field in fields:
        st.session_state[f"{prefix}-{field}"] = ""


def _add_server() -> None:
    name, url = st.session_state["set-mcp-name"].strip(), st.session_state["set-mcp-url"].strip()
    headers = _headers_from("set-mcp", name)
    if headers is None:
        return
    oauth = bool(st.session_state.get("set-mcp-oauth"))
    why = persons_servers().check(name, url, headers, oauth=oauth)
    if why:
        state.flash("error", md_escape(why))
        return
    state.change_settings(lambda: {"mcp_servers": persons_servers().added(name, url, headers, oauth=oauth)})
    _clear("set-mcp", "name", "url", "auth", "headers")  # a secret typed once is not kept in a widget
    st.session_state["set-mcp-oauth"] = False


def _set_headers(name: str, keep: bool) -> None:
    """Replace a server's headers with the form's (``keep``), or remove them."""
    prefix = f"set-mcp-cred-{name}"
    headers = _headers_from(prefix, name) if keep else {}
    if headers is None:
        return

    state.change_settings(lambda: {"mcp_servers": persons_servers().with_headers(name, headers)})
    _clear(prefix, "auth", "headers")


def _remove_server(name: str) -> None:
    def changes() -> dict[str, Any]:
        servers = {k: v for k, v in state.settings().get("mcp_servers", {}).items() if k != name}
        tools = [t for t in state.settings().get("tools", []) if not t.startswith(name + "_")]
        return {"mcp_servers": servers, "tools": tools}

    state.change_settings(changes)


def _header_fields(prefix: str) -> None:
    st.text_input(
        "Authorization (optional)",
        key=f"{prefix}-auth",
        type="password",
        placeholder="Bearer … (a bare token is sent as Bearer)",
        help="Sent with every request to this server only; shown back masked; never in a trace or an export.",
    )
    st.text_area("Other headers (optional), one 'Name: value' a line", key=f"{prefix}-headers", height=68)


def _own_servers(servers: McpServers) -> None:
    """Each of the person's servers: its headers masked, and buttons to replace or remove them, or the server."""
    for name in servers.urls:
        shown = servers.masked_headers(name)
        st.caption(md_escape(f"{name} · {' · '.join(shown) if shown else 'no headers'}"))
        cols = st.columns(3)
        cols[0].button(f"Remove {name}", key=f"set-mcp-remove-{name}", on_click=_remove_server, args=(name,))
        with cols[1].popover(f"{'Replace' if shown else 'Add'} headers"):
            _header_fields(f"set-mcp-cred-{name}")
            st.button("Save headers", key=f"set-mcp-cred-{name}-save", on_click=_set_headers, args=(name, True))
        if shown:
            cols[2].button(
                "Remove headers", key=f"set-mcp-cred-{name}-remove", on_click=_set_headers, args=(name, False)
            )


def render_mcp_settings() -> None:
    """The MCP servers section of Settings: the servers with their state and tools, and the person's own servers."""
    s = state.settings()
    servers = persons_servers()
    finish_from_redirect()  # back from a server's sign-in page
    with st.spinner("Connecting to MCP servers…"):
        statuses, problem = servers.statuses()
    if problem:
        st.error(md_escape(problem))
    if not statuses and not problem:
        st.caption("No MCP servers configured. The operator lists them in REACT_MCP_SERVERS (see docs/tools.md).")

    def toggled() -> None:
        state.change_settings(lambda: {"tools": tools_from_checkboxes(state.settings().get("tools", []))})

    render_servers(statuses, set(s.get("tools", [])), toggled)
    why_not = servers.may_add()
    if why_not:
        st.caption(md_escape(why_not))
        return
    _own_servers(servers)
    with st.popover("Add a server by URL"):
        st.text_input("Name (letters and digits)", key="set-mcp-name")
        st.text_input("Streamable-HTTP URL", key="set-mcp-url", placeholder="https://example.org/mcp")
        _header_fields("set-mcp")
        if not servers.may_use_oauth():
            st.checkbox(
                "Sign in with OAuth",
                key="set-mcp-oauth",
                help="The server signs you in on its own page (Sign in beside it, once added); its tokens are kept "
                "for you alone, sealed like headers, never in a trace.",
            )
        st.button("Add", key="set-mcp-add", on_click=_add_server)
