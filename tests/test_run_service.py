"""Every client of the run service keeps its runs the same way (issue 30 item 21): a run started from the chat job, an
arena column, the evaluation's agent strategies, ``ask``, step mode and a paused run resumed from History, and the
bootstrap reaches the live OpenTelemetry endpoint (a receiver on 127.0.0.1, tests/otel_helpers.py) once, finished; a
paused run is saved but not sent until it ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from otel_helpers import Receiver

import react_core
from react_core.providers.scripted import ScriptedProvider
from react_core.telemetry import live

ROOT = Path(__file__).resolve().parent.parent
COMPUTE, FINISH = " Compute.\nAction 1: Calculator[6 * 7]", " So.\nAction 2: Finish[42]"
Q = "What is 6 * 7?"


@pytest.fixture
def receiver(monkeypatch, tmp_path):
    """The operator's endpoint, with messages (so each run says its question), and a history of this test's own."""
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.setattr(live, "_live", None)
    monkeypatch.setattr(live, "_setup_problem", "")
    r = Receiver()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", r.base + "/v1/traces")
    monkeypatch.setenv("REACT_OTEL_CONTENT", "1")
    monkeypatch.setenv("REACT_HISTORY_DB", str(tmp_path / "history.sqlite"))
    yield r
    if live._live is not None:
        live._live.shutdown()
    r.close()


def sent(r: Receiver) -> list[dict]:
    """Each run the endpoint received: its run span's attributes (question, stop reason, settings, expected answer)."""
    assert live.flush(30)
    runs = []
    for span in (s for batch in r.requests for s in batch if s.name == "invoke_agent ReAct Lab"):
        values = {a.key: getattr(a.value, a.value.WhichOneof("value")) for a in span.attributes}
        runs.append({**values, "settings": json.loads(values["reactlab.settings"])})
    return runs


def once_finished(runs: list[dict], question: str = Q) -> dict:
    mine = [run for run in runs if run["reactlab.question"] == question]
    assert len(mine) == 1, f"{question!r} was sent {len(mine)} times"
    assert mine[0]["reactlab.stop_reason"] == "finished"
    return mine[0]


def paused_run() -> tuple[react_core.RunSettings, react_core.Trace]:
    """A run in step mode, waiting before its Calculator call (not saved: ``ask`` keeps nothing but sends)."""
    settings = react_core.RunSettings(
        provider="scripted", script=[COMPUTE, FINISH], tools=["calculator"], pause_before=["tool"]
    )
    return settings, react_core.ask(Q, settings)


def turn(request, reuse=None):
    from ui.chat.job import TurnJob

    job = TurnJob(request, reuse)
    job.work()
    return job


def test_a_chat_turn_is_sent_once_finished(receiver):
    from ui.chat.job import TurnRequest

    settings = {"provider": "scripted", "script": [COMPUTE, FINISH], "tools": ["calculator"]}
    done = turn(TurnRequest(Q, settings, chat_id="c", turn_id=1)).turn
    assert done.trace.final_answer == "42" and done.history_id is not None
    assert once_finished(sent(receiver))["session.id"] == "c"  # a chat's turns: one session


def test_a_step_mode_turn_is_sent_once_it_ends_not_while_it_waits_and_so_is_one_resumed_from_history(receiver):
    from ui.chat.job import TurnRequest

    settings = {"provider": "scripted", "script": [COMPUTE, FINISH], "tools": ["calculator"], "pause_before": ["tool"]}
    first = turn(TurnRequest(Q, settings, chat_id="c", turn_id=1))
    paused = first.turn
    assert paused.trace.stop_reason == "paused" and paused.history_id is not None  # saved, to be resumed
    assert sent(receiver) == []  # a paused run is not sent half-done
    decision = TurnRequest(
        Q,
        settings,
        chat_id="c",
        turn_id=1,
        prior_steps=paused.trace.steps[:-1],
        decision=react_core.Decision("run"),
        paused=paused.trace,
        history_id=paused.history_id,  # its row in History: resumed from there
        revision=paused.revision,
    )
    done = turn(decision, reuse=first.provider).turn
    assert done.trace.final_answer == "42" and done.history_id == paused.history_id
    assert once_finished(sent(receiver))["session.id"] == "c"


def test_a_paused_run_resumed_from_history_by_a_script_is_sent_once_finished(receiver):
    _, paused = paused_run()
    store = react_core.open_history()
    run_id = store.save(paused)
    assert sent(receiver) == []
    provider = ScriptedProvider([FINISH])  # the script goes on from its second reply
    resumed = react_core.Run.resume(store, run_id, react_core.Decision("run"), provider=provider)
    assert resumed.result().final_answer == "42" and resumed.revision == 2
    once_finished(sent(receiver))


def test_every_arena_column_is_sent_once_finished_with_its_arena_and_the_gold_answer(receiver):
    from test_arena import figure_one_arena

    arena = figure_one_arena(gold="42", store=react_core.open_history())
    assert [r.trace.stop_reason for r in arena.run()] == ["finished"] * 4
    runs = sent(receiver)
    assert len(runs) == 4 and {run["reactlab.stop_reason"] for run in runs} == {"finished"}
    assert sorted(run["settings"]["strategy"] for run in runs) == ["act", "cot", "react", "standard"]
    assert {(run["settings"]["arena"], run["reactlab.expected_answer"]) for run in runs} == {(arena.id, "42")}


def test_the_evaluations_agent_runs_are_sent_once_finished_with_their_gold_answers(receiver, tmp_path):
    from test_evaluation import FINISH as ANSWERS
    from test_evaluation import QUESTIONS, plan_for

    plan_for(tmp_path, ["react"]).run(provider=ScriptedProvider(ANSWERS))
    runs = sent(receiver)
    for q in QUESTIONS:
        run = once_finished(runs, q.question)
        assert run["reactlab.expected_answer"] == q.answer and run["settings"]["strategy"] == "react"


def test_ask_is_sent_once_finished(receiver):
    settings = react_core.RunSettings(provider="scripted", script=[COMPUTE, FINISH], tools=["calculator"])
    assert react_core.ask(Q, settings).final_answer == "42"
    assert "session.id" not in once_finished(sent(receiver))  # a run on its own


def test_ask_in_step_mode_on_the_command_line_is_sent_once_when_it_ends(receiver, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([COMPUTE, FINISH]))
    out = subprocess.run(
        [sys.executable, "-m", "react_core", "ask", Q, "--provider", "scripted", "--script", str(script),
         "--tools", "calculator", "--pause-before", "tool"],
        input="run\n", capture_output=True, text=True, cwd=ROOT, timeout=120, env={**os.environ},
    )  # fmt: skip
    assert out.returncode == 0 and "Final Answer: 42" in out.stdout, out.stderr
    once_finished(sent(receiver))


def test_each_run_of_a_bootstrap_is_sent_once_finished(receiver, tmp_path):
    from test_bootstrap import Arithmetic, plan

    result = plan(tmp_path, train=2, dev=1, candidates=1).run(
        teacher=Arithmetic("teacher"), student=Arithmetic("student")
    )
    assert result.out is not None
    runs = sent(receiver)
    kinds = sorted((run["reactlab.question"], run["settings"]["preset"]) for run in runs)
    teacher = [("What is 2 * 3?", "paper"), ("What is 3 * 3?", "paper")]  # the train questions
    dev = [("What is 4 * 3?", "candidate-1"), ("What is 4 * 3?", "paper")]  # the dev question, each prompt once
    assert kinds == sorted(teacher + dev) and {run["reactlab.stop_reason"] for run in runs} == {"finished"}


# -- what every run gets, whatever ended it ----------------------------------------------------------------------


def test_a_run_that_cannot_start_says_why_and_is_neither_saved_nor_sent(receiver):
    store = react_core.open_history()
    run = react_core.Run(
        react_core.RunRequest(Q, react_core.RunSettings(provider="scripted", preset="no-such-prompt")),
        react_core.Keeping(store=store),
    )
    trace = run.result()
    assert trace.stop_reason == "error" and "no-such-prompt" in trace.error and trace.steps == []
    assert run.run_id is None and store.count() == 0 and sent(receiver) == []


class Unwritable:
    """A history whose disk is full."""

    def save(self, *args, **kwargs):
        raise react_core.ReactLabError("database or disk is full")


def test_a_run_its_history_cannot_keep_says_so_and_is_still_sent(receiver):
    settings = react_core.RunSettings(provider="scripted", script=[COMPUTE, FINISH], tools=["calculator"])
    run = react_core.Run(react_core.RunRequest(Q, settings), react_core.Keeping(store=Unwritable()))
    assert run.result().final_answer == "42"
    assert run.save_error == "This run could not be saved to history: database or disk is full"
    once_finished(sent(receiver))


def test_a_decision_that_cannot_be_taken_leaves_the_paused_run_as_it_was_unsaved_and_unsent(receiver):
    settings, paused = paused_run()
    store = react_core.open_history()
    decision = react_core.Decision("edit", text="Calculator 6*7")  # no brackets: the dialect cannot read it
    run = react_core.Run(
        react_core.RunRequest(Q, settings, decision=decision, paused=paused), react_core.Keeping(store=store)
    )
    events = list(run)
    assert [type(e).__name__ for e in events] == ["RunDone"] and events[0].trace is paused
    assert run.refused.startswith("The edited action was not taken") and store.count() == 0
    assert sent(receiver) == []


def test_a_run_read_again_gives_its_end_and_is_kept_once(receiver):
    settings = react_core.RunSettings(provider="scripted", script=[COMPUTE, FINISH], tools=["calculator"])
    store = react_core.open_history()
    run = react_core.Run(react_core.RunRequest(Q, settings), react_core.Keeping(store=store))
    first = run.result()
    assert [type(e).__name__ for e in run] == ["RunDone"] and run.trace is first
    assert store.count() == 1
    once_finished(sent(receiver))
