"""The six dialects' parsers and renderers: happy paths, every leniency, strictness, round trips, the paper's corpus.

Model text is whatever a model wrote after the prompt's step prefix; the parsers must read what sloppy models write
and refuse what is unsafe. The CLI ``parse`` subcommand is exercised through a subprocess, as other tools use it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from react_core.base.trace import Action, Observation, Step
from react_core.dialects import DIALECTS, get_dialect
from react_core.dialects.base import ParseResult
from react_core.dialects.lenient import MAX_INPUT_CHARS
from react_core.dialects.paper import bracket_input
from react_core.providers.base import cut_at_stop

ROOT = Path(__file__).resolve().parent.parent
TEXT_DIALECTS = ("paper", "xml", "json", "pause", "function", "mrkl")


def parse(fmt: str, text: str) -> ParseResult:
    return get_dialect(fmt).parse(text)


def assert_action(result: ParseResult, tool: str, value: str, thought: str | None = None) -> None:
    assert result.error is None, result.error
    assert result.final_answer is None
    assert result.action == Action(tool, value)
    if thought is not None:
        assert result.thought == thought


def assert_final(result: ParseResult, answer: str, thought: str | None = None) -> None:
    assert result.error is None, result.error
    assert result.action is None
    assert result.final_answer == answer
    if thought is not None:
        assert result.thought == thought


# -- happy paths: what each dialect's own examples look like ---------------------------------------------------

HAPPY = [
    ("paper", " I need to search High Plains.\nAction 2: Search[High Plains]", "search", "High Plains"),
    ("paper", " Look it up.\nAction 3: Lookup[eastern sector]", "lookup", "eastern sector"),
    ("paper", " Compute.\nAction 4: Calculator[1954 - 1882]", "calculator", "1954 - 1882"),
    ("xml", "I need to search it.\n\nAction 1\n<search>Colorado orogeny", "search", "Colorado orogeny"),
    ("xml", "Look it up.\n\nAction 2\n<lookup>eastern sector</lookup>", "lookup", "eastern sector"),
    ("xml", "Compute.\n\nAction 3\n<calculator>4 / 4", "calculator", "4 / 4"),
    (
        "json",
        ' Search it.\nAction:\n```\n{\n  "action": "Search",\n  "action_input": "Django"\n}\n```',
        "search",
        "Django",
    ),
    ("json", ' Look.\nAction:\n```json\n{"action": "Lookup", "action_input": "born"}\n```', "lookup", "born"),
    ("json", ' Compute.\nAction: {"action": "Calculator", "action_input": "29^0.23"}', "calculator", "29^0.23"),
    ("pause", " I should look up Django.\nAction: wikipedia: Django\nPAUSE", "search", "Django"),
    ("pause", " Look.\nAction: lookup: born\nPAUSE", "lookup", "born"),
    ("pause", " Compute.\nAction: calculate: 4 - 7 / 3\nPAUSE", "calculator", "4 - 7 / 3"),
    ("function", ' Search it.\nAction: search(query="High Plains")', "search", "High Plains"),
    ("function", ' Look.\nAction: lookup(keyword="eastern sector")', "lookup", "eastern sector"),
    ("function", ' Compute.\nAction: calculator(expression="2 * (3 + 4)")', "calculator", "2 * (3 + 4)"),
    ("mrkl", " I need to search High Plains.\nAction: Search\nAction Input: High Plains", "search", "High Plains"),
    ("mrkl", " Look it up.\nAction: Lookup\nAction Input: eastern sector", "lookup", "eastern sector"),
    ("mrkl", " Compute.\nAction: Calculator\nAction Input: 1954 - 1882", "calculator", "1954 - 1882"),
]


@pytest.mark.parametrize(("fmt", "text", "tool", "value"), HAPPY)
def test_each_dialect_reads_its_own_actions(fmt, text, tool, value):
    result = parse(fmt, text)
    assert_action(result, tool, value)
    assert result.thought and not result.leaked_observation


@pytest.mark.parametrize(
    ("fmt", "text", "answer"),
    [
        ("paper", " Both are American.\nAction 3: Finish[yes]", "yes"),
        ("xml", "So the answer is 1,800 to 7,000 ft.\n\nAction 5\n<finish>1,800 to 7,000 ft", "1,800 to 7,000 ft"),
        ("json", " I now know the final answer\nFinal Answer: Harry Styles", "Harry Styles"),
        ("json", ' Done.\nAction:\n```\n{"action": "Final Answer", "action_input": "42"}\n```', "42"),
        ("pause", " That settles it.\nAnswer: The capital of France is Paris", "The capital of France is Paris"),
        ("function", ' Done.\nAction: finish(answer="1,800 to 7,000 ft")', "1,800 to 7,000 ft"),
        ("mrkl", " I now know the final answer\nFinal Answer: Harry Styles", "Harry Styles"),
        ("mrkl", " I now know the final answer\nFinal Answer:\nHarry Styles", "Harry Styles"),
    ],
)
def test_each_dialect_reads_its_final_answer(fmt, text, answer):
    assert_final(parse(fmt, text), answer)


# -- leniency: sloppy but harmless ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_a_reply_that_restates_the_thought_label_or_starts_mid_thought(fmt):
    fmt_obj = get_dialect(fmt)
    action = fmt_obj.render_action(Action("search", "High Plains"))
    body = "I need to search High Plains."
    mid = parse(fmt, f" {body}\n{_action_line(fmt, 2, action)}")
    labelled = parse(fmt, f"{fmt_obj.step_prefix(2)} {body}\n{_action_line(fmt, 2, action)}")
    for result in (mid, labelled):
        assert_action(result, "search", "High Plains", thought=body)


def _action_line(fmt: str, index: int, action: str) -> str:
    """The action as the dialect writes it after a thought (numbered headers where the dialect numbers them)."""
    if fmt == "paper":
        return f"Action {index}: {action}"
    if fmt == "xml":
        return f"\nAction {index}\n{action}"
    if fmt in ("function", "json") and not action.startswith("Action:"):
        return f"Action: {action}"
    return action


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("paper", "I need it.\nAction: Search[High Plains]"),  # no step number
        ("paper", "**Thought 2:** I need it.\n**Action 2:** Search[High Plains]"),  # markdown bold labels
        ("paper", "I need it.\n**Action 2: Search[High Plains]**"),  # a whole line in bold
        ("paper", "I need it.\r\nAction 2:   Search[ High Plains ]   "),  # CRLF, extra whitespace
        ("paper", "I need it.\n```\nAction 2: Search[High Plains]\n```"),  # code fences
        ("paper", "I need it.\nAction 2: Search[High Plains] and then I will read it."),  # text after the action
        ("paper", "I need it.\nAction 2: search [High Plains]"),  # lower case, space before the bracket
        ("paper", "I need it.\nAction 2: Search: High Plains"),  # colon form
        ("paper", "I need it.\nAction 2: Search High Plains"),  # no brackets at all
        ("paper", "I need it.\nSearch[High Plains]"),  # no Action label
        ("paper", "I need it.\nAction 2\nSearch[High Plains]"),  # label and call on separate lines
        ("paper", 'I need it.\nAction 2: Search["High Plains"]'),  # quoted input
        ("xml", "I need it.\nAction 2: <search>High Plains</search>"),  # header and tag on one line
        ("xml", "I need it. <search>High Plains"),  # no Action header at all
        ("xml", "I need it.\n\nAction\n<SEARCH>High Plains</SEARCH>"),  # no number, upper-case tag
        ("xml", "I need it.\n\nAction 2\n```xml\n<search>High Plains</search>\n```"),  # fenced
        ("json", 'I need it.\nAction: {"action": "search", "action_input": "High Plains"}'),  # bare blob
        ("json", "I need it.\nAction:\n{'action': 'Search', 'action_input': 'High Plains',}"),  # Python dict literal
        ("json", 'I need it.\nAction: {"action": "Search", "action_input": {"query": "High Plains"}}'),  # nested input
        ("json", 'I need it.\nAction: [{"action": "Search", "action_input": "High Plains"}, {"action": "Lookup"}]'),
        ("json", "I need it.\nAction: Search\nAction Input: High Plains"),  # LangChain's older pair
        ("json", '**Thought:** I need it.\n**Action:**\n```\n{"action": "Search", "action_input": "High Plains"}\n```'),
        ("pause", "I need it.\nAction: wikipedia:High Plains\nPAUSE"),  # no space after the colon
        ("pause", "I need it.\nAction: wikipedia High Plains"),  # colon forgotten after a known tool
        ("pause", "I need it.\nAction: Wikipedia: High Plains PAUSE"),  # PAUSE on the action line
        ("pause", "I need it.\nAction 2: search: High Plains\nPAUSE\n\nThat is all."),  # numbered, text after PAUSE
        ("function", 'I need it.\nAction: search("High Plains")'),  # positional argument
        ("function", 'I need it.\nAction: Search(Query="High Plains")'),  # capitalised
        ("function", "I need it.\nAction: `search(query='High Plains')`"),  # backticks, single quotes
        ("function", 'I need it.\nsearch(query="High Plains")'),  # no Action label
        ("function", 'Step 2\nThought: I need it.\nAction: search(query="High Plains") to read it'),  # text after
        ("function", 'I need it.\nAction: search(\n    query="High Plains"\n)'),  # call over several lines
        ("function", 'I need it.\n```python\nAction: search(query="High Plains")\n```'),  # fenced
        ("mrkl", "I need it.\nAction: search\nAction Input: High Plains"),  # lower-case tool
        ("mrkl", "I need it.\n\nAction: Search\n\n\nAction Input: High Plains\n"),  # blank lines between
        ("mrkl", "I need it.\nAction 1: Search\nAction 1 Input 1: High Plains"),  # numbered, as LangChain allows
        ("mrkl", "I need it.\nAction: Search (looks up Wikipedia)\nAction Input: High Plains"),  # a note after it
        ("mrkl", "I need it.\nAction: `Search`\nAction Input: `High Plains`"),  # backticks
        ("mrkl", 'I need it.\nAction: Search\nAction Input: "High Plains"'),  # quoted
        ("mrkl", "I need it.\nAction: Search\nAction Input:\n```\nHigh Plains\n```"),  # fenced on its own lines
        ("mrkl", 'I need it.\nAction: Search\nAction Input: {"query": "High Plains"}'),  # LlamaIndex's JSON input
        ("mrkl", "I need it.\nAction: Search Action Input: High Plains"),  # both on one line
        ("mrkl", "**Thought:** I need it.\n**Action:** Search\n**Action Input:** High Plains"),  # bold labels
    ],
)
def test_sloppy_but_harmless_text_is_read(fmt, text):
    result = parse(fmt, text)
    assert_action(result, "search", "High Plains")
    assert result.thought == "I need it."


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_a_leaked_observation_is_cut_and_flagged(fmt):
    f = get_dialect(fmt)
    model_part = f.render_model_part(Step(2, thought="I need it.", action=Action("search", "High Plains")))
    leak = f.render_observation(2, "The High Plains are a subregion of the Great Plains.")
    text = model_part + leak + f.render_model_part(Step(3, thought="Invented.", action=Action("lookup", "x")))
    result = f.parse(text)
    assert_action(result, "search", "High Plains", thought="I need it.")
    assert result.leaked_observation


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_an_invented_question_after_the_final_answer_is_cut_without_a_leak_flag(fmt):
    f = get_dialect(fmt)
    text = f.render_model_part(Step(3, thought="So it is Paris.", final_answer="Paris"))
    text += "\n" + f.question_template.replace("{question}", "What is the capital of Spain?")
    text += f.render_model_part(Step(1, thought="Invented.", action=Action("search", "Spain")))
    result = f.parse(text)
    assert_final(result, "Paris", thought="So it is Paris.")
    assert not result.leaked_observation


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_a_question_restated_before_the_thought_is_not_the_end_of_the_reply(fmt):
    f = get_dialect(fmt)
    text = f.question_template.replace("{question}", "Where is it?")
    text += f.render_model_part(Step(1, thought="I need it.", action=Action("search", "High Plains")))
    assert_action(f.parse(text), "search", "High Plains")


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("paper", "Thought 1: first idea\nThought 2: second idea\nAction 2: Search[X]"),
        ("xml", "Thought 1\nfirst idea\nThought 2\nsecond idea\n\nAction 2\n<search>X"),
        ("pause", "Thought: first idea\nThought: second idea\nAction: wikipedia: X"),
    ],
)
def test_two_thoughts_in_a_row_are_one_thought_without_the_labels(fmt, text):
    result = parse(fmt, text)
    assert result.action == Action("search", "X")
    assert result.thought.split() == ["first", "idea", "second", "idea"]


def test_a_thought_that_merely_starts_with_the_word_thought_keeps_it():
    result = parse("paper", "Thought experiments will not help here.\nAction 1: Search[X]")
    assert result.thought == "Thought experiments will not help here."


@pytest.mark.parametrize(
    ("fmt", "text", "answer"),
    [
        ("pause", "Done.\nAnswer: Paris is the capital.\nAction: wikipedia: Spain", "Paris is the capital."),
        ("pause", "Done.\nAnswer: first line\nsecond line", "first line\nsecond line"),
        ("json", "Done.\nFinal Answer: Paris\nThought: maybe more", "Paris"),
        ("json", "Done.\n**Final Answer:** Paris", "Paris"),
        ("paper", 'Done.\nAction 4: Finish["yes"]', "yes"),
    ],
)
def test_a_final_answer_ends_where_the_model_starts_another_step(fmt, text, answer):
    assert_final(parse(fmt, text), answer)


# -- brackets, tags and blobs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("after_bracket", "value"),
    [
        ("High Plains]", "High Plains"),
        ("[1] list]", "[1] list"),  # balanced brackets inside the input
        ("A] and then [B]", "A"),  # a second bracketed phrase after the call is not the input
        ("a]b]", "a]b"),  # an unbalanced "]" that belongs to the input
        ("no closing bracket", "no closing bracket"),  # the stop sequence cut it, or the model forgot it
        ("List of [[x]] items] next", "List of [[x]] items"),
    ],
)
def test_paper_reads_brackets_inside_the_input(after_bracket, value):
    assert bracket_input(after_bracket) == value
    assert parse("paper", f"x\nAction 1: Search[{after_bracket}").action == Action("search", value)


def test_xml_takes_the_tag_after_the_action_header_and_prefers_known_tools():
    text = "I could <b>search</b> for it.\n\nAction 1\n<search>High Plains</search>"
    result = parse("xml", text)
    assert_action(result, "search", "High Plains", thought="I could <b>search</b> for it.")
    # Without a header, a known tool's tag wins over markup in the thought.
    assert parse("xml", "I <i>must</i> find it. <lookup>born").action == Action("lookup", "born")


def test_xml_keeps_inner_markup_until_the_matching_closing_tag():
    assert parse("xml", "x\n\nAction 1\n<search>a <b>c</b> d</search>").action == Action("search", "a <b>c</b> d")


def test_json_blob_braces_inside_strings_and_raw_newlines_are_fine():
    assert parse("json", 'x\nAction: {"action": "Search", "action_input": "a}b{c"}').action == Action("search", "a}b{c")
    raw_newline = 'x\nAction: {"action": "Search", "action_input": "two\nlines"}'
    assert parse("json", raw_newline).action == Action("search", "two lines")


# -- strictness: errors the model hears, and nothing evaluated -----------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        'search(query=open("{path}", "w"))',  # a call inside the argument
        'search(query=__import__("os").system("touch {path}"))',
        "search(query=query)",  # a name
        "search(query=os.path)",  # an attribute
        'search(query="a" + "b")',  # an operation
        'search(query=["{path}"])',  # a container
        'search(query=f"{{x}}")',  # an f-string
        "search(query=lambda: 1)",
        'search(query=(x := "{path}"))',
        'search(query="a"[0])',  # a subscript
        "finish(answer=True)",  # not a string or a number
        "finish(answer=None)",
        'os.system("touch {path}")',  # not a tool call by name
        'search.__class__(query="x")',
        'search(*["x"])',
        'search(**{{"query": "x"}})',
        'search(query="a", keyword="b")',  # two arguments
        "search()",  # none
    ],
)
def test_function_calls_take_literals_only_and_nothing_is_evaluated(call, tmp_path):
    path = tmp_path / "evaluated"
    result = parse("function", "I will try.\nAction: " + call.format(path=path))
    assert result.action is None and result.final_answer is None
    assert result.error and result.error.startswith("Could not read the action")
    assert result.thought == "I will try."
    assert not path.exists()


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("paper", "I am not sure what to do."),
        ("paper", "x\nAction 1:   "),
        ("paper", "x\nAction 1: (none)"),
        ("xml", "I am not sure.\n\nAction 1\nnothing here"),
        ("json", "I am not sure."),
        ("json", 'x\nAction: {"tool": "Search"}'),
        ("json", "x\nAction: Search"),
        ("pause", "I am not sure."),
        ("pause", "x\nAction: look it up somewhere"),
        ("function", "I am not sure."),
        ("function", 'x\nAction: search(query="unterminated'),
        ("mrkl", "I am not sure."),
        ("mrkl", "x\nAction: Search"),  # no Action Input
        ("mrkl", "x\nAction Input: High Plains"),  # no Action
        ("mrkl", "x\nAction:\nAction Input: High Plains"),  # an empty Action
    ],
)
def test_unreadable_text_is_a_parse_error_that_restates_the_format(fmt, text):
    result = parse(fmt, text)
    assert result.action is None and result.final_answer is None
    assert result.error


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("paper", "x\nAction 3: Finish[]"),
        ("paper", "x\nAction 3: Search[ ]"),
        ("xml", "x\n\nAction 3\n<finish></finish>"),
        ("json", "x\nFinal Answer:   "),
        ("json", 'x\nAction: {"action": "Lookup", "action_input": ""}'),
        ("pause", "x\nAnswer:"),
        ("function", 'x\nAction: finish(answer="")'),
        ("function", 'x\nAction: calculator(expression="   ")'),
        ("mrkl", "x\nAction: Search\nAction Input:   "),
        ("mrkl", "x\nFinal Answer:"),
    ],
)
def test_an_empty_answer_or_empty_input_is_an_error_not_an_action(fmt, text):
    result = parse(fmt, text)
    assert result.action is None and result.final_answer is None
    assert "empty" in result.error


@pytest.mark.parametrize(
    ("fmt", "text", "tool"),
    [
        ("paper", "x\nAction 1: Translate[bonjour]", "translate"),
        ("xml", "x\n\nAction 1\n<Translate>bonjour</Translate>", "translate"),
        ("json", 'x\nAction: {"action": "Translate", "action_input": "bonjour"}', "translate"),
        ("pause", "x\nAction: simon_blog_search: bonjour\nPAUSE", "simon_blog_search"),
        ("function", 'x\nAction: Translate(text="bonjour")', "translate"),
        ("mrkl", "x\nAction: Translate\nAction Input: bonjour", "translate"),
    ],
)
def test_unknown_tools_come_back_as_actions_so_the_loop_can_list_the_real_ones(fmt, text, tool):
    assert_action(parse(fmt, text), tool, "bonjour")


@pytest.mark.parametrize(
    ("fmt", "text", "tool"),
    [
        ("paper", "x\nAction 1: Wikipedia[Django]", "search"),
        ("paper", "x\nAction 1: Calculate[1+1]", "calculator"),
        ("xml", "x\n\nAction 1\n<calculate>1+1", "calculator"),
        ("json", 'x\nAction: {"action": "wikipedia", "action_input": "Django"}', "search"),
        ("json", 'x\nAction: {"action": "final_answer", "action_input": "Django"}', "finish"),
        ("pause", "x\nAction: wiki: Django", "search"),
        ("pause", "x\nAction: answer: Django", "finish"),
        ("function", 'x\nAction: calculate(expression="1+1")', "calculator"),
        ("function", 'x\nAction: final_answer(answer="Django")', "finish"),
        ("mrkl", "x\nAction: Wikipedia\nAction Input: Django", "search"),
        ("mrkl", "x\nAction: Final Answer\nAction Input: Django", "finish"),
    ],
)
def test_aliases_resolve_to_the_canonical_lower_case_tool(fmt, text, tool):
    result = parse(fmt, text)
    assert result.error is None
    if tool == "finish":
        assert result.final_answer == "Django"
    else:
        assert result.action.tool == tool


def test_inputs_are_one_trimmed_line_and_capped():
    assert parse("paper", "x\nAction 1: Search[  two\tspaced   words ]").action.input == "two spaced words"
    long = "a" * (MAX_INPUT_CHARS * 2)
    assert len(parse("paper", f"x\nAction 1: Search[{long}]").action.input) == MAX_INPUT_CHARS


# -- rendering: the prompt side ------------------------------------------------------------------------------

TRICKY_INPUTS = [
    "High Plains (United States)",
    "List of [citation needed] tags",  # brackets
    "He said \"yes\" and 'no'",  # quotes inside
    "Zürich – Œuvre 東京 🚀",  # unicode
    'JSON {"a": [1, 2]} \\ backslash \\n',  # JSON-special characters
    "1,800 + 7,000 * (3 - 1)",
    "a < b > c & d",
]


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
@pytest.mark.parametrize("tool", ["search", "lookup", "calculator"])
@pytest.mark.parametrize("value", TRICKY_INPUTS)
def test_render_then_parse_gives_the_step_back(fmt, tool, value):
    f = get_dialect(fmt)
    step = Step(4, thought='Think about "it" [carefully] {now}.', action=Action(tool, value))
    result = f.parse(f.render_model_part(step))
    assert_action(result, tool, value, thought=step.thought)


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
@pytest.mark.parametrize("answer", ["yes", "1,800 to 7,000 ft", 'The "Saimaa Gesture" [film]', "Zürich 東京"])
def test_render_then_parse_gives_the_final_answer_back(fmt, answer):
    f = get_dialect(fmt)
    step = Step(5, thought="So the answer is clear.", final_answer=answer)
    assert_final(f.parse(f.render_model_part(step)), answer, thought=step.thought)


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_a_rendered_step_cut_at_the_stop_sequence_still_parses(fmt):
    """What a provider returns: the model's text up to the dialect's stop sequence (closing tags, PAUSE, …)."""
    f = get_dialect(fmt)
    for step in (
        Step(2, thought="Search it.", action=Action("search", "High Plains")),
        Step(3, thought="Done.", final_answer="1,800 ft"),
    ):
        full = f.render_step(Step.from_dict({**step.to_dict(), "observation": Observation("Obs.").to_dict()}))
        cut, _hit = cut_at_stop(full, f.stop)
        result = f.parse(cut)
        assert result.action == step.action and result.final_answer == step.final_answer
        assert not result.leaked_observation


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_the_prompt_ends_where_the_model_continues_its_thought(fmt):
    f = get_dialect(fmt)
    rendered = f.render_model_part(Step(3, thought="Go.", action=Action("search", "X")))
    assert rendered.startswith(f.step_prefix(3))
    # The model's continuation after the prefix parses on its own, as the loop parses it.
    assert_action(f.parse(rendered[len(f.step_prefix(3)) :]), "search", "X", thought="Go.")


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_a_failed_step_without_its_raw_text_renders_its_thought_and_its_error(fmt):
    f = get_dialect(fmt)
    step = Step(2, thought="Unsure.", observation=Observation.error("No action found."))
    text = f.render_step(step)
    assert "Unsure." in text and "No action found." in text and "(none)" not in text
    assert f.parse(f.render_model_part(step)).error


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_the_reminder_names_only_the_enabled_tools_in_parseable_forms(fmt):
    f = get_dialect(fmt)
    reminder = f.reminder(["search", "calculator"])
    assert "lookup" not in reminder.lower()
    if fmt not in ("pause", "mrkl"):  # these list the forms with placeholders or per line, not full actions
        for tool, form in (("search", f.render_action(Action("search", "entity"))),):
            assert form in reminder
            assert f.parse("x\n" + _action_line(fmt, 1, form)).action.tool == tool


def test_every_format_has_the_contract_attributes():
    assert set(TEXT_DIALECTS) <= set(DIALECTS)
    for name, f in DIALECTS.items():
        # A native tool-calling format has no stop sequences: a stop in the text would end the reply before its calls.
        assert f.name == name and f.label and (f.stop or f.native_tools)
        assert f.question_template.count("{question}") == 1
        assert all(k == k.lower() for k in f.aliases)


# -- conformance: the ReAct paper's own prompts -------------------------------------------------------------

_PAPER_ACTION = re.compile(r"^Action \d+: (\w+)\[(.*)\]$")


def _action_lines(shared_data: Path) -> list[str]:
    lines = []
    for name in ("prompts_naive.json", "fever.json"):
        prompts = json.loads((shared_data / "react-prompts" / name).read_text(encoding="utf-8"))
        for text in prompts.values():
            lines += [line for line in text.split("\n") if line.startswith("Action")]
    return lines


def test_every_action_line_of_the_paper_prompts_parses_as_written(shared_data):
    lines = _action_lines(shared_data)
    assert len(lines) == 92  # webthink (three sizes) and webact for HotpotQA, webthink and webact for FEVER
    for line in lines:
        tool, value = _PAPER_ACTION.match(line).groups()
        result = parse("paper", line)
        if tool == "Finish":
            assert_final(result, value)
        else:
            assert_action(result, tool.lower(), value)


def test_every_thought_and_action_of_the_paper_prompts_parses(shared_data):
    from react_core.presets.check import example_chunks

    for name in ("prompts_naive.json", "fever.json"):
        prompts = json.loads((shared_data / "react-prompts" / name).read_text(encoding="utf-8"))
        for key in (k for k in prompts if "think" in k):
            chunks = example_chunks(get_dialect("paper"), prompts[key])
            assert chunks, key
            for line, chunk in chunks:
                result = parse("paper", chunk)
                assert result.error is None, (name, key, line, chunk)
                assert result.thought and not result.leaked_observation


# -- the CLI: python -m react_core parse --format F ----------------------------------------------------------


def _cli_parse(fmt: str, text: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "react_core", "parse", "--format", fmt],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize(("fmt", "text", "tool", "value"), HAPPY[::3])
def test_cli_parse_prints_exactly_the_four_keys(fmt, text, tool, value):
    data = _cli_parse(fmt, text)
    assert list(data) == ["thought", "action", "final_answer", "error"]
    assert data["action"] == {"tool": tool, "input": value}
    assert data["final_answer"] is None and data["error"] is None and data["thought"]


@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_cli_parse_reports_unreadable_text_as_an_error_value(fmt):
    data = _cli_parse(fmt, "I have no idea 🤷")
    assert list(data) == ["thought", "action", "final_answer", "error"]
    assert data["action"] is None and data["final_answer"] is None and data["error"]
