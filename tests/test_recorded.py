"""What a recorded run goes on with (``react_core.loop.recorded``): the prompt that wrote its calls is told from
others of its name by what its first recorded call sent."""

from __future__ import annotations

from dataclasses import replace

from react_core.base.trace import Exchange, Trace
from react_core.loop.agent import Agent, RunConfig
from react_core.loop.recorded import Recorded
from react_core.presets.preset import Preset
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import ToolRegistry

TOOLS = ["calculator"]


def preset(instructions: str = "Answer with tools:\n{tools}", dialect: str = "paper") -> Preset:
    return Preset(name="mine", dialect=dialect, instructions=instructions, examples="", question="Question: {question}")


def run(p: Preset, context: list[Exchange] | None = None) -> Trace:
    config = RunConfig(
        provider=ScriptedProvider([" Done.\nAction 1: Finish[42]"]), preset=p, tools=ToolRegistry([CALCULATOR])
    )
    trace = Agent(config).run("What is 6 * 7?", context=context or [])
    trace.settings["dialect"] = p.dialect
    return trace


def test_the_prompt_that_sent_the_calls_is_found_among_others_of_its_name():
    sent = preset()
    trace = run(sent)
    edited, other_dialect = preset("Answer carefully:\n{tools}"), replace(sent, dialect="gemini-xml")
    assert Recorded(trace).prompt([edited, other_dialect, sent], TOOLS) is sent
    assert Recorded(trace).prompt([edited, other_dialect], TOOLS) is None
    asked_otherwise = replace(sent, question="Q: {question}")  # the same instructions, another question block
    assert Recorded(trace).prompt([asked_otherwise], TOOLS) is None


def test_a_follow_up_is_matched_with_the_conversation_it_was_asked_after():
    sent = preset()
    trace = run(sent, [Exchange("Who?", "Ada")])
    assert Recorded(trace).prompt([sent], TOOLS) is sent
    assert Recorded(replace(trace, context=[])).prompt([sent], TOOLS) is None


def test_a_run_with_no_recorded_call_goes_by_its_dialect_alone():
    trace = Trace("q", settings={"dialect": "paper"})
    first, second = preset("One"), preset("Two")
    assert Recorded(trace).prompt([replace(first, dialect="gemini-xml"), second, first], TOOLS) is second
    assert Recorded(Trace("q")).prompt([first], TOOLS) is first  # no dialect recorded: the paper's
