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

from react_core.base import tool_specs
from react_core.base.trace import Action, Observation, Step
from react_core.dialects import DIALECTS, get_dialect
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import Preset
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import ToolRegistry

MRKL = get_dialect("mrkl")
ROOT = Path(__file__).resolve().parent.parent


def test_mrkl_is_a_registered_dialect_stopped_at_the_observation():
    assert DIALECTS["mrkl"] is MRKL
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
        ("Done.\nFinal Answer: Paris\nAction: Search", "Paris"),  # an action without its input is no action
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


def test_an_invented_observation_is_cut_so_an_answer_after_it_is_not_the_model_s_to_give():
    # The reply ends at the stop sequence: what follows the model's own Observation never reached LangChain's parser
    # either (its agents stop the model on "\nObservation:"), so only the action is there to read.
    text = "x\nAction: Search\nAction Input: A\nObservation: invented\nThought: so\nFinal Answer: B"
    result = MRKL.parse(text)
    assert result.action == Action("search", "A") and result.leaked_observation


@pytest.mark.parametrize(
    "text",
    [
        "x\nAction: Search\nAction Input: NBA\nFinal Answer: 1994",  # the action first
        "x\nFinal Answer: 1994\n\nAction: Search\nAction Input: NBA",  # the answer first
        "x\nAction: Search\nFinal Answer: 1994\nAction Input: NBA",  # the answer inside the action
        "x\nAnswer: 1994\nAction: Search\nAction Input: NBA",  # LlamaIndex's label
        "x\nAction: Search Action Input: NBA\nFinal Answer: 1994",  # the input on the action's line
    ],
)
def test_an_action_and_a_final_answer_in_one_reply_are_refused_as_langchain_refuses_them(text):
    result = MRKL.parse(text)
    assert result.action is None and result.final_answer is None and result.thought == "x"
    assert "both an action and a final answer" in result.error and "one or the other" in result.error


def test_the_loop_tells_the_model_to_write_one_or_the_other_and_goes_on():
    provider = ScriptedProvider(
        ["Both.\nAction: Search\nAction Input: NBA\nFinal Answer: 1994", "One.\nFinal Answer: 1994"]
    )
    preset = Preset(name="t", dialect="mrkl", instructions="Tools:\n{tools}", examples="")
    trace = Agent(RunConfig(provider=provider, preset=preset, tools=ToolRegistry([CALCULATOR]))).run("q")
    first = trace.steps[0]
    assert first.action is None and first.observation.is_error and "one or the other" in first.observation.text
    assert trace.stop_reason == "finished" and trace.final_answer == "1994"
    assert "Observation: Your reply holds both" in provider.requests[1].prompt


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("x\nAction: Calculator\nAction Input: ```python\n17 * 23\n```", "17 * 23"),  # opened on the label's line
        ("x\nAction: Calculator\nAction Input: ```\n17 * 23\n+ 4\n```", "17 * 23 + 4"),  # lines joined
        ('x\nAction: Calculator\nAction Input: ```json\n{"expression": "17 * 23"}\n```', "17 * 23"),
        ("x\nAction: Calculator\nAction Input:\n```\n17 * 23\n```\nObs", "17 * 23"),
    ],
)
def test_a_fenced_input_is_the_fence_s_content_as_one_line(text, value):
    # LangChain passes the fence itself on (its tools may be a Python shell); ours take one line of text.
    assert MRKL.parse(text).action == Action("calculator", value)


# LangChain's own test inputs (tests/unit_tests/agents/test_mrkl.py) and what its MRKLOutputParser gives for them: a
# tool's input keeps its lines and its code fence. Ours ends at its last non-blank character (LangChain keeps a last
# newline: "ls -l ~/.bashrc.d/\n") and names the tool in lower case.
LANGCHAIN_INPUTS = [
    (
        "Now I need to write a unittest for the function.\n\n"
        "Action: Python\nAction Input:\n```\nimport unittest\n\nunittest.main()\n```",
        Action("python", "```\nimport unittest\n\nunittest.main()\n```"),
    ),
    (
        "\n    I can use the `ls` command to list the contents of the directory     and `grep` to search for the "
        "specific file.\n\n    Action:\n    Terminal\n\n    Action Input:\n    ls -l ~/.bashrc.d/\n    ",
        Action("terminal", "ls -l ~/.bashrc.d/"),
    ),
    (
        "\n    I should query for the largest single shift payment for every unique user.\n    Action: query_sql_db\n"
        '    Action Input:     SELECT "UserName", MAX(totalpayment) FROM user_shifts GROUP BY "UserName" ',
        Action("query_sql_db", 'SELECT "UserName", MAX(totalpayment) FROM user_shifts GROUP BY "UserName"'),
    ),
    ("Thought: I need to search for NBA\nAction: Search \nAction Input: NBA", Action("search", "NBA")),
]


@pytest.mark.parametrize(("text", "action"), LANGCHAIN_INPUTS)
def test_a_tools_input_keeps_its_lines_and_fence_as_langchain_reads_them(text, action):
    assert MRKL.parse(text).action == action


@pytest.fixture
def code_tool():
    """An MCP server's tool that runs Python, known to the dialects for this test only (as a run knows its tools)."""
    spec = tool_specs.ToolSpec("py_run", "py_run", "code", "print(1)", "Runs Python.", "The code.", schema={})
    with tool_specs.known([spec]):
        yield spec.name


@pytest.mark.parametrize(
    ("written", "code"),
    [
        ("```python\nx = 1\nprint(x)\n```", "```python\nx = 1\nprint(x)\n```"),  # opened on the label's line
        ("\n```\nfor i in range(3):\n    print(i)\n```\nObs", "```\nfor i in range(3):\n    print(i)\n```"),
        ("x = 1\nprint(x)\nThought: and then more", "x = 1\nprint(x)"),  # ends at a step, indentation kept
        ("\"print('a')\\nprint('b')\"", "print('a')\nprint('b')"),  # a JSON string, decoded
    ],
)
def test_a_code_tools_input_keeps_its_lines_where_search_joins_them(code_tool, written, code):
    assert MRKL.parse(f"Run it.\nAction: py_run\nAction Input: {written}").action == Action(code_tool, code)
    joined = MRKL.parse(f"Look.\nAction: Search\nAction Input: {written}").action
    assert joined is not None and "\n" not in joined.input and "```" not in joined.input  # one line, as before


def test_a_code_input_longer_than_an_input_may_be_is_refused_not_cut(code_tool):
    code = "x = 1\n" * 400  # 2,400 characters: cut, it would be other code
    result = MRKL.parse(f"Run it.\nAction: py_run\nAction Input: {code}")
    assert result.action is None and "py_run input is 2,399 characters long; write at most 2,000" in result.error


def test_a_multi_line_input_is_written_into_the_next_prompt_and_reads_back(code_tool):
    action = Action(code_tool, "```python\nfor i in range(3):\n    print(i)\n```")
    assert MRKL.unrenderable(action) == ""
    rendered = MRKL.render_model_part(Step(2, thought="Go.", action=action))
    assert rendered == f"Thought: Go.\nAction: py_run\nAction Input: {action.input}\n"
    assert MRKL.parse(rendered).action == action
    assert get_dialect("paper").unrenderable(action) != ""  # a dialect of one-line calls still says it cannot


@pytest.mark.parametrize(
    ("text", "action", "answer"),
    [
        ("x\nAction: Search\nAction Input: NBA\nObs", Action("search", "NBA"), None),
        ("x\nAction: Search\nAction Input: 'NBA'\nObserv \n", Action("search", "NBA"), None),  # as Qwen3#197
        ("x\nAction: Search\nAction Input: NBA\nO", Action("search", "NBA"), None),
        ("x\nFinal Answer: 1994\nObservat", None, "1994"),
        ("x\nAction: Search\nAction Input: NBA\nObsidian", Action("search", "NBA Obsidian"), None),  # not the stop
        ("x\nAction: Search\nAction Input: Obs", Action("search", "Obs"), None),  # the input's own line
        ("x\nFinal Answer:\nO", None, "O"),  # a lone line after the label is the answer (blood type O)
    ],
)
def test_the_first_letters_of_the_stop_word_ending_a_reply_are_not_part_of_the_input(text, action, answer):
    # LangChain's parsers keep them (the input becomes "NBA\nObs"); the model had begun the environment's line.
    result = MRKL.parse(text)
    assert (result.action, result.final_answer) == (action, answer)


@pytest.mark.parametrize(
    "text",
    [
        "I will look.\n    Action:\n    Search\n\n    Action Input:\n    High Plains\n    ",
        "I will look.\nAction:\nSearch Action Input: High Plains",
    ],
)
def test_the_tool_may_stand_on_the_line_after_action(text):
    assert MRKL.parse(text).action == Action("search", "High Plains")


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
