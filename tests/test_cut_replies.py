"""A reply cut at its length (the model ran out of tokens) is never an answer, and an action it did not close is never
run: the step gets an error observation saying the reply was cut, the loop goes on, and the step keeps its finish
reason. What "closed" means is each dialect's own: the paper's ``]``, the xml closing tag, a JSON blob that closes, a
call's ``)``, whole JSON arguments of a native call, and for the multi-line mrkl lines, a line after them."""

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


class OutOfTokens(ScriptedProvider):
    """The scripted provider, but every reply ends as an API ends one whose model ran out of tokens."""

    def stream(self, request):
        for chunk in super().stream(request):
            yield Chunk(usage=chunk.usage, finish_reason="length") if chunk.finish_reason else chunk


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
    assert xml.parse("<finish>Paris</finish>", cut_at_length=True).final_answer == "Paris"
    assert xml.parse("<search>High Pla", cut_at_length=True).action is None
    paper = get_dialect("paper")
    assert paper.parse("Action 1: Search[x]", cut_at_length=True).action == Action("search", "x")
    assert "before it wrote a complete action" in paper.parse("Thought 1: I am thinking ab", cut_at_length=True).error


# -- the providers' own words for a reply that ran out of tokens, through their SDKs ------------------------------


class OpenAIOutOfTokens(FakeOpenAI):
    def _sse(self, h: Any, events: Any, fault: Any) -> None:
        def cut():
            for event in events:
                for choice in event.get("choices", []) if isinstance(event, dict) else []:
                    if choice.get("finish_reason") == "stop":
                        choice["finish_reason"] = "length"
                yield event

        super()._sse(h, cut(), fault)


class GeminiOutOfTokens(FakeGemini):
    def _sse(self, h: Any, events: Any, fault: Any) -> None:
        def cut():
            for event in events:
                for candidate in event.get("candidates", []) if isinstance(event, dict) else []:
                    if candidate.get("finishReason") == "STOP":
                        candidate["finishReason"] = "MAX_TOKENS"
                yield event

        super()._sse(h, cut(), fault)


@pytest.mark.parametrize("api", ["openai", "gemini"])
def test_openai_length_and_gemini_max_tokens_are_a_cut_reply(api):
    replies = [" I know it.\nAction 1: Finish[Par"]
    if api == "openai":
        with OpenAIOutOfTokens(replies) as server:
            provider = OpenAIProvider.create(
                base_url=server.root + "/v1", api_key="sk-test-0123456789", model="gpt-4.1-mini", retry=fast_retry()
            )
            trace, _ = run(provider, max_calls=1)
    else:
        with GeminiOutOfTokens(replies) as server:
            provider = GeminiProvider.create(api_key="gemini-test-0123456789", base_url=server.root, retry=fast_retry())
            trace, _ = run(provider, max_calls=1)
    step = trace.steps[0]
    assert step.call.finish_reason == "length"
    assert step.final_answer is None and CUT in step.observation.text and trace.stop_reason == "max_calls"
