"""The json dialect reads what LangChain's JSON ReAct parsers and smolagents' ``parse_json_blob`` read.

The behaviours come from reading ``ReActJsonSingleInputOutputParser``, ``JSONAgentOutputParser`` and
``parse_json_markdown``/``parse_partial_json`` (langchain-ai/langchain) and ``parse_json_blob`` (huggingface/smolagents)
with their tests; the cases below are our own. Where we choose to differ, a test says so and why.
"""

from __future__ import annotations

import pytest

from react_core.base.trace import Action, Step
from react_core.dialects import get_dialect

JSON = get_dialect("json")


def action_of(text: str) -> Action | None:
    result = JSON.parse(text)
    assert result.error is None, result.error
    return result.action


# -- where the blob may stand ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # A thought, then a fenced blob with no "Action:" line (ReActJsonSingleInputOutputParser's own example).
        'Thought: I should look it up.\n```\n{\n    "action": "Search",\n    "action_input": "High Plains"\n}\n```\n',
        # A bare fenced blob with nothing before it, blank lines everywhere (JSONAgentOutputParser).
        '\n\n```json\n\n{\n\n  "action": "Search",\n\n  "action_input": "High Plains"\n\n}\n\n```\n\n',
        '    ```\n{"action": "Search", "action_input": "High Plains"}\n```',
        # An unfenced blob on its own, and with text before and after it on the same line (smolagents).
        '{"action": "Search", "action_input": "High Plains"}',
        'I will search now{"action": "Search", "action_input": "High Plains"}and then read it.',
        # After "Action:", with prose between the label and the fence.
        'Thought: x\nAction: here it is\n\n```\n{"action": "Search", "action_input": "High Plains"}\n```\nDone.',
    ],
)
def test_a_blob_is_found_with_or_without_an_action_line(text):
    assert action_of(text) == Action("search", "High Plains")


def test_the_thought_is_the_text_before_the_blob_without_its_fence():
    result = JSON.parse('Thought: I should look it up.\n```json\n{"action": "Search", "action_input": "X"}\n```')
    assert result.thought == "I should look it up."
    assert JSON.parse('{"action": "Search", "action_input": "X"}').thought == ""


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('{"action": "Final Answer", "action_input": "4"}', "4"),
        ('```\n{\n  "action": "Final Answer",\n  "action_input": "1,800 to 7,000 ft"\n}\n```', "1,800 to 7,000 ft"),
        ('Thought: done.\n```json\n{"action": "final_answer", "action_input": {"answer": "Paris"}}\n```', "Paris"),
        # A multi-line answer keeps its lines; escaped quotes and fence marks inside the string are text.
        ('{"action": "Final Answer", "action_input": "line one\\nline two"}', "line one\nline two"),
        ('{"action": "Final Answer", "action_input": "```code``` and \\"quotes\\""}', '```code``` and "quotes"'),
    ],
)
def test_a_final_answer_blob_ends_the_run(text, answer):
    result = JSON.parse(text)
    assert result.error is None and result.action is None
    assert result.final_answer == answer


# -- what the strings and the input may hold ---------------------------------------------------------------------


def test_raw_newlines_and_tabs_inside_strings_are_accepted():
    text = 'Action:\n```\n{"action": "Search",\t"action_input": "High\n\tPlains"}\n```'
    assert action_of(text) == Action("search", "High Plains")
    final = JSON.parse('{"action": "Final Answer", "action_input": "first\nsecond"}')
    assert final.final_answer == "first\nsecond"


@pytest.mark.parametrize(
    ("blob", "expected"),
    [
        # The tool's own argument name (tool_specs params): query, keyword, expression.
        ('{"action": "Search", "action_input": {"query": "High Plains"}}', Action("search", "High Plains")),
        ('{"action": "Lookup", "action_input": {"keyword": "elevation", "x": 1}}', Action("lookup", "elevation")),
        ('{"action": "Calculator", "action_input": {"expression": "2 * 21"}}', Action("calculator", "2 * 21")),
        # A one-entry object under another name: its value.
        ('{"action": "Search", "action_input": {"entity": "High Plains"}}', Action("search", "High Plains")),
        # Anything else: its JSON text, which a tool can still read.
        ('{"action": "Calculator", "action_input": {"a": 1, "b": 2}}', Action("calculator", '{"a": 1, "b": 2}')),
        ('{"action": "Search", "action_input": ["a", "b"]}', Action("search", '["a", "b"]')),
        ('{"action": "Calculator", "action_input": 42}', Action("calculator", "42")),
        ('{"action": "Calculator", "action_input": 2.5}', Action("calculator", "2.5")),
        # An input that is itself JSON text in a string stays that text.
        ('{"action": "Search", "action_input": "{\\"q\\": \\"x\\"}"}', Action("search", '{"q": "x"}')),
    ],
)
def test_an_object_input_gives_the_tools_named_argument_or_its_json_text(blob, expected):
    assert action_of("Action:\n" + blob) == expected


@pytest.mark.parametrize(
    "blob",
    [
        '{"tool": "Search", "tool_input": "High Plains"}',
        '{"name": "search", "arguments": {"query": "High Plains"}}',
        '{"tool_name": "Search", "parameters": {"query": "High Plains"}}',
    ],
)
def test_smolagents_other_key_names_are_read(blob):
    assert action_of(blob) == Action("search", "High Plains")


# -- broken blobs that are still clear -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'Action:\n```json\n{"action": "Search", "action_input": "High Plains"\n\n\n',  # no closing brace or fence
        'Action:\n```\n{"action": "Search", "action_input": "High Plains"\n```\nThat should do.',  # fence, no brace
        'Action: {"action": "Search", "action_input": "High Plains',  # no closing quote either
        'Action: {"action": "Search", "action_input": "High Plains"\nThis will find it.',  # prose after
        "Action: {'action': 'Search', 'action_input': 'High Plains',}",  # a Python dict, trailing comma
        'Action: [{"action": "Search", "action_input": "High Plains"}, {"action": "Lookup"}]',  # a list: the first
        'Action:\n```\n{"action": "Search", "action_input": "High Plains"}\n```\n```\n{"action": "Lookup"}\n```',
    ],
)
def test_a_blob_missing_its_end_or_written_loosely_is_read_as_langchain_reads_it(text):
    assert action_of(text) == Action("search", "High Plains")


@pytest.mark.parametrize(
    "text",
    [
        "I am not sure what to do.",  # no blob, no Final Answer: LlamaIndex would answer with the prose
        '{"foo": "bar"}',  # a blob without an action
        'Action: {"tool_call": "Search"}',
        'Action: {"action": "Search", "action_input":',  # the input never written
        "Action: }}",
        'Action: {"action": 42, "action_input": "x"}',
    ],
)
def test_text_without_a_readable_action_is_an_error_for_the_model(text):
    result = JSON.parse(text)
    assert result.action is None and result.final_answer is None and result.error


# -- where we differ on purpose --------------------------------------------------------------------------------


def test_an_observation_the_model_invented_after_the_blob_is_cut_and_flagged():
    # LangChain parses the whole text (its stop sequence usually prevents this); we cut, so the invented result is
    # never shown to the model as if the tool had said it, and the step is flagged.
    text = 'Thought: x\nAction: {"action": "Search", "action_input": "A"}\nObservation: made up\nThought: y'
    result = JSON.parse(text)
    assert result.action == Action("search", "A") and result.leaked_observation


def test_an_action_and_a_final_answer_together_take_whichever_comes_first():
    # ReActJsonSingleInputOutputParser raises on both; the first is what the model meant to do now, and an error
    # would cost a step for nothing.
    action_first = 'Action: {"action": "Search", "action_input": "A"}\nFinal Answer: B'
    assert JSON.parse(action_first).action == Action("search", "A")
    answer_first = 'Final Answer: B\nAction: {"action": "Search", "action_input": "A"}'
    assert JSON.parse(answer_first).final_answer == "B"


def test_a_null_or_missing_input_is_an_empty_input():
    assert "empty" in JSON.parse('Action: {"action": "Search", "action_input": null}').error
    assert JSON.parse('Action: {"action": "Search"}').error  # LangChain passes {} to the tool


# -- rendering --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ['say "hi"', "back\\slash", "tab\tinside", '{"a": 1}', "a ```fence``` b", "Ωmega 🚀"])
def test_every_input_is_written_as_json_and_reads_back(value):
    action = Action("search", " ".join(value.split()))
    assert JSON.unrenderable(action) == ""
    rendered = JSON.render_model_part(Step(1, thought="Go.", action=action))
    assert JSON.parse(rendered).action == action
