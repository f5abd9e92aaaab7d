"""The MCP servers one person may use here, as the app and the command line ask about them: the operator's
(``REACT_MCP_SERVERS``) and the person's own (their settings' ``mcp_servers``), their state and tools, the rules
about adding one (``mcp_config``), and signing in to one with OAuth (``mcp_oauth`` is the flow).

Who may sign in to which server is decided here: a person to their own servers (where the operator allows OAuth for
them: ``mcp_config.may_use_oauth``), the operator to the operator's (on the command line, or from Settings in local
mode). A visitor never signs in to the operator's server: their sign-in would then serve everyone's runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from react_core.base.errors import ConfigError
from react_core.base.tool_specs import ToolSpec
from react_core.tools.mcp import PAGE_WAIT_SECONDS, ServerStatus, server_statuses
from react_core.tools.mcp_client import POOL
from react_core.tools.mcp_config import (
    ServerConfig,
    all_servers,
    check_headers,
    entry_headers,
    entry_url,
    masked,
    may_add_http,
    may_use_oauth,
    missing_servers,
    own_entry,
    own_server,
    server_config,
    unconfigured,
)
from react_core.tools.mcp_oauth import StoredTokens, finish

__all__ = ["START_SECONDS", "McpServers", "signing_in"]

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


@dataclass(frozen=True)
class McpServers:
    """The servers ``owner`` may use: the operator's, then their own (``urls``: name -> entry, as their settings keep
    it). ``visitor``: public demo or signed-in mode (not the operator at their own machine)."""

    urls: Mapping[str, Any] = field(default_factory=dict)
    visitor: bool = False
    owner: str = ""

    @staticmethod
    def parse_headers(authorization: str, others: str, where: str = "MCP server") -> dict[str, str]:
        """The headers of a person's form, checked: an Authorization value (a bare token becomes ``Bearer TOKEN``, as
        most servers that ask for a token expect) and other headers, one ``Name: value`` a line."""
        headers: dict[str, str] = {}
        token = authorization.strip()
        if token:
            headers["Authorization"] = token if " " in token else f"Bearer {token}"
        for n, line in enumerate(others.splitlines(), 1):
            if not line.strip():
                continue
            if ":" not in line:
                raise ConfigError(f"{where}: line {n} of the other headers is not 'Name: value'.")
            key, text = line.split(":", 1)  # an HTTP header line (a model choice's colon is read in providers.choice)
            key = key.strip()
            if key.lower() in {k.lower() for k in headers}:
                raise ConfigError(f"{where}: the {key[:64]} header is given twice.")
            headers[key] = text.strip()
        return check_headers(headers, where)

    def statuses(self) -> tuple[list[ServerStatus], str]:
        """Each server with its state and tools, and '' or why the configuration itself could not be read. A page
        waits ``PAGE_WAIT_SECONDS`` at most: a server still connecting then is shown so, and goes on connecting."""
        try:
            servers = all_servers(self.urls, visitor=self.visitor, owner=self.owner)
        except ConfigError as e:
            return [], str(e)
        return server_statuses(servers, visitor=self.visitor, wait=PAGE_WAIT_SECONDS), ""

    def may_add(self) -> str:
        """'' when this person may add an HTTP server of their own, else why not."""
        return may_add_http(visitor=self.visitor)

    def may_use_oauth(self) -> str:
        """'' when this person may sign in to a server of their own with OAuth, else why not."""
        return may_use_oauth(visitor=self.visitor)

    def check(self, name: str, url: str, headers: Mapping[str, str] | None = None, *, oauth: bool = False) -> str:
        """'' when a server of their own (name, URL, headers, OAuth) is well-formed and allowed here, else why not."""
        try:
            server_config(name.strip(), own_entry(name, own_server(url.strip(), headers, oauth=oauth)), operators=False)
        except ConfigError as e:
            return str(e)
        return self.may_use_oauth() if oauth else ""

    def added(
        self, name: str, url: str, headers: Mapping[str, str] | None = None, *, oauth: bool = False
    ) -> dict[str, Any]:
        """Their servers with ``name`` added (or replaced), as their settings keep them (check it first: ``check``)."""
        return {**self.urls, name: own_server(url, headers, oauth=oauth)}

    def with_headers(self, name: str, headers: Mapping[str, str]) -> dict[str, Any]:
        """Their servers with ``name``'s headers replaced by ``headers`` (none: removed)."""
        servers = dict(self.urls)
        if name in servers:
            servers[name] = own_server(entry_url(servers[name]), headers)
        return servers

    def masked_headers(self, name: str) -> list[str]:
        """Their server ``name``'s headers as Settings shows them after saving: ``Authorization: ••••1234``."""
        return [f"{key}: {masked(text)}" for key, text in sorted(entry_headers(self.urls.get(name)).items())]

    def refused(self, tools: Iterable[str]) -> tuple[list[str], str]:
        """When a prompt version brings its tools: the MCP tools it cannot have here, and why ('' when none)."""
        tools = list(tools)
        try:
            servers = all_servers(self.urls, visitor=self.visitor)
        except ConfigError as e:
            lacking = [t for t in tools if t not in ToolSpec.ORDER]
            return lacking, (str(e) if lacking else "")
        return unconfigured(tools, servers), missing_servers(tools, servers)

    def start_sign_in(self, name: str, redirect: str, wait: float = START_SECONDS) -> str:
        """Begin signing in to ``name``: the page the person opens, once known within ``wait`` seconds ('' when it is
        not known yet, or the server took the tokens kept and needs no one: its state says which). Their browser
        comes back to ``redirect`` with a code, for ``finish_sign_in``. ConfigError when this person may not sign in
        to it, or it failed at once (said why)."""
        config = signing_in(name, self.urls, visitor=self.visitor, owner=self.owner)
        conn = POOL.sign_in(config, redirect, wait)
        if conn.sign_in_url or conn.connecting:
            return conn.sign_in_url
        if conn.error:
            raise ConfigError(f"MCP server {name!r} could not be signed in to: {conn.error}")
        return ""

    @staticmethod
    def finish_sign_in(state: str, code: str, owner: str | None = "", iss: str | None = None) -> str:
        """'' when the browser's ``code`` went to the sign-in ``state`` names (the server then connects), else why not.
        ``owner`` None: whoever began it (a public demo's session is the browser tab, and coming back starts
        another)."""
        return finish(state, code, owner, iss)

    def sign_out(self, name: str) -> None:
        """Forget the tokens kept for ``name`` (the next connection asks for a sign-in)."""
        config = signing_in(name, self.urls, visitor=self.visitor, owner=self.owner)
        StoredTokens(config).forget()
        POOL.forget(config)
