"""Hostile replies: every parser reads them without raising and in linear time.

Two kinds of hostility. Values that make Python itself raise (an integer past the 4,300-digit limit, nesting past
the recursion limit, lone surrogates, NUL bytes) must come back as a ParseResult. Long runs of one character after a
label (``**Thought`` + 19,990 spaces) once cost seconds per reply through regular expressions that backtrack; each
test below runs every such shape for one dialect under a hang guard that a quadratic parser cannot meet. No test
here measures time: ``bench/bench_engine.py`` prints the worst case per dialect, from the same ``ADVERSARIAL`` list.
"""

from __future__ import annotations

import pytest
from test_formats_fuzz import check_result

from react_core.dialects import DIALECTS

REPLY_CHARS = 20_000
# Labels and openings the parsers look for, each followed by a long run of one unit.
LEADS = [
    "",
    "**Thought",
    "**Action",
    "__Thought",
    "*Thought",
    "Thought 1:",
    "Action",
    "Action 1",
    "Action:",
    "Action 1: Search[",
    "Action:\n```\n",
    'Action: {"action": "Search", "action_input": ',
    "Action: search(query=",
    "Action: Search\nAction Input:",
    "Action: Search\nAction Input: ```",
    "Final Answer: x\nAction:\n",
    "Action: Search ",
    "<search>",
    "Final Answer:",
    "Step 1\n",
    "{",
    "x\n",
]
UNITS = [" ", "\t", "*", "_", "**", "__", "[", "]", "{", "}", "<", ">", '"', "'", "`", "```", "\n", " \n", "\t\n", "("]
UNITS += [":", "\\", "\u2028", "\x00", "\r\n", "Action ", "Thought\n", '{"action": ', "PAUSE", " *"]


def adversarial() -> list[tuple[str, str]]:
    """(label, reply) pairs: every lead followed by a 20,000-character run of every unit, then one more character."""
    out = []
    for lead in LEADS:
        for unit in UNITS:
            run = unit * ((REPLY_CHARS - len(lead)) // len(unit))
            out.append((f"{lead!r} + {unit!r} x {len(run) // len(unit)}", lead + run + "x"))
    return out


ADVERSARIAL = adversarial()

# Values that make Python raise when read naively, in every place a dialect reads a value.
HUGE_HEX = "0x" + "f" * 4_800
HUGE_INT = "9" * 5_000
DEEP_LIST = "[" * 5_000 + "]" * 5_000
DEEP_OBJECT = '{"a": ' * 3_000 + "1" + "}" * 3_000
HOSTILE_VALUES = [
    HUGE_HEX,
    HUGE_INT,
    "-" + HUGE_INT,
    HUGE_INT + ".5e99999",
    "1e999",
    "NaN",
    "Infinity",
    DEEP_LIST,
    DEEP_OBJECT,
    '"\\ud800"',
    '"\\udfff tail"',
    "'\\ud800'",
    '"\ud800"',
    '"a\x00b"',
    '"\\u0000"',
    "'\\N{BOGUS}'",
    "b'x'",
    "1j",
    "{1, 2}",
    "(" * 300 + "1" + ")" * 300,
]
TEMPLATES = [
    "Action: {{'action': 'Search', 'action_input': {v}}}",
    'Action: {{"action": "Search", "action_input": {v}}}',
    '{{"action": "Final Answer", "action_input": {v}}}',
    '```json\n{{"action": "Lookup", "action_input": {{"keyword": {v}}}}}\n```',
    "Action: search(query={v})",
    "Action: finish(answer={v})",
    "Action: Search\nAction Input: {v}",
    'Action: Calculator\nAction Input: {{"expression": {v}}}',
    "Action 1: Search[{v}]",
    "Action 1\n<search>{v}</search>",
    "Action: wikipedia: {v}\nPAUSE",
    "Final Answer: {v}",
]


@pytest.mark.parametrize("fmt", sorted(DIALECTS))
@pytest.mark.parametrize("template", TEMPLATES)
def test_values_python_cannot_read_naively_are_errors_or_inputs_never_exceptions(fmt, template):
    f = DIALECTS[fmt]
    for value in HOSTILE_VALUES:
        result = f.parse("I will try.\n" + template.format(v=value))
        check_result(result)
        for text in (result.thought, result.error or "", result.final_answer or ""):
            text.encode("utf-8")  # no lone surrogate survives
        if result.action:
            result.action.input.encode("utf-8")


def test_the_known_hex_literal_that_raised_is_now_an_action_or_an_error():
    # int -> str past 4,300 digits raised ValueError out of the json dialect's Python-literal fallback.
    text = "Action: {'action': 'Search', 'action_input': " + HUGE_HEX + "}"
    result = DIALECTS["json"].parse(text)
    check_result(result)
    assert result.error and result.action is None


def test_decoded_lone_surrogates_become_replacement_characters():
    result = DIALECTS["json"].parse('Action: {"action": "Search", "action_input": "a\\ud800b"}')
    assert result.action.input == "a\ufffdb"
    result = DIALECTS["function"].parse("Action: search(query='a\\udfffb')")
    assert result.action.input == "a\ufffdb"


# A quadratic parser spends seconds on each of these (a bold label and spaces took 2.6–5.5 s in five dialects);
# linear parsing reads all of them for one dialect in about a second on a slow machine.
@pytest.mark.timeout(15)
@pytest.mark.parametrize("fmt", sorted(DIALECTS))
def test_long_runs_after_labels_are_read_without_backtracking(fmt):
    f = DIALECTS[fmt]
    for _label, text in ADVERSARIAL:
        check_result(f.parse(text))


@pytest.mark.timeout(15)
@pytest.mark.parametrize("fmt", sorted(DIALECTS))
def test_the_known_slow_reply_is_read(fmt):
    for label in ("**Thought", "**Action", "__Thought"):
        for blank in (" ", "\t"):
            for _ in range(10):  # ten replies: once cost 30-55 s, now milliseconds
                check_result(DIALECTS[fmt].parse(label + blank * 19_990 + "x"))
