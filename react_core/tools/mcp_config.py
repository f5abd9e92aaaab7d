"""Which MCP servers a run may reach, and the rules about who may add them (one place for each rule).

The operator lists servers in ``REACT_MCP_SERVERS`` (the environment, or a top-level entry of the same name in
``.streamlit/secrets.toml``), a JSON object by server name::

    {"git": {"command": "mcp-server-git", "args": ["--repository", "/srv/repo"]},
     "docs": {"url": "https://mcp.example.org/mcp", "headers": {"Authorization": "Bearer …"}, "timeout": 20}}

A stdio server (``command``) exists only there: that list is the allow-list of commands, and nobody using the app
ever types a command. An HTTP server may sign in with OAuth instead of headers (``"oauth": true``: ``mcp_oauth``). A
person may add streamable-HTTP servers of their own (``RunSettings.mcp_servers``: name -> URL, or name -> {"url":
URL, "headers": {name: value}} when they gave it credentials, or {"url": URL, "oauth": true}: ``own_server``); in
public demo and signed-in modes only when the operator sets ``REACT_MCP_VISITOR_HTTP=1``, because the app's server
would connect to that URL from inside the operator's network (``may_add_http``), and with OAuth only when the operator
sets ``REACT_MCP_VISITOR_OAUTH=1`` too (``may_use_oauth``). Tools a server marks as destructive are refused unless
``REACT_MCP_ALLOW_DESTRUCTIVE=1`` (``destructive_allowed``).
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from react_core.base.environment import environment_value
from react_core.base.errors import ConfigError
from react_core.base.tool_specs import ToolSpec

__all__ = [
    "DEFAULT_TIMEOUT",
    "HEADER_NAME",
    "MASK",
    "MAX_HEADERS",
    "MAX_HEADER_CHARS",
    "MAX_TIMEOUT",
    "OWN_FIELDS",
    "SERVERS_VARIABLE",
    "SERVER_NAME",
    "ServerConfig",
    "all_servers",
    "check_headers",
    "check_name",
    "check_url",
    "default_timeout",
    "destructive_allowed",
    "entry_headers",
    "entry_oauth",
    "entry_url",
    "hidden",
    "masked",
    "may_add_http",
    "may_use_oauth",
    "met_secret",
    "missing_servers",
    "operator_servers",
    "own_entry",
    "own_server",
    "persons_servers",
    "server_config",
    "unconfigured",
]

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
    # Signed in with OAuth (``mcp_oauth``): the scope asked for ('' lets the server say), and whose tokens these are
    # ('' for the operator's server, the person's owner id for their own: two people never share a connection).
    oauth: bool = False
    scope: str = ""
    owner: str = ""

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


def server_config(name: str, raw: Mapping[str, Any], *, operators: bool = True, owner: str = "") -> ServerConfig:
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
    oauth, scope = raw.get("oauth", False), raw.get("scope", "")
    if not isinstance(oauth, bool) or not isinstance(scope, str) or (scope and not oauth):
        raise ConfigError(f"{where}: 'oauth' is true or false, and 'scope' (a string) goes with it.")
    if oauth and command:
        raise ConfigError(f"{where}: OAuth signs in to a server by URL, not to a command.")
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
        oauth=oauth,
        scope=" ".join(scope.split()),
        owner="" if operators else owner,
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
    urls: Mapping[str, Any], *, visitor: bool, env: Mapping[str, str] | None = None, owner: str | None = None
) -> list[ServerConfig]:
    """A person's own HTTP servers (name -> URL, or name -> {"url", "headers", "oauth"}), where ``may_add_http`` (and
    for one signed in with OAuth ``may_use_oauth``) allows them; ConfigError when it does not. ``owner``: whose they
    are (default: the person the work on this thread is for)."""
    if not urls:
        return []
    why = may_add_http(visitor=visitor, env=env)
    if why:
        raise ConfigError(why)
    if owner is None:
        from react_core.providers.keys import owner as current

        owner = current()
    servers = [server_config(n, own_entry(n, e), operators=False, owner=owner) for n, e in urls.items()]
    why = may_use_oauth(visitor=visitor, env=env) if any(s.oauth for s in servers) else ""
    if why:
        raise ConfigError(why)
    return servers


# -- a person's own server's credentials ----------------------------------------------------------------------------
# Header names are HTTP tokens (RFC 9110); values one line of printable text. A few, short: credentials, not data.
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$")
MAX_HEADERS = 10
MAX_HEADER_CHARS = 4_096
MASK = "••••"
# Headers the MCP client itself writes; a person's value would break the protocol, not authenticate it.
_CLIENTS_HEADERS = ("host", "content-length", "content-type", "accept", "mcp-session-id", "mcp-protocol-version")


def own_entry(name: str, entry: Any) -> dict[str, Any]:
    """A person's server as ``server_config`` reads it: {"url"} or {"url", "headers"}, checked."""
    where = f"MCP server {name!r}"
    if isinstance(entry, str):
        return {"url": entry}
    if not isinstance(entry, Mapping) or not isinstance(entry.get("url"), str) or set(entry) - set(OWN_FIELDS):
        raise ConfigError(f"{where}: a server of your own is a URL, with optional headers or OAuth.")
    headers = check_headers(_strings(entry.get("headers"), f"{where}: 'headers'"), where)
    if entry.get("oauth") not in (None, True):
        raise ConfigError(f"{where}: 'oauth' is true when the server signs you in with OAuth.")
    kept = {"url": entry["url"], "headers": headers, "oauth": entry.get("oauth")}
    return {k: v for k, v in kept.items() if v}


def check_headers(headers: Mapping[str, str], where: str) -> dict[str, str]:
    """Headers a person gave their server, checked (the value never quoted back in an error)."""
    if len(headers) > MAX_HEADERS:
        raise ConfigError(f"{where}: at most {MAX_HEADERS} headers.")
    for n, (key, text) in enumerate(headers.items(), 1):
        if not HEADER_NAME.match(key):  # not quoted: a token pasted without its name would be
            raise ConfigError(f"{where}: header {n}'s name is not a header name (letters, digits and - only).")
        if key.lower() in _CLIENTS_HEADERS:
            raise ConfigError(f"{where}: the {key} header is the MCP client's own.")
        if not text.strip() or len(text) > MAX_HEADER_CHARS or any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
            raise ConfigError(
                f"{where}: the {key} header's value must be one line of at most {MAX_HEADER_CHARS:,} characters."
            )
    return dict(headers)


# What a person's own server's entry may hold.
OWN_FIELDS = ("url", "headers", "oauth")


def own_server(url: str, headers: Mapping[str, str] | None = None, *, oauth: bool = False) -> Any:
    """A person's server as their settings keep it: the URL alone, or with its headers, or signed in with OAuth."""
    if not headers and not oauth:
        return url
    return {"url": url, **({"headers": dict(headers)} if headers else {}), **({"oauth": True} if oauth else {})}


def entry_oauth(entry: Any) -> bool:
    return isinstance(entry, Mapping) and entry.get("oauth") is True


def entry_url(entry: Any) -> str:
    return entry if isinstance(entry, str) else str((entry or {}).get("url", ""))


def entry_headers(entry: Any) -> dict[str, str]:
    headers = {} if isinstance(entry, str) else (entry or {}).get("headers") or {}
    return dict(headers) if isinstance(headers, Mapping) else {}


# Secrets a server was sent that its configuration does not hold (its OAuth tokens, ``mcp_oauth``), by server.
_MET: dict[tuple[str, str, str], set[str]] = {}
_MET_LOCK = threading.Lock()


def met_secret(config: ServerConfig, secret: str) -> None:
    """``secret`` is sent to ``config``'s server: masked in what it says, like its headers (``hidden``)."""
    with _MET_LOCK:
        _MET.setdefault((config.name, config.url, config.owner), set()).add(secret)


def hidden(config: ServerConfig, text: str) -> str:
    """``text`` without the values of ``config``'s headers and the tokens it was sent (what a server echoes of a token
    never goes further)."""
    from react_core.providers.keys import redact

    with _MET_LOCK:
        met = list(_MET.get((config.name, config.url, config.owner), ()))
    return redact(text, [v for _, v in config.headers] + [v.split(" ", 1)[-1] for _, v in config.headers] + met)


def masked(value: str) -> str:
    """A secret as it is shown back: its last four characters when it is long enough to keep the rest hidden."""
    return MASK + value[-4:] if len(value) >= 16 else MASK


def all_servers(
    urls: Mapping[str, Any] | None = None,
    *,
    visitor: bool = False,
    env: Mapping[str, str] | None = None,
    owner: str | None = None,
) -> list[ServerConfig]:
    """The operator's servers, then the person's (``owner``'s: ``persons_servers``); a person's server cannot take an
    operator's name."""
    ours = operator_servers(env)
    taken = {s.name for s in ours}
    theirs = persons_servers(urls or {}, visitor=visitor, env=env, owner=owner)
    for s in theirs:
        if s.name in taken:
            raise ConfigError(f"MCP server {s.name!r} is the operator's; give yours another name.")
    return ours + theirs


def may_add_http(*, visitor: bool, env: Mapping[str, str] | None = None) -> str:
    """'' when this person may add an HTTP server, else why not. ``visitor``: public demo or signed-in mode (not the
    operator at their own machine)."""
    if not visitor or environment_value("REACT_MCP_VISITOR_HTTP", env) == "1":
        return ""
    return (
        "This deployment does not let visitors add MCP servers (the server would connect to them from inside its "
        "own network); the operator can allow it with REACT_MCP_VISITOR_HTTP=1."
    )


def may_use_oauth(*, visitor: bool, env: Mapping[str, str] | None = None) -> str:
    """'' when this person may sign in to a server of their own with OAuth, else why not. Signing in makes the app's
    server fetch the addresses that server names (its authorization server's metadata, registration and token
    endpoints), beyond the URL the person typed: in visitor modes only where the operator allows it."""
    if not visitor or environment_value("REACT_MCP_VISITOR_OAUTH", env) == "1":
        return ""
    return (
        "This deployment does not let visitors sign in to MCP servers of their own with OAuth (the server would "
        "fetch the addresses that server names); the operator can allow it with REACT_MCP_VISITOR_OAUTH=1."
    )


def destructive_allowed(env: Mapping[str, str] | None = None) -> bool:
    return environment_value("REACT_MCP_ALLOW_DESTRUCTIVE", env) == "1"


def default_timeout(env: Mapping[str, str] | None = None) -> float:
    text = environment_value("REACT_MCP_TIMEOUT", env)
    try:
        seconds = float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        raise ConfigError(f"REACT_MCP_TIMEOUT must be a number of seconds (got {text!r}).") from None
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT:
        raise ConfigError(f"REACT_MCP_TIMEOUT must be above 0 and at most {MAX_TIMEOUT:g} seconds.")
    return seconds


def unconfigured(tools: Iterable[str], servers: Iterable[ServerConfig]) -> list[str]:
    """The enabled MCP tools whose server is not configured here (a server that is down is configured: its tools
    answer with why, and the run goes on)."""
    names = {s.name for s in servers}
    return sorted(t for t in tools if t not in ToolSpec.ORDER and t.split("_", 1)[0] not in names)


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
