"""Property tests for every parser: any text gives a ParseResult, never an exception, and rendering round-trips.

Text is drawn both at random and from the dialects' own tokens (labels, brackets, tags, JSON punctuation, fences,
stop words) and from values Python cannot read naively (huge numbers, deep nesting, lone surrogates, NULs), which
reaches the parsers' corners much faster than random characters do. The examples are the same on every run (the
profile in ``conftest.py``); failures found while exploring are pinned with ``@example``.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from react_core.base.trace import Action, Step
from react_core.dialects import DIALECTS
from react_core.dialects.base import FINISH, TOOL_PARAMS, ParseResult
from react_core.dialects.lenient import MAX_INPUT_CHARS, clean_input

FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])
ALL_FORMATS = sorted(DIALECTS)

TOKENS = [
    "Thought", "Thought 1:", "Thought 2", "Action", "Action 1:", "Action 2", "Action:", "Action Input:",
    "Observation", "Observation 1:", "Observation:", "Question:", "Question", "Claim:", "Final Answer:", "Answer:",
    "Step 1", "PAUSE", "Search[", "Lookup[", "Finish[", "Calculator[", "[", "]", "[[", "]]",
    "<search>", "</search>", "<lookup>", "<finish>", "</finish>", "<calculator>", "<b>", "</", "<", ">",
    "{", "}", '"action"', '"action_input"', '"query"', "'action'", ":", ",", '"', "'", "\\", "```", "```json",
    "search(", "lookup(", "finish(", "calculator(", "query=", "answer=", ")", "(", "__import__('os')",
    "wikipedia:", "calculate:", "**", "__", "#", ">", "-", "\n", "\n\n", "\r\n", "\r", " ", "\t", "\x00",
    "High Plains", "1,800", "9**9**9", "é", "東京", "🚀", "\u2028", "\u0085",
    # Values Python raises on when read naively: past the int digit limit, past the recursion limit, broken text.
    "0x" + "f" * 4_800, "9" * 4_400, "1e999", "NaN", "[" * 1_100, "{" * 1_100, '{"a": ' * 600, "(" * 400,
    "\ud800", "\udfff", "\\ud800", "\\udfff", "\\u0000", "\\x00", "\\N{", "\ufeff", "\u202e", "\u0301", "İ", "ß",
    "\U0010ffff", "\x1b[31m", "\x7f", "\x85",
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
@example(text="Action: {'action': 'Search', 'action_input': 0x" + "f" * 4_800 + "}")
@example(text='Action: {"action": "Search", "action_input": "\\ud800"}')
@example(text="Action: search(query='\\udfff')")
def test_any_text_gives_an_action_a_final_answer_or_an_error(fmt, text):
    check_result(DIALECTS[fmt].parse(text))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", ALL_FORMATS)
@FUZZ
@given(prefix=dialect_text, suffix=dialect_text)
def test_text_around_a_real_step_never_breaks_the_parser(fmt, prefix, suffix):
    f = DIALECTS[fmt]
    step = f.render_model_part(Step(2, thought="Go.", action=Action("search", "High Plains")))
    check_result(f.parse(prefix + step + suffix))


# -- round trips ----------------------------------------------------------------------------------------------

_SHORT_TOKENS = [t for t in TOKENS if len(t) < 20]
_inputs = (
    st.text(max_size=80) | st.lists(st.sampled_from(_SHORT_TOKENS) | st.text(max_size=4), max_size=8).map("".join)
).map(clean_input)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", ALL_FORMATS)
@FUZZ
@given(tool=st.sampled_from(sorted(TOOL_PARAMS)), value=_inputs, index=st.integers(1, 99))
@example(tool="calculator", value="][", index=1)  # rendered Calculator[][] and read back an empty input
@example(tool="finish", value="0][", index=1)
@example(tool="search", value="a </search> b", index=2)
@example(tool="search", value="wait PAUSE here", index=3)
@example(tool="search", value='{"query": "x"}', index=4)
@example(tool="search", value='"quoted', index=5)
def test_every_input_reads_back_exactly_or_is_refused_with_a_reason(fmt, tool, value, index):
    f = DIALECTS[fmt]
    action = None if tool == FINISH else Action(tool, value)
    final = value if tool == FINISH else None
    reason = f.unrenderable(action, final)
    back = f.parse(f.render_model_part(Step(index, thought="Go on.", action=action, final_answer=final)))
    if reason:
        assert reason.strip() and "\n" not in reason
        # A refusal is never needless: the step really does not read back.
        assert value == "" or (back.action, back.final_answer) != (action, final), reason
    else:
        assert back.error is None, back
        assert (back.action, back.final_answer) == (action, final)


def test_every_property_test_in_the_suite_runs_the_deterministic_profile():
    """Each hypothesis test (here, the calculator's, the exporter's, …) draws the same examples every run."""
    if os.environ.get("HYPOTHESIS_PROFILE", "deterministic") != "deterministic":
        pytest.skip("a randomized exploration profile was chosen")
    tests_dir = Path(__file__).parent
    found = []
    for path in sorted(tests_dir.glob("test_*.py")):
        if "hypothesis" not in path.read_text(encoding="utf-8"):
            continue
        module = importlib.import_module(path.stem)
        for name in dir(module):
            fn = getattr(module, name)
            if callable(fn) and hasattr(fn, "hypothesis"):
                used = fn._hypothesis_internal_use_settings
                found.append(f"{path.stem}.{name}")
                assert used.derandomize and used.database is None and used.deadline is None, f"{path.stem}.{name}"
    assert {"test_calculator", "test_formats_fuzz"} <= {n.split(".")[0] for n in found}
