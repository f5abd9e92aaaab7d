"""A tool its MCP server does not declare read-only is destructive (the MCP schema's defaults: ``readOnlyHint`` false,
``destructiveHint`` true; a tool declaring itself merely additive still writes): refused unless the operator allows
destructive tools, marked so in Settings, and in step mode a person approves one call at the ``destructive``
breakpoint with Run. Our server (tests/mcp_server.py) offers ``run_command`` without annotations, ``append_note``
declared additive, ``wipe`` declared destructive and ``echo`` declared read-only."""

from __future__ import annotations

import json

import pytest
from mcp_helpers import our_server

from react_core.base.events import final_trace
from react_core.base.trace import Action, Step
from react_core.loop.agent import Agent
from react_core.loop.pause import Decision, resume
from react_core.loop.settings import RunSettings, build_run_config
from react_core.providers.keys import lending
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.mcp import mcp_tools, server_statuses
from react_core.tools.mcp_client import POOL
from react_core.tools.mcp_config import operator_servers, server_config
from react_core.tools.registry import ToolRegistry

GUARDED = ["t_run_command", "t_append_note", "t_wipe"]
CALL = "Thought 1: List the files.\nAction 1: T_run_command[ls]"
FINISH = "Thought 2: Done.\nAction 2: Finish[done]"


@pytest.fixture(scope="module")
def url():
    with our_server() as (address, _proc):
        yield address
        POOL.close_all()


@pytest.fixture(autouse=True)
def operators(monkeypatch, url):
    monkeypatch.delenv("REACT_MCP_ALLOW_DESTRUCTIVE", raising=False)
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps({"t": {"url": url, "timeout": 10}}))


@pytest.mark.parametrize("name", GUARDED)
def test_a_tool_not_declared_read_only_is_refused_unless_the_operator_allows_it(monkeypatch, url, name):
    config = server_config("t", {"url": url, "timeout": 10})
    (status,) = server_statuses([config])
    tool = {t.name: t for t in status.tools}[name]
    assert tool.destructive and not tool.read_only
    assert status.marking(tool) == "destructive: refused unless you approve the call in step mode"
    assert status.marking({t.name: t for t in status.tools}["t_echo"]) == "read-only"
    tools = ToolRegistry(mcp_tools([name], [config]))
    refused = tools.run(Action(name, "x"))
    assert (
        refused.is_error and "not declared read-only" in refused.text and "REACT_MCP_ALLOW_DESTRUCTIVE" in refused.text
    )
    assert refused.mcp.result is None and refused.mcp.error
    monkeypatch.setenv("REACT_MCP_ALLOW_DESTRUCTIVE", "1")
    allowed = tools.run(Action(name, "x"))
    assert not allowed.is_error and allowed.mcp.result is not None
    assert status.marking(tool) == "destructive: allowed by the operator"


def run(script: list[str], pause_before=(), **settings):
    agent = Agent(
        build_run_config(
            RunSettings(provider="scripted", tools=["t_run_command"], pause_before=list(pause_before), **settings),
            provider=ScriptedProvider(script),
        )
    )
    return agent, agent.run("Which files are there?")


def test_outside_step_mode_the_call_is_refused_and_the_run_goes_on():
    _, trace = run([CALL, FINISH])
    assert trace.stop_reason == "finished"
    assert trace.steps[0].observation.is_error and "not declared read-only" in trace.steps[0].observation.text


def test_in_step_mode_run_approves_the_one_call():
    agent, trace = run([CALL, FINISH], pause_before=Step.BREAKPOINTS)
    assert trace.stop_reason == "paused" and trace.steps[0].pending == "destructive"
    assert trace.steps[0].observation is None  # nothing ran
    done = final_trace(resume(agent, trace, Decision("run", by="alice")))
    step = done.steps[0]
    assert not step.observation.is_error and step.observation.text == "ran ls"
    assert [(n.kind, n.at, n.by) for n in step.interventions] == [("run", "destructive", "alice")]
    assert done.stop_reason == "paused" and done.steps[-1].pending == "finish"  # and the run went on


def test_an_edited_call_is_shown_again_before_it_runs():
    agent, trace = run([CALL, FINISH], pause_before=["destructive"])
    again = final_trace(resume(agent, trace, Decision("edit", text="Action 1: T_run_command[rm -rf /tmp/x]")))
    step = again.steps[0]
    assert again.stop_reason == "paused" and step.pending == "destructive" and step.observation is None
    assert step.action == Action("t_run_command", "rm -rf /tmp/x")
    done = final_trace(resume(agent, again, Decision("run")))
    assert done.steps[0].observation.text == "ran rm -rf /tmp/x" and done.stop_reason == "finished"


def test_run_at_another_breakpoint_does_not_approve():
    agent, trace = run([CALL, FINISH], pause_before=["tool"])
    assert trace.steps[0].pending == "tool"
    done = final_trace(resume(agent, trace, Decision("run")))
    assert done.steps[0].observation.is_error and "not declared read-only" in done.steps[0].observation.text


def test_a_visitor_cannot_approve_a_call_on_the_operators_server():
    with lending(own_endpoints=True):  # public demo or signed-in mode
        agent, trace = run([CALL, FINISH], pause_before=Step.BREAKPOINTS)
        assert trace.steps[0].pending == "tool"  # asked before the call as any call, never for an approval
        done = final_trace(resume(agent, trace, Decision("run")))
    assert done.steps[0].observation.is_error and "step mode" not in done.steps[0].observation.text
    (status,) = server_statuses(operator_servers(), visitor=True)
    tool = {t.name: t for t in status.tools}["t_run_command"]
    assert status.marking(tool) == "destructive: refused here (the operator has not allowed destructive tools)"


def test_a_visitor_approves_a_call_on_their_own_server(monkeypatch, url):
    monkeypatch.delenv("REACT_MCP_SERVERS")
    monkeypatch.setenv("REACT_MCP_VISITOR_HTTP", "1")
    script = [CALL.replace("T_run_command", "Mine_run_command"), FINISH]
    with lending(own_endpoints=True):
        agent = Agent(
            build_run_config(
                RunSettings(
                    provider="scripted",
                    tools=["mine_run_command"],
                    mcp_servers={"mine": url},
                    pause_before=["destructive"],
                ),
                provider=ScriptedProvider(script),
            )
        )
        trace = agent.run("Which files are there?")
        assert trace.steps[0].pending == "destructive"
        done = final_trace(resume(agent, trace, Decision("run")))
    assert done.steps[0].observation.text == "ran ls"
