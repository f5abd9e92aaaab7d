"""The tools format (native tool calling) through the same loop as the text dialects: the scripted provider and the
local stand-ins for OpenAI's and Gemini's tool calling (streamed), parallel calls run in order as steps, malformed
arguments and unknown functions as error observations, the same budget, history, rebuild of every call, and a
provider that cannot call tools refused."""

from __future__ import annotations

import json

import pytest
from provider_helpers import GEMINI_SIGNATURE, FakeGemini, FakeOpenAI, fast_retry

from react_core.base import call_records
from react_core.base.errors import ConfigError
from react_core.base.trace import Action, Observation, Trace
from react_core.dialects import get_dialect
from react_core.history import HistoryStore
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.check import validate_preset
from react_core.presets.preset import load_preset
from react_core.providers import create_provider
from react_core.providers.local import LocalProvider
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import Tool, ToolRegistry


def wiki() -> Tool:
    return Tool("search", lambda q: Observation(f"{q} is a place in the west.", evidence=True))


def run(provider, *, max_calls: int = 8, **kwargs) -> Trace:
    config = RunConfig(
        provider=provider, preset=load_preset("tools"), tools=ToolRegistry([wiki(), CALCULATOR]), max_calls=max_calls
    )
    return Agent(config).run("How high is High Plains?", **kwargs)


def call(name: str, **arguments) -> dict:
    return {"name": name, "arguments": arguments}


SCRIPT = [
    {"text": "I will look it up.", "tool_calls": [call("search", query="High Plains")]},
    {
        "text": "Two things at once.",
        "tool_calls": [call("calculator", expression="6*7"), call("search", query="Ogallala")],
    },
    {"tool_calls": [call("finish", answer="1,800 ft")]},
]


def test_the_preset_is_shipped_valid_and_says_what_it_is_for() -> None:
    preset = load_preset("tools")
    assert preset.dialect == "tools" and validate_preset(preset) == [] and "on-device" in preset.description
    assert get_dialect("tools").native_tools and not get_dialect("paper").native_tools


def test_calls_become_steps_parallel_ones_in_order_and_finish_ends_the_run() -> None:
    provider = ScriptedProvider(SCRIPT)
    trace = run(provider)
    assert trace.stop_reason == "finished" and trace.final_answer == "1,800 ft"
    assert [s.index for s in trace.steps] == [1, 2, 3, 4]
    first, second, third, last = trace.steps
    assert first.thought == "I will look it up." and first.action == Action("search", "High Plains")
    assert first.observation.text == "High Plains is a place in the west."
    assert second.thought == "Two things at once." and second.action == Action("calculator", "6*7")
    assert second.observation.text.endswith("= 42")
    # The second call of the same reply: its own step, saying where it came from, with no model call of its own.
    assert third.action == Action("search", "Ogallala") and third.thought == "" and third.raw_output == ""
    assert third.call.same_reply_as == 2 and third.usage.prompt_tokens == 0
    assert last.final_answer == "1,800 ft" and last.tool_call.name == "finish"
    assert len(provider.requests) == 3  # three model calls, four steps


def test_the_conversation_returns_each_call_with_its_result_and_grows_by_appending() -> None:
    provider = ScriptedProvider(SCRIPT)
    run(provider)
    first, second, third = provider.requests
    assert first.messages == () and first.prompt == "Question: How high is High Plains?"
    assert [t.name for t in first.tools] == ["search", "calculator", "finish"]  # the enabled tools and Finish
    assert first.stop == ()
    assert second.messages == (
        {
            "role": "assistant",
            "content": "I will look it up.",
            "tool_calls": [
                {"id": "call_0", "name": "search", "arguments": '{"query": "High Plains"}', "signature": ""}
            ],
        },
        {
            "role": "tool",
            "id": "call_0",
            "name": "search",
            "content": "High Plains is a place in the west.",
            "is_error": False,
        },
    )
    assert third.messages[:2] == second.messages and len(third.messages) == 5
    assert [m["role"] for m in third.messages[2:]] == ["assistant", "tool", "tool"]
    assert [c["name"] for c in third.messages[2]["tool_calls"]] == ["calculator", "search"]


def test_every_call_is_rebuilt_exactly_and_a_same_reply_step_shows_its_replys_call() -> None:
    provider = ScriptedProvider(SCRIPT)
    trace = run(provider)
    heads = [i for i, s in enumerate(trace.steps) if s.call.same_reply_as is None]
    for k, position in enumerate(heads):
        assert call_records.request(trace.steps, position) == provider.sent(provider.requests[k])["body"]
    assert call_records.request(trace.steps, 2) == call_records.request(trace.steps, 1)
    assert call_records.CallTexts.request(trace, 3)["body"] == call_records.CallTexts.request(trace, 2)["body"]
    again = Trace.from_dict(json.loads(json.dumps(trace.to_dict())))
    assert again.to_dict() == trace.to_dict()
    assert call_records.request(again.steps, heads[-1]) == call_records.request(trace.steps, heads[-1])


def test_a_call_stores_only_what_it_added_to_the_conversation() -> None:
    page = "word " * 300
    script = [{"tool_calls": [call("search", query=f"t{i}")]} for i in range(19)] + [
        {"tool_calls": [call("finish", answer="x")]}
    ]

    def size(n: int) -> int:
        provider = ScriptedProvider(script[: n - 1] + script[-1:])
        tools = ToolRegistry([Tool("search", lambda q: Observation(f"{q}: {page}"))])
        config = RunConfig(provider=provider, preset=load_preset("tools"), tools=tools, max_calls=n)
        trace = Agent(config).run("q")
        assert trace.stop_reason == "finished" and len(trace.steps) == n
        assert trace.steps[-1].call.messages_keep == 2 * (n - 2) and len(trace.steps[-1].call.messages_added) == 2
        return len(json.dumps(trace.to_dict()))

    sizes = {n: size(n) for n in (2, 8, 20)}
    assert (sizes[20] - sizes[8]) / 12 < (sizes[8] - sizes[2]) / 6 * 1.2, sizes


def test_malformed_arguments_and_unknown_functions_are_error_observations_and_the_loop_goes_on() -> None:
    script = [
        {"text": "Oops.", "tool_calls": [{"name": "search", "arguments": '{"query": "High Pl'}]},
        {"tool_calls": [call("weather", city="Denver"), call("search")]},
        "I think the answer is 1,800 ft.",
        {"tool_calls": [call("finish", answer="1,800 ft")]},
    ]
    provider = ScriptedProvider(script)
    trace = run(provider)
    assert trace.stop_reason == "finished" and trace.final_answer == "1,800 ft"
    bad_json, unknown, missing, no_call = (s.observation for s in trace.steps[:4])
    assert bad_json.is_error and "not valid JSON" in bad_json.text and 'search(query="entity")' in bad_json.text
    assert unknown.is_error and "weather" in unknown.text
    assert missing.is_error and "search" in missing.text
    assert no_call.is_error and no_call.text.startswith("No function call")
    # Each went back to the model: a call's error as its result, a text reply's as an observation message.
    sent = provider.requests[-1].messages
    assert sent[1] == {"role": "tool", "id": "call_0", "name": "search", "content": bad_json.text, "is_error": True}
    assert sent[-2] == {"role": "assistant", "content": "I think the answer is 1,800 ft."}
    assert sent[-1] == {"role": "user", "content": f"Observation: {no_call.text}"}
    assert sent[0]["tool_calls"][0]["arguments"] == '{"query": "High Pl'  # as the model wrote it


def test_the_budget_counts_model_calls_and_a_finish_ends_the_reply() -> None:
    two = {"tool_calls": [call("search", query="A"), call("search", query="B")]}
    trace = run(ScriptedProvider([two, two, two]), max_calls=2)
    assert trace.stop_reason == "max_calls" and len(trace.steps) == 4
    early = {"tool_calls": [call("finish", answer="A"), call("search", query="never")]}
    trace = run(ScriptedProvider([early]))
    assert trace.final_answer == "A" and len(trace.steps) == 1


def test_the_loop_guard_stops_repeated_calls() -> None:
    same = {"tool_calls": [call("search", query="High Plains")]}
    trace = run(ScriptedProvider([same] * 5))
    assert trace.stop_reason == "loop" and len(trace.steps) == 3


def test_a_fork_sends_the_conversation_its_steps_hold(tmp_path) -> None:
    provider = ScriptedProvider(SCRIPT)
    parent = run(provider)
    store = HistoryStore(tmp_path / "h.sqlite")
    parent = store.get(store.save(parent)).trace
    prior = parent.steps[:3]
    prior[1].observation = Observation("6*7 = 41 (edited)")
    child_provider = ScriptedProvider([SCRIPT[-1]])
    child = run(child_provider, prior_steps=prior)
    assert child.final_answer == "1,800 ft" and [s.index for s in child.steps] == [1, 2, 3, 4]
    sent = child_provider.requests[0].messages
    assert sent[:2] == provider.requests[2].messages[:2] and sent[3]["content"] == "6*7 = 41 (edited)"
    assert call_records.request(child.steps, 3) == child_provider.sent(child_provider.requests[0])["body"]
    refused = run(ScriptedProvider([SCRIPT[-1]]), prior_steps=prior[:1], resume_thought="Maybe elsewhere.")
    assert refused.stop_reason == "error" and "cannot continue an edited thought" in refused.error


def test_a_provider_that_cannot_call_tools_is_refused_with_a_clear_message() -> None:
    from react_core.base.events import final_trace
    from react_core.loop.keeping import UNKEPT
    from react_core.loop.service import Run, RunRequest

    config = RunConfig(provider=LocalProvider(on_progress=None), preset=load_preset("tools"))
    with pytest.raises(ConfigError, match="cannot call tools natively"):
        Agent(config)  # refused before anything runs
    trace = final_trace(Run(RunRequest("How high is High Plains?", config=config), UNKEPT))  # as a run ends: said
    assert trace.stop_reason == "error" and trace.steps == []
    assert "cannot call tools natively" in trace.error and "tools" in trace.error
    assert not LocalProvider.native_tools


def test_which_providers_speak_the_tools_format() -> None:
    from react_core.providers import PROVIDERS

    assert {name for name in PROVIDERS if PROVIDERS[name].speaks("tools")} == {"openai", "gemini", "scripted"}
    assert all(PROVIDERS[name].speaks("paper") for name in PROVIDERS)


def test_the_cli_refuses_before_running(capsys) -> None:
    from react_core.cli.main import main

    assert main(["ask", "q", "--provider", "local", "--format", "tools", "--tools", "calculator"]) == 2
    assert "cannot call tools natively" in capsys.readouterr().err


def test_titles_show_the_call() -> None:
    fmt = get_dialect("tools")
    assert fmt.title(Action("search", "High Plains")) == 'search(query="High Plains")'
    assert fmt.title(None, "1,800 ft") == 'finish(answer="1,800 ft")'


# -- the hosted APIs' tool calling, streamed ---------------------------------------------------------------

REPLIES = [
    {"text": "I will look it up.", "tool_calls": [call("search", query="High Plains")]},
    {"tool_calls": [call("calculator", expression="6*7"), call("search", query="Ogallala")]},
    {"tool_calls": [call("search", q="x", r="y")]},  # arguments without the parameter: malformed for both APIs
    {"tool_calls": [call("finish", answer="1,800 ft")]},
]


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_hosted_tool_calling_end_to_end(name: str) -> None:
    fake = FakeOpenAI if name == "openai" else FakeGemini
    replies = list(REPLIES)
    if name == "openai":  # OpenAI streams arguments as text, so they can be broken JSON
        replies.insert(3, {"tool_calls": [{"name": "lookup", "arguments": '{"keyword": "elev'}]})
    with fake(replies) as server:
        base_url = server.root + ("/v1" if name == "openai" else "")
        options = {"model": "gpt-4.1-mini"} if name == "openai" else {}
        provider = create_provider(name, api_key="k-0123456789", base_url=base_url, retry=fast_retry(), **options)
        trace = run(provider)
    assert trace.stop_reason == "finished" and trace.final_answer == "1,800 ft", trace.error
    actions = [s.action.to_dict() if s.action else None for s in trace.steps]
    assert actions[:3] == [
        {"tool": "search", "input": "High Plains"},
        {"tool": "calculator", "input": "6*7"},
        {"tool": "search", "input": "Ogallala"},
    ]
    assert trace.steps[0].thought == "I will look it up." and trace.steps[2].call.same_reply_as == 2
    errors = [s for s in trace.steps if s.is_error]
    assert len(errors) == (2 if name == "openai" else 1)
    heads = [i for i, s in enumerate(trace.steps) if s.call.same_reply_as is None]
    assert len(heads) == len(server.requests)
    for k, position in enumerate(heads):
        assert call_records.request(trace.steps, position) == json.loads(json.dumps(server.requests[k].body))
    last = server.requests[-1].body
    if name == "openai":
        assert [t["function"]["name"] for t in last["tools"]] == ["search", "calculator", "finish"]
        assert "stop" not in last
        parallel = last["messages"][4]
        assert parallel["role"] == "assistant" and [c["function"]["name"] for c in parallel["tool_calls"]] == [
            "calculator",
            "search",
        ]
        results = last["messages"][5:7]
        assert [r["tool_call_id"] for r in results] == [c["id"] for c in parallel["tool_calls"]]
        assert last["messages"][-2]["tool_calls"][0]["function"]["arguments"] == '{"keyword": "elev'
    else:
        declared = last["tools"][0]["functionDeclarations"]
        assert [d["name"] for d in declared] == ["search", "calculator", "finish"]
        model_turn = last["contents"][3]
        assert model_turn["role"] == "model" and model_turn["parts"][0]["thoughtSignature"] == GEMINI_SIGNATURE
        answers = last["contents"][4]["parts"]  # the results of one reply's calls, together in one turn
        assert [p["functionResponse"]["name"] for p in answers] == ["calculator", "search"]
        assert answers[0]["functionResponse"]["response"]["result"].endswith("= 42")
