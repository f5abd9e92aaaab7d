"""A reply cut before the model ended it (it ran out of tokens, or a content filter or safety block stopped it: any
finish reason but a normal stop) is never an answer, and an action it did not close is never run: the step gets an
error observation saying the reply was cut, the loop goes on, and the step keeps its finish reason; so do the direct
strategies and step mode's Regenerate. What "closed" means is each dialect's own: the paper's ``]``, the xml closing
tag, a JSON blob that closes, a call's ``)``, whole JSON arguments of a native call, and for the multi-line mrkl lines,
a line after them. Every finish reason OpenAI's Chat Completions and Gemini's ``FinishReason`` document is read
through their SDKs."""

from __future__ import annotations

from typing import Any

import pytest
from provider_helpers import FakeGemini, FakeOpenAI, fast_retry

from react_core.base.trace import Action, Observation
from react_core.dialects import get_dialect
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import Preset
from react_core.providers.base import Chunk
from react_core.providers.gemini import GeminiProvider
from react_core.providers.openai_compat import OpenAIProvider
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.registry import Tool, ToolRegistry

CUT = "cut at its length"


class CutBy(ScriptedProvider):
    """The scripted provider, but every reply ends with the finish reason ``reason``."""

    def __init__(self, outputs, reason: str = "length") -> None:
        super().__init__(outputs)
        self.reason = reason

    def stream(self, request):
        for chunk in super().stream(request):
            yield Chunk(usage=chunk.usage, finish_reason=self.reason) if chunk.finish_reason else chunk


class OutOfTokens(CutBy):
    """Every reply ends as an API ends one whose model ran out of tokens."""

    def __init__(self, outputs) -> None:
        super().__init__(outputs, "length")


def run(provider, fmt: str = "paper", max_calls: int = 3, max_tokens: int = 400):
    searched: list[str] = []

    def search(query: str) -> Observation:
        searched.append(query)
        return Observation(f"{query} is a region.", evidence=True)

    preset = Preset(name=f"t-{fmt}", dialect=fmt, instructions="Tools:\n{tools}", examples="")
    tools = ToolRegistry([Tool("search", search)])
    config = RunConfig(provider=provider, preset=preset, tools=tools, max_calls=max_calls, max_tokens=max_tokens)
    return Agent(config).run("What is it?"), searched


def test_an_unclosed_finish_is_not_the_answer_the_loop_goes_on_and_the_finish_reason_is_kept():
    trace, _ = run(OutOfTokens([" I know it.\nAction 1: Finish[Par", " Again, shorter.\nAction 2: Finish[Paris]"]))
    cut = trace.steps[0]
    assert cut.final_answer is None and cut.observation.is_error and CUT in cut.observation.text
    assert "Finish[answer]" in cut.observation.text  # the format restated, as for every mistake
    assert cut.call.finish_reason == "length" and cut.raw_output.endswith("Finish[Par")
    assert trace.stop_reason == "finished" and trace.final_answer == "Paris"


def test_the_local_token_budget_cuts_a_reply_and_it_is_not_taken():
    # The scripted provider says "stop"; the loop's own budget (8 characters per token) cuts the reply mid-answer.
    head = " I know it.\nAction 1: Finish[Par"
    head = " " * (-len(head) % 8) + head
    provider = ScriptedProvider([head + "is, France]"])
    trace, _ = run(provider, max_calls=1, max_tokens=len(head) // 8)
    step = trace.steps[0]
    assert step.raw_output == head and step.call.finish_reason == "length"
    assert step.final_answer is None and CUT in step.observation.text
    assert trace.stop_reason == "max_calls" and trace.final_answer is None


SEARCH = "Look.\nAction: Search\nAction Input: "
# (dialect, a reply cut before its action or answer closed, a cut reply that closed it, what that one did)
DIALECTS = [
    ("paper", " I know it.\nAction 1: Finish[Par", " I know it.\nAction 1: Finish[Paris]\nThought 2: Now", "Paris"),
    ("paper", " Look.\nAction 1: Search[High Pla", " Look.\nAction 1: Search[High Plains]\nObserv", "High Plains"),
    ("paper", " Look.\nAction 1: Search High Pla", " Look.\nAction 1: Search High Plains\nObs", "High Plains"),
    ("act", " Finish[Par", " Finish[Paris]\nAction 2:", "Paris"),
    ("xml", "I know it.\n\nAction 1\n<finish>Par", None, None),  # only the closing tag closes it: a stop sequence
    (
        "json",
        'I know it.\nAction:\n```\n{"action": "Final Answer", "action_input": "Par',
        'I know it.\nAction:\n```\n{"action": "Final Answer", "action_input": "Paris"}\n``',
        "Paris",
    ),
    ("json", "I know it.\nFinal Answer: Par", "I know it.\nFinal Answer: Paris\nObs", "Paris"),
    ("pause", "I know it.\nAnswer: Par", "Look.\nAction: wikipedia: High Plains\nPAU", "High Plains"),
    ("function", 'I know it.\nAction: finish(answer="Par', 'I know it.\nAction: finish(answer="Paris")\nStep', "Paris"),
    ("mrkl", "I know it.\nFinal Answer: Par", "I know it.\nFinal Answer: Paris\nThought:", "Paris"),
    ("mrkl", f"{SEARCH}High Pla", f"{SEARCH}High Plains\nObs", "High Plains"),
    ("mrkl", f'{SEARCH}{{"query": "High', f'{SEARCH}{{"query": "High Plains"}}', "High Plains"),
]
IDS = [f"{case[0]}-{n}" for n, case in enumerate(DIALECTS)]


@pytest.mark.parametrize(("fmt", "unclosed", "closed", "did"), DIALECTS, ids=IDS)
def test_in_every_dialect_only_a_closed_action_or_answer_of_a_cut_reply_is_taken(fmt, unclosed, closed, did):
    trace, searched = run(OutOfTokens([unclosed]), fmt, max_calls=1)
    step = trace.steps[0]
    assert step.action is None and step.final_answer is None and searched == []
    assert step.observation.is_error and CUT in step.observation.text
    assert trace.stop_reason == "max_calls" and trace.final_answer is None
    if closed is None:
        return
    trace, searched = run(OutOfTokens([closed]), fmt, max_calls=1)
    assert trace.final_answer == did or searched == [did], trace.steps[0].to_dict()


def test_a_reply_that_was_not_cut_is_read_as_before():
    # The same half-written call with finish "stop" (the model ended there): the lenient reading stands.
    trace, _ = run(ScriptedProvider([" I know it.\nAction 1: Finish[Paris"]))
    assert trace.stop_reason == "finished" and trace.final_answer == "Paris"


@pytest.mark.parametrize(
    ("arguments", "answer"), [('{"answer": "Par', None), ('{"answer": "Paris"}', "Paris")], ids=["cut", "whole"]
)
def test_a_native_call_is_taken_from_a_cut_reply_only_with_whole_json_arguments(arguments, answer):
    provider = OutOfTokens([{"text": "I know it.", "tool_calls": [{"name": "finish", "arguments": arguments}]}])
    trace, _ = run(provider, "tools", max_calls=1)
    step = trace.steps[0]
    assert step.final_answer == answer and trace.final_answer == answer
    if answer is None:
        assert step.observation.is_error and CUT in step.observation.text and step.call.finish_reason == "length"


def test_the_cut_rule_at_the_format_level():
    xml = get_dialect("xml")
    assert xml.parse("<finish>Paris</finish>", cut="length").final_answer == "Paris"
    assert xml.parse("<search>High Pla", cut="length").action is None
    paper = get_dialect("paper")
    assert paper.parse("Action 1: Search[x]", cut="length").action == Action("search", "x")
    assert "before it wrote a complete action" in paper.parse("Thought 1: I am thinking ab", cut="length").error
    filtered = paper.parse("Action 1: Finish[Par", cut="content_filter")
    assert filtered.final_answer is None and "finish reason content_filter" in filtered.error
    assert CUT not in filtered.error  # not told to keep its thought short: it did not run out of tokens


# -- any finish reason but a normal stop is a cut -----------------------------------------------------------------

HALF = " I know it.\nAction 1: Finish[Par"


@pytest.mark.parametrize("reason", ["content_filter", "safety", "recitation", "other", "blocklist"])
def test_a_reply_cut_by_a_content_filter_is_never_the_answer_and_the_loop_goes_on(reason):
    trace, _ = run(CutBy([HALF, " Again.\nAction 2: Finish[Paris]"], reason))
    cut = trace.steps[0]
    assert cut.final_answer is None and cut.observation.is_error and cut.call.finish_reason == reason
    assert f"finish reason {reason}" in cut.observation.text and "Finish[answer]" in cut.observation.text
    assert trace.stop_reason == "finished" and trace.final_answer == "Paris"


def test_a_native_call_in_a_filtered_reply_is_taken_only_with_whole_json_arguments():
    half = {"text": "I know it.", "tool_calls": [{"name": "finish", "arguments": '{"answer": "Par'}]}
    trace, _ = run(CutBy([half], "content_filter"), "tools", max_calls=1)
    assert trace.final_answer is None and "content_filter" in trace.steps[0].observation.text
    whole = {"text": "I know it.", "tool_calls": [{"name": "finish", "arguments": '{"answer": "Paris"}'}]}
    trace, _ = run(CutBy([whole], "content_filter"), "tools", max_calls=1)
    assert trace.final_answer == "Paris"


@pytest.mark.parametrize("reason", ["length", "content_filter", "safety"])
def test_a_direct_strategy_takes_no_answer_from_a_cut_reply(reason):
    from react_core.evaluation.strategies import EvalContext, run_strategy
    from react_core.loop.settings import RunSettings

    ctx = EvalContext(settings=RunSettings(provider="scripted"), provider=CutBy([" Par"], reason), samples=1)
    standard = run_strategy("standard", "q", ctx).trace
    assert standard.final_answer is None and standard.stop_reason == "max_calls"
    assert standard.steps[0].call.finish_reason == reason
    ctx = EvalContext(settings=RunSettings(provider="scripted"), provider=CutBy([" Hm.\nAnswer: Par"] * 2, reason))
    ctx.samples = 1
    assert run_strategy("cot", "q", ctx).trace.final_answer is None
    assert run_strategy("cot-sc", "q", ctx).extra["votes"] == 0
    whole = EvalContext(settings=RunSettings(provider="scripted"), provider=CutBy([" Paris"], "stop"), samples=1)
    assert run_strategy("standard", "q", whole).trace.final_answer == "Paris"


@pytest.mark.parametrize("reason", ["length", "content_filter"])
def test_step_modes_regenerate_offers_no_answer_from_a_cut_reply(reason):
    from react_core.base.events import final_trace
    from react_core.loop.pause import Decision, resume

    provider = CutBy([" I know it.\nAction 1: Finish[Paris]", HALF, " Sure.\nAction 1: Finish[Paris]"], reason)
    provider.reason = "stop"  # the first reply ends normally: the run pauses before its answer
    preset = Preset(name="t-paper", dialect="paper", instructions="Tools:\n{tools}", examples="")
    agent = Agent(RunConfig(provider=provider, preset=preset, tools=ToolRegistry([]), pause_before=("finish",)))
    paused = agent.run("What is it?")
    assert paused.stop_reason == "paused" and paused.steps[-1].final_answer == "Paris"
    provider.reason = reason
    offered = final_trace(resume(agent, paused, Decision("regenerate", k=2, temperature=0.7)))
    cut, whole = offered.steps[-1].offered
    assert cut.final_answer is None and cut.action is None and cut.call.finish_reason == reason
    assert reason in cut.error or CUT in cut.error
    assert whole.final_answer == "Paris"  # closed before the cut: taken, as the loop takes it


# -- the providers' own words for a reply that ran out of tokens, through their SDKs ------------------------------


def _finishing(base: type, choices: str, field: str, normal: str) -> type:
    """``base``'s stand-in server whose every reply ends with the finish reason ``reason`` in place of ``normal``
    (each streamed event's ``choices`` list carries it in ``field``)."""

    class Finishing(base):
        def __init__(self, outputs, reason: str) -> None:
            super().__init__(outputs)
            self.reason = reason

        def _sse(self, h: Any, events: Any, fault: Any) -> None:
            def finishing():
                for event in events:
                    for choice in event.get(choices, []) if isinstance(event, dict) else []:
                        if choice.get(field) == normal:
                            choice[field] = self.reason
                    yield event

            super()._sse(h, finishing(), fault)

    return Finishing


OpenAIFinishing = _finishing(FakeOpenAI, "choices", "finish_reason", "stop")
GeminiFinishing = _finishing(FakeGemini, "candidates", "finishReason", "STOP")


def _gemini_reasons() -> list[str]:
    from google.genai import types

    return [reason.value for reason in types.FinishReason]


# OpenAI Chat Completions' finish reasons, as its API reference lists them: the model ended the reply itself (a stop,
# a call of tools), or it was cut (out of tokens, the content filter).
OPENAI_REASONS = {"stop": False, "tool_calls": False, "function_call": False, "length": True, "content_filter": True}
# Gemini's: STOP is the one normal end; out of tokens (MAX_TOKENS, and CONTINUATION: the per-request token limit) is
# "length"; every other reason cut the reply where it was.
GEMINI_LENGTH = ("MAX_TOKENS", "CONTINUATION")


def _through_the_sdk(api: str, reason: str):
    if api == "openai":
        with OpenAIFinishing([HALF], reason) as server:
            provider = OpenAIProvider.create(
                base_url=server.root + "/v1", api_key="sk-test-0123456789", model="gpt-4.1-mini", retry=fast_retry()
            )
            return run(provider, max_calls=1)[0]
    with GeminiFinishing([HALF], reason) as server:
        provider = GeminiProvider.create(api_key="gemini-test-0123456789", base_url=server.root, retry=fast_retry())
        return run(provider, max_calls=1)[0]


@pytest.mark.parametrize(("reason", "cut"), OPENAI_REASONS.items())
def test_every_openai_finish_reason_but_a_normal_end_is_a_cut_reply(reason, cut):
    step = _through_the_sdk("openai", reason).steps[0]
    assert step.call.finish_reason == reason
    if cut:
        said = CUT if reason == "length" else f"finish reason {reason}"
        assert step.final_answer is None and step.observation.is_error and said in step.observation.text
    else:
        assert step.final_answer == "Par"  # the model ended there: the lenient reading stands, as before


@pytest.mark.parametrize("reason", _gemini_reasons())
def test_every_gemini_finish_reason_but_stop_is_a_cut_reply(reason):
    step = _through_the_sdk("gemini", reason).steps[0]
    if reason == "STOP":
        assert step.call.finish_reason == "stop" and step.final_answer == "Par"
        return
    recorded = "length" if reason in GEMINI_LENGTH else reason.lower()
    assert step.call.finish_reason == recorded
    assert step.final_answer is None and step.observation.is_error
    assert (CUT if recorded == "length" else f"finish reason {recorded}") in step.observation.text
