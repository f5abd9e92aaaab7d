"""MCP on the command line, as a person runs it: ``mcp list`` shows the operator's servers (REACT_MCP_SERVERS) with
their state and tools' schemas, and ``ask --tools git_git_status`` runs the reference mcp-server-git over stdio on a
repository the test creates, with the scripted provider, end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_helpers import GIT_SERVER, git_repository
from provider_helpers import free_port

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return git_repository(tmp_path_factory.mktemp("cli") / "repo")


def cli(*argv: str, servers: dict, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "REACT_MCP_SERVERS": json.dumps(servers), "REACT_SECRETS_PATH": ""}
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    return subprocess.run(
        [sys.executable, "-m", "react_core", *argv], capture_output=True, text=True, cwd=cwd, timeout=120, env=env
    )


def test_mcp_list_shows_each_server_its_state_and_its_tools_with_schemas(repo):
    gone = f"http://127.0.0.1:{free_port()}/mcp"
    servers = {"git": {"command": GIT_SERVER, "args": ["--repository", str(repo)]}, "gone": {"url": gone, "timeout": 2}}
    out = cli("mcp", "list", servers=servers)
    assert out.returncode == 1, out.stderr  # one server failed: said, and the exit says so
    assert "git: connected (stdio, " in out.stdout and "gone: failed (streamable-http, " in out.stdout
    assert "git_git_status [read-only]" in out.stdout and "git_git_reset [destructive]" in out.stdout
    assert "\n  mcp-git " in out.stdout and " · MCP 2026-07-28\n" in out.stdout  # who answered, in which revision
    assert '"required": ["repo_path"]' in out.stdout
    listed = json.loads(cli("mcp", "list", "--json", servers={"git": servers["git"]}).stdout)
    (git,) = listed
    tools = {t["name"]: t for t in git["tools"]}
    assert git["connected"] and tools["git_git_status"]["input_schema"]["required"] == ["repo_path"]
    assert tools["git_git_status"]["tool"] == "git_status"
    assert git["protocol_version"] == "2026-07-28" and git["server"].startswith("mcp-git ")


def test_mcp_list_says_when_the_list_cannot_be_read():
    out = cli("mcp", "list", servers={"Bad Name": {"url": "http://127.0.0.1:1/mcp"}})
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "error:" in out.stderr


def test_ask_runs_an_mcp_tool_end_to_end_with_the_scripted_provider(repo, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                f" I check the repository.\nAction 1: Git_git_status[{repo}]",
                " It is clean.\nAction 2: Finish[clean]",
            ]
        )
    )
    servers = {"git": {"command": GIT_SERVER, "args": ["--repository", str(repo)]}}
    args = ["ask", "Is the repository clean?", "--provider", "scripted", "--script", str(script)]
    out = cli(*args, "--tools", "git_git_status", "--json", servers=servers)
    assert out.returncode == 0, out.stderr
    trace = json.loads(out.stdout)
    first = trace["steps"][0]
    assert first["action"] == {"tool": "git_git_status", "input": str(repo)}
    assert "nothing to commit" in first["observation"]["text"] and not first["observation"].get("is_error")
    assert first["observation"]["mcp"]["arguments"] == {"repo_path": str(repo)}
    assert trace["final_answer"] == "clean" and trace["settings"]["tools"] == ["git_git_status"]


def test_ask_refuses_an_mcp_tool_whose_server_is_not_configured(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([" Done.\nAction 1: Finish[x]"]))
    out = cli("ask", "q", "--provider", "scripted", "--script", str(script), "--tools", "git_git_status", servers={})
    assert out.returncode == 2
    assert "git_git_status cannot be used: no MCP server named 'git'" in out.stderr
