"""Which MCP servers a run may reach, and the rules about who may add them (one place for each rule).

The operator lists servers in ``REACT_MCP_SERVERS`` (the environment, or a top-level entry of the same name in
``.streamlit/secrets.toml``), a JSON object by server name::

    {"git": {"command": "mcp-server-git", "args": ["--repository", "/srv/repo"]},
     "docs": {"url": "https://mcp.example.org/mcp", "headers": {"Authorization": "Bearer …"}, "timeout": 20}}

A stdio server (``command``) exists only there: that list is the allow-list of commands, and nobody using the app
ever types a command. A person may add streamable-HTTP servers of their own (``RunSettings.mcp_servers``: name ->
URL); in public demo and signed-in modes only when the operator sets ``REACT_MCP_VISITOR_HTTP=1``, because the app's
server would connect to that URL from inside the operator's network (``may_add_http``). Tools a server marks as
destructive are refused unless ``REACT_MCP_ALLOW_DESTRUCTIVE=1`` (``destructive_allowed``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from react_core.base.environment import value
from react_core.base.errors import ConfigError
from react_core.base.tool_specs import TOOL_ORDER

SERVERS_VARIABLE = "REACT_MCP_SERVERS"
DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 600.0
# A server's name prefixes its tools' names (``git`` + ``git_status`` -> ``git_git_status``): lower-case letters and
# digits only, so the first underscore of a tool's name always ends the server's part.
SERVER_NAME = re.compile(r"^[a-z][a-z0-9]{0,19}$")


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server: a stdio ``command`` (the operator's only) or a streamable-HTTP ``url``."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str = ""
    url: str = ""
    # Sent with every HTTP request (a bearer token); never recorded in a trace or shown.
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    timeout: float = DEFAULT_TIMEOUT  # every call's deadline, in seconds
    operators: bool = True  # listed by the operator (else a person added it)

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "streamable-http"

    @property
    def where(self) -> str:
        """For people: the command's name or the URL without credentials or query."""
        if self.command:
            return self.command
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"


def _strings(raw: Any, where: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        raise ConfigError(f"{where} must be an object of strings.")
    return raw


def check_url(url: str, where: str) -> str:
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{where}: an MCP server's URL starts with http:// or https:// (got {url[:80]!r}).")
    return url


def check_name(name: str, where: str) -> str:
    if not isinstance(name, str) or not SERVER_NAME.match(name):
        raise ConfigError(f"{where}: a server's name is 1-20 lower-case letters and digits, starting with a letter.")
    return name


def server_config(name: str, raw: Mapping[str, Any], *, operators: bool = True) -> ServerConfig:
    """One entry of the operator's list (``operators``) or a person's server, checked; ConfigError says what's wrong."""
    where = f"MCP server {name!r}"
    check_name(name, where)
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where} must be an object with a 'command' or a 'url'.")
    command, url = raw.get("command", ""), raw.get("url", "")
    if not isinstance(command, str) or not isinstance(url, str) or bool(command.strip()) == bool(url.strip()):
        raise ConfigError(f"{where} needs exactly one of 'command' (stdio) and 'url' (streamable HTTP).")
    if command and not operators:
        raise ConfigError(f"{where}: only the operator's list may start commands; add a server by its URL.")
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f"{where}: 'args' must be a list of strings.")
    timeout = raw.get("timeout", default_timeout())
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= MAX_TIMEOUT:
        raise ConfigError(f"{where}: 'timeout' must be a number of seconds above 0, at most {MAX_TIMEOUT:g}.")
    cwd = raw.get("cwd", "")
    if not isinstance(cwd, str):
        raise ConfigError(f"{where}: 'cwd' must be a folder's path.")
    return ServerConfig(
        name=name,
        command=command.strip(),
        args=tuple(args),
        env=tuple(sorted(_strings(raw.get("env"), f"{where}: 'env'").items())),
        cwd=cwd,
        url=check_url(url, where) if url else "",
        headers=tuple(sorted(_strings(raw.get("headers"), f"{where}: 'headers'").items())),
        timeout=float(timeout),
        operators=operators,
    )


def operator_servers(env: Mapping[str, str] | None = None) -> list[ServerConfig]:
    """The operator's servers (``REACT_MCP_SERVERS`` in the environment, else in the secrets files)."""
    from react_core.providers.keys import lookup

    text = lookup([SERVERS_VARIABLE], env=env)
    if not text:
        return []
    try:
        raw = json.loads(text)
    except ValueError as e:
        raise ConfigError(f"{SERVERS_VARIABLE} is not valid JSON: {e}.") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{SERVERS_VARIABLE} must be a JSON object of servers by name.")
    return [server_config(name, spec) for name, spec in raw.items()]


def persons_servers(
    urls: Mapping[str, str], *, visitor: bool, env: Mapping[str, str] | None = None
) -> list[ServerConfig]:
    """A person's own HTTP servers (name -> URL), where ``may_add_http`` allows them; ConfigError when it does not."""
    if not urls:
        return []
    why = may_add_http(visitor=visitor, env=env)
    if why:
        raise ConfigError(why)
    return [server_config(name, {"url": url}, operators=False) for name, url in urls.items()]


def all_servers(
    urls: Mapping[str, str] | None = None, *, visitor: bool = False, env: Mapping[str, str] | None = None
) -> list[ServerConfig]:
    """The operator's servers, then the person's; a person's server cannot take an operator's name."""
    ours = operator_servers(env)
    taken = {s.name for s in ours}
    theirs = persons_servers(urls or {}, visitor=visitor, env=env)
    for s in theirs:
        if s.name in taken:
            raise ConfigError(f"MCP server {s.name!r} is the operator's; give yours another name.")
    return ours + theirs


def may_add_http(*, visitor: bool, env: Mapping[str, str] | None = None) -> str:
    """'' when this person may add an HTTP server, else why not. ``visitor``: public demo or signed-in mode (not the
    operator at their own machine)."""
    if not visitor or value("REACT_MCP_VISITOR_HTTP", env) == "1":
        return ""
    return (
        "This deployment does not let visitors add MCP servers (the server would connect to them from inside its "
        "own network); the operator can allow it with REACT_MCP_VISITOR_HTTP=1."
    )


def destructive_allowed(env: Mapping[str, str] | None = None) -> bool:
    return value("REACT_MCP_ALLOW_DESTRUCTIVE", env) == "1"


def default_timeout(env: Mapping[str, str] | None = None) -> float:
    text = value("REACT_MCP_TIMEOUT", env)
    try:
        seconds = float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        raise ConfigError(f"REACT_MCP_TIMEOUT must be a number of seconds (got {text!r}).") from None
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT:
        raise ConfigError(f"REACT_MCP_TIMEOUT must be above 0 and at most {MAX_TIMEOUT:g} seconds.")
    return seconds


def may_add_mcp_server(visitor: bool) -> str:
    """``may_add_http`` for the app: '' when this person may add an HTTP server, else why not."""
    return may_add_http(visitor=visitor)


def check_mcp_server(name: str, url: str) -> str:
    """'' when a person's server (name, URL) is well-formed, else why not."""
    try:
        server_config(name.strip(), {"url": url.strip()}, operators=False)
    except ConfigError as e:
        return str(e)
    return ""


def unconfigured(tools: Iterable[str], servers: Iterable[ServerConfig]) -> list[str]:
    """The enabled MCP tools whose server is not configured here (a server that is down is configured: its tools
    answer with why, and the run goes on)."""
    names = {s.name for s in servers}
    return sorted(t for t in tools if t not in TOOL_ORDER and t.split("_", 1)[0] not in names)


def missing_servers(tools: Iterable[str], servers: Iterable[ServerConfig]) -> str:
    """'' when every enabled MCP tool's server is configured, else one line naming the tools this configuration
    cannot run (a prompt version or preset kept them, or the command line asked for them)."""
    lacking = unconfigured(tools, servers)
    if not lacking:
        return ""
    wanted = sorted({t.split("_", 1)[0] for t in lacking})
    return (
        f"The MCP tool{'s' if len(lacking) > 1 else ''} {', '.join(lacking)} cannot be used: no MCP server named "
        f"{', '.join(repr(w) for w in wanted)} is configured here (the operator lists servers in {SERVERS_VARIABLE}; "
        "in Settings you can add one by URL, or turn the tool off)."
    )


def refused_tools(tools: Iterable[str], urls: Mapping[str, str] | None = None, *, visitor: bool) -> tuple[list, str]:
    """For the app, when a prompt version brings its tools: the MCP tools it cannot have here, and why ('' when
    none)."""
    tools = list(tools)
    try:
        servers = all_servers(urls or {}, visitor=visitor)
    except ConfigError as e:
        lacking = [t for t in tools if t not in TOOL_ORDER]
        return lacking, (str(e) if lacking else "")
    return unconfigured(tools, servers), missing_servers(tools, servers)
