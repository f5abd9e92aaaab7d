"""MCP servers in the app (AppTest): Settings lists each server with its state and its tools, a tool enabled there is
called by the next turn, and the step panel shows the MCP request and result."""

from __future__ import annotations

import json

import pytest
from app_helpers import ask, go, last_trace, markdowns, new_session, open_panels, use_app, wait_idle
from mcp_helpers import our_server
from provider_helpers import FakeOpenAI, free_port

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
    assert any(c.value == "react\\-lab\\-test · MCP 2026\\-07\\-28" for c in at.caption), [c.value for c in at.caption]
    at.checkbox(key="set-tool-t_echo").check().run()
    at.checkbox(key="set-tool-search").uncheck().run()  # a built-in change keeps the MCP tool
    assert "t_echo" in at.session_state.settings["tools"]
    go(at, "chat")
    at = ask(at, "What does the echo say?")
    trace = last_trace(at)
    assert "t_echo" in trace["settings"]["tools"] and trace["final_answer"] == "echo: hi"
    assert trace["steps"][0]["observation"]["mcp"]["arguments"] == {"text": "hi"}
    assert "**MCP call**" in markdowns(open_panels(at))


def test_settings_marks_destructive_tools_and_step_mode_asks_before_one_runs(monkeypatch, tmp_path, url):
    script = ["Thought 1: List the files.\nAction 1: T_run_command[ls]", "Thought 2: Done.\nAction 2: Finish[done]"]
    use_app(monkeypatch, tmp_path, script)
    monkeypatch.delenv("REACT_MCP_ALLOW_DESTRUCTIVE", raising=False)
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps({"t": {"url": url}}))
    at = go(new_session(), "settings")
    assert at.checkbox(key="set-tool-t_echo").label == "t_echo · read-only"
    marked = "t_run_command · destructive: refused unless you approve the call in step mode"
    assert at.checkbox(key="set-tool-t_run_command").label == marked  # no annotations: destructive by default
    at.checkbox(key="set-tool-t_run_command").check().run()
    go(at, "chat")
    at.toggle(key="chat-step-mode").set_value(True).run()
    at = ask(at, "Which files are there?")
    turn = at.session_state.chat["turns"][-1]
    assert turn.trace.steps[0].pending == "destructive" and turn.trace.steps[0].observation is None
    assert any("Run approves this one call" in c.value for c in at.caption)
    at.text_input(key=f"t{turn.id}-s1-edit-text").set_value("Action 1: T_run_command[pwd]")
    at.button(key=f"t{turn.id}-s1-edit-go").click().run()
    at = wait_idle(at)
    turn = at.session_state.chat["turns"][-1]  # the edited call is shown again before it runs
    assert turn.trace.steps[0].pending == "destructive" and turn.trace.steps[0].observation is None
    at.button(key=f"t{turn.id}-s1-run").click().run()
    at = wait_idle(at)
    step = at.session_state.chat["turns"][-1].trace.steps[0]
    assert step.observation.text == "ran pwd"
    assert [(n.kind, n.at) for n in step.interventions] == [("edit", "destructive"), ("run", "destructive")]


def test_settings_shows_a_server_that_never_answers_as_connecting_without_waiting_for_it(monkeypatch, tmp_path, url):
    use_app(monkeypatch, tmp_path)
    with FakeOpenAI().fail({"silent": True}) as hung:  # accepts the client's first request and never answers
        servers = {"t": {"url": url}, "stuck": {"url": f"{hung.root}/v1/chat/completions", "timeout": 45}}
        monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps(servers))
        try:
            at = go(new_session(), "settings")
            shown = " ".join(markdowns(at))
            assert "[**t**] — connected" in shown and "[**stuck**] — connecting" in shown
            assert at.button(key="set-mcp-again-stuck")
        finally:
            hung.closing.set()
