"""An MCP server protected by OAuth, on the SDK's own server-side pieces (``mcp.server.auth``: protected resource
metadata, authorization server metadata, dynamic client registration, /authorize with PKCE, /token, bearer checks),
as the SDK's ``simple-auth`` example is built, with an authorization server that needs no third party: the person
"approves" at once, so /authorize answers with the redirect to the client's redirect URI, carrying the code.

``python tests/mcp_oauth_server.py PORT`` serves streamable HTTP on 127.0.0.1:PORT/mcp; access tokens last an hour
(``expires_in``), refresh tokens are rotated at each use. ``GET /stats`` says how many tokens it issued, by grant,
and how many clients registered.

Tools: ``whoami`` (says which client it was called by) and ``echo``.
"""

from __future__ import annotations

import secrets
import sys
import time

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from mcp.types import ToolAnnotations

LIFETIME = 3600
STATS = {"authorization_code": 0, "refresh_token": 0, "registered": 0}


class ApprovingProvider:
    """An in-memory authorization server that approves every authorization request at once."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        STATS["registered"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["mcp"],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        del self.codes[authorization_code.code]
        STATS["authorization_code"] += 1
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token: str) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        del self.refresh[refresh_token.token]  # rotated: an old refresh token is never taken twice
        STATS["refresh_token"] += 1
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)  # its lifetime is the client's to keep (expires_in): refreshed, never refused

    async def revoke_token(self, token) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = f"at-{secrets.token_urlsafe(24)}", f"rt-{secrets.token_urlsafe(24)}"
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        scope = " ".join(scopes)
        return OAuthToken(access_token=access, expires_in=LIFETIME, refresh_token=refresh, scope=scope)


def build(port: int) -> MCPServer:
    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "react-lab-oauth-test",
        auth_server_provider=ApprovingProvider(),
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            validate_token_resource=False,
            client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["mcp"]),
            required_scopes=["mcp"],
        ),
    )
    read_only = ToolAnnotations(read_only_hint=True)

    @server.tool(description="Says which OAuth client called it.", annotations=read_only)
    def whoami() -> str:
        from mcp.server.auth.middleware.auth_context import get_access_token

        token = get_access_token()
        return f"called by client {token.client_id if token else 'nobody'} with token {token.token if token else ''}"

    @server.tool(description="Returns the text it is given.", annotations=read_only)
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.custom_route("/stats", methods=["GET"])
    async def stats(request):
        from starlette.responses import JSONResponse

        return JSONResponse(STATS)

    return server


if __name__ == "__main__":
    from served_on import serve

    port = int(sys.argv[1])
    serve(build(port).streamable_http_app(host="127.0.0.1"), port)
