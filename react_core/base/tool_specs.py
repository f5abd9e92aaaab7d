"""The tools' vocabulary, once: name, label, argument name, example input and description of every tool.

Dialects render and parse actions with these names and argument names, prompts list the descriptions, error observations
quote the example inputs, native tool calling declares the tools from them, and the UI labels tools with them. The
functions behind the tools live in ``react_core.tools``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolSpec:
    name: str  # canonical, lower-case: what a trace records
    label: str  # for people, and for dialects that capitalise tool names (Search[…])
    param: str  # the argument's name in call-style dialects and in native tool calling
    example: str  # an input to show the model in tool lists and error messages
    description: str  # what the tool does, for prompts and function declarations
    param_description: str


SEARCH = ToolSpec(
    "search",
    "Search",
    "query",
    "entity",
    "Searches the exact entity on Wikipedia and returns the first paragraph if it exists. If not, it returns some "
    "similar entities to search.",
    "The exact title of a Wikipedia article, e.g. High Plains.",
)
LOOKUP = ToolSpec(
    "lookup",
    "Lookup",
    "keyword",
    "keyword",
    "Returns the next sentence containing the keyword in the last page successfully found by Search.",
    "A word or short phrase to find in the last page found.",
)
CALCULATOR = ToolSpec(
    "calculator",
    "Calculator",
    "expression",
    "2 * (3 + 4)",
    "Evaluates an arithmetic expression: + - * / // % ** (or ^), parentheses, and functions such as sqrt and log.",
    "An arithmetic expression, e.g. 2 * (3 + 4).",
)
FINISH = ToolSpec(
    "finish",
    "Finish",
    "answer",
    "answer",
    "Returns the answer and finishes the task.",
    "The final answer, as short as possible.",
)

# The tools a run may enable, in the order prompts and menus list them. Finish is always available.
TOOLS = (SEARCH, LOOKUP, CALCULATOR)
TOOL_ORDER = tuple(t.name for t in TOOLS)
SPECS = {t.name: t for t in (*TOOLS, FINISH)}


def spec(name: str) -> ToolSpec | None:
    return SPECS.get(name)


def label(name: str) -> str:
    """A tool's name for people: its label when known, else the name capitalised."""
    known = SPECS.get(name)
    return known.label if known else name[:1].upper() + name[1:]


def param(name: str) -> str:
    known = SPECS.get(name)
    return known.param if known else "input"


def example(name: str) -> str:
    known = SPECS.get(name)
    return known.example if known else "input"
