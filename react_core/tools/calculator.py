"""The Calculator tool: arithmetic on numbers, never ``eval``.

Expressions are parsed with ``ast`` and checked against a whitelist (numbers, + - * / // % **, unary minus,
parentheses and a few math functions and constants) before ``simpleeval`` evaluates them with our operators.
Powers, products, factorials and round's digits are bounded by the size of their result, so ``9**9**9`` fails at
once instead of running for hours; long inputs are refused before parsing. Models' spellings are accepted: ``^`` is
power (``29^0.23``), ``×``/``÷``/``−`` are the operators, ``1,800`` is one thousand eight hundred. Every failure is
a ToolError with a message for the model. A result (``expression = value``) is evidence that can ground an answer;
only the value after the last ``RESULT_SEPARATOR`` is, not the echoed expression.
"""

from __future__ import annotations

import ast
import math
import operator
import re

from simpleeval import SimpleEval

from react_core.base.errors import ToolError
from react_core.base.trace import Observation
from react_core.tools.registry import Tool

MAX_EXPRESSION_CHARS = 500
RESULT_SEPARATOR = " = "
MAX_RESULT_BITS = 4_000  # about 1,200 digits: far beyond any question's need, still instant to compute and print
MAX_FACTORIAL = 170
# round(5, -10**9) would build 10**(10**9): the digits argument is bounded like every other size.
MAX_ROUND_DIGITS = 400

_ALLOWED_NODES = (
    ast.Expression,
    ast.BinOp,
    ast.UnaryOp,
    ast.Constant,
    ast.Call,
    ast.Name,
    ast.Load,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.USub,
    ast.UAdd,
)
# People and models write these; Python spells them differently.
_SPELLINGS = {"^": "**", "×": "*", "÷": "/", "−": "-", "–": "-"}
# "1,800 - 1,200": a comma between a digit and exactly three digits groups thousands. Not where a function is
# called, because there a comma separates arguments: max(1,800) is max(1, 800).
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_CALL = re.compile(r"[A-Za-z_]\w*\s*\(")


def _bits(x: float | int) -> float:
    return math.log2(abs(x)) if x else 0.0


def _power(a: float | int, b: float | int) -> float | int:
    if isinstance(a, int) and isinstance(b, int) and b > 0 and _bits(a) * b > MAX_RESULT_BITS:
        raise ToolError(f"{a} ** {b} is too large to compute.")
    result = operator.pow(a, b)
    if isinstance(result, complex):
        raise ToolError(f"({a}) ** {b} is not a real number.")
    return result


def _mult(a: float | int, b: float | int) -> float | int:
    if isinstance(a, int) and isinstance(b, int) and _bits(a) + _bits(b) > MAX_RESULT_BITS:
        raise ToolError("The product is too large to compute.")
    return a * b


def _factorial(n: float | int) -> int:
    if not float(n).is_integer() or not 0 <= n <= MAX_FACTORIAL:
        raise ToolError(f"factorial takes a whole number from 0 to {MAX_FACTORIAL}.")
    return math.factorial(int(n))


def _round(x: float | int, ndigits: float | int | None = None) -> float | int:
    if ndigits is None:
        return round(x)
    if abs(ndigits) > MAX_ROUND_DIGITS or not float(ndigits).is_integer():
        raise ToolError(f"round takes a whole number of digits from -{MAX_ROUND_DIGITS} to {MAX_ROUND_DIGITS}.")
    return round(x, int(ndigits))


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: _mult,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: _power,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}
_FUNCTIONS = {
    "sqrt": math.sqrt,
    "log": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "abs": abs,
    "round": _round,
    "min": min,
    "max": max,
    "floor": math.floor,
    "ceil": math.ceil,
    "factorial": _factorial,
}
_NAMES = {"pi": math.pi, "e": math.e, "tau": math.tau}


def _check(tree: ast.AST) -> None:
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise ToolError(f"Only arithmetic is allowed ({type(node).__name__} is not).")
        if isinstance(node, ast.Constant) and (isinstance(node.value, bool) or not isinstance(node.value, int | float)):
            raise ToolError("Only numbers are allowed, not text.")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS or node.keywords:
                raise ToolError(f"Unknown function; available: {', '.join(sorted(_FUNCTIONS))}.")
        elif isinstance(node, ast.Name) and node.id in _FUNCTIONS and id(node) not in called:
            raise ToolError(f"{node.id} is a function: call it like {node.id}(2).")
        elif isinstance(node, ast.Name) and node.id not in _NAMES and node.id not in _FUNCTIONS:
            raise ToolError(f"Unknown name {node.id!r}; constants: pi, e, tau.")


def format_number(value: float | int) -> str:
    if isinstance(value, int):
        return str(value)
    if math.isnan(value) or math.isinf(value):
        raise ToolError("The result is not a finite number.")
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.15g}"


def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression and return ``expression = result``; raise ToolError on any failure."""
    expr = expression.strip().strip("`").strip()
    if not expr:
        raise ToolError("Calculator needs an expression, like 2 * (3 + 4).")
    if len(expr) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"The expression is longer than {MAX_EXPRESSION_CHARS} characters.")
    if "\\" in expr:
        # No arithmetic needs a backslash; refusing it here also keeps the compiler's escape warnings away.
        raise ToolError("Only arithmetic is allowed (a backslash is not).")
    for written, python in _SPELLINGS.items():
        expr = expr.replace(written, python)
    if not _CALL.search(expr):
        expr = _THOUSANDS.sub("", expr)
    try:
        tree = ast.parse(expr, mode="eval")
    # SystemError: CPython 3.11 can raise a spurious one from ast in threaded servers (cpython#106905).
    except (SyntaxError, ValueError, RecursionError, MemoryError, SystemError):
        raise ToolError(f"Could not read {expression.strip()[:80]!r} as arithmetic.") from None
    _check(tree)
    evaluator = SimpleEval(operators=_OPERATORS, functions=_FUNCTIONS, names=_NAMES)
    try:
        value = evaluator.eval(expr, previously_parsed=tree.body)
    except ToolError:
        raise
    except ZeroDivisionError:
        raise ToolError("Division by zero.") from None
    except (OverflowError, MemoryError):
        raise ToolError("The result is too large to compute.") from None
    except RecursionError:
        raise ToolError("The expression is nested too deeply.") from None
    except (ValueError, TypeError, ArithmeticError) as e:
        raise ToolError(f"Cannot compute that: {e}.") from None
    except Exception as e:  # simpleeval's own errors (unknown names, too-high numbers)
        raise ToolError(f"Cannot compute that: {e}.") from None
    if isinstance(value, complex) or not isinstance(value, int | float):
        raise ToolError("The result is not a real number.")
    try:
        return f"{expression.strip()}{RESULT_SEPARATOR}{format_number(value)}"
    except ValueError:
        raise ToolError("The result has too many digits to show.") from None


def calculator_result(observation_text: str) -> str:
    """The value of a Calculator result (``17 * 23 + 4 = 395`` -> ``395``), the part that is evidence."""
    return observation_text.rpartition(RESULT_SEPARATOR)[2]


def _calculator(expression: str) -> Observation:
    return Observation(text=calculate(expression), evidence=True)


CALCULATOR = Tool(name="calculator", function=_calculator)
