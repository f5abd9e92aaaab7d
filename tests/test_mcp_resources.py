"""An MCP server's resources, against our server (tests/mcp_server.py, on the SDK's MCPServer): a tool's resource link
names the tool that reads it, ``{server}_read_resource`` reads it with ``resources/read`` (text, binary named, a long
one capped, one past 1 MiB refused, an unknown URI an error observation), the record says it was a read, ``mcp list``
and Settings show the resources, and a whole run follows a link; a server without resources gets no reader."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
from app_helpers import ask, go, last_trace, markdowns, new_session, open_panels, unescape, use_app
from mcp.types import ServerCapabilities, ToolsCapability
from mcp_helpers import GIT_SERVER, git_repository

from react_core.base.trace import Action, McpCall, Trace
from react_core.loop.agent import Agent
from react_core.loop.settings import RunSettings, build_run_config
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.mcp import mcp_tools, server_statuses
from react_core.tools.mcp_config import server_config
from react_core.tools.mcp_results import MAX_RECORDED_CHARS
from react_core.tools.registry import MAX_OBSERVATION_CHARS, ToolRegistry

NOTES = "The notes say: the meeting moved to Thursday."


@pytest.fixture(scope="module")
def url(our_url):
    return our_url


@pytest.fixture
def ours(url):
    return server_config("t", {"url": url, "timeout": 10})


def registry(config, *names):
    return ToolRegistry(mcp_tools(names, [config]))


def test_a_resource_link_names_its_reader_and_reading_it_gives_the_text(ours):
    tools = registry(ours, "t_where_notes", "t_read_resource")
    linked = tools.run(Action("t_where_notes", "{}"))
    assert linked.text.endswith("[resource link: notes://meeting (meeting); read it with t_read_resource]")
    read = tools.run(Action("t_read_resource", "notes://meeting"))
    assert read.text == NOTES and not read.is_error and read.evidence
    assert read.mcp.method == "resources/read" and read.mcp.arguments == {"uri": "notes://meeting"}
    assert read.mcp.result["contents"][0]["text"] == NOTES
    # The record says it was a read; a tool call's record reads as it always did.
    assert McpCall.from_dict(json.loads(json.dumps(read.mcp.to_dict()))) == read.mcp
    assert "method" not in linked.mcp.to_dict()
    alone = registry(ours, "t_where_notes").run(Action("t_where_notes", "{}"))  # without the reader: just the link
    assert alone.text.endswith("[resource link: notes://meeting (meeting)]")


def test_binary_long_and_unknown_resources(ours):
    tools = registry(ours, "t_read_resource")
    picture = tools.run(Action("t_read_resource", "notes://picture"))
    assert picture.text == "[binary resource omitted: notes://picture (image/png, 70 bytes)]"
    assert picture.mcp.result["contents"][0]["blob"] == "[96 characters of base64 omitted]"
    long = tools.run(Action("t_read_resource", "notes://big/50000"))  # through its URI template
    assert len(long.text) <= MAX_OBSERVATION_CHARS and long.text.endswith("[… cut at 10,000 characters]")
    assert len(json.dumps(long.mcp.result)) < MAX_RECORDED_CHARS + 1000
    unknown = tools.run(Action("t_read_resource", "notes://none"))
    assert unknown.is_error and "Unknown resource: notes://none" in unknown.text and unknown.mcp.result is None
    huge = tools.run(Action("t_read_resource", "notes://big/2000000"))  # past the 1 MiB bound on one message
    assert huge.is_error and "more than 1,048,576 bytes" in huge.text
    assert tools.run(Action("t_read_resource", "notes://meeting")).text == NOTES  # and the next read works
    empty = tools.run(Action("t_read_resource", ""))
    assert empty.is_error and "t_read_resource" in empty.text and '"required":["uri"]' in empty.text


def test_settings_list_the_resources_and_the_reader_as_read_only(ours, tmp_path):
    (status,) = server_statuses([ours])
    reader = next(t for t in status.tools if t.name == "t_read_resource")
    assert reader.reads and status.marking(reader) == "read-only" and reader.spec().param == "uri"
    uris = [r["uri"] for r in status.resources]
    assert uris == ["notes://meeting", "notes://picture", "notes://big/{size}"]
    assert status.resources[0] == {
        "uri": "notes://meeting",
        "name": "meeting",
        "description": "The meeting notes.",
        "mime_type": "text/plain",
    }
    repo = git_repository(tmp_path / "repo")  # the reference git server declares resources and lists none
    git = server_config("git", {"command": GIT_SERVER, "args": ["--repository", str(repo)]})
    (status,) = server_statuses([git])
    assert status.connected and status.resources == [] and "git_read_resource" in [t.name for t in status.tools]
    # A server that does not declare the resources capability gets no reader.
    from react_core.tools.mcp import offered

    silent = SimpleNamespace(tools=[], capabilities=ServerCapabilities(tools=ToolsCapability()))
    assert offered("quiet", silent) == []


def test_mcp_list_shows_the_resources(url):
    env = {**os.environ, "REACT_MCP_SERVERS": json.dumps({"t": {"url": url}}), "REACT_SECRETS_PATH": ""}
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    run = [sys.executable, "-m", "react_core", "mcp", "list"]
    out = subprocess.run(run, capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert "  t_read_resource [read-only]: Reads a resource of the MCP server t by its URI" in out.stdout
    assert "  resources (3):\n    notes://meeting — meeting (text/plain): The meeting notes.\n" in out.stdout
    assert "    notes://big/{size} — big (text/plain)\n" in out.stdout
    listed = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True, timeout=120, env=env).stdout)
    assert [r["uri"] for r in listed[0]["resources"]][:2] == ["notes://meeting", "notes://picture"]


FOLLOW = [
    "Thought 1: Where are the notes?\nAction 1: T_where_notes[{}]",
    "Thought 2: Read the link.\nAction 2: T_read_resource[notes://meeting]",
    "Thought 3: Thursday.\nAction 3: Finish[Thursday]",
]


def test_a_run_follows_a_resource_link(url, monkeypatch):
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps({"t": {"url": url}}))
    settings = RunSettings(provider="scripted", tools=["t_where_notes", "t_read_resource"])
    trace = Agent(build_run_config(settings, provider=ScriptedProvider(FOLLOW))).run("When is the meeting?")
    assert trace.final_answer == "Thursday", trace.to_dict()
    assert trace.steps[1].observation.text == NOTES
    assert "Reads a resource of the MCP server t by its URI" in trace.steps[0].call.system  # listed like any tool
    again = Trace.from_dict(json.loads(json.dumps(trace.to_dict())))
    assert again.steps[1].observation.mcp.method == "resources/read"


def test_the_step_panel_shows_a_read_as_the_request_the_server_received(monkeypatch, tmp_path, url):
    use_app(monkeypatch, tmp_path, FOLLOW)
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps({"t": {"url": url}}))
    at = go(new_session(), "settings")
    assert "Resources (3)" in [unescape(p.proto.popover.label) for p in at.get("popover")]
    assert "notes://meeting — meeting: The meeting notes." in [unescape(c.value) for c in at.caption]
    at.checkbox(key="set-tool-t_where_notes").check().run()
    at.checkbox(key="set-tool-t_read_resource").check().run()
    go(at, "chat")
    at = ask(at, "When is the meeting?")
    assert last_trace(at)["final_answer"] == "Thursday"
    assert any("server t · resources/read · " in c.value for c in open_panels(at).caption)
    assert "**MCP call**" in markdowns(at)


def test_a_reads_record_says_how_it_went_and_its_span_names_resources_read(ours, url):
    from otel_helpers import mcp_run

    from react_core.telemetry.spans import run_spans

    read = registry(ours, "t_read_resource").run(Action("t_read_resource", "notes://meeting"))
    assert (read.mcp.transport, read.mcp.url) == ("streamable-http", url)
    assert read.mcp.protocol_version == "2026-07-28"
    trace = mcp_run()
    trace.steps[0].action, trace.steps[0].observation = Action("t_read_resource", "notes://meeting"), read
    tool = run_spans(trace)[2]
    assert tool.attributes["mcp.method.name"] == "resources/read"  # not the tools/call it is not
    assert tool.attributes["mcp.protocol.version"] == "2026-07-28" and tool.attributes["network.transport"] == "tcp"
