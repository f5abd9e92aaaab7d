"""MCP tools against real servers: the reference mcp-server-git over stdio on a repository the test creates, and our
own server (tests/mcp_server.py) over streamable HTTP for the error cases: a tool that fails, one past its deadline,
image content, a destructive tool, a server killed mid-call, a server that is not there. Every failure must be an
error observation (never an exception out of the registry), recorded on the observation, and the run goes on."""

from __future__ import annotations

import json
import threading

import pytest
from mcp_helpers import GIT_SERVER, HERE, git_repository, our_server
from provider_helpers import FakeOpenAI, free_port, wait_for

from react_core.base import tool_specs
from react_core.base.trace import Action
from react_core.tools import build_tools
from react_core.tools.mcp import mcp_tools, server_statuses, tool_name
from react_core.tools.mcp_client import POOL, McpConnection, McpFailure
from react_core.tools.mcp_config import server_config
from react_core.tools.registry import MAX_OBSERVATION_CHARS, ToolRegistry


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return git_repository(tmp_path_factory.mktemp("mcp") / "repo")


@pytest.fixture(scope="module")
def git(repo):
    config = server_config("git", {"command": GIT_SERVER, "args": ["--repository", str(repo)]})
    yield config
    POOL.close_all()  # ends the stdio server the pool started


@pytest.fixture(scope="module")
def ours():
    with our_server() as (url, _proc):
        yield server_config("t", {"url": url, "timeout": 3})
        POOL.close_all()


def registry(config, *names: str) -> ToolRegistry:
    return ToolRegistry(mcp_tools(names, [config]))


def test_git_server_lists_its_tools_with_schemas_and_annotations(git):
    (status,) = server_statuses([git])
    assert status.connected and status.transport == "stdio"
    tools = {t.name: t for t in status.tools}
    assert tools["git_git_status"].schema["required"] == ["repo_path"]
    assert tools["git_git_status"].read_only and not tools["git_git_status"].destructive
    assert tools["git_git_reset"].destructive  # the reference server marks it so


def test_the_sdk_client_negotiates_todays_revision_and_says_who_answered(git):
    """The reference server speaks today's revision (2026-07-28): reached with ``server/discover``, not the legacy
    ``initialize`` a hand-made session sent (which settled every server on 2025-11-25)."""
    (status,) = server_statuses([git])
    assert status.protocol_version == "2026-07-28"
    assert status.server_info.startswith("mcp-git ") and status.speaks.endswith(" · MCP 2026-07-28")


def test_a_server_of_the_revision_before_is_reached_with_the_initialize_handshake():
    with our_server(era="2025-11-25") as (url, _proc):
        config = server_config("old", {"url": url, "timeout": 5})
        (status,) = server_statuses([config])
        assert status.connected and status.protocol_version == "2025-11-25"
        assert status.speaks == "react-lab-test · MCP 2025-11-25"  # it gives no version
        assert registry(config, "old_add").run(Action("old_add", '{"a": 2, "b": 40}')).text == "42"
        POOL.close_all()


def test_git_status_and_log_over_stdio(git, repo):
    tools = registry(git, "git_git_status", "git_git_log")
    status = tools.run(Action("git_git_status", str(repo)))
    assert not status.is_error and "nothing to commit" in status.text
    assert status.mcp.server == "git" and status.mcp.tool == "git_status"
    assert status.mcp.arguments == {"repo_path": str(repo)}
    assert status.mcp.result["content"][0]["type"] == "text"
    log = tools.run(Action("git_git_log", json.dumps({"repo_path": str(repo), "max_count": 1})))
    assert not log.is_error and "first commit" in log.text and log.mcp.arguments["max_count"] == 1


def test_a_destructive_tool_is_refused_unless_the_operator_allows_it(git, repo, monkeypatch):
    tools = registry(git, "git_git_reset")
    refused = tools.run(Action("git_git_reset", str(repo)))
    assert refused.is_error and "destructive" in refused.text and "REACT_MCP_ALLOW_DESTRUCTIVE" in refused.text
    assert refused.mcp.result is None and refused.mcp.error
    monkeypatch.setenv("REACT_MCP_ALLOW_DESTRUCTIVE", "1")
    allowed = tools.run(Action("git_git_reset", str(repo)))
    assert not allowed.is_error and allowed.mcp.result is not None


def test_one_text_or_a_json_object_of_arguments(ours):
    tools = registry(ours, "t_echo", "t_add")
    assert tools.run(Action("t_echo", "hello there")).text == "echo: hello there"
    assert tools.run(Action("t_echo", '{"text": "as JSON"}')).text == "echo: as JSON"
    assert tools.run(Action("t_add", '{"a": 2, "b": 40}')).text == "42"
    wrong = tools.run(Action("t_add", "2 and 40"))
    assert wrong.is_error and '"required":["a","b"]' in wrong.text  # the schema, for the model to follow
    missing = tools.run(Action("t_add", '{"a": 2}'))
    assert missing.is_error and "needs the arguments b" in missing.text


def test_a_failing_tool_is_an_error_observation(ours):
    obs = registry(ours, "t_fail").run(Action("t_fail", "why not"))
    assert obs.is_error and obs.mcp.result["isError"] is True and obs.text


def test_image_content_is_named_not_dropped(ours):
    obs = registry(ours, "t_picture").run(Action("t_picture", "{}"))
    assert "[image content omitted (image/png)]" in obs.text and "a one-pixel picture" in obs.text
    assert "base64 omitted" in obs.mcp.result["content"][0]["data"]  # the trace keeps no image bytes


def test_a_call_past_its_deadline_is_an_error_and_the_next_call_works(ours, tmp_path):
    hurried = server_config("h", {"url": ours.url, "timeout": 1})  # the same server, a deadline this test waits out
    tools = registry(hurried, "h_slow", "h_echo")
    late = tools.run(Action("h_slow", str(tmp_path / "marker")))
    assert late.is_error and "did not answer within 1 s" in late.text and late.mcp.error
    assert tools.run(Action("h_echo", "still here")).text == "echo: still here"


def test_long_results_are_capped_like_every_observation(ours):
    obs = registry(ours, "t_echo").run(Action("t_echo", "x " * 1500 * 5))
    assert len(obs.text) <= MAX_OBSERVATION_CHARS


def test_a_server_killed_mid_call(tmp_path):
    marker = tmp_path / "started"
    with our_server() as (url, proc):
        config = server_config("dying", {"url": url, "timeout": 30})
        tools = registry(config, "dying_slow", "dying_echo")
        result = {}
        caller = threading.Thread(target=lambda: result.update(obs=tools.run(Action("dying_slow", str(marker)))))
        caller.start()
        assert wait_for(marker.exists, timeout=30)
        proc.kill()  # only the server this test started
        caller.join(40)
        assert not caller.is_alive()
        assert result["obs"].is_error and "dying" in result["obs"].text
        after = tools.run(Action("dying_echo", "anyone?"))  # no exception, no hang: an error for the model
        assert after.is_error and "dying" in after.text


def test_a_server_that_is_not_there():
    config = server_config("gone", {"url": f"http://127.0.0.1:{free_port()}/mcp", "timeout": 2})
    (status,) = server_statuses([config])
    assert not status.connected and "could not be reached" in status.error
    obs = ToolRegistry(mcp_tools(["gone_echo"], [config])).run(Action("gone_echo", "x"))
    assert obs.is_error and "could not be reached" in obs.text


def test_names_are_spaced_so_they_cannot_shadow_built_in_tools(ours):
    assert tool_name("git", "Git-Status.v2") == "git_git_status_v2"
    with pytest.raises(ValueError), tool_specs.known([tool_specs.ToolSpec("search", "Search", "q", "x", "d", "d")]):
        pass
    tools = build_tools(None, ["calculator", "t_echo"], mcp_servers=[ours])
    assert tools.names == ["calculator", "t_echo"]


def test_a_command_that_never_answers_is_given_up_and_ended(tmp_path):
    silent = server_config("silent", {"command": "sleep", "args": ["600"]})
    conn = McpConnection(silent)
    with pytest.raises(McpFailure, match="did not answer within 1 s"):
        conn.open(timeout=1)
    assert conn._done.wait(15)  # the connection's thread ended, and with it the process it started


def test_a_command_that_cannot_start_says_why():
    (status,) = server_statuses([server_config("nothere", {"command": str(HERE / "no-such-server")})])
    assert not status.connected and "could not be reached" in status.error


def test_a_server_that_never_answers_holds_up_only_those_who_wait_for_it(ours):
    """A server that accepts a connection and never answers (the fake model server's silent fault) is being connected
    to; meanwhile another server's tools and the Settings page's list answer at once, and the page shows it as
    connecting instead of waiting for it."""
    outcome: dict = {}
    with FakeOpenAI().fail({"silent": True}) as hung:
        # The path its faults answer on: the client's first POST (initialize) is held there.
        stuck = server_config("stuck", {"url": f"{hung.root}/v1/chat/completions", "timeout": 45})
        waiting = threading.Thread(
            target=lambda: outcome.update(obs=registry(stuck, "stuck_echo").run(Action("stuck_echo", "x")))
        )
        waiting.start()
        try:
            assert hung.holding.wait(30)  # its connection is being opened, held by the server
            assert registry(ours, "t_echo").run(Action("t_echo", "hi")).text == "echo: hi"
            shown = {s.name: s for s in server_statuses([ours, stuck], wait=0.5)}
            assert shown["t"].connected and shown["stuck"].connecting and not shown["stuck"].connected
            assert "still connecting" in shown["stuck"].error
            assert waiting.is_alive()  # none of the above waited for the stuck server
        finally:
            hung.closing.set()  # the held request ends: the stuck connection fails now
    waiting.join(60)
    assert outcome["obs"].is_error and "stuck" in outcome["obs"].text
