"""The loop, driven by the scripted provider: every stop reason, every recovery path, streaming and prompts."""

from __future__ import annotations

import json
import threading

import pytest

from react_core.base.errors import ProviderError
from react_core.base.events import ActionParsed, LiveRun, RunDone, StepDone, StepStarted, TextDelta
from react_core.base.trace import Action, Exchange, Observation, Source, Step, Trace
from react_core.dialects import DIALECTS
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import Preset
from react_core.providers.base import Chunk, Provider
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import Tool, ToolRegistry


def preset(fmt: str = "paper") -> Preset:
    return Preset(name=f"test-{fmt}", dialect=fmt, instructions="Answer with tools:\n{tools}", examples="")


def wiki_stub() -> Tool:
    def search(entity: str) -> Observation:
        return Observation(
            text=f"{entity} is a thing.",
            sources=[Source(entity, f"https://en.wikipedia.org/wiki/{entity.replace(' ', '_')}")],
        )

    return Tool("search", search)


def run(outputs, fmt="paper", tools=None, **kwargs):
    provider = ScriptedProvider(outputs)
    registry = tools if tools is not None else ToolRegistry([wiki_stub(), CALCULATOR])
    config = RunConfig(provider=provider, preset=preset(fmt), tools=registry, max_calls=kwargs.pop("max_calls", 8))
    trace = Agent(config).run("What is it?", **kwargs)
    return trace, provider


def streamed(outputs, **kwargs):
    """Every event of a run of ``outputs`` (the last is RunDone)."""
    config = RunConfig(provider=ScriptedProvider(outputs), preset=preset(), tools=ToolRegistry([wiki_stub()]))
    return list(Agent(config).stream("What is it?", **kwargs))


def test_finishes_with_the_answer_and_records_every_step():
    trace, _ = run([" I should search.\nAction 1: Search[High Plains]", " Found it.\nAction 2: Finish[1,800 ft]"])
    assert trace.stop_reason == "finished"
    assert trace.final_answer == "1,800 ft"
    assert [s.index for s in trace.steps] == [1, 2]
    first = trace.steps[0]
    assert first.thought == "I should search."
    assert first.action == Action("search", "High Plains")
    assert first.observation.text == "High Plains is a thing."
    assert first.observation.sources[0].url == "https://en.wikipedia.org/wiki/High_Plains"
    assert trace.steps[1].observation is None and trace.steps[1].final_answer == "1,800 ft"
    assert trace.totals["steps"] == 2 and trace.totals["tokens"] > 0
    assert [s.title for s in trace.sources] == ["High Plains"]


def test_unparseable_output_becomes_an_error_observation_and_the_loop_goes_on():
    trace, provider = run([" I am not sure what to do.", " Better.\nAction 2: Finish[x]"])
    bad = trace.steps[0]
    assert bad.observation.is_error
    assert "No action found" in bad.observation.text
    assert "Search[entity]" in bad.observation.text and "Finish[answer]" in bad.observation.text
    assert trace.stop_reason == "finished"
    # The model sees its mistake and the restated format in the next prompt.
    assert "Observation 1: No action found" in provider.requests[1].prompt


def test_unknown_tool_is_named_with_the_available_tools():
    trace, _ = run([" Let me google.\nAction 1: Google[x]", "\nAction 2: Finish[y]"])
    obs = trace.steps[0].observation
    assert obs.is_error and "Unknown tool 'google'" in obs.text
    assert "Search, Calculator" in obs.text
    assert trace.stop_reason == "finished"


def test_only_registered_tools_run():
    ran = []
    registry = ToolRegistry([Tool("search", lambda q: ran.append(q) or "ok")])
    trace, _ = run(["\nAction 1: Calculator[2+2]", "\nAction 2: Lookup[x]", "\nAction 3: Finish[z]"], tools=registry)
    assert ran == []
    assert all(s.observation.is_error for s in trace.steps[:2])


def test_tool_failure_becomes_an_error_observation():
    def broken(_q: str) -> str:
        raise RuntimeError("disk on fire")

    registry = ToolRegistry([Tool("search", broken)])
    trace, _ = run(["\nAction 1: Search[x]", "\nAction 2: Finish[z]"], tools=registry)
    assert trace.steps[0].observation.is_error
    assert "RuntimeError: disk on fire" in trace.steps[0].observation.text
    assert trace.stop_reason == "finished"


def test_calculator_error_is_an_observation():
    trace, _ = run(["\nAction 1: Calculator[1/0]", "\nAction 2: Finish[z]"])
    assert trace.steps[0].observation.is_error and "Division by zero" in trace.steps[0].observation.text


def test_same_action_three_times_in_a_row_ends_with_loop():
    outputs = [f" again\nAction {i}: Search[ High  plains ]" for i in (1, 2, 3)] + ["\nAction 4: Finish[x]"]
    trace, provider = run(outputs)
    assert trace.stop_reason == "loop"
    assert len(trace.steps) == 3 and len(provider.requests) == 3
    assert trace.steps[-1].observation.text == "High plains is a thing."  # the third one ran: its answer is shown
    assert "3 times in a row" in trace.steps[-1].observation.note


def _pager() -> Tool:
    """A Lookup that pages through three results, then says there are no more."""
    pages = iter(["(Result 1 / 3) a", "(Result 2 / 3) b", "(Result 3 / 3) c"])
    return Tool("lookup", lambda _k: next(pages, "No more results."))


def test_paging_through_lookup_results_is_progress_not_a_loop():
    outputs = [f"\nAction {i}: Lookup[film]" for i in range(1, 5)] + ["\nAction 5: Finish[c]"]
    trace, _ = run(outputs, tools=ToolRegistry([_pager()]))
    assert trace.stop_reason == "finished"
    assert [s.observation.text[:12] for s in trace.steps[:4]] == [
        "(Result 1 / ",
        "(Result 2 / ",
        "(Result 3 / ",
        "No more resu",
    ]


def test_paging_stops_as_a_loop_once_it_brings_nothing_new():
    outputs = [f"\nAction {i}: Lookup[film]" for i in range(1, 8)]
    trace, _ = run(outputs, tools=ToolRegistry([_pager()]))
    assert trace.stop_reason == "loop"
    assert [s.observation.text for s in trace.steps[-3:]] == ["No more results."] * 3 and len(trace.steps) == 6


def test_a_search_repeated_after_the_page_changed_goes_on():
    outputs = [
        "\nAction 1: Search[a]",
        "\nAction 2: Search[a]",
        "\nAction 3: Search[b]",
        "\nAction 4: Search[a]",
        "\nAction 5: Search[a]",
        "\nAction 6: Finish[done]",
    ]
    trace, _ = run(outputs)
    assert trace.stop_reason == "finished"


def test_replies_without_an_action_that_get_the_same_error_are_a_loop():
    trace, provider = run(["I am not sure.", "I am not sure.", "I am not sure.", "\nAction 4: Finish[late]"])
    assert trace.stop_reason == "loop" and len(provider.requests) == 3
    assert all(s.action is None and s.observation.is_error for s in trace.steps)


def test_different_inputs_do_not_count_as_a_loop():
    outputs = ["\nAction 1: Search[a]", "\nAction 2: Search[a]", "\nAction 3: Search[b]", "\nAction 4: Search[a]"]
    trace, _ = run(outputs, max_calls=4)
    assert trace.stop_reason == "max_calls"


def test_max_calls_ends_the_run_after_exactly_that_many_model_calls():
    outputs = [f"\nAction {i}: Search[t{i}]" for i in range(1, 10)]
    trace, provider = run(outputs, max_calls=3)
    assert trace.stop_reason == "max_calls"
    assert len(trace.steps) == 3 and len(provider.requests) == 3
    assert trace.settings["max_calls"] == 3


def test_provider_failure_ends_with_error_and_keeps_earlier_steps():
    trace, _ = run(["\nAction 1: Search[a]", {"error": "503 Service Unavailable after 3 tries"}])
    assert trace.stop_reason == "error"
    assert "503" in trace.error
    assert len(trace.steps) == 1 and trace.steps[0].observation.text == "a is a thing."


def test_an_sdk_exception_is_reported_as_a_provider_failure():
    class Exploding(Provider):
        name = "boom"
        label = "Boom"

        def stream(self, request):
            yield Chunk(text=" partial")
            raise ConnectionResetError("peer reset")

    config = RunConfig(provider=Exploding(), preset=preset(), tools=ToolRegistry())
    trace = Agent(config).run("q")
    assert trace.stop_reason == "error"
    assert trace.error == "Boom provider failed: ConnectionResetError: peer reset"


def test_running_out_of_script_is_an_error_with_a_clear_message():
    trace, _ = run(["\nAction 1: Search[a]"])
    assert trace.stop_reason == "error" and "no more outputs" in trace.error


def test_stop_interrupts_a_model_call_that_is_waiting(tmp_path):
    cancel = threading.Event()
    never_opened = tmp_path / "gate"
    provider = ScriptedProvider(["\nAction 1: Search[a]", {"text": "\nAction 2: Search[b]", "gate": str(never_opened)}])
    config = RunConfig(provider=provider, preset=preset(), tools=ToolRegistry([wiki_stub()]))

    for event in Agent(config).stream("q", cancel=cancel):
        if isinstance(event, StepStarted) and event.index == 2:
            cancel.set()  # the second call is about to wait at a gate that never opens: Stop must end the wait
    trace = event.trace
    assert trace.stop_reason == "cancelled"
    assert len(trace.steps) == 1 and len(provider.requests) == 2


def test_cancel_before_start_takes_no_step():
    cancel = threading.Event()
    cancel.set()
    trace, provider = run(["\nAction 1: Finish[a]"], cancel=cancel)
    assert trace.stop_reason == "cancelled" and trace.steps == [] and provider.requests == []


def test_streaming_events_carry_the_text_as_it_arrives():
    events = streamed([" I will look this up.\nAction 1: Finish[yes]"])
    trace = events[-1].trace
    assert isinstance(events[0], StepStarted) and isinstance(events[-2], StepDone) and isinstance(events[-1], RunDone)
    texts = [e for e in events if isinstance(e, TextDelta)]
    assert len(texts) > 3  # word by word
    assert "".join(e.delta for e in texts) == trace.steps[0].raw_output
    assert texts[-1].text == trace.steps[0].raw_output
    assert events[-2].step is trace.steps[0]  # the step itself, not a copy to convert back


def test_each_step_is_started_its_action_announced_before_it_runs_and_done_once():
    events = streamed([" Look.\nAction 1: Search[a]", " So.\nAction 2: Finish[b]"])
    kinds = [type(e).__name__ for e in events if not isinstance(e, TextDelta)]
    assert kinds == ["StepStarted", "ActionParsed", "StepDone", "StepStarted", "StepDone", "RunDone"]
    parsed = next(e for e in events if isinstance(e, ActionParsed))
    assert (parsed.index, parsed.action) == (1, Action("search", "a"))
    live = LiveRun()
    for event in events:
        live.apply(event)
        if isinstance(event, ActionParsed):  # what a page draws while the tool runs
            assert live.writing.action == Action("search", "a") and live.writing.text.endswith("Search[a]")
    assert live.writing is None and live.trace is events[-1].trace and live.steps == live.trace.steps


def test_stop_sequences_are_sent_and_enforced_locally():
    leaky = " Search it.\nAction 1: Search[a]\nObservation 1: I made this up.\nThought 2: and kept going"
    trace, provider = run([leaky, "\nAction 2: Finish[b]"])
    assert provider.requests[0].stop == ("\nObservation",)
    step = trace.steps[0]
    assert step.leaked_observation
    assert "kept going" not in step.raw_output  # reading stopped at the stop sequence
    assert step.observation.text == "a is a thing."  # the tool's observation, not the invented one


def test_invented_question_after_finish_is_cut():
    trace, _ = run([" Done.\nAction 1: Finish[Paris]\nQuestion: What is the capital of Spain?"])
    assert trace.final_answer == "Paris" and not trace.steps[0].leaked_observation


@pytest.mark.parametrize("fmt", sorted(DIALECTS))
def test_prompt_prefix_is_byte_identical_and_each_prompt_extends_the_last(fmt):
    f = DIALECTS[fmt]
    outputs = [
        f.render_model_part(Step(index=1, thought="Search first.", action=Action("search", "Alpha")))[
            len(f.step_prefix(1)) :
        ],
        f.render_model_part(Step(index=2, thought="Compute.", action=Action("calculator", "6*7")))[
            len(f.step_prefix(2)) :
        ],
        f.render_model_part(Step(index=3, thought="Done.", final_answer="42"))[len(f.step_prefix(3)) :],
    ]
    trace, provider = run(outputs, fmt=fmt)
    assert trace.stop_reason == "finished", trace.to_dict()
    assert trace.final_answer == "42"
    assert [s.action for s in trace.steps[:2]] == [Action("search", "Alpha"), Action("calculator", "6*7")]
    systems = {r.system for r in provider.requests}
    assert len(systems) == 1
    for before, after in zip(provider.requests, provider.requests[1:], strict=False):
        assert after.text.startswith(before.text)
    assert all(r.stop == f.stop for r in provider.requests)


def test_follow_up_question_carries_the_conversation():
    context = [Exchange("Who directed Sinister?", "Scott Derrickson")]
    trace, provider = run(["\nAction 1: Finish[American]"], context=context)
    prompt = provider.requests[0].prompt
    assert "Q: Who directed Sinister?\nA: Scott Derrickson" in prompt
    assert prompt.index("Scott Derrickson") < prompt.index("Question: What is it?")
    assert trace.context == context


def test_fork_keeps_prior_steps_and_resumes_an_edited_thought():
    prior = [Step(index=1, thought="Look up a.", action=Action("search", "a"), observation=Observation("edited fact"))]
    trace, provider = run(["\nAction 2: Finish[b]"], prior_steps=prior, resume_thought="The fact says b.")
    assert [s.index for s in trace.steps] == [1, 2]
    assert trace.steps[0].observation.text == "edited fact"
    assert trace.steps[1].thought == "The fact says b."
    assert provider.requests[0].prompt.endswith("Observation 1: edited fact\nThought 2: The fact says b.")
    assert trace.final_answer == "b"


def test_trace_json_round_trip_is_exact():
    trace, _ = run(["\nAction 1: Search[a]", " hmm", "\nAction 3: Calculator[2**10]", "\nAction 4: Finish[1024]"])
    data = json.loads(json.dumps(trace.to_dict()))
    again = Trace.from_dict(data)
    assert again == trace
    assert again.to_dict() == data


def test_a_key_never_rides_into_the_trace():
    trace = Trace(question="q", settings={"provider": "openai", "api_key": "sk-secret", "key": "x"})
    assert "api_key" not in trace.settings and "key" not in trace.settings
    data = trace.to_dict()
    data["settings"]["api_key"] = "sk-secret"
    assert "api_key" not in Trace.from_dict(data).settings


def test_unknown_trace_fields_are_refused():
    with pytest.raises(ValueError, match="unknown trace fields"):
        Trace.from_dict({"question": "q", "surprise": 1})


def test_scripted_provider_records_requests_and_errors_when_exhausted():
    provider = ScriptedProvider(["a"])
    config = RunConfig(provider=provider, preset=preset(), tools=ToolRegistry(), max_calls=2)
    trace = Agent(config).run("q")
    assert len(provider.requests) == 2 and len(provider.outputs) == 1  # the second found the script used up
    assert trace.stop_reason == "error"
    with pytest.raises(ProviderError):
        list(provider.stream(provider.requests[0]))


def test_outgrowing_the_context_ends_like_a_spent_budget_and_says_why():
    from react_core.base.errors import ContextOverflowError

    class Small(Provider):
        name = "small"
        calls = 0

        def stream(self, request):
            self.calls += 1
            if self.calls > 1:
                raise ContextOverflowError("The prompt has grown to 5,000 tokens, more than the 4,096-token context.")
            yield Chunk(text=" Look.\nAction 1: Search[a]")

    config = RunConfig(provider=Small(), preset=preset(), tools=ToolRegistry([wiki_stub()]))
    trace = Agent(config).run("q")
    assert trace.stop_reason == "context" and "4,096-token context" in trace.error
    assert len(trace.steps) == 1 and trace.steps[0].observation.text == "a is a thing."


def test_a_long_observation_is_cut_at_10_000_characters_in_the_trace_and_in_the_next_prompt():
    long_page = "word " * 5_000  # 25,000 characters: far more than any step needs to see
    registry = ToolRegistry([Tool("search", lambda _q: long_page)])
    trace, provider = run(["\nAction 1: Search[x]", "\nAction 2: Finish[y]"], tools=registry)
    text = trace.steps[0].observation.text
    # docs/knowledge.md: "at most 10,000 characters", a longer one "ends it with [… cut at 10,000 characters]".
    assert 9_000 < len(text) <= 10_000 and text.endswith(" [… cut at 10,000 characters]")
    second_prompt = provider.requests[1].prompt
    assert text in second_prompt and len(second_prompt) < 10_000 + 2_000
