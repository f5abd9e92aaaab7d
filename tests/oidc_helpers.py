"""The signed-in app in a real browser: a local OpenID Connect provider (oidc-provider-mock, on a free port), the app
reading its ``[auth]`` settings from a secrets file given to ``streamlit run``, Debian's Chromium, and a person
signing in at the provider's own page. Shared by the browser journeys that need people to sign in."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from browser_helpers import chromium, free_port, open_page, streamlit


@contextlib.contextmanager
def signed_in_app(home: Path, script: list) -> Iterator[tuple[dict, object]]:
    """The app with sign-in against a provider of its own, and a browser: (the server, the browser)."""
    from oidc_provider_mock import run_server_in_thread

    port = free_port()  # known before the app starts: the provider sends people back to it
    with run_server_in_thread(port=0) as oidc:
        secrets = home / "secrets.toml"
        secrets.write_text(
            "[auth]\n"
            f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
            'cookie_secret = "a-test-cookie-secret-not-used-anywhere-else"\n'
            'client_id = "react-lab"\n'
            'client_secret = "test-client-secret"\n'
            f'server_metadata_url = "http://127.0.0.1:{oidc.server_port}/.well-known/openid-configuration"\n',
            encoding="utf-8",
        )
        with streamlit(home, script, args=["--secrets.files", str(secrets)], port=port) as server, chromium() as b:
            yield server, b


def sign_in(browser, url: str, who: str):
    """A browser context of its own for ``who``, signed in: (the context, its page, on the Chat page)."""
    context, page = open_page(browser, url, wait_for_chat=False)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/oauth2/authorize**")  # the provider's own page: who are you?
    page.locator("input[name=sub]").fill(who)
    page.get_by_role("button", name="Authorize").click()
    page.get_by_test_id("stChatInput").locator("textarea").wait_for()
    return context, page
