"""Property tests for every parser: any text gives a ParseResult, never an exception, and rendering round-trips.

Text is drawn both at random and from the dialects' own tokens (labels, brackets, tags, JSON punctuation, fences,
stop words), which reaches the parsers' corners much faster than random characters do. Runtime stays small: a few
hundred examples per property, no deadline (CI machines are slow), a timeout per test instead.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from react_core.formats import FORMATS
from react_core.formats.base import MAX_INPUT_CHARS, TOOL_PARAMS, ParseResult, clean_input
from react_core.trace import Action, Step

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALL_FORMATS = sorted(FORMATS)
DIALECTS = ("paper", "xml", "json", "pause", "function")

TOKENS = [
    "Thought", "Thought 1:", "Thought 2", "Action", "Action 1:", "Action 2", "Action:", "Action Input:",
    "Observation", "Observation 1:", "Observation:", "Question:", "Question", "Claim:", "Final Answer:", "Answer:",
    "Step 1", "PAUSE", "Search[", "Lookup[", "Finish[", "Calculator[", "[", "]", "[[", "]]",
    "<search>", "</search>", "<lookup>", "<finish>", "</finish>", "<calculator>", "<b>", "</", "<", ">",
    "{", "}", '"action"', '"action_input"', ":", ",", '"', "'", "\\", "```", "```json",
    "search(", "lookup(", "finish(", "calculator(", "query=", "answer=", ")", "(", "__import__('os')",
    "wikipedia:", "calculate:", "**", "__", "#", ">", "-", "\n", "\n\n", "\r\n", " ", "\t", "\x00",
    "High Plains", "1,800", "9**9**9", "é", "東京", "🚀", "\u2028", "\u0085",
]  # fmt: skip
dialect_text = st.lists(st.sampled_from(TOKENS) | st.text(max_size=8), max_size=40).map("".join)
any_text = st.text(max_size=400) | dialect_text


def check_result(result: ParseResult) -> None:
    """Exactly one outcome: an action, a final answer or an error — and each in its contract shape."""
    assert isinstance(result, ParseResult)
    outcomes = [result.action is not None, result.final_answer is not None, result.error is not None]
    assert sum(outcomes) == 1, result
    assert isinstance(result.thought, str)
    if result.action is not None:
        tool, value = result.action.tool, result.action.input
        assert tool == tool.strip().lower() and tool and tool != "finish"
        assert value == clean_input(value) and len(value) <= MAX_INPUT_CHARS
        assert value or tool not in TOOL_PARAMS  # an unknown tool is reported by name, even without an input
    if result.final_answer is not None:
        assert result.final_answer.strip() == result.final_answer and result.final_answer
    if result.error is not None:
        assert isinstance(result.error, str) and result.error
    assert list(result.to_dict()) == ["thought", "action", "final_answer", "error"]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", ALL_FORMATS)
@FUZZ
@given(text=any_text)
def test_any_text_gives_an_action_a_final_answer_or_an_error(fmt, text):
    check_result(FORMATS[fmt].parse(text))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", ALL_FORMATS)
@FUZZ
@given(prefix=dialect_text, suffix=dialect_text)
def test_text_around_a_real_step_never_breaks_the_parser(fmt, prefix, suffix):
    f = FORMATS[fmt]
    step = f.render_model_part(Step(2, thought="Go.", action=Action("search", "High Plains")))
    check_result(f.parse(prefix + step + suffix))


REPEATED = [
    "[", "]", "<a>", "<search>", "{", '"', "(", "*", "_", "**", "\n", " ", "\t", "\n ", "PAUSE", "search(",
    "Action 1:\n", "Action\n", "Thought:\n", "Thought 1\n", "Step 1\n", "Observation\n", "Question:\n", "```\n",
    "Action 1: Search[", "Final Answer:\n", '{"action": ',
]  # fmt: skip


# A quadratic regex takes tens of seconds on these (one did, before this test); linear parsing takes milliseconds.
@pytest.mark.timeout(10)
@pytest.mark.parametrize("fmt", ALL_FORMATS)
@pytest.mark.parametrize("unit", REPEATED)
def test_long_repetitive_text_is_read_without_backtracking(fmt, unit):
    """Pathological repetition (a model stuck in a loop): every parser stays linear, so it finishes at once."""
    for lead in ("", "x\nAction 1: ", "Thought: x\nAction:\n```\n"):
        check_result(FORMATS[fmt].parse(lead + unit * 50_000))


# -- round trips ----------------------------------------------------------------------------------------------

# Text a step can hold: no control characters (the renderers write one line), no leading/trailing quotes (inputs are
# unquoted on reading), no dialect stop words or closing tags (a model could not have written them either).
_CHARS = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\x85")
_phrase = st.text(_CHARS, min_size=1, max_size=60).map(lambda s: " ".join(s.split())).filter(bool)


def _representable(fmt: str, value: str) -> bool:
    if value != clean_input(value):
        return False
    # PAUSE is the pause dialect's stop word and "</" starts the xml dialect's closing tags: no input can hold them.
    return not (fmt == "pause" and "PAUSE" in value) and not (fmt == "xml" and "</" in value)


def _thought_ok(fmt: str, thought: str) -> bool:
    # A thought is free text; it only must not itself look like the dialect's action or stop.
    lowered = thought.lower()
    markers = ("pause", "<", "action", "answer", "observation", "question", "thought", "step", "**", "__", "```")
    return not any(m in lowered for m in markers) and not thought.startswith(("#", ">", "-", "*"))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", DIALECTS)
@FUZZ
@given(thought=_phrase, tool=st.sampled_from(sorted(TOOL_PARAMS)), value=_phrase, index=st.integers(1, 99))
def test_render_then_parse_round_trips(fmt, thought, tool, value, index):
    f = FORMATS[fmt]
    if not (_representable(fmt, value) and _thought_ok(fmt, thought)):
        return
    if tool == "finish":
        step = Step(index, thought=thought, final_answer=value)
    else:
        step = Step(index, thought=thought, action=Action(tool, value))
    result = f.parse(f.render_model_part(step))
    assert result.error is None, (f.render_model_part(step), result)
    assert result.thought == thought
    assert result.action == step.action
    assert result.final_answer == step.final_answer
