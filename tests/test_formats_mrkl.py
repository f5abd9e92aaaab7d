"""The mrkl dialect: ``Action: tool`` / ``Action Input: input`` as LangChain's MRKL agent, the hub prompt
``hwchase17/react`` and LlamaIndex's ReAct agent write it.

Behaviours come from reading LangChain's ``MRKLOutputParser`` and ``ReActSingleInputOutputParser`` and LlamaIndex's
``ReActOutputParser`` with their tests; the cases are our own. Long runs of blanks are in test_formats_adversarial.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from react_core.formats import FORMATS, get_format
from react_core.trace import Action, Observation, Step

MRKL = get_format("mrkl")
ROOT = Path(__file__).resolve().parent.parent


def test_mrkl_is_a_registered_dialect_stopped_at_the_observation():
    assert FORMATS["mrkl"] is MRKL
    assert MRKL.stop == ("\nObservation:",)
    assert MRKL.step_prefix(4) == "Thought:"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("x\nAction: Search\nAction Input: High\nPlains", "High Plains"),  # an input over several lines
        ("x\nAction: Search\nAction Input: High Plains\nThought: and then more", "High Plains"),  # ends at a step
        ("x\nAction: Search\nAction Input:\n```text\nHigh\nPlains\n```", "High Plains"),  # in a code fence
        ("x\nAction: Search\nAction Input: ```High Plains```", "High Plains"),  # an inline fence
        ('x\nAction: Search\nAction Input: {"query": "High Plains"}', "High Plains"),  # LlamaIndex: JSON
        ("x\nAction: Search\nAction Input: {'query': 'High Plains'}", "High Plains"),  # a Python dict
        ('x\nAction: Search\nAction Input: {"query": "High Plains"}, or so.', "High Plains"),  # text after it
        ('x\nAction: Search\nAction Input: {\n  "query": "High Plains"\n}', "High Plains"),  # JSON over lines
        ('x\nAction: Search\nAction Input: {"a": 1, "b": 2}', '{"a": 1, "b": 2}'),  # no named argument
        ('x\nAction: Search\nAction Input: "{\\"query\\": 1}"', '{"query": 1}'),  # a JSON string, decoded
        ("x\nAction: Search\nAction Input: {not json", "{not json"),  # a brace that is only text
    ],
)
def test_the_input_may_span_lines_sit_in_a_fence_or_be_json(text, value):
    result = MRKL.parse(text)
    assert result.error is None, result.error
    assert result.action == Action("search", value)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("I now know the final answer\nFinal Answer: 1,800 ft", "1,800 ft"),
        ("I now know the final answer\nFinal Answer:\n1,800 ft", "1,800 ft"),  # on the next line
        ("Done.\nAnswer: 1,800 ft", "1,800 ft"),  # LlamaIndex's label
        ("Done.\nFinal Answer: Here it is:\n\nsecond line", "Here it is:\n\nsecond line"),  # several lines
        ("Done.\nFinal Answer: Paris\nAction: Search\nAction Input: Spain", "Paris"),  # MRKL: answer first wins
        ("Done.\nAction: Final Answer\nAction Input: Paris", "Paris"),
    ],
)
def test_the_final_answer_on_the_same_or_the_next_line(text, answer):
    result = MRKL.parse(text)
    assert result.error is None and result.action is None
    assert result.final_answer == answer


def test_an_action_without_its_input_is_an_error_that_restates_the_format():
    result = MRKL.parse("Thought: I will search.\nAction: Search")
    assert result.action is None and result.final_answer is None
    assert "Action Input:" in result.error and "Final Answer:" in result.error
    assert result.thought == "I will search."
    reminder = MRKL.reminder(["search", "lookup"])
    assert "`Action: Search` / `Action Input: entity`" in reminder and "Calculator" not in reminder


@pytest.mark.parametrize(
    ("line", "tool"),
    [("add (add two numbers)", "add"), ("加法", "加法"), ("**Lookup**", "lookup"), ("`calculator`", "calculator")],
)
def test_the_tool_is_the_first_word_of_the_action_line(line, tool):
    assert MRKL.parse(f"x\nAction: {line}\nAction Input: 1").action == Action(tool, "1")


def test_an_action_before_a_final_answer_wins_and_an_invented_observation_is_cut():
    # LangChain's parser raises when both are present; the action is what the model meant to do now.
    text = "x\nAction: Search\nAction Input: A\nObservation: invented\nThought: so\nFinal Answer: B"
    result = MRKL.parse(text)
    assert result.action == Action("search", "A") and result.leaked_observation


@pytest.mark.parametrize(
    "value",
    ["High Plains", '{"query": "x"}', '"quoted', "Thought: inside", "Action Input: inside", "a\\nb", "tab\\t"],
)
def test_inputs_the_reader_would_decode_are_written_as_json_strings_and_read_back(value):
    action = Action("lookup", value)
    assert MRKL.unrenderable(action) == ""
    rendered = MRKL.render_model_part(Step(2, thought="Go.", action=action))
    assert rendered.startswith("Thought: Go.\nAction: Lookup\nAction Input: ")
    assert MRKL.parse(rendered).action == action


def test_a_step_renders_as_the_hub_prompt_writes_it():
    steps = [
        Step(
            1, thought="Search it.", action=Action("search", "High Plains"), observation=Observation("It is a plain.")
        ),
        Step(2, thought="I now know the final answer", final_answer="a plain"),
    ]
    assert "".join(MRKL.render_step(s) for s in steps) == (
        "Thought: Search it.\nAction: Search\nAction Input: High Plains\nObservation: It is a plain.\n"
        "Thought: I now know the final answer\nFinal Answer: a plain\n"
    )


def test_cli_parse_reads_the_mrkl_dialect():
    out = subprocess.run(
        [sys.executable, "-m", "react_core", "parse", "--format", "mrkl"],
        input="Thought: look it up\nAction: Search\nAction Input: Django\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {
        "thought": "look it up",
        "action": {"tool": "search", "input": "Django"},
        "final_answer": None,
        "error": None,
    }
