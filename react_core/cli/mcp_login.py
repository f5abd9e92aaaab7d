"""``mcp login NAME``: the operator signs in to one of their OAuth servers, once, for every run's use.

The SDK's OAuth client (``react_core.tools.mcp_oauth``) registers ReAct Lab with the server's authorization server
and builds the authorization page; this prints it, and listens on 127.0.0.1 (a free port, only for this sign-in) for
the browser to come back with the code, as the SDK's own example client does. The tokens are kept in the history
database for the operator's server, sealed under ``REACT_CREDENTIALS_KEY`` when it is set.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

CALLBACK = "/callback"
DONE_PAGE = "Signed in. You can close this page and go back to the command line."


def login(name: str) -> int:
    from react_core.tools.mcp_client import CONNECT_SECONDS, POOL
    from react_core.tools.mcp_oauth import SIGN_IN_SECONDS, finish
    from react_core.tools.mcp_servers import signing_in

    config = signing_in(name, None, visitor=False, owner="")
    said: list[str] = []

    class Callback(BaseHTTPRequestHandler):
        def log_message(self, *_args: Any) -> None:
            pass

        def do_GET(self) -> None:
            query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
            if urlsplit(self.path).path != CALLBACK or "code" not in query:
                why = query.get("error_description") or query.get("error") or "no code came back"
                said.append(why)
                self._answer(400, f"Not signed in: {why}")
                return
            why = finish(query.get("state", ""), query["code"], "", query.get("iss"))
            said.append(why)
            self._answer(400 if why else 200, why or DONE_PAGE)

        def _answer(self, status: int, text: str) -> None:
            body = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    listener = ThreadingHTTPServer(("127.0.0.1", 0), Callback)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    try:
        redirect = f"http://127.0.0.1:{listener.server_address[1]}{CALLBACK}"
        conn = POOL.sign_in(config, redirect, CONNECT_SECONDS)
        if conn.sign_in_url:
            print(f"Open this page to sign in to MCP server {name!r}:\n{conn.sign_in_url}", flush=True)
            conn.wait(SIGN_IN_SECONDS)
        else:
            conn.wait(None)
        if conn.error or not conn.alive:
            print(f"MCP server {name!r} was not signed in to: {conn.error or (said and said[-1]) or 'it ended'}")
            return 1
        print(f"Signed in to MCP server {name!r}: {len(conn.tools)} tools; the tokens are kept for every run.")
        return 0
    finally:
        listener.shutdown()
        listener.server_close()
        POOL.close_all()
