"""Step mode in the engine, driven by the scripted provider: each breakpoint, each decision, the record they leave,
and a paused run resumed from History by a new store (a restart) on SQLite and PostgreSQL, once only."""

from __future__ import annotations

import json
import threading

import pytest

from react_core.base import call_records
from react_core.base.errors import ConfigError, Conflict
from react_core.base.events import Paused, RunDone, StepDone, final_trace
from react_core.base.trace import STOP_REASONS, Action, Trace
from react_core.base.trace_schema import InvalidTrace, load_trace_json
from react_core.history import open_history
from react_core.loop.agent import Agent, RunConfig
from react_core.loop.pause import Decision, parse_decision, resume
from react_core.loop.service import Run
from react_core.presets.preset import Preset
from react_core.providers.scripted import ScriptedProvider
from react_core.report.exports import to_markdown
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import MAX_OBSERVATION_CHARS, ToolRegistry

COMPUTE = " Compute it.\nAction 1: Calculator[6*7]"
FINISH = " Done.\nAction 2: Finish[42]"


def preset() -> Preset:
    return Preset(name="test-paper", dialect="paper", instructions="Answer with tools:\n{tools}", examples="")


def agent(outputs, pause_before=("tool",), max_calls=8) -> Agent:
    config = RunConfig(
        provider=ScriptedProvider(outputs),
        preset=preset(),
        tools=ToolRegistry([CALCULATOR]),
        max_calls=max_calls,
        pause_before=tuple(pause_before),
    )
    return Agent(config)


def go(a: Agent, trace: Trace, decision: Decision) -> Trace:
    return final_trace(resume(a, trace, decision))


def test_a_run_pauses_before_a_tool_call_with_the_step_pending():
    a = agent([COMPUTE, FINISH])
    events = list(a.stream("What is six times seven?"))
    paused = [e for e in events if isinstance(e, Paused)]
    trace = events[-1].trace
    assert isinstance(events[-1], RunDone) and len(paused) == 1
    assert not [e for e in events if isinstance(e, StepDone)]  # a pending step is not done
    step = trace.steps[-1]
    assert trace.stop_reason == "paused" and STOP_REASONS["paused"] == "Paused: waiting for you"
    assert step.pending == "tool" and step.observation is None  # nothing ran
    assert step.raw_output == COMPUTE and step.thought == "Compute it." and step.action == Action("calculator", "6*7")
    assert step.tool_call_text == "calculator('6*7')"
    assert step.call is not None and trace.settings["pause_before"] == ["tool"]
    assert len(a.config.provider.requests) == 1


def test_run_takes_the_step_as_it_is_and_the_run_goes_on():
    a = agent([COMPUTE, FINISH])
    trace = go(a, a.run("q"), Decision("run"))
    assert trace.stop_reason == "finished" and trace.final_answer == "42"
    first = trace.steps[0]
    assert first.pending == "" and first.observation.text == "6*7 = 42"
    assert [(i.kind, i.at, i.by) for i in first.interventions] == [("run", "tool", "person")]


def test_resuming_leaves_the_paused_trace_as_it_was():
    a = agent([COMPUTE, FINISH])
    paused = a.run("q")
    before = paused.to_dict()
    go(a, paused, Decision("run"))
    assert paused.to_dict() == before


def test_an_edited_action_that_does_not_parse_is_refused_like_the_prompt_editor_and_loses_nothing():
    a = agent([COMPUTE, FINISH])
    paused = a.run("q")
    with pytest.raises(ConfigError, match=r"^The edited action was not taken: action line 1: .* — `Calculator 6\*7`"):
        resume(a, paused, Decision("edit", text="Calculator 6*7"))
    with pytest.raises(ConfigError, match="Search is not enabled"):
        resume(a, paused, Decision("edit", text="Search[Paris]"))
    assert paused.stop_reason == "paused" and len(a.config.provider.requests) == 1
    trace = go(a, paused, Decision("edit", text="Calculator[6*8]"))
    step = trace.steps[0]
    assert step.action == Action("calculator", "6*8") and step.observation.text == "6*8 = 48"
    assert step.thought == "Compute it."  # an action-only edit keeps the thought
    note = step.interventions[0]
    assert (note.kind, note.before, note.after) == ("edit", "Calculator[6*7]", "Calculator[6*8]")
    assert "Observation 1: 6*8 = 48" in a.config.provider.requests[-1].prompt


def test_a_written_observation_is_marked_capped_and_says_so():
    a = agent([COMPUTE, FINISH])
    long = "word " * (MAX_OBSERVATION_CHARS // 4)
    trace = go(a, a.run("q"), Decision("observe", text=long, by="ada"))
    obs = trace.steps[0].observation
    assert obs.written_by == "ada" and not obs.evidence and not obs.is_error
    assert len(obs.text) <= MAX_OBSERVATION_CHARS and obs.text.endswith(f"cut at {MAX_OBSERVATION_CHARS:,} characters]")
    assert "cut like every observation" in obs.note
    note = trace.steps[0].interventions[0]
    assert (note.kind, note.by, note.after) == ("observe", "ada", obs.text)
    assert "Observation 1: word word" in a.config.provider.requests[-1].prompt  # the model reads the person's text
    assert trace.stop_reason == "finished"


def test_regenerate_draws_k_alternatives_from_the_same_prompt_and_pick_the_second_goes_on_with_it():
    drawn = [" A.\nAction 1: Calculator[1+1]", " B.\nAction 1: Calculator[2+2]", " C.\nAction 1: Calculator[3+3]"]
    a = agent([COMPUTE, *drawn, FINISH])
    paused = a.run("q")
    offered = go(a, paused, Decision("regenerate", k=3, temperature=0.9))
    requests = a.config.provider.requests
    assert offered.stop_reason == "paused" and offered.steps[-1].pending == "tool"
    assert [r.prompt for r in requests[1:4]] == [requests[0].prompt] * 3  # the same prompt
    assert [r.temperature for r in requests[1:4]] == [0.9] * 3
    alternatives = offered.steps[-1].offered
    assert [alt.action.input for alt in alternatives] == ["1+1", "2+2", "3+3"]
    assert all(alt.call is not None and alt.call.body["temperature"] == 0.9 for alt in alternatives)
    with pytest.raises(ConfigError, match="from 1 to 3"):
        resume(a, offered, Decision("pick", number=4))
    trace = go(a, offered, Decision("pick", number=2))
    step = trace.steps[0]
    assert step.thought == "B." and step.observation.text == "2+2 = 4" and step.raw_output == drawn[1]
    assert step.call == alternatives[1].call and step.offered == []
    note = step.interventions[0]
    assert (note.kind, note.picked, len(note.alternatives)) == ("pick", 2, 3)
    assert note.replaced.raw_output == COMPUTE and note.before == "Calculator[6*7]" and note.after == "Calculator[2+2]"
    # The picked call rebuilds like any step's: its prompt is the one the step was written from.
    assert call_records.CallTexts.of(trace.steps)[0].prompt == requests[0].prompt
    assert trace.stop_reason == "finished"
    # Every reply drawn is counted in the run's tokens: the one kept, the two not taken and the one replaced.
    drawn_tokens = sum(a.usage.prompt_tokens + a.usage.completion_tokens for a in [*alternatives, note.replaced])
    kept = trace.steps[1].usage.prompt_tokens + trace.steps[1].usage.completion_tokens
    assert trace.totals["tokens"] == drawn_tokens + kept
    markdown = to_markdown(trace)
    assert "Alternative 2 (picked) at temperature 0.9: `Calculator[2+2]`" in markdown
    assert "Alternative 1 at temperature 0.9: `Calculator[1+1]`" in markdown


def test_an_alternative_is_the_step_it_becomes_once_picked_and_its_call_reads_as_that_steps():
    a = agent([COMPUTE, " B.\nAction 1: Calculator[2+2]", FINISH])
    offered = go(a, a.run("q"), Decision("regenerate", k=1, temperature=0.9))
    paused, alternative = offered.steps[-1], offered.steps[-1].offered[0]
    as_step = alternative.as_step(paused.index)
    assert (as_step.index, as_step.thought, as_step.action, as_step.raw_output) == (
        1,
        "B.",
        Action("calculator", "2+2"),
        alternative.raw_output,
    )
    assert as_step.usage == alternative.usage and as_step.call == alternative.call and as_step.observation is None
    # The run as if it were picked: the steps before it, then its step; its request rebuilds as the step's own did.
    as_if = offered.as_if_picked(0, alternative)
    assert as_if.steps == [as_step] and as_if.question == offered.question and as_if.settings == offered.settings
    assert call_records.CallTexts.of(as_if.steps)[0] == call_records.CallTexts.of(offered.steps)[0]
    # Picking it goes on with that very step, the decisions taken on it kept.
    picked = go(a, offered, Decision("pick", number=1)).steps[0]
    assert (picked.thought, picked.action, picked.raw_output, picked.call) == (
        as_step.thought,
        as_step.action,
        as_step.raw_output,
        as_step.call,
    )
    assert [n.kind for n in picked.interventions] == ["pick"]


def test_an_alternative_saved_in_the_old_flat_shape_loads_and_becomes_its_step():
    # How step mode has always written an alternative (a trace's JSON, in History and in exports): flat fields.
    old = {
        "raw_output": " B.\nAction 2: Search[Ed Wood]",
        "thought": "B.",
        "action": {"tool": "search", "input": "Ed Wood"},
        "final_answer": None,
        "error": "",
        "temperature": 0.7,
        "usage": {"prompt_tokens": 12, "completion_tokens": 5},
        "call": None,
    }
    step = {"index": 2, "thought": "A.", "action": {"tool": "search", "input": "Ed Wodd"}, "pending": "tool"}
    first = {"index": 1, "thought": "Go.", "action": {"tool": "search", "input": "Scott Derrickson"}}
    record = {"question": "q", "settings": {"dialect": "paper"}, "steps": [first, {**step, "offered": [old]}]}
    trace = Trace.from_dict(json.loads(json.dumps(record)))
    alternative = trace.steps[1].offered[0]
    assert alternative.to_dict()["action"] == old["action"] and alternative.to_dict()["raw_output"] == old["raw_output"]
    as_if = trace.as_if_picked(1, alternative)
    assert [s.index for s in as_if.steps] == [1, 2] and as_if.steps[0] is trace.steps[0]
    assert as_if.steps[1].action == Action("search", "Ed Wood") and as_if.steps[1].usage.completion_tokens == 5


def test_alternatives_passed_over_are_kept_with_none_picked():
    a = agent([COMPUTE, " A.\nAction 1: Calculator[1+1]", FINISH])
    offered = go(a, a.run("q"), Decision("regenerate", k=1, temperature=0.5))
    trace = go(a, offered, Decision("run"))
    notes = trace.steps[0].interventions
    assert [(n.kind, n.picked, len(n.alternatives)) for n in notes] == [("regenerate", None, 1), ("run", None, 0)]
    fresh = agent([COMPUTE])
    with pytest.raises(ConfigError, match="regenerate the step first"):
        resume(fresh, fresh.run("q"), Decision("pick", number=1))


def test_an_unreadable_step_pauses_and_can_be_edited():
    a = agent([" I am not sure.", FINISH], pause_before=("error",))
    paused = a.run("q")
    step = paused.steps[-1]
    assert step.pending == "error" and step.is_error and "No action found" in step.observation.text
    trace = go(a, paused, Decision("edit", text="Calculator[6*7]"))
    assert trace.steps[0].observation.text == "6*7 = 42" and not trace.steps[0].is_error
    assert trace.steps[0].interventions[0].before == " I am not sure."  # the reply it replaced
    assert trace.stop_reason == "finished"


def test_run_at_an_unreadable_step_keeps_its_error_observation():
    a = agent([" I am not sure.", FINISH], pause_before=("error",))
    trace = go(a, a.run("q"), Decision("run"))
    assert trace.steps[0].is_error and trace.stop_reason == "finished"


def test_before_finish_the_answer_can_be_edited_and_an_observation_is_refused():
    a = agent([" Done.\nAction 1: Finish[41]"], pause_before=("tool", "error", "finish"))
    paused = a.run("q")
    assert paused.steps[-1].pending == "finish" and paused.final_answer is None
    with pytest.raises(ConfigError, match="A Finish step has no observation"):
        resume(a, paused, Decision("observe", text="x"))
    trace = go(a, paused, Decision("edit", text="Finish[42]"))
    assert trace.final_answer == "42" and trace.stop_reason == "finished"


def test_stop_ends_the_run_without_running_the_tool():
    a = agent([COMPUTE, FINISH])
    trace = go(a, a.run("q"), Decision("stop"))
    assert trace.stop_reason == "cancelled" and trace.steps[0].observation is None
    assert trace.steps[0].pending == "" and trace.steps[0].interventions[0].kind == "stop"


def test_a_resumed_run_keeps_to_the_budget_its_trace_has_not_spent():
    a = agent([COMPUTE, " Again.\nAction 2: Calculator[1+1]"], max_calls=2)
    first = go(a, a.run("q"), Decision("run"))
    assert first.stop_reason == "paused" and first.steps[-1].index == 2
    trace = go(a, first, Decision("run"))
    assert trace.stop_reason == "max_calls" and len(a.config.provider.requests) == 2


def test_a_run_that_is_not_paused_cannot_be_resumed():
    a = agent([COMPUTE, FINISH], pause_before=())
    with pytest.raises(ConfigError, match="not paused"):
        resume(a, a.run("q"), Decision("run"))


def test_the_tools_dialect_refuses_step_mode():
    config = RunConfig(
        provider=ScriptedProvider([]), preset=Preset("t", "tools", "Use tools.", ""), pause_before=("tool",)
    )
    trace = Agent(config).run("q")
    assert trace.stop_reason == "error" and "Step mode" in trace.error


def test_a_paused_trace_round_trips_through_json_and_the_schema():
    drawn = [" A.\nAction 1: Calculator[1+1]"]
    a = agent([COMPUTE, *drawn])
    offered = go(a, a.run("q"), Decision("regenerate", k=1, temperature=0.3))
    data = json.loads(json.dumps(offered.to_dict()))
    assert load_trace_json(json.dumps(data)).to_dict() == offered.to_dict()
    data["steps"][0]["pending"] = "later"
    with pytest.raises(InvalidTrace, match=r"steps\[0\].pending must be one of tool, error, finish"):
        load_trace_json(json.dumps(data))
    data["steps"][0]["pending"], data["stop_reason"] = "tool", "finished"
    with pytest.raises(InvalidTrace, match="only on the last step of a paused run"):
        load_trace_json(json.dumps(data))


def test_old_traces_read_without_the_step_mode_fields():
    old = {"question": "q", "steps": [{"index": 1, "thought": "t", "observation": {"text": "o"}}]}
    step = Trace.from_dict(old).steps[0]
    assert step.pending == "" and step.interventions == [] and step.observation.written_by == ""


@pytest.mark.parametrize(
    ("line", "decision"),
    [
        ("run", Decision("run")),
        ("edit Search[Foo]", Decision("edit", text="Search[Foo]")),
        ("observe some text", Decision("observe", text="some text")),
        ("regenerate 3 0.7", Decision("regenerate", k=3, temperature=0.7)),
        ("regenerate", Decision("regenerate")),
        ("pick 2", Decision("pick", number=2)),
        ("  STOP ", Decision("stop")),
    ],
)
def test_a_decision_reads_from_one_line(line, decision):
    assert parse_decision(line) == decision


@pytest.mark.parametrize("line", ["jump", "pick two", "regenerate many", "edit", "observe "])
def test_a_line_that_is_no_decision_says_why(line):
    with pytest.raises(ConfigError):
        parse_decision(line)


# -- in History, across a restart ------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def reopen(request, tmp_path):
    """A function giving a new store on the same database each call: what a restarted server would open."""
    if request.param == "sqlite":
        path = tmp_path / "h.sqlite"
        return lambda: open_history(url="", path=path)
    url = request.getfixturevalue("postgres_url")
    return lambda: open_history(url=url)


def saved_pause(reopen) -> int:
    paused = agent([COMPUTE]).run("What is six times seven?")
    return reopen().save(paused, conversation="chat-1")


def test_a_paused_run_is_saved_listed_as_paused_and_resumed_after_a_restart(reopen):
    run_id = saved_pause(reopen)
    listed = reopen().list()
    assert [(r.id, r.stop_reason, r.revision) for r in listed] == [(run_id, "paused", 0)]
    store = reopen()  # a new process: nothing but the database
    provider = ScriptedProvider([FINISH])
    resumed = Run.resume(store, run_id, Decision("run"), preset=preset(), provider=provider)
    trace = final_trace(resumed)
    assert trace.stop_reason == "finished" and resumed.run_id == run_id and not resumed.save_error
    rec = reopen().get(run_id)
    assert rec.stop_reason == "finished" and rec.final_answer == "42" and rec.revision == 2 and rec.steps == 2
    assert rec.trace.to_dict() == trace.to_dict() and rec.conversation == "chat-1"
    assert rec.trace.steps[0].interventions[0].kind == "run"
    assert reopen().count() == 1  # resuming updated the run; it made no second one
    assert "Observation 1: 6*7 = 42" in provider.requests[0].prompt


def test_two_resumes_of_the_same_pause_one_wins_and_the_other_is_told(reopen):
    run_id = saved_pause(reopen)
    seen = reopen().get(run_id).revision  # both tabs drew the run at this revision
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def decide(decision: Decision) -> None:
        start.wait()
        try:
            resumed = Run.resume(
                reopen(), run_id, decision, revision=seen, preset=preset(), provider=ScriptedProvider([FINISH])
            )
            final_trace(resumed)
            outcomes.append("won")
        except Conflict as e:
            outcomes.append(str(e))

    threads = [threading.Thread(target=decide, args=(d,)) for d in (Decision("run"), Decision("stop"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes)[-1] == "won" and "resumed somewhere else" in sorted(outcomes)[0]
    rec = reopen().get(run_id)
    assert rec.stop_reason in ("finished", "cancelled") and len(rec.trace.steps[0].interventions) == 1
    with pytest.raises(Conflict):  # and the pause, once taken, is gone for a late tab too
        reopen().claim(run_id, seen)


def test_a_paused_run_whose_provider_cannot_be_built_says_so_and_loses_nothing(reopen):
    paused = agent([COMPUTE]).run("q")
    paused.settings["provider"] = "retired-provider"
    store = reopen()
    run_id = store.save(paused)
    with pytest.raises(ConfigError, match=r"provider 'retired-provider'.*Nothing is lost: it stays paused"):
        Run.resume(store, run_id, Decision("run"), preset=preset())
    rec = reopen().get(run_id)
    assert rec.stop_reason == "paused" and rec.revision == 0 and rec.trace.to_dict() == paused.to_dict()


def test_a_run_that_goes_on_from_a_paused_runs_steps_does_not_wait_at_them():
    paused = agent([COMPUTE]).run("q")
    fork = agent([FINISH], pause_before=()).run("q", prior_steps=paused.steps)
    assert fork.steps[0].pending == "" and fork.stop_reason == "finished"
    assert load_trace_json(json.dumps(fork.to_dict())).to_dict() == fork.to_dict()  # it reads back whole


def test_an_evaluation_never_pauses_even_when_the_chat_is_in_step_mode():
    from react_core.evaluation.run import EvalPlan
    from react_core.loop.settings import RunSettings

    plan = EvalPlan(["d.json"], ["react"], "out", RunSettings(provider="scripted", pause_before=["tool", "finish"]))
    assert plan.run_settings().pause_before == []


def test_another_owners_paused_run_cannot_be_claimed_or_updated(tmp_path):
    path = tmp_path / "h.sqlite"
    mine = open_history(url="", path=path, owner="ada")
    run_id = mine.save(agent([COMPUTE]).run("q"))
    theirs = open_history(url="", path=path, owner="bob")
    with pytest.raises(Conflict):
        theirs.claim(run_id, 0)
    assert not theirs.update(run_id, Trace("q", stop_reason="finished"), 0)
    with pytest.raises(ConfigError, match="no run"):
        Run.resume(theirs, run_id, Decision("run"), preset=preset())
    assert mine.get(run_id).stop_reason == "paused" and mine.get(run_id).revision == 0


def test_a_paused_run_goes_on_with_its_exact_prompt_version_and_its_own_providers_connection(monkeypatch):
    # Resumed from History by a script, it took the newest version of its prompt's line and the Base URL the
    # environment gives another provider (with this provider's key).
    from react_core.loop.recorded import Recorded

    monkeypatch.setenv("REACT_PROVIDER", "openai")
    monkeypatch.setenv("REACT_BASE_URL", "http://127.0.0.1:9/v1")
    recorded = {"provider": "gemini", "model": "gemini-2.5-flash", "dialect": "paper", "preset": "paper"}
    settings = Recorded(
        Trace("q", settings={**recorded, "prompt_version": "paper@2", "pause_before": ["tool"]})
    ).run_settings()
    assert (settings.provider, settings.model, settings.base_url) == ("gemini", "gemini-2.5-flash", "")
    assert settings.preset == "paper@2" and settings.pause_before == ["tool"]
    assert (
        Recorded(Trace("q", settings={**recorded, "provider": "openai"})).run_settings().base_url
        == "http://127.0.0.1:9/v1"
    )


def test_regenerate_draws_from_the_prompt_that_wrote_the_step_with_its_dynamic_examples():
    """A version with dynamic examples wrote the paused step with the examples chosen for its question; the
    alternatives are drawn from that same prompt, not from one holding every example."""
    examples = (
        "Question: What is 2 + 2?\nThought 1: Add.\nAction 1: Calculator[2+2]\nObservation 1: 4\n"
        "Thought 2: Done.\nAction 2: Finish[4]\n\n"
        "Question: Who wrote Hamlet?\nThought 1: I know.\nAction 1: Finish[Shakespeare]\n"
    )
    dynamic = Preset(
        name="test-dynamic", dialect="paper", instructions="Use:\n{tools}", examples=examples, dynamic_examples=1
    )
    a = agent([COMPUTE, " A.\nAction 1: Calculator[1+1]", FINISH])
    a.config.preset = dynamic
    paused = a.run("What is 6 * 7?")
    assert paused.settings["examples_chosen"] == ["Question: What is 2 + 2?"]
    go(a, paused, Decision("regenerate", k=1, temperature=0.9))
    first, drawn = a.config.provider.requests[:2]
    assert "Hamlet" not in first.system
    assert (drawn.system, drawn.prompt) == (first.system, first.prompt)
