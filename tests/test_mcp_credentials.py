"""Credentials for a person's own MCP server: our test server (tests/mcp_server.py) started so that it answers 401 to
every request without ``Authorization: Bearer TOKEN``. Without the header the server is failed with a clear reason;
with it, it connects and a call works; the token goes to that server only, is shown back masked, and appears nowhere
else: not in the trace, its JSON, HTML and OTLP exports, the logs, an error message, the page, nor any history row but
the owner's remembered settings (sealed there under the operator's REACT_CREDENTIALS_KEY when it is set); another
person never sees or uses it."""

from __future__ import annotations

import json
import logging
import sqlite3

import pytest
from app_helpers import ask, go, last_trace, new_session, unescape, use_app
from mcp_helpers import our_server

from react_core.base.errors import ConfigError
from react_core.base.trace import Action
from react_core.history import open_history
from react_core.loop.agent import Agent
from react_core.loop.settings import RunSettings, build_run_config
from react_core.providers.scripted import ScriptedProvider
from react_core.report.exports import to_json
from react_core.report.html import to_html
from react_core.telemetry.otlp_json import to_otlp_json
from react_core.tools.mcp import mcp_tools, server_statuses
from react_core.tools.mcp_client import POOL
from react_core.tools.mcp_config import persons_servers
from react_core.tools.mcp_servers import McpServers
from react_core.tools.registry import ToolRegistry

TOKEN = "tok-7f3a9c1e5b2d4f60-1234"  # long enough that its last four may be shown


@pytest.fixture(scope="module")
def url():
    with our_server(TOKEN) as (address, _proc):
        yield address
        POOL.close_all()


def status_of(entry):
    (status,) = server_statuses(persons_servers({"mine": entry}, visitor=False))
    return status


def test_without_the_header_the_server_fails_with_a_clear_reason_and_with_it_a_call_works(url):
    bare = status_of(url)
    assert not bare.connected
    assert "401 Unauthorized" in bare.error and "credentials" in bare.error
    wrong = status_of({"url": url, "headers": {"Authorization": "Bearer wrong-token-0000-9999"}})
    assert "401" in wrong.error and "wrong-token-0000-9999" not in wrong.error
    good = status_of({"url": url, "headers": McpServers.parse_headers(TOKEN, "")})  # a bare token is sent as Bearer
    assert good.connected and "mine_echo" in {t.name for t in good.tools}


def test_the_form_headers_are_checked_and_shown_back_masked():
    assert McpServers.parse_headers("Basic dXNlcjpwYXNz", "X-Api-Key: k\n\n") == {
        "Authorization": "Basic dXNlcjpwYXNz",
        "X-Api-Key": "k",
    }
    with pytest.raises(ConfigError, match="line 1") as caught:
        McpServers.parse_headers("", "secret-without-a-name")
    assert "secret-without-a-name" not in str(caught.value)  # a value is never quoted back
    with pytest.raises(ConfigError, match="not a header name") as caught:
        McpServers.parse_headers("", "Authorization Bearer pasted-secret-42: x")
    assert "pasted-secret-42" not in str(caught.value)
    with pytest.raises(ConfigError, match="one line"):
        McpServers.parse_headers("", "X-Key: a\x00b")
    with pytest.raises(ConfigError, match="client's own"):
        McpServers.parse_headers("", "Mcp-Session-Id: 1")
    entry = {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": f"Bearer {TOKEN}", "X-Key": "short"}}
    servers = McpServers({"mine": entry, "bare": "http://127.0.0.1:1/mcp"})
    assert servers.masked_headers("mine") == ["Authorization: ••••1234", "X-Key: ••••"]
    assert servers.masked_headers("bare") == []
    replaced = McpServers(servers.with_headers("mine", {"X-Key": "another-value-5678"})).masked_headers("mine")
    assert replaced == ["X-Key: ••••5678"]
    assert McpServers(servers.with_headers("mine", {})).urls["mine"] == "http://127.0.0.1:1/mcp"


def test_a_run_sends_the_token_and_records_it_nowhere(url, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    entry = {"url": url, "headers": {"Authorization": f"Bearer {TOKEN}"}}
    settings = RunSettings(provider="scripted", tools=["mine_echo"], mcp_servers={"mine": entry})
    script = ["Thought 1: Ask it.\nAction 1: Mine_echo[hi]", "Thought 2: Done.\nAction 2: Finish[echo: hi]"]
    trace = Agent(build_run_config(settings, provider=ScriptedProvider(script))).run("What does the echo say?")
    assert trace.steps[0].observation.text == "echo: hi" and trace.final_answer == "echo: hi"
    store = open_history("alice", path=tmp_path / "history.sqlite")
    store.save(trace)
    store.remember_settings(settings.to_dict())
    for text in (to_json(trace), to_html(trace), to_otlp_json(trace, include_content=True), caplog.text):
        assert TOKEN not in text
    assert rows_holding(tmp_path / "history.sqlite", TOKEN) == [("remembered", ("alice", "settings"))]  # only there
    assert open_history("bob", path=tmp_path / "history.sqlite").last_settings() is None


def rows_holding(db, text: str) -> list[tuple[str, tuple]]:
    """(table, the row's first two columns) of every row of every table of a SQLite history that holds ``text``."""
    rows = sqlite3.connect(db)
    tables = [r[0] for r in rows.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return [
        (table, row[:2])
        for table in tables
        for row in rows.execute(f"SELECT * FROM {table}")
        if text in json.dumps(row, default=str)
    ]


def test_with_the_operators_key_the_headers_are_sealed_at_rest(monkeypatch, tmp_path):
    monkeypatch.setenv("REACT_CREDENTIALS_KEY", "a-long-random-operator-value-0123456789")
    entry = {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": f"Bearer {TOKEN}", "X-Key": "k1"}}
    store = open_history("alice", path=tmp_path / "history.sqlite")
    store.remember_settings(RunSettings(mcp_servers={"mine": entry, "open": "http://127.0.0.1:2/mcp"}).to_dict())
    assert rows_holding(tmp_path / "history.sqlite", TOKEN) == []  # not in the database, sealed
    assert rows_holding(tmp_path / "history.sqlite", "sealed_headers") == [("remembered", ("alice", "settings"))]
    back = store.last_settings()
    assert back["mcp_servers"] == {"mine": entry, "open": "http://127.0.0.1:2/mcp"}
    RunSettings.from_dict(back).check()
    monkeypatch.setenv("REACT_CREDENTIALS_KEY", "another-value")  # a changed key: the URL stays, the headers go
    assert store.last_settings()["mcp_servers"]["mine"] == "http://127.0.0.1:1/mcp"
    monkeypatch.delenv("REACT_CREDENTIALS_KEY")
    assert store.last_settings()["mcp_servers"]["mine"] == "http://127.0.0.1:1/mcp"


def page_text(at) -> str:
    """Every element drawn, as its protobuf text (labels, values, captions, markdown)."""
    out: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(out)


def test_a_visitor_adds_their_own_server_with_a_token_that_no_one_else_sees(monkeypatch, tmp_path, url):
    script = ["Thought 1: Ask it.\nAction 1: Mine_echo[hi]", "Thought 2: Done.\nAction 2: Finish[echo: hi]"]
    use_app(monkeypatch, tmp_path, script)
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv("REACT_MCP_VISITOR_HTTP", "1")
    monkeypatch.delenv("REACT_MCP_SERVERS", raising=False)
    alice = go(new_session(), "settings")
    alice.text_input(key="set-mcp-name").input("mine")
    alice.text_input(key="set-mcp-url").input(url)
    alice.button(key="set-mcp-add").click().run()
    assert any("[**mine**] — failed" in m.value for m in alice.markdown)
    assert any("401 Unauthorized" in c.value for c in alice.caption)  # the reason, in the server's list
    alice.text_input(key="set-mcp-cred-mine-auth").input(TOKEN)
    alice.button(key="set-mcp-cred-mine-save").click().run()
    assert any("[**mine**] — connected" in m.value for m in alice.markdown)
    assert "mine · Authorization: ••••1234" in [unescape(c.value) for c in alice.caption]
    assert TOKEN not in page_text(alice) and alice.text_input(key="set-mcp-cred-mine-auth").value == ""
    alice.checkbox(key="set-tool-mine_echo").check().run()
    go(alice, "chat")
    alice = ask(alice, "What does the echo say?")
    trace = last_trace(alice)
    assert trace["final_answer"] == "echo: hi" and TOKEN not in json.dumps(trace)
    assert TOKEN not in page_text(alice)

    bob = go(new_session(), "settings")  # another visitor: neither the server nor its token
    assert bob.session_state.settings["mcp_servers"] == {}
    assert "[**mine**]" not in page_text(bob) and "••••" not in page_text(bob)

    go(alice, "settings")
    alice.button(key="set-mcp-cred-mine-remove").click().run()  # removable
    assert alice.session_state.settings["mcp_servers"] == {"mine": url}
    assert "mine · no headers" in [unescape(c.value) for c in alice.caption]


def test_a_refusal_quoting_the_credentials_never_carries_them():
    """A server that refuses every request with a JSON-RPC error quoting its Authorization header: the reason is shown,
    the credentials masked."""
    with our_server(replies="quote") as (address, _proc):
        try:
            status = status_of({"url": address, "headers": {"Authorization": f"Bearer {TOKEN}"}})
        finally:
            POOL.close_all()
    assert not status.connected and "credentials not accepted: Authorization: ***" in status.error
    assert TOKEN not in status.error


@pytest.mark.parametrize("fail", [False, True], ids=["in its result", "in a JSON-RPC error"])
def test_a_call_quoting_the_credentials_never_carries_them(url, fail):
    (config,) = persons_servers({"mine": {"url": url, "headers": {"Authorization": f"Bearer {TOKEN}"}}}, visitor=False)
    obs = ToolRegistry(mcp_tools(["mine_whoami"], [config])).run(Action("mine_whoami", json.dumps({"fail": fail})))
    assert obs.is_error == fail and "called with Authorization: ***" in obs.text
    assert TOKEN not in obs.text and TOKEN not in json.dumps(obs.mcp.to_dict())
