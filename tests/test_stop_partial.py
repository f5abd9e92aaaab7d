"""What a person does mid-run, in the run service (issue 33 items 8 and 9): Stop keeps the step the model was writing
(its thought so far, its tokens, marked as stopped, nothing of it run) and a run stopped before any text is not kept;
"Pause here" leaves the run paused at the step being written, resumable like a step-mode pause."""

from __future__ import annotations

import threading

import pytest

import react_core
from react_core.base.events import ActionParsed, Paused, RunDone, StepDone, TextDelta
from react_core.report.exports import Saying, to_markdown

Q = "What is 6 * 7?"
COMPUTE = " I need to multiply six by seven first.\nAction 1: Calculator[6 * 7]"
FINISH = " It is 42.\nAction 2: Finish[42]"


def settings(*outputs, **extra) -> react_core.RunSettings:
    return react_core.RunSettings(provider="scripted", script=list(outputs), tools=["calculator"], **extra)


@pytest.fixture
def store(monkeypatch, tmp_path):
    monkeypatch.setenv("REACT_HISTORY_DB", str(tmp_path / "history.sqlite"))
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    return react_core.open_history()


def run_until(request: react_core.RunRequest, store, when, signal: threading.Event) -> tuple[react_core.Run, list]:
    """The run, ``signal`` set at the first event ``when`` accepts (Stop or Pause here pressed then)."""
    run = react_core.Run(request, react_core.Keeping(store=store))
    events = []
    for event in run:
        events.append(event)
        if not signal.is_set() and when(event):
            signal.set()
    return run, events


def writing(index: int):
    return lambda e: isinstance(e, TextDelta) and e.index == index and e.text.strip()


# -- Stop ------------------------------------------------------------------------------------------------------


def test_stop_while_the_model_writes_keeps_the_thought_so_far_as_a_stopped_step_and_saves_it(store):
    cancel = threading.Event()
    request = react_core.RunRequest(Q, settings(COMPUTE, FINISH), cancel=cancel)
    run, events = run_until(request, store, writing(1), cancel)
    trace = run.trace
    assert trace.stop_reason == "cancelled" and trace.error is None
    [step] = trace.steps
    assert step.stopped and step.thought and COMPUTE.strip().startswith(step.thought)  # what it had written by then
    assert step.raw_output and COMPUTE.startswith(step.raw_output) and step.raw_output != COMPUTE
    assert step.action is None and step.observation is None and step.final_answer is None  # nothing of it was run
    assert step.usage.prompt_tokens > 0 and step.usage.completion_tokens > 0  # the tokens it cost are counted
    assert step.call is not None and step.call.finish_reason == "cancelled"  # its model call, as far as it went
    assert trace.summary().startswith("Stopped by you · 1 step · ")
    assert not trace.summary().endswith(" 0 tokens")
    assert [type(e) for e in events[-2:]] == [StepDone, RunDone]  # a watcher (the CLI, the arena) sees the step
    saved = store.get(run.run_id)
    assert saved is not None and saved.trace.steps[0].stopped and saved.trace.steps[0].thought == step.thought
    assert Saying(step, "paper").text == "(stopped while writing)"
    assert "(stopped while writing)" in to_markdown(trace)


def test_stop_in_the_second_step_keeps_the_first_and_the_second_as_far_as_it_got(store):
    cancel = threading.Event()
    request = react_core.RunRequest(Q, settings(COMPUTE, FINISH), cancel=cancel)
    run, _ = run_until(request, store, writing(2), cancel)
    first, second = run.trace.steps
    assert first.observation.text == "6 * 7 = 42" and not first.stopped
    assert second.stopped and FINISH.strip().startswith(second.thought) and second.final_answer is None
    assert run.trace.final_answer is None and store.count() == 1


def test_a_run_stopped_before_the_model_wrote_anything_is_neither_saved_nor_a_step(store, tmp_path):
    cancel = threading.Event()
    gate = tmp_path / "never-opened"
    request = react_core.RunRequest(Q, settings({"text": COMPUTE, "gate": str(gate)}), cancel=cancel)
    run, _ = run_until(request, store, lambda e: True, cancel)  # Stop at the first event: the model has not begun
    assert run.trace.stop_reason == "cancelled" and run.trace.steps == []
    assert run.run_id is None and store.count() == 0  # History is not cluttered with an empty run


def test_a_retry_stopped_before_any_new_text_is_not_saved_again(store):
    failed = react_core.Run(react_core.RunRequest(Q, settings(COMPUTE)), react_core.Keeping(store=store))
    first = failed.result()  # the script runs out at step 2
    assert first.stop_reason == "error" and len(first.steps) == 1 and store.count() == 1
    cancel = threading.Event()
    cancel.set()
    request = react_core.RunRequest(Q, settings(FINISH), prior_steps=first.steps, cancel=cancel)
    run = react_core.Run(request, react_core.Keeping(store=store))
    assert run.result().stop_reason == "cancelled" and run.run_id is None and store.count() == 1


def test_stop_while_a_stopped_step_is_continued_from_an_edited_thought_keeps_the_seed(store):
    cancel = threading.Event()
    seed = "I must compute six times seven."
    request = react_core.RunRequest(Q, settings(" So\nAction 1: Calculator[6 * 7]"), resume_thought=seed, cancel=cancel)
    run, _ = run_until(request, store, writing(1), cancel)
    [step] = run.trace.steps
    assert step.stopped and step.thought.startswith(seed)  # the thought it was continuing is part of what it wrote


# -- Pause here ------------------------------------------------------------------------------------------------


def test_pause_here_while_the_model_writes_pauses_at_that_step_before_its_action_and_resumes(store):
    pause = threading.Event()
    request = react_core.RunRequest(Q, settings(COMPUTE, FINISH), pause=pause)
    run, events = run_until(request, store, writing(1), pause)
    trace = run.trace
    assert trace.stop_reason == "paused" and isinstance(events[-2], Paused)
    step = trace.pending_step()
    assert step.index == 1 and step.pending == "tool" and step.observation is None  # written whole, not run
    assert step.action == react_core.Action("calculator", "6 * 7") and not step.stopped
    assert "pause_before" not in trace.settings  # the run's own breakpoints: none; the person asked here
    assert store.get(run.run_id).stop_reason == "paused"  # saved, to be resumed like a step-mode pause
    resumed = react_core.Run.resume(store, run.run_id, react_core.Decision("run"), provider=run.provider)
    done = resumed.result()
    assert done.stop_reason == "finished" and done.final_answer == "42" and store.count() == 1


def test_pause_here_while_a_tool_runs_pauses_at_the_next_step(store):
    pause = threading.Event()
    request = react_core.RunRequest(Q, settings(COMPUTE, FINISH), pause=pause)
    run, _ = run_until(request, store, lambda e: isinstance(e, ActionParsed), pause)
    first, second = run.trace.steps
    assert first.observation.text == "6 * 7 = 42" and not first.pending  # the action under way finished
    assert second.pending == "finish" and run.trace.final_answer is None  # paused before the answer


def test_pause_here_is_not_taken_in_the_tools_dialect_whose_replies_may_hold_several_calls(store):
    pause = threading.Event()
    call = {"text": "Compute.", "tool_calls": [{"name": "calculator", "arguments": {"expression": "6 * 7"}}]}
    answer = {"text": "", "tool_calls": [{"name": "finish", "arguments": {"answer": "42"}}]}
    request = react_core.RunRequest(Q, settings(call, answer, preset="tools"), pause=pause)
    run, _ = run_until(request, store, lambda e: isinstance(e, TextDelta), pause)
    assert run.trace.stop_reason == "finished" and run.trace.final_answer == "42"


@pytest.mark.parametrize("export", ["json", "otlp", "atif"])
def test_a_stopped_step_survives_every_export_and_reads_back(store, export):
    from react_core.telemetry.imports import read_trace_file

    cancel = threading.Event()
    run, _ = run_until(react_core.RunRequest(Q, settings(COMPUTE, FINISH), cancel=cancel), store, writing(1), cancel)
    exported = react_core.RunExport(run.trace).download(export, include_content=True).data
    back = read_trace_file(exported).trace
    [step] = back.steps
    assert back.stop_reason == "cancelled" and step.thought == run.trace.steps[0].thought
    assert "(stopped while writing)" in react_core.RunExport(run.trace).download("html").data
