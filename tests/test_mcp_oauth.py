"""OAuth for HTTP MCP servers with the SDK's own OAuth client, against a local OAuth-protected MCP server the test
starts (tests/mcp_oauth_server.py, on the SDK's mcp.server.auth: protected resource metadata, authorization server
metadata, dynamic registration, PKCE, rotating refresh tokens). The operator signs in on the command line and every
run uses the tokens; a person signs in to their own server from Settings; an expired token is refreshed, not asked
for again; nothing waits for a person; tokens are sealed in the history, in no trace, and masked where a server
quotes them; another person's server of the same name and URL is not signed in; visitors sign in only where the
operator allows, and never to the operator's servers."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import httpx
import pytest
from app_helpers import ask, go, last_trace, new_session, use_app
from mcp_helpers import approve, oauth_server, until_drawn

from react_core.base.errors import ConfigError
from react_core.base.trace import Action
from react_core.tools import mcp_oauth
from react_core.tools.mcp import mcp_tools, server_statuses
from react_core.tools.mcp_client import POOL
from react_core.tools.mcp_config import persons_servers, server_config
from react_core.tools.mcp_oauth import StoredTokens
from react_core.tools.mcp_servers import McpServers, signing_in
from react_core.tools.registry import ToolRegistry

KEY = "a-long-random-string-for-the-test-only-0123456789"


@pytest.fixture(scope="module")
def served():
    with oauth_server() as (url, _proc):
        yield url
        POOL.close_all()


@pytest.fixture
def history(tmp_path, monkeypatch):
    db = tmp_path / "history.sqlite"
    monkeypatch.setenv("REACT_HISTORY_DB", str(db))
    monkeypatch.setenv("REACT_CREDENTIALS_KEY", KEY)
    monkeypatch.delenv("REACT_HISTORY_URL", raising=False)
    yield db
    POOL.close_all()


def stats(url: str) -> dict:
    return httpx.get(url.removesuffix("/mcp") + "/stats", timeout=10).json()


def remembered(db) -> dict[tuple[str, str], str]:
    with sqlite3.connect(db) as c:
        return {(o, n): v for o, n, v in c.execute("SELECT owner, name, value FROM remembered")}


def sign_in(config) -> None:
    """A person signs in: the connection asks, their browser approves, the code comes back."""
    conn = POOL.sign_in(config, "http://127.0.0.1:8501/settings", wait=30)
    assert conn.sign_in_url.startswith(config.url.removesuffix("/mcp") + "/authorize?"), conn.error
    assert "code_challenge_method=S256" in conn.sign_in_url  # PKCE, as the SDK sends it
    back = approve(conn.sign_in_url)
    assert mcp_oauth.finish(back["state"], back["code"], config.owner, back.get("iss")) == ""
    conn.wait(30)
    assert conn.alive, conn.error


def test_without_a_sign_in_a_server_says_who_signs_in_and_nothing_waits(served, history):
    ours = server_config("o", {"url": served, "oauth": True, "timeout": 5})
    (status,) = server_statuses([ours])
    assert status.oauth and not status.connected
    assert "needs the operator to sign in with OAuth: python -m react_core mcp login o" in status.error
    (mine,) = persons_servers({"mine": {"url": served, "oauth": True}}, visitor=False, owner="alice")
    (status,) = server_statuses([mine])
    assert "it needs you to sign in with OAuth: Sign in beside it in Settings" in status.error
    refused = ToolRegistry(mcp_tools(["o_echo"], [ours])).run(Action("o_echo", "hi"))
    assert refused.is_error and "mcp login o" in refused.text  # the run goes on, and says why


def test_an_expired_token_is_refreshed_and_the_kept_one_rotated(served, history):
    config = server_config("o", {"url": served, "oauth": True, "timeout": 10})
    before = stats(served)
    sign_in(config)
    kept = StoredTokens(config)
    first = kept._load()["tokens"]
    POOL.close_all()
    kept._save(expires_at=1.0)  # the access token has expired since it was kept (in 1970)
    (status,) = server_statuses([config])  # a new connection, as after a restart
    assert status.connected, status.error
    after = stats(served)
    assert after["refresh_token"] == before["refresh_token"] + 1  # refreshed with the SDK's client
    assert after["authorization_code"] == before["authorization_code"] + 1  # and nobody asked to sign in again
    now = kept._load()["tokens"]
    assert now["refresh_token"] != first["refresh_token"] and now["access_token"] != first["access_token"]


def test_tokens_are_sealed_masked_and_kept_to_their_owner(served, history):
    alice = persons_servers({"mine": {"url": served, "oauth": True}}, visitor=False, owner="alice")[0]
    sign_in(alice)
    token = StoredTokens(alice)._load()["tokens"]["access_token"]
    rows = remembered(history)
    assert rows[("alice", "mcp_oauth:own:mine")].startswith("sealed:") and token not in str(rows)
    said = ToolRegistry(mcp_tools(["mine_whoami"], [alice])).run(Action("mine_whoami", "{}"))
    assert "called by client" in said.text and token not in json.dumps(said.to_dict())  # quoted back: masked
    assert "with token ***" in said.text
    bob = persons_servers({"mine": {"url": served, "oauth": True}}, visitor=False, owner="bob")[0]
    (status,) = server_statuses([bob])  # the same name and URL, another person: not signed in
    assert "needs you to sign in" in status.error
    # Read without the key, the sealed tokens are not there: the person signs in again.
    os.environ.pop("REACT_CREDENTIALS_KEY")
    assert not StoredTokens(alice).has_tokens()


def test_a_sign_in_is_finished_only_by_its_own_owner(served, history):
    alice = persons_servers({"mine": {"url": served, "oauth": True}}, visitor=False, owner="alice")[0]
    conn = POOL.sign_in(alice, "http://127.0.0.1:8501/settings", wait=30)
    back = approve(conn.sign_in_url)
    assert "not one waiting here" in mcp_oauth.finish(back["state"], back["code"], "bob")
    assert "not one waiting here" in mcp_oauth.finish("made-up", back["code"], "alice")
    # A public demo session coming back is a new session: the state alone, a secret only its page showed, will do.
    assert mcp_oauth.finish(back["state"], back["code"], None) == ""
    conn.wait(30)
    assert conn.alive, conn.error


def test_visitors_sign_in_only_where_the_operator_allows_and_never_to_the_operators(served, monkeypatch):
    monkeypatch.setenv("REACT_MCP_VISITOR_HTTP", "1")
    monkeypatch.delenv("REACT_MCP_VISITOR_OAUTH", raising=False)
    assert "REACT_MCP_VISITOR_OAUTH=1" in McpServers(visitor=True).check("mine", served, oauth=True)
    assert McpServers(visitor=False).check("mine", served, oauth=True) == ""
    with pytest.raises(ConfigError, match="REACT_MCP_VISITOR_OAUTH=1"):
        persons_servers({"mine": {"url": served, "oauth": True}}, visitor=True, owner="v")
    monkeypatch.setenv("REACT_MCP_VISITOR_OAUTH", "1")
    assert persons_servers({"mine": {"url": served, "oauth": True}}, visitor=True, owner="v")[0].oauth
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps({"o": {"url": served, "oauth": True}}))
    with pytest.raises(ConfigError, match="is the operator's: the operator signs in to it"):
        signing_in("o", None, visitor=True, owner="v")
    with pytest.raises(ConfigError, match="OAuth signs in to a server by URL"):
        server_config("c", {"command": "x", "oauth": True})


def test_the_operator_signs_in_on_the_command_line_for_every_run(served, history, tmp_path):
    env = {
        **os.environ,
        "REACT_MCP_SERVERS": json.dumps({"o": {"url": served, "oauth": True}}),
        "REACT_SECRETS_PATH": "",
    }
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    cli = [sys.executable, "-m", "react_core"]
    login = subprocess.Popen(
        [*cli, "mcp", "login", "o"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert "Open this page to sign in to MCP server 'o':" in login.stdout.readline()
        page = login.stdout.readline().strip()
        back = httpx.get(page, follow_redirects=False, timeout=10).headers["location"]  # the browser approves…
        assert back.startswith("http://127.0.0.1:") and "/callback?" in back
        assert httpx.get(back, timeout=10).text.startswith("Signed in.")  # …and comes back to the listener
        out, err = login.communicate(timeout=60)
    finally:
        if login.poll() is None:
            login.kill()
    assert login.returncode == 0, err
    assert "Signed in to MCP server 'o': 2 tools" in out
    listed = subprocess.run([*cli, "mcp", "list"], capture_output=True, text=True, timeout=120, env=env)
    assert listed.returncode == 0 and "o: connected" in listed.stdout, listed.stdout + listed.stderr
    script = tmp_path / "script.json"
    script.write_text(json.dumps([" Who am I?\nAction 1: O_whoami[{}]", " Known.\nAction 2: Finish[known]"]))
    run = [*cli, "ask", "Who?", "--provider", "scripted", "--script", str(script), "--tools", "o_whoami", "--json"]
    asked = subprocess.run(run, capture_output=True, text=True, timeout=120, env=env)
    assert asked.returncode == 0, asked.stderr
    trace = json.loads(asked.stdout)
    assert trace["steps"][0]["observation"]["text"].startswith("called by client ")
    kept = remembered(history)[("", "mcp_oauth:operator:o")]
    assert kept.startswith("sealed:")
    token = StoredTokens(server_config("o", {"url": served, "oauth": True}))._load()["tokens"]["access_token"]
    assert token not in asked.stdout and token not in kept
    out = subprocess.run([*cli, "mcp", "logout", "o"], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0 and not StoredTokens(server_config("o", {"url": served, "oauth": True})).has_tokens()


def test_a_person_signs_in_to_their_own_server_from_settings(served, monkeypatch, tmp_path):
    import ui.settings.mcp_sign_in_view as view

    script = [" Who am I?\nAction 1: Mine_whoami[{}]", " Known.\nAction 2: Finish[known]"]
    use_app(monkeypatch, tmp_path, script)
    monkeypatch.setattr(view, "_here", lambda: "http://localhost:8501/settings")  # AppTest has no browser address
    at = go(new_session(), "settings")
    at.text_input(key="set-mcp-name").set_value("mine")
    at.text_input(key="set-mcp-url").set_value(served)
    at.checkbox(key="set-mcp-oauth").check()
    at.button(key="set-mcp-add").click().run()
    assert at.session_state.settings["mcp_servers"] == {"mine": {"url": served, "oauth": True}}
    assert until_drawn(at, lambda: any("needs you to sign in" in c.value for c in at.caption))
    at.button(key="set-mcp-sign-in-mine").click().run()
    assert until_drawn(at, lambda: len(at.get("link_button")) == 1)  # the page to open, once the SDK built it
    page = at.get("link_button")[0].proto.url
    back = approve(page)
    at.query_params["code"], at.query_params["state"] = back["code"], back["state"]
    at.run()  # the browser comes back to Settings with the code
    assert "code" not in at.query_params and not at.exception
    assert any("Signed in" in s.value for s in at.success)
    assert until_drawn(at, lambda: any(c.key == "set-tool-mine_whoami" for c in at.checkbox))  # connected
    at.checkbox(key="set-tool-mine_whoami").check().run()
    go(at, "chat")
    at = ask(at, "Who am I?")
    trace = last_trace(at)
    assert trace["steps"][0]["observation"]["text"].startswith("called by client ")
    config = persons_servers(at.session_state.settings["mcp_servers"], visitor=False, owner="")[0]
    token = StoredTokens(config)._load()["tokens"]["access_token"]
    assert token not in json.dumps(trace) and token not in json.dumps(at.session_state.settings)
