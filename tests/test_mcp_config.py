"""Who may configure which MCP servers: stdio commands only from the operator's list (environment or secrets file), a
person's own servers only by URL and, for visitors, only where the operator allows it; bad entries refused with one
line naming the server."""

from __future__ import annotations

import json

import pytest

from react_core.base.errors import ConfigError
from react_core.loop.settings import RunSettings, build_run_config
from react_core.providers.keys import lending
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.mcp_config import (
    all_servers,
    default_timeout,
    destructive_allowed,
    may_add_http,
    operator_servers,
    server_config,
)

SERVERS = {"git": {"command": "mcp-server-git", "args": ["--repository", "/srv/r"]}, "docs": {"url": "http://h/mcp"}}


def test_the_operators_servers_come_from_the_environment_or_the_secrets_file(tmp_path):
    env = {"REACT_MCP_SERVERS": json.dumps(SERVERS), "REACT_SECRETS_PATH": ""}
    git, docs = operator_servers(env)
    assert (git.transport, git.command, git.args) == ("stdio", "mcp-server-git", ("--repository", "/srv/r"))
    assert (docs.transport, docs.url, docs.operators) == ("streamable-http", "http://h/mcp", True)
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(f"REACT_MCP_SERVERS = '''{json.dumps(SERVERS)}'''\n", encoding="utf-8")
    assert [s.name for s in operator_servers({"REACT_SECRETS_PATH": str(secrets)})] == ["git", "docs"]
    assert operator_servers({"REACT_SECRETS_PATH": ""}) == []


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"Git": {"command": "x"}}, "lower-case"),
        ({"git": {"command": "x", "url": "http://h"}}, "exactly one"),
        ({"git": {"url": "file:///etc/passwd"}}, "http://"),
        ({"git": {"command": "x", "args": "--all"}}, "'args'"),
        ({"git": {"url": "http://h", "timeout": 0}}, "'timeout'"),
    ],
)
def test_bad_entries_are_refused_naming_the_server(raw, problem):
    with pytest.raises(ConfigError, match=problem):
        operator_servers({"REACT_MCP_SERVERS": json.dumps(raw), "REACT_SECRETS_PATH": ""})


def test_a_person_never_starts_a_command():
    with pytest.raises(ConfigError, match="only the operator"):
        server_config("mine", {"command": "rm"}, operators=False)


def test_visitors_add_http_servers_only_where_the_operator_allows_it():
    env = {"REACT_SECRETS_PATH": ""}
    assert may_add_http(visitor=False, env=env) == ""  # local mode: the person is the operator
    assert "REACT_MCP_VISITOR_HTTP" in may_add_http(visitor=True, env=env)
    with pytest.raises(ConfigError, match="does not let visitors"):
        all_servers({"mine": "http://127.0.0.1:1/mcp"}, visitor=True, env=env)
    allowed = {**env, "REACT_MCP_VISITOR_HTTP": "1"}
    (mine,) = all_servers({"mine": "http://127.0.0.1:1/mcp"}, visitor=True, env=allowed)
    assert not mine.operators and mine.transport == "streamable-http"
    taken = {**allowed, "REACT_MCP_SERVERS": json.dumps(SERVERS)}
    with pytest.raises(ConfigError, match="operator's"):
        all_servers({"git": "http://127.0.0.1:1/mcp"}, visitor=True, env=taken)


def test_a_visitors_run_refuses_their_server_without_the_operators_leave(monkeypatch):
    monkeypatch.setenv("REACT_SECRETS_PATH", "")
    monkeypatch.delenv("REACT_MCP_VISITOR_HTTP", raising=False)
    settings = RunSettings(provider="scripted", tools=["mine_echo"], mcp_servers={"mine": "http://127.0.0.1:1/mcp"})
    with lending(own_endpoints=True), pytest.raises(ConfigError, match="does not let visitors"):
        build_run_config(settings, provider=ScriptedProvider([]))


def test_settings_accept_mcp_tool_names_and_refuse_others():
    RunSettings(tools=["search", "git_git_status"]).check()
    with pytest.raises(ConfigError, match="unknown tools"):
        RunSettings(tools=["Git Status"]).check()
    assert RunSettings.from_dict({"mcp_servers": {"a": "http://h"}}).mcp_servers == {"a": "http://h"}


def test_switches_and_deadline():
    assert not destructive_allowed({}) and destructive_allowed({"REACT_MCP_ALLOW_DESTRUCTIVE": "1"})
    assert default_timeout({}) == 30 and default_timeout({"REACT_MCP_TIMEOUT": "5"}) == 5
    with pytest.raises(ConfigError):
        default_timeout({"REACT_MCP_TIMEOUT": "soon"})
