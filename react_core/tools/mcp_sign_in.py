"""Signing in to an MCP server with OAuth, as the app and the command line ask for it (``mcp_oauth`` is the flow).

``start_mcp_sign_in`` opens a connection that may ask a person (``McpPool.sign_in``) and gives the page they open;
``finish_mcp_sign_in`` takes what their browser brought back. Who may sign in to which server is decided here: a person
to their own servers (where the operator allows OAuth for them: ``mcp_config.may_use_oauth``), the operator to the
operator's (on the command line, or from Settings in local mode). A visitor never signs in to the operator's server:
their sign-in would then serve everyone's runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from react_core.base.errors import ConfigError
from react_core.tools.mcp_client import POOL
from react_core.tools.mcp_config import ServerConfig, all_servers
from react_core.tools.mcp_oauth import StoredTokens, finish

__all__ = ["START_SECONDS", "finish_mcp_sign_in", "mcp_sign_out", "signing_in", "start_mcp_sign_in"]

# How long a page waits for the sign-in page to be known (discovery and registration take a few requests); it shows
# beside the server once known, if later.
START_SECONDS = 5.0


def signing_in(name: str, urls: Mapping[str, Any] | None, *, visitor: bool, owner: str) -> ServerConfig:
    """The server ``name`` as this person may sign in to it; ConfigError saying why not."""
    found = next((s for s in all_servers(urls or {}, visitor=visitor, owner=owner) if s.name == name), None)
    if found is None or not found.oauth:
        raise ConfigError(f"There is no MCP server {name!r} that signs in with OAuth here.")
    if found.operators and visitor:
        raise ConfigError(
            f"MCP server {name!r} is the operator's: the operator signs in to it (python -m react_core mcp login "
            f"{name}), for everyone's runs."
        )
    return found


def start_mcp_sign_in(
    name: str,
    redirect: str,
    urls: Mapping[str, Any] | None = None,
    *,
    visitor: bool = False,
    owner: str = "",
    wait: float = START_SECONDS,
) -> str:
    """Begin signing in to ``name``: the page the person opens, once known within ``wait`` seconds ('' when it is not
    known yet, or the server took the tokens kept and needs no one: its state says which). Their browser comes back
    to ``redirect`` with a code, for ``finish_mcp_sign_in``. ConfigError when this person may not sign in to it, or
    it failed at once (said why)."""
    config = signing_in(name, urls, visitor=visitor, owner=owner)
    conn = POOL.sign_in(config, redirect, wait)
    if conn.sign_in_url or conn.connecting:
        return conn.sign_in_url
    if conn.error:
        raise ConfigError(f"MCP server {name!r} could not be signed in to: {conn.error}")
    return ""


def finish_mcp_sign_in(state: str, code: str, owner: str | None = "", iss: str | None = None) -> str:
    """'' when the browser's ``code`` went to the sign-in ``state`` names (the server then connects), else why not."""
    return finish(state, code, owner, iss)


def mcp_sign_out(name: str, urls: Mapping[str, Any] | None = None, *, visitor: bool = False, owner: str = "") -> None:
    """Forget the tokens kept for ``name`` (the next connection asks for a sign-in)."""
    config = signing_in(name, urls, visitor=visitor, owner=owner)
    StoredTokens(config).forget()
    POOL.forget(config)
