"""A run whose own steps end without an answer (a loop, the budget spent): stopped there by default (the paper's
environment), or asked once more for its final answer under ``early_stopping="generate"``, as LangChain's
AgentExecutor does with that setting: one call beyond the budget, its thought started with LangChain's words, only
Finish allowed, and the run saying it answered only when asked."""

from __future__ import annotations

import argparse

import pytest

from react_core.base.call_records import CallTexts
from react_core.base.errors import ConfigError, ProviderError
from react_core.base.events import StepDone, StepStarted
from react_core.base.trace import Observation, Trace
from react_core.base.trace_schema import validate_trace
from react_core.cli.options import add_run_options, settings_from_args
from react_core.dialects import DIALECTS, get_dialect
from react_core.evaluation.figure3 import held_out_scores
from react_core.loop.agent import ANSWER_AT_STOP, Agent, RunConfig
from react_core.loop.settings import RunSettings, build_run_config
from react_core.presets.preset import Preset, load_preset
from react_core.providers.scripted import ScriptedProvider
from react_core.report.checks import finished
from react_core.tools.registry import Tool, ToolRegistry

LOOPING = [f" again\nAction {i}: Search[High Plains]" for i in (1, 2, 3)]


class Constrained(ScriptedProvider):
    constrained = True  # as the on-device model: the requests carry a grammar


def searches(ran: list[str] | None = None) -> ToolRegistry:
    def search(q: str) -> Observation:
        if ran is not None:
            ran.append(q)
        return Observation(f"{q} is a thing.")

    return ToolRegistry([Tool("search", search)])


def run(outputs, *, dialect="paper", early_stopping="generate", max_calls=8, provider=None, tools=None):
    provider = provider or ScriptedProvider(outputs)
    config = RunConfig(
        provider=provider,
        preset=Preset(name=f"t-{dialect}", dialect=dialect, instructions="Use:\n{tools}", examples=""),
        tools=tools or searches(),
        max_calls=max_calls,
        early_stopping=early_stopping,
        grammar=True,
    )
    events = list(Agent(config).stream("What is it?"))
    return events[-1].trace, provider, events


def test_by_default_a_loop_ends_the_run_with_no_further_call():
    trace, provider, _ = run([*LOOPING, " So the answer is x.\nAction 4: Finish[x]"], early_stopping="force")
    assert trace.stop_reason == "loop" and trace.final_answer is None
    assert len(provider.requests) == 3 and len(trace.steps) == 3
    assert "early_stopping" not in trace.settings


def test_generate_asks_once_more_after_a_loop_and_the_run_says_it_answered_only_when_asked():
    trace, provider, events = run([*LOOPING, " so it is x.\nAction 4: Finish[x]"])
    assert len(provider.requests) == 4
    asked = provider.requests[-1]
    # The steps so far, then the next step's thought started with LangChain's words; the model goes on from them.
    assert asked.prompt.endswith(f"Observation 3: High Plains is a thing.\nThought 4: {ANSWER_AT_STOP}")
    last = trace.steps[-1]
    assert last.index == 4 and last.final_answer == "x" and last.observation is None
    assert last.thought == f"{ANSWER_AT_STOP} so it is x."
    # The exact call behind the step is recorded as every call is (the inspector and "Copy as Python" rebuild it).
    assert CallTexts.of(trace.steps)[-1].prompt == asked.prompt
    assert trace.final_answer == "x" and trace.stop_reason == "answered_at_stop"
    assert trace.summary().startswith("Answered when asked: its own steps had ended without an answer · 4 steps")
    assert not finished(trace)  # the trajectory check: it did not finish on its own
    assert trace.settings["early_stopping"] == "generate"
    assert [type(e).__name__ for e in events[-2:]] == ["StepDone", "RunDone"]
    assert [e.index for e in events if isinstance(e, StepStarted)][-1] == 4
    assert [e.step.index for e in events if isinstance(e, StepDone)][-1] == 4


def test_generate_asks_once_more_when_the_budget_is_spent():
    outputs = [" a\nAction 1: Search[A]", " b\nAction 2: Search[B]", " done.\nAction 3: Finish[B]", "unused"]
    trace, provider, _ = run(outputs, max_calls=2)
    assert len(provider.requests) == 3  # the budget's two, then the one asking for the answer
    assert trace.stop_reason == "answered_at_stop" and trace.final_answer == "B"


def test_an_action_where_an_answer_was_asked_for_is_not_run_and_the_run_keeps_its_stop_reason():
    ran: list[str] = []
    trace, provider, _ = run([*LOOPING, " more.\nAction 4: Search[Elsewhere]"], tools=searches(ran))
    assert ran == ["High Plains"] * 3  # Elsewhere never searched
    assert trace.stop_reason == "loop" and trace.final_answer is None
    last = trace.steps[-1]
    assert last.action is None and last.observation.is_error
    assert "not run" in last.observation.text


@pytest.mark.parametrize(
    "outputs",
    [
        [" found.\nAction 1: Finish[x]"],  # answered on its own
        [{"error": "quota"}],  # a failure is not the model's steps running out
    ],
)
def test_a_run_that_ends_any_other_way_gets_no_further_call(outputs):
    trace, provider, _ = run([*outputs, "\nAction 9: Finish[never]"])
    assert len(provider.requests) == 1
    assert trace.stop_reason in ("finished", "error") and trace.final_answer in ("x", None)


def test_the_last_call_allows_only_finish_in_the_grammar():
    provider = Constrained([*LOOPING, " so x.\nAction 4: Finish[x]"])
    trace, _, _ = run([], provider=provider)
    paper = get_dialect("paper")
    assert provider.requests[0].grammar == paper.grammar(["search"], 1)
    assert provider.requests[-1].grammar == paper.grammar([], 4)
    assert "Search[" not in provider.requests[-1].grammar and "Finish[" in provider.requests[-1].grammar
    assert trace.stop_reason == "answered_at_stop"


def test_a_dialect_without_thoughts_is_asked_without_one():
    outputs = [" Search[High Plains]" for _ in range(3)] + [" Finish[x]"]
    trace, provider, _ = run(outputs, dialect="act")
    assert provider.requests[-1].prompt.endswith("Action 4:")
    assert trace.final_answer == "x" and trace.stop_reason == "answered_at_stop" and trace.steps[-1].thought == ""


def test_native_tool_calls_are_asked_with_finish_alone_declared():
    call = {"text": "again", "tool_calls": [{"name": "search", "arguments": {"query": "High Plains"}}]}
    answer = {"text": "", "tool_calls": [{"name": "finish", "arguments": {"answer": "x"}}]}
    provider = ScriptedProvider([call, call, call, answer])
    config = RunConfig(
        provider=provider, preset=load_preset("tools"), tools=searches(), max_calls=8, early_stopping="generate"
    )
    trace = Agent(config).run("What is it?")
    assert [t.name for t in provider.requests[0].tools] == ["search", "finish"]
    assert [t.name for t in provider.requests[-1].tools] == ["finish"]
    assert trace.stop_reason == "answered_at_stop" and trace.final_answer == "x"


def test_every_dialect_says_whether_its_steps_carry_a_thought_as_it_renders_them():
    from react_core.base.trace import Step

    for name, dialect in DIALECTS.items():
        if dialect.native_tools:
            continue
        text = dialect.render_model_part(Step(1, thought="QQTHOUGHTQQ", final_answer="x"))
        assert dialect.thinks == ("QQTHOUGHTQQ" in text), name


def test_the_setting_is_checked_carried_to_the_run_recorded_and_given_on_the_command_line():
    with pytest.raises(ConfigError, match="early stopping must be one of force, generate"):
        RunSettings(early_stopping="sometimes").check()
    settings = RunSettings(provider="scripted", script=["x"], tools=[], early_stopping="generate")
    assert build_run_config(settings).early_stopping == "generate"
    assert RunSettings().early_stopping == "force" and set(RunSettings.EARLY_STOPPING) == {"force", "generate"}
    parser = argparse.ArgumentParser()
    add_run_options(parser)
    args = parser.parse_args(["--provider", "scripted", "--early-stopping", "generate"])
    assert settings_from_args(args).early_stopping == "generate"
    assert settings_from_args(parser.parse_args(["--provider", "scripted"])).early_stopping == "force"


def test_a_trace_answered_at_stop_survives_export_and_import():
    trace, _, _ = run([*LOOPING, " so x.\nAction 4: Finish[x]"])
    again = Trace.from_dict(validate_trace(trace.to_dict()))
    assert again.stop_reason == "answered_at_stop" and again.settings["early_stopping"] == "generate"


def test_an_evaluation_under_generate_counts_answers_asked_for_apart_from_finished_episodes(tmp_path):
    """Through the evaluation harness, as a Figure 3 cell: the setting reaches every question's run, and the
    held-out figures count an answer given only when asked apart from the episodes that finished."""
    from app_helpers import offline_pack
    from test_evaluation import QUESTIONS, write_dataset

    from react_core.evaluation import results
    from react_core.evaluation.run import EvalPlan

    replies = [
        " Both are American.\nAction 1: Finish[yes]",
        *[f" again\nAction {i}: Search[Shirley Temple]" for i in (1, 2, 3)],
        " she was Chief of Protocol.\nAction 4: Finish[Chief of Protocol]",
        *[f" again\nAction {i}: Search[Arthur's Magazine]" for i in (1, 2, 3)],
        " more.\nAction 4: Search[First for Women]",  # asked for an answer, it searched: no answer
    ]
    settings = RunSettings(
        provider="scripted", knowledge=f"pack:{offline_pack()}", max_calls=7, early_stopping="generate"
    )
    plan = EvalPlan(
        datasets=[str(write_dataset(tmp_path, QUESTIONS))],
        strategies=["react"],
        out_dir=str(tmp_path / "out"),
        settings=settings,
        names={"react": "fine-tuned-react"},
    )
    plan.run(provider=ScriptedProvider(replies))
    records = results.read_results(results.result_path(tmp_path / "out", "fine-tuned-react"))
    assert [r["stop_reason"] for r in records] == ["finished", "answered_at_stop", "loop"]
    assert [r["em"] for r in records] == [1.0, 1.0, 0.0]  # the answer asked for is scored as any answer
    scores = held_out_scores(records)
    assert (scores["em"], scores["finished"], scores["answered_at_stop"]) == (66.7, 1, 1)
    assert "1 of 3 episodes finished (1 more answered when asked after their steps ended)" in scores["summary"]
    assert "answered_at_stop" not in held_out_scores(records[:1])


def test_a_failure_of_the_last_call_ends_the_run_as_any_failed_call_does():
    class FailsLast(ScriptedProvider):
        def stream(self, request):
            if len(self.requests) == 3:
                self.requests.append(request)
                raise ProviderError("the service is down")
            yield from super().stream(request)

    trace, _, _ = run([], provider=FailsLast(LOOPING))
    assert trace.stop_reason == "error" and "the service is down" in trace.error
    assert trace.failed_call is not None and len(trace.steps) == 3


def test_stop_while_the_last_call_writes_keeps_its_step_as_far_as_it_got(monkeypatch, tmp_path):
    """Stop keeps the step being written, for the call that asks for the answer as for any other (test_stop_partial)."""
    import threading

    import react_core
    from react_core.base.events import TextDelta

    monkeypatch.setenv("REACT_HISTORY_DB", str(tmp_path / "history.sqlite"))
    looping = [f" again\nAction {i}: Calculator[1+1]" for i in (1, 2, 3)]
    script = [*looping, " so the answer must be two, as it said.\nAction 4: Finish[2]"]
    settings = RunSettings(provider="scripted", script=script, tools=["calculator"], early_stopping="generate")
    cancel = threading.Event()
    run = react_core.Run(react_core.RunRequest("What is 1+1?", settings, cancel=cancel), react_core.Keeping())
    for event in run:
        if isinstance(event, TextDelta) and event.index == 4 and event.text.strip():
            cancel.set()
    trace = run.trace
    assert trace.stop_reason == "cancelled" and trace.final_answer is None
    last = trace.steps[-1]
    assert last.index == 4 and last.stopped and last.thought.startswith(ANSWER_AT_STOP)
    assert last.final_answer is None and last.observation is None
