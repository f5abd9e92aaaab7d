"""Signing in to an HTTP MCP server with OAuth, with the SDK's own client (``mcp.client.auth.OAuthClientProvider``):
the server answers 401, the SDK discovers its authorization server (RFC 9728 protected resource metadata, RFC 8414
metadata), registers ReAct Lab as a client (RFC 7591) when it has no registration yet, sends the person to the
authorization page with PKCE (S256) and a state, exchanges the code for tokens, and refreshes them when they expire.
Nothing of the flow is rewritten here; this module gives the SDK its storage and the person's side of the redirect.

**Whose server, who signs in.** An operator's server (``"oauth": true`` in ``REACT_MCP_SERVERS``) is signed in to by
the operator, once, with ``python -m react_core mcp login NAME`` (or from Settings in local mode), and its tokens serve
every run in every mode, like the operator's static headers. A person's own server (``{"url": …, "oauth": true}``)
is signed in to by that person from Settings, where the operator allows it (``mcp_config.may_use_oauth``); its tokens
are theirs alone (``ServerConfig.owner``). A run never waits for a person to sign in: a server with no tokens, or
whose tokens the server no longer takes and cannot be refreshed, fails with one line saying who signs in and where.

**Signing in** (``SignIn``): a connection opened for it (``McpPool.sign_in``, with the redirect address the person's
browser comes back to) waits for the person, at most ``SIGN_IN_SECONDS``; the SDK's authorization URL is shown as a
link; the authorization server sends the browser back with a code and the state, and whoever receives them (the
Settings page, or ``mcp login``'s listener on 127.0.0.1) hands them to ``finish``, which checks that the state is a
sign-in this owner started. The SDK then checks the state against its own and the issuer (RFC 9207).

**Tokens** (``StoredTokens``) are kept like a person's headers: in the history database's ``remembered`` table, under
the owner ('' for the operator's) and a name of their own (``mcp_oauth:operator:docs``), sealed with
``REACT_CREDENTIALS_KEY`` when it is set (``history.sealed``), never in settings, a trace, an export or a log; a text
in which the server quotes a token back is masked like its headers (``mcp_config.hidden``). A token kept for another
URL is not sent: the entry is for the URL it was issued for.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from react_core.base.errors import ReactLabError
from react_core.tools.mcp_config import ServerConfig, met_secret

log = logging.getLogger(__name__)
# How long a connection waits for a person to sign in.
SIGN_IN_SECONDS = 600.0
CLIENT_NAME = "ReAct Lab"
# Where a registration with no redirect of ours points (a connection that cannot ask a person never redirects).
NO_REDIRECT = "http://127.0.0.1/no-sign-in-here"


class SignInNeeded(Exception):
    """The server needs a person to sign in, and this connection cannot ask one."""


def needs_sign_in(config: ServerConfig) -> str:
    """Who signs in to ``config``'s server, and where."""
    if config.operators:
        return (
            f"it needs the operator to sign in with OAuth: python -m react_core mcp login {config.name} (or Sign in "
            "beside it in Settings, in local mode)"
        )
    return "it needs you to sign in with OAuth: Sign in beside it in Settings"


# -- the person's side of the redirect --------------------------------------------------------------------------


@dataclass
class SignIn:
    """A sign-in waiting for a person: the page to open, and the code the browser brings back."""

    server: str
    owner: str
    url: str  # the authorization page, as the SDK built it
    state: str
    loop: asyncio.AbstractEventLoop = field(repr=False)
    code: asyncio.Future[Any] = field(repr=False)


_lock = threading.Lock()
_pending: dict[str, SignIn] = {}  # by state


def pending(config: ServerConfig) -> SignIn | None:
    """The sign-in ``config``'s server waits for, if any."""
    with _lock:
        return next((s for s in _pending.values() if (s.server, s.owner) == (config.name, config.owner)), None)


def finish(state: str, code: str, owner: str | None, iss: str | None = None) -> str:
    """The browser came back from the authorization page with ``code`` for the sign-in ``state`` names: handed to the
    connection waiting for it. '' when it was, else why not (no such sign-in for this owner: it ended, or it is
    someone else's). ``owner`` None: whoever holds the state (an unguessable secret only the page that started the
    sign-in showed) finishes it, for a public demo session, which a browser coming back starts anew."""
    from mcp.shared.auth import AuthorizationCodeResult

    with _lock:
        found = _pending.get(state)
        if found is None or (owner is not None and found.owner != owner):
            return "This sign-in is not one waiting here (it ended, or it was started elsewhere): sign in again."
        del _pending[state]
    result = AuthorizationCodeResult(code=code, state=state, iss=iss)
    found.loop.call_soon_threadsafe(lambda: found.code.done() or found.code.set_result(result))
    return ""


def _handlers(config: ServerConfig, on_wait: Any) -> tuple[Any, Any]:
    """The SDK's redirect and callback handlers for a connection that asks a person."""
    waiting: list[SignIn] = []

    async def redirect(url: str) -> None:
        state = (parse_qs(urlsplit(url).query).get("state") or [""])[0]
        loop = asyncio.get_running_loop()
        sign_in = SignIn(config.name, config.owner, url, state, loop, loop.create_future())
        with _lock:
            _pending[state] = sign_in
        waiting.append(sign_in)
        on_wait(url)

    async def callback() -> Any:
        sign_in = waiting[-1]
        try:
            return await asyncio.wait_for(sign_in.code, SIGN_IN_SECONDS)
        except TimeoutError:
            raise SignInNeeded(f"no one signed in within {SIGN_IN_SECONDS / 60:g} minutes") from None
        finally:
            with _lock:
                _pending.pop(sign_in.state, None)

    return redirect, callback


async def _cannot_ask(config: ServerConfig, on_wait: Any) -> Any:
    on_wait("")
    raise SignInNeeded(needs_sign_in(config))


# -- tokens --------------------------------------------------------------------------------------------------------


class StoredTokens:
    """The SDK's ``TokenStorage`` for one server: its tokens and client registration in the history database."""

    def __init__(self, config: ServerConfig, redirect: str = "") -> None:
        self.config, self.redirect = config, redirect
        self.name = f"mcp_oauth:{'operator' if config.operators else 'own'}:{config.name}"
        self.expires_at: float | None = None  # when the access token expires, as kept

    def _load(self) -> dict[str, Any]:
        from react_core.history import open_history
        from react_core.history.sealed import open_text

        try:
            text = open_text(open_history(self.config.owner).remembered(self.name))
            data = json.loads(text) if text else {}
        except (ReactLabError, ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) and data.get("url") == self.config.url else {}

    def _save(self, **changes: Any) -> None:
        from react_core.history import open_history
        from react_core.history.sealed import seal_text

        data = {**self._load(), "url": self.config.url, **changes}
        try:
            open_history(self.config.owner).remember(self.name, seal_text(json.dumps(data)))
        except ReactLabError as e:  # kept for this connection only: the person signs in again after a restart
            log.warning("MCP server %r: its OAuth tokens could not be kept: %s", self.config.name, e)

    def has_tokens(self) -> bool:
        return bool((self._load().get("tokens") or {}).get("access_token"))

    def registered_redirect(self) -> str:
        client = self._load().get("client") or {}
        return str((client.get("redirect_uris") or [""])[0])

    def forget(self) -> None:
        from react_core.history import open_history

        open_history(self.config.owner).remember(self.name, "")

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        data = self._load()
        if not data.get("tokens"):
            return None
        token = OAuthToken.model_validate(data["tokens"])
        self.expires_at = data.get("expires_at")
        _met(self.config, token)
        return token

    async def set_tokens(self, tokens: Any) -> None:
        _met(self.config, tokens)
        expires = None if tokens.expires_in is None else time.time() + int(tokens.expires_in)
        self._save(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        client = self._load().get("client")
        if not client:
            return None
        info = OAuthClientInformationFull.model_validate(client)
        # A registration for another redirect (the command line's, the app's) is not this one: register anew.
        if self.redirect and self.redirect not in [str(u) for u in info.redirect_uris or []]:
            return None
        return info

    async def set_client_info(self, client_info: Any) -> None:
        if client_info.client_secret:
            met_secret(self.config, client_info.client_secret)
        self._save(client=client_info.model_dump(mode="json", exclude_none=True))


def _met(config: ServerConfig, tokens: Any) -> None:
    for secret in (tokens.access_token, tokens.refresh_token):
        if secret:
            met_secret(config, secret)


def auth_for(config: ServerConfig, redirect: str = "", on_wait: Any = None) -> Any:
    """The SDK's OAuth provider for ``config``'s server (an ``httpx2.Auth``): with ``redirect``, a connection that asks
    a person to sign in (``on_wait(url)`` hears the page to open); without, one that only uses the tokens kept, and
    fails with ``needs_sign_in`` when they will not do."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    storage = StoredTokens(config, redirect)

    class Provider(OAuthClientProvider):
        async def _initialize(self) -> None:
            await super()._initialize()
            # The SDK counts a kept token's lifetime from when it was issued in this process only: from the store,
            # an expired token is refreshed rather than sent and refused.
            if storage.expires_at is not None:
                self.context.token_expiry_time = storage.expires_at

    metadata = OAuthClientMetadata(
        client_name=CLIENT_NAME,
        redirect_uris=[redirect or storage.registered_redirect() or NO_REDIRECT],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=config.scope or None,
    )
    on_wait = on_wait or (lambda url: None)
    if redirect:
        on_redirect, on_callback = _handlers(config, on_wait)
    else:

        async def on_redirect(url: str) -> None:
            await _cannot_ask(config, on_wait)

        async def on_callback() -> Any:
            return await _cannot_ask(config, on_wait)

    return Provider(
        server_url=config.url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=on_redirect,
        callback_handler=on_callback,
    )
