"""The tools' vocabulary, once: name, label, argument name, example input and description of every tool.

Dialects render and parse actions with these names and argument names, prompts list the descriptions, error observations
quote the example inputs, native tool calling declares the tools from them, and the UI labels tools with them. The
functions behind the tools live in ``react_core.tools``.

Tools from MCP servers (``react_core.tools.mcp``) add their specs at run time with ``register``: their name is
name-spaced by their server (``git_git_status``), so they can never shadow Search, Lookup or Calculator, and ``schema``
carries the server's JSON Schema for their input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolSpec:
    name: str  # canonical, lower-case: what a trace records
    label: str  # for people, and for dialects that capitalise tool names (Search[…])
    param: str  # the argument's name in call-style dialects and in native tool calling
    example: str  # an input to show the model in tool lists and error messages
    description: str  # what the tool does, for prompts and function declarations
    param_description: str
    # The input's JSON Schema when the tool is not one text argument (an MCP tool); None for one string ``param``.
    schema: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    # One-argument dialects write the input as a JSON object (the tool needs more than one text).
    takes_json: bool = False

    def parameters(self) -> dict[str, Any]:
        """The input as a JSON Schema object, as native tool calling declares it."""
        if self.schema is not None:
            return self.schema
        return {
            "type": "object",
            "properties": {self.param: {"type": "string", "description": self.param_description}},
            "required": [self.param],
        }


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
# What an MCP tool's name-spaced name looks like (``react_core.tools.mcp.tool_name``: server, '_', the tool's name).
MCP_TOOL_NAME = re.compile(r"^[a-z][a-z0-9]{0,19}_[a-z0-9_]{1,100}$")


def is_tool_name(name: object) -> bool:
    """Whether ``name`` can name a tool: a built-in one, or an MCP server's (which server offers it is checked when
    a run is built, ``react_core.tools.mcp_config.missing_servers``)."""
    return isinstance(name, str) and (name in TOOL_ORDER or bool(MCP_TOOL_NAME.match(name)))


def ordered_tools(names: Iterable[str]) -> list[str]:
    """Tool names as settings and prompt versions keep them: built-in ones in their order, then MCP tools sorted."""
    names = set(names)
    return [t for t in TOOL_ORDER if t in names] + sorted(names - set(TOOL_ORDER))


SPECS: dict[str, ToolSpec] = {t.name: t for t in (*TOOLS, FINISH)}
BUILTIN = frozenset(SPECS)


def register(extra: ToolSpec) -> None:
    """Make a tool from outside (an MCP server's) known to dialects, prompts and declarations, by its name."""
    if extra.name in BUILTIN:
        raise ValueError(f"{extra.name!r} is a built-in tool's name")
    SPECS[extra.name] = extra


class _Params(Mapping[str, str]):
    """Tool name -> the argument name call-style dialects write, over every known spec (registered ones too)."""

    def __getitem__(self, name: str) -> str:
        return SPECS[name].param

    def __iter__(self) -> Iterator[str]:
        return iter(SPECS)

    def __len__(self) -> int:
        return len(SPECS)


PARAMS: Mapping[str, str] = _Params()


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
