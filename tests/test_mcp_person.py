"""A person in the loop of MCP, against our server (tests/mcp_server.py, on the SDK's MCPServer): a long call's
progress streams into the run's events and the step panel while it runs; a server's question (an elicitation, which at
today's revision comes back with the call's result) pauses the run like step mode, is kept in the trace, and the
person's answer goes back to the server, from another process too (the Chat page and ``ask --pause-before input``);
without the ``input`` breakpoint it is declined and the run goes on; a tool that runs only as a task is marked and not
offered."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from app_helpers import go, new_session, unescape, use_app, wait_idle
from mcp_helpers import our_server, until_drawn
from provider_helpers import wait_for

from react_core.base.errors import ConfigError
from react_core.base.events import StepDone, ToolProgress, final_trace
from react_core.base.trace import Action, Trace
from react_core.loop.agent import Agent
from react_core.loop.pause import Decision
from react_core.loop.service import Run, RunRequest
from react_core.loop.settings import RunSettings, build_run_config
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.mcp import mcp_tools, server_statuses
from react_core.tools.mcp_client import POOL
from react_core.tools.mcp_config import server_config
from react_core.tools.registry import ToolRegistry

BOOK = ["Thought 1: Book it.\nAction 1: T_book[friday]", "Thought 2: Done.\nAction 2: Finish[booked]"]


@pytest.fixture(scope="module")
def url(our_url):
    return our_url


@pytest.fixture
def servers(url, monkeypatch):
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps({"t": {"url": url, "timeout": 10}}))
    return url


def agent(script, tools, pause_before=()):
    settings = RunSettings(provider="scripted", tools=tools, pause_before=list(pause_before))
    return Agent(build_run_config(settings, provider=ScriptedProvider(script)))


def test_progress_of_a_long_call_streams_before_its_step_is_done(servers):
    script = ['Thought 1: Go.\nAction 1: T_stages[{"n": 3}]', "Thought 2: Done.\nAction 2: Finish[done]"]
    events = list(agent(script, ["t_stages"]).stream("Run the stages."))
    seen = [e for e in events if isinstance(e, ToolProgress | StepDone)]
    assert [e.text for e in seen[:3]] == ["1 of 3 · stage 1", "2 of 3 · stage 2", "3 of 3 · stage 3"]
    assert isinstance(seen[3], StepDone) and seen[3].step.observation.text == "3 stages done"
    assert all(e.index == 1 for e in seen[:3])


def test_a_question_pauses_the_run_and_the_answer_goes_back_from_another_process(servers):
    settings = RunSettings(provider="scripted", tools=["t_book"], pause_before=["input"])
    trace = final_trace(Run(RunRequest("Book a table on Friday.", settings, provider=ScriptedProvider(BOOK))))
    step = trace.steps[-1]
    assert trace.stop_reason == "paused" and step.pending == "input"
    question = step.observation.mcp.asks["questions"]
    ((key, asked),) = question.items()
    assert asked["message"] == "How many seats, and under what name?"
    assert asked["schema"]["required"] == ["seats", "name"] and step.observation.mcp.asks["request_state"]
    kept = Trace.from_dict(json.loads(json.dumps(trace.to_dict())))  # as History keeps it
    POOL.close_all()  # as after a restart: the call held nothing open

    def later(decision: Decision) -> Run:
        """The kept run taken on by the run service with its own recorded settings, the decision checked first."""
        run = Run(RunRequest(decision=decision, paused=kept, provider=ScriptedProvider(BOOK[1:])))
        run.prepare()
        return run

    with pytest.raises(ConfigError, match="does not fit the fields it asked for at 'seats'"):
        later(Decision("answer", text='{"seats": 40, "name": "Ada"}'))  # refused before it is sent
    with pytest.raises(ConfigError, match="waiting for your answer"):
        later(Decision("run"))
    done = final_trace(later(Decision("answer", text='{"seats": 2, "name": "Ada"}', by="ada")))
    step = done.steps[0]
    assert step.observation.text == "booked 2 seats for Ada on friday" and step.observation.mcp.asks is None
    (note,) = step.interventions
    assert (note.kind, note.at, note.by) == ("answer", "input", "ada")
    assert note.before.startswith("How many seats") and json.loads(note.after) == {"seats": 2, "name": "Ada"}
    assert done.final_answer == "booked" and done.stop_reason == "finished"
    declined = final_trace(later(Decision("answer", text="decline")))
    assert declined.steps[0].observation.text == "not booked: the person chose to decline"


def test_without_the_input_breakpoint_the_question_is_declined_and_the_run_goes_on(servers):
    trace = agent(BOOK, ["t_book"]).run("Book a table on Friday.")
    assert trace.stop_reason == "finished" and not trace.steps[0].pending
    assert trace.steps[0].observation.text == "not booked: the person chose to decline"


def test_a_server_of_the_revision_before_asks_mid_call_and_is_declined():
    with our_server(era="2025-11-25") as (old, _proc):
        tools = ToolRegistry(mcp_tools(["o_book"], [server_config("o", {"url": old})]))
        said = tools.run(Action("o_book", "friday"))
        assert said.text == "not booked: the person chose to decline" and said.mcp.asks is None
        POOL.close_all()


def test_a_tool_that_runs_only_as_a_task_is_marked_and_not_offered():
    with our_server(era="2025-11-25") as (old, _proc):
        config = server_config("o", {"url": old})
        (status,) = server_statuses([config])
        job = next(t for t in status.tools if t.name == "o_long_job")
        assert job.needs_tasks and status.marking(job).startswith("not offered: it runs only as an MCP task")
        said = ToolRegistry(mcp_tools(["o_long_job"], [config])).run(Action("o_long_job", '{"n": 1}'))
        assert said.is_error and "runs only as an MCP task (taskSupport: required)" in said.text
        assert said.mcp.result is None  # never sent
        POOL.close_all()


def test_ask_pause_before_input_reads_the_answer_from_a_line(url, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(BOOK))
    env = {**os.environ, "REACT_MCP_SERVERS": json.dumps({"t": {"url": url}}), "REACT_SECRETS_PATH": ""}
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    run = [sys.executable, "-m", "react_core", "ask", "Book Friday.", "--provider", "scripted", "--script", str(script)]
    out = subprocess.run(
        [*run, "--tools", "t_book", "--pause-before", "input"],
        input='answer {"seats": "three"}\nanswer {"seats": 3, "name": "Bo"}\n',
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert "Paused when an MCP server asks you something (step 1)" in out.stdout
    assert "The MCP server asks: How many seats, and under what name?" in out.stdout
    assert "Not sent: the answer does not fit the fields it asked for" in out.stdout, out.stdout  # asked again
    assert "booked 3 seats for Bo on friday" in out.stdout and "Final Answer: booked" in out.stdout


def test_the_chat_shows_progress_while_a_call_runs_and_asks_the_person(monkeypatch, tmp_path, url):
    gate = tmp_path / "gate"
    script = [
        f'Thought 1: Go.\nAction 1: T_stages[{{"n": 2, "gate": "{gate}"}}]',
        "Thought 2: Book it.\nAction 2: T_book[friday]",
        "Thought 3: Done.\nAction 3: Finish[booked]",
    ]
    use_app(monkeypatch, tmp_path, script)
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps({"t": {"url": url}}))
    at = go(new_session(), "settings")
    assert until_drawn(at, lambda: any(c.key == "set-tool-t_stages" for c in at.checkbox))  # connected
    at.checkbox(key="set-tool-t_stages").check().run()
    at.checkbox(key="set-tool-t_book").check().run()
    go(at, "chat")
    at.toggle(key="chat-step-mode").set_value(True).run()
    at.multiselect(key="chat-breakpoints").set_value(["input"]).run()
    at.chat_input[0].set_value("Run the stages, then book Friday.").run()

    def progress_shown() -> bool:
        at.run()
        return "Progress: 1 of 2 · stage 1" in [unescape(c.value) for c in at.caption]

    shown = wait_for(progress_shown, timeout=60)  # the call waits at its gate: its progress so far is on the panel
    assert shown, [unescape(c.value) for c in at.caption]
    gate.write_text("go", encoding="utf-8")
    at = wait_idle(at, timeout=60)
    turn = at.session_state.chat["turns"][-1]
    assert turn.trace.steps[-1].pending == "input"
    assert any(t.value == "How many seats, and under what name?" for t in at.text)
    key = f"t{turn.id}-s2"
    ((qkey, _),) = turn.trace.steps[-1].observation.mcp.asks["questions"].items()
    at.number_input(key=f"{key}-{qkey}-seats").set_value(4)
    at.text_input(key=f"{key}-{qkey}-name").set_value("Cy")
    at.button(key=f"{key}-send").click().run()
    at = wait_idle(at, timeout=60)
    trace = at.session_state.chat["turns"][-1].trace
    assert trace.steps[1].observation.text == "booked 4 seats for Cy on friday" and trace.final_answer == "booked"
