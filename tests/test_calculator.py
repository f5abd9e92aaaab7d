"""The Calculator tool: arithmetic right, hostile input refused with a clear ToolError, never anything evaluated.

Every refusal must be quick. The hostile cases run in a child process that is ended if it has not answered within
``HOSTILE_TIMEOUT``: an unbounded ``9**9**9`` computes in C under the interpreter lock, where no in-process timeout
can stop it, so a bound that goes missing would hang the suite instead of failing it. The limit is a hang guard far
above the time the cases take, not a measurement. A hypothesis fuzz checks that any text gives a result or a ToolError,
never another exception.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from react_core.base.errors import ToolError
from react_core.base.trace import Action
from react_core.tools.calculator import CALCULATOR, MAX_EXPRESSION_CHARS, calculate
from react_core.tools.registry import ToolRegistry


def value_of(expression: str) -> str:
    out = calculate(expression)
    echo, _, value = out.rpartition(" = ")
    assert echo == expression.strip()
    return value


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"),
        ("1954 - 1882", "72"),
        ("7 / 2", "3.5"),
        ("7 // 2", "3"),
        ("-7 // 2", "-4"),
        ("7 % 3", "1"),
        ("2 ** 10", "1024"),
        ("-3 + 5", "2"),
        ("--3", "3"),
        ("+4", "4"),
        ("0.1 + 0.2", "0.3"),  # fifteen significant digits hide binary noise
        ("1.5e3 + 1", "1501"),
        ("1_000 * 3", "3000"),
        ("10 / 4 * 2", "5"),
        ("4 / 4", "1"),
        ("2 ** -1", "0.5"),
        ("1 / 3", "0.333333333333333"),
        ("29 ** 0.23", "2.16945946249156"),
        ("  12 * 12  ", "144"),
    ],
)
def test_arithmetic(expression, value):
    assert value_of(expression) == value


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("29^0.23", "2.16945946249156"),  # models write ^ for power
        ("2^3^2", "512"),
        ("6 × 7", "42"),
        ("84 ÷ 2", "42"),
        ("50 − 8", "42"),
        ("1,800 + 200", "2000"),  # thousands separators
        ("3,677 - 1,462", "2215"),
        ("1,000,000 / 1,000", "1000"),
        ("`2 + 2`", "4"),  # backticks around the expression
    ],
)
def test_the_spellings_models_use(expression, value):
    assert calculate(expression).endswith(" = " + value)


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("sqrt(16)", "4"),
        ("sqrt(2)", "1.4142135623731"),
        ("log(8, 2)", "3"),
        ("log10(1000)", "3"),
        ("log2(1024)", "10"),
        ("exp(0)", "1"),
        ("round(3.14159, 2)", "3.14"),
        ("round(2.5)", "2"),
        ("round(1234, -2)", "1200"),
        ("abs(-5)", "5"),
        ("min(3, 1, 2)", "1"),
        ("max(3, 1, 2)", "3"),
        ("floor(2.7)", "2"),
        ("ceil(2.1)", "3"),
        ("factorial(5)", "120"),
        ("sin(0) + cos(0)", "1"),
        ("2 * pi", str(float(f"{2 * math.pi:.15g}"))),
        ("e", "2.71828182845905"),
        ("tau / 2", "3.14159265358979"),
    ],
)
def test_functions_and_constants(expression, value):
    assert value_of(expression) == value


def test_a_big_but_reasonable_integer_is_exact():
    assert value_of("2 ** 100") == str(2**100)
    assert value_of("factorial(30)") == str(math.factorial(30))


# -- hostile input: a clear ToolError, quickly ---------------------------------------------------------------

HOSTILE = [
    ("9**9**9", "too large"),
    ("9^9^9", "too large"),
    ("2 ** 100000", "too large"),
    ("10 ** 10 ** 10", "too large"),
    ("(2 ** 4000) * (2 ** 4000)", "too large"),
    ("factorial(100000)", "factorial takes a whole number"),
    ("factorial(10 ** 10)", "factorial takes a whole number"),
    ("factorial(-1)", "factorial takes a whole number"),
    ("factorial(4.5)", "factorial takes a whole number"),
    ("round(5, -10 ** 9)", "round takes a whole number of digits"),
    ("10.0 ** 400", "too large"),
    ("1e308 * 10", "not a finite number"),
    ("exp(1000)", "too large"),
    ("10 ** 1200 / 3", "too large"),
    ("1e999", "not a finite number"),
    ("1 / 0", "Division by zero"),
    ("1 // 0", "Division by zero"),
    ("5 % 0", "Division by zero"),
    ("0 ** -1", "Division by zero"),
    ("sqrt(-1)", "math domain error"),
    ("log(0)", "math domain error"),
    ("(-8) ** (1/3)", "not a real number"),
    ("__import__('os')", "Unknown function"),
    ("__import__('os').system('ls')", "Unknown function"),
    ("__import__", "Unknown name"),
    ("open('/etc/passwd')", "Unknown function"),
    ("eval('1')", "Unknown function"),
    ("exec", "Unknown name"),
    ("'abc'", "not text"),
    ("'a' * 10", "not text"),
    ("b'x'", "not text"),
    ("f'{1}'", "JoinedStr"),
    ("(1).real", "Attribute"),
    ("pi.__class__", "Attribute"),
    ("lambda: 1", "Lambda"),
    ("[x for x in range(10)]", "ListComp"),
    ("{x: 1 for x in range(3)}", "DictComp"),
    ("(x for x in range(3))", "GeneratorExp"),
    ("[1, 2][0]", "Subscript"),
    ("(1, 2)", "Tuple"),
    ("x", "Unknown name"),
    ("x := 3", "Could not read"),
    ("1 < 2", "Compare"),
    ("1 if 2 else 3", "IfExp"),
    ("True + 1", "not text"),
    ("None", "not text"),
    ("1 << 100", "LShift"),
    ("~1", "Invert"),
    ("not 1", "Not"),
    ("1 and 2", "BoolOp"),
    ("sqrt", "is a function"),
    ("sqrt(x=4)", "Unknown function"),
    ("sqrt(*[4])", "Starred"),
    ("min()", "Cannot compute"),
    ("hypot(3, 4)", "Unknown function"),
    ("import os", "Could not read"),
    ("1 +", "Could not read"),
    ("(" * 300 + "1" + ")" * 300, "longer than"),
    ("(" * 150 + "1" + ")" * 150, ""),  # deeply nested but within the limits: either a value or a clear error
    ("-" * 400 + "1", ""),
    ("1" * 10_000, "longer than"),
    ("1+" * 5_000 + "1", "longer than"),
    ("", "needs an expression"),
    ("   ", "needs an expression"),
    ("\x00", "Could not read"),
    ("١٢ + ٣", ""),  # Arabic-Indic digits: Python reads them, or refuses them; either way no crash
]


ROOT = Path(__file__).resolve().parent.parent
HOSTILE_TIMEOUT = 30
# Answers each expression on its own line as soon as it has it, so a hang names the expression that caused it.
_CHILD = """
import json, sys
from react_core.base.errors import ToolError
from react_core.tools.calculator import calculate
for expression in json.load(sys.stdin):
    try:
        answer = ["result", calculate(expression)]
    except ToolError as e:
        answer = ["tool_error", str(e)]
    except BaseException as e:
        answer = ["exception", f"{type(e).__name__}: {e}"[:300]]
    print(json.dumps(answer), flush=True)
"""


def calculate_in_child(expressions: list[str]) -> list[list[str]]:
    """``[kind, text]`` for each expression, computed in a child process ended after HOSTILE_TIMEOUT seconds."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD],
            input=json.dumps(expressions),
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=HOSTILE_TIMEOUT,
        )
    except subprocess.TimeoutExpired as e:
        output = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout or ""
        stuck = expressions[len(output.splitlines())]
        pytest.fail(
            f"The calculator was still computing {stuck[:60]!r} after {HOSTILE_TIMEOUT} s: a size bound is missing.",
            pytrace=False,
        )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.fixture(scope="module")
def hostile_answers() -> dict[str, list[str]]:
    expressions = [expression for expression, _ in HOSTILE]
    return dict(zip(expressions, calculate_in_child(expressions), strict=True))


@pytest.mark.parametrize(("expression", "message"), HOSTILE, ids=lambda v: repr(v)[:40])
def test_hostile_input_is_a_clear_tool_error(hostile_answers, expression, message):
    kind, text = hostile_answers[expression]
    assert kind != "exception", f"{expression[:40]!r} raised {text}"
    if kind == "tool_error":
        assert message in text
        assert len(text) < 300 and text.endswith(".")
    else:
        assert message == "", f"{expression[:40]!r} gave {text[:80]!r}"


@pytest.mark.timeout(5)
def test_ten_thousand_characters_are_refused_before_parsing():
    with pytest.raises(ToolError, match=str(MAX_EXPRESSION_CHARS)):
        calculate("9" * 10_000)


def test_nothing_is_ever_evaluated_as_code(tmp_path):
    marker = tmp_path / "evaluated"
    for attempt in (
        f"__import__('os').system('touch {marker}')",
        f"open('{marker}', 'w')",
        f"exec(\"open('{marker}', 'w')\")",
        "().__class__.__base__.__subclasses__()",
    ):
        with pytest.raises(ToolError):
            calculate(attempt)
    assert not marker.exists()


def test_through_the_registry_an_error_becomes_an_error_observation():
    registry = ToolRegistry([CALCULATOR])
    ok = registry.run(Action("calculator", "6 * 7"))
    assert not ok.is_error and ok.text == "6 * 7 = 42"
    bad = registry.run(Action("calculator", "1 / 0"))
    assert bad.is_error and bad.text == "Division by zero."


# -- fuzz: any text gives a result or a ToolError ------------------------------------------------------------

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_TOKENS = [
    "0", "1", "2", "9", "10", "0.5", "1e308", "1e-308", "4000", "170", "99999", "1,000", "1_0",
    "+", "-", "*", "/", "//", "%", "**", "^", "×", "÷", "−", "(", ")", ",", " ", ".",
    "sqrt(", "log(", "exp(", "factorial(", "round(", "min(", "max(", "abs(", "floor(", "ceil(", "sin(",
    "pi", "e", "tau", "x", "'", '"', "[", "]", "{", "}", "lambda", ":", "=", "<", "__import__", ".real", "\\",
]  # fmt: skip
_arithmetic = st.lists(st.sampled_from(_TOKENS), max_size=30).map("".join)


def _result_or_tool_error(expression: str) -> None:
    try:
        out = calculate(expression)
    except ToolError as e:
        assert str(e)
        return
    assert " = " in out
    value = out.rpartition(" = ")[2]
    assert value not in ("nan", "inf", "-inf")


@pytest.mark.timeout(120)
@FUZZ
@given(st.text(max_size=600))
def test_any_text_gives_a_result_or_a_tool_error(expression):
    _result_or_tool_error(expression)


@pytest.mark.timeout(120)
@FUZZ
@given(_arithmetic)
def test_any_arithmetic_looking_text_gives_a_result_or_a_tool_error(expression):
    _result_or_tool_error(expression)


@pytest.mark.timeout(120)
@FUZZ
@given(st.integers(-(10**30), 10**30), st.integers(-(10**30), 10**30), st.sampled_from(["+", "-", "*", "//", "%"]))
def test_integer_arithmetic_is_exact(a, b, op):
    expression = f"({a}) {op} ({b})"
    if op in ("//", "%") and b == 0:
        with pytest.raises(ToolError, match="Division by zero"):
            calculate(expression)
        return
    expected = {"+": a + b, "-": a - b, "*": a * b, "//": a // b if b else 0, "%": a % b if b else 0}[op]
    assert value_of(expression) == str(expected)
