"""A person's own MCP servers' headers (their credentials) as remembered settings keep them: sealed with the
operator's ``REACT_CREDENTIALS_KEY`` when it is set, else in plain text like the rest of the person's history.

The headers live with their server's entry in ``RunSettings.mcp_servers`` (``react_core.tools.mcp_config``), and the
history keeps a person's settings in the ``remembered`` table. With a key, each entry's ``headers`` is written as
``sealed_headers``: Fernet (AES-128-CBC with an HMAC-SHA256, from ``cryptography``) under a key derived from the
operator's value, so a copy of the database (a backup, a dump) holds no usable token without the key. An entry sealed
under another key, or read without one, loses its headers and keeps its URL: the server then answers 401 and the
person gives them again. An MCP server's OAuth tokens and client registration (``react_core.tools.mcp_oauth``) are
kept in the same table under a name of their own, sealed whole the same way (``seal_text``).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from react_core.base.environment import environment_value

KEY_VARIABLE = "REACT_CREDENTIALS_KEY"
SERVERS = "mcp_servers"  # the setting whose entries may carry headers
SEALED = "sealed_headers"
SEALED_PREFIX = "sealed:"  # a text sealed whole (an MCP server's OAuth tokens: ``seal_text``)


def _fernet(env: Mapping[str, str] | None = None) -> Any:
    secret = environment_value(KEY_VARIABLE, env)
    if not secret:
        return None
    from cryptography.fernet import Fernet

    # Any long random string will do: a Fernet key is derived from it, under a label of its own.
    digest = hashlib.sha256(b"react-lab mcp credentials\0" + secret.encode("utf-8")).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def seal(settings: Mapping[str, Any], env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``settings`` as the store writes them: every server's headers sealed when there is a key."""
    fernet = _fernet(env)
    servers = settings.get(SERVERS)
    if fernet is None or not isinstance(servers, Mapping):
        return dict(settings)
    sealed = {}
    for name, entry in servers.items():
        if isinstance(entry, Mapping) and entry.get("headers"):
            token = fernet.encrypt(json.dumps(entry["headers"]).encode("utf-8")).decode("ascii")
            entry = {**{k: v for k, v in entry.items() if k != "headers"}, SEALED: token}
        sealed[name] = entry
    return {**settings, SERVERS: sealed}


def unseal(settings: Mapping[str, Any], env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``settings`` as the store read them, with sealed headers opened; headers that cannot be opened (another key,
    or none) are left out, the server's URL kept."""
    servers = settings.get(SERVERS)
    if not isinstance(servers, Mapping):
        return dict(settings)
    fernet = _fernet(env)
    opened = {}
    for name, entry in servers.items():
        if isinstance(entry, Mapping) and SEALED in entry:
            rest = {k: v for k, v in entry.items() if k != SEALED}
            headers = _open(fernet, entry[SEALED])
            entry = {**rest, "headers": headers} if headers else rest.get("url", "")
        opened[name] = entry
    return {**settings, SERVERS: opened}


def seal_text(text: str, env: Mapping[str, str] | None = None) -> str:
    """A secret's text as the store writes it: sealed (``SEALED_PREFIX`` + a Fernet token) when there is a key."""
    fernet = _fernet(env)
    return text if fernet is None else SEALED_PREFIX + fernet.encrypt(text.encode("utf-8")).decode("ascii")


def open_text(text: str, env: Mapping[str, str] | None = None) -> str | None:
    """``seal_text`` undone: the text, or None when it was sealed under another key or read without one."""
    if not text.startswith(SEALED_PREFIX):
        return text
    fernet = _fernet(env)
    if fernet is None:
        return None
    from cryptography.fernet import InvalidToken

    try:
        return fernet.decrypt(text.removeprefix(SEALED_PREFIX).encode("ascii")).decode("utf-8")
    except (InvalidToken, ValueError, UnicodeError):
        return None


def _open(fernet: Any, token: Any) -> dict[str, str]:
    if fernet is None or not isinstance(token, str):
        return {}
    from cryptography.fernet import InvalidToken

    try:
        headers = json.loads(fernet.decrypt(token.encode("ascii")))
    except (InvalidToken, ValueError, UnicodeError):
        return {}
    return headers if isinstance(headers, dict) else {}
