"""MCP servers in the app (AppTest): Settings lists each server with its state and its tools, a tool enabled there is
called by the next turn, and the step panel shows the MCP request and result."""

from __future__ import annotations

import json

import pytest
from app_helpers import ask, go, last_trace, markdowns, new_session, use_app
from mcp_helpers import our_server
from provider_helpers import free_port

from react_core.tools.mcp_client import POOL


@pytest.fixture(scope="module")
def url():
    with our_server() as (address, _proc):
        yield address
        POOL.close_all()


def test_settings_lists_servers_and_an_enabled_tool_is_called(monkeypatch, tmp_path, url):
    script = ["Thought 1: Ask the echo.\nAction 1: T_echo[hi]", "Thought 2: Done.\nAction 2: Finish[echo: hi]"]
    use_app(monkeypatch, tmp_path, script)
    servers = {"t": {"url": url}, "gone": {"url": f"http://127.0.0.1:{free_port()}/mcp", "timeout": 2}}
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps(servers))
    at = go(new_session(), "settings")
    shown = " ".join(markdowns(at))
    assert "[**t**] — connected" in shown and "[**gone**] — failed" in shown
    assert any("could not be reached" in c.value for c in at.caption)
    at.checkbox(key="set-tool-t_echo").check().run()
    at.checkbox(key="set-tool-search").uncheck().run()  # a built-in change keeps the MCP tool
    assert "t_echo" in at.session_state.settings["tools"]
    go(at, "chat")
    at = ask(at, "What does the echo say?")
    trace = last_trace(at)
    assert "t_echo" in trace["settings"]["tools"] and trace["final_answer"] == "echo: hi"
    assert trace["steps"][0]["observation"]["mcp"]["arguments"] == {"text": "hi"}
    assert "**MCP call**" in markdowns(at)
