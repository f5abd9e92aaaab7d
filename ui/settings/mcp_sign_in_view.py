"""Signing in to MCP servers with OAuth on the Settings page: the Sign in button beside a server that needs it, the
link to its authorization page, and the browser's return to this page with a code (``McpServers.finish_sign_in``).
Drawing and verbs only; the flow is the engine's (``react_core.tools.mcp_oauth``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

import streamlit as st

from react_core import McpServers, ReactLabError, md_escape
from ui.shared import identity, state

# What the authorization server adds to the page's address when it sends the browser back.
RETURN_PARAMS = ("code", "state", "iss", "error", "error_description")


def _here() -> str:
    """This page's address without its query: where the browser comes back after signing in."""
    parts = urlsplit(str(st.context.url or ""))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def finish_from_redirect() -> None:
    """The browser came back from an authorization page: its code goes to the sign-in waiting for it (said here), and
    the address loses the code and state (a reload must not send them again)."""
    params = st.query_params
    if "state" not in params or not ("code" in params or "error" in params):
        return
    returned = {k: params.get(k, "") for k in RETURN_PARAMS}
    for key in RETURN_PARAMS:
        params.pop(key, None)
    if not returned["code"]:
        why = returned["error_description"] or returned["error"]
        st.error(md_escape(f"Not signed in: the authorization server said {why[:200]}."))
        return
    # A public demo session is this browser tab: coming back starts another, so the state alone says whose it is.
    owner = None if identity.mode() == identity.DEMO else identity.owner()
    why = McpServers.finish_sign_in(returned["state"], returned["code"], owner, returned["iss"] or None)
    if why:
        st.error(md_escape(why))
    else:
        st.success("Signed in: the server connects with its new tokens.")


def persons_servers() -> McpServers:
    """The MCP servers this person may use, theirs as their settings keep them."""
    return McpServers(state.settings().get("mcp_servers", {}), visitor=identity.own_endpoints(), owner=identity.owner())


def _sign_in(name: str) -> None:
    try:  # the page to open shows beside the server once known (a moment: discovery, registration)
        persons_servers().start_sign_in(name, _here())
    except ReactLabError as e:
        state.flash("error", md_escape(str(e)))


def _sign_out(name: str) -> None:
    try:
        persons_servers().sign_out(name)
    except ReactLabError as e:
        state.flash("error", md_escape(str(e)))


def sign_in_controls(status: Any) -> None:
    """Beside a server that signs in with OAuth: the page to open while it waits for a person, Sign in when it needs
    one, Sign out once connected. A visitor cannot sign in to the operator's server (it would serve everyone)."""
    if not status.oauth or (status.operators and status.visitor):
        return
    if status.sign_in_url:
        st.link_button(f"Open {status.name}'s sign-in page", status.sign_in_url)
        st.caption("Sign in there: the browser comes back here, and the server connects.")
    elif not status.connected and not status.connecting:
        st.button(
            f"Sign in to {status.name}", key=f"set-mcp-sign-in-{status.name}", on_click=_sign_in, args=(status.name,)
        )
    elif status.connected:
        st.button("Sign out", key=f"set-mcp-sign-out-{status.name}", on_click=_sign_out, args=(status.name,))
