"""The tools' vocabulary, once: name, label, argument name, example input and description of every tool.

Dialects render and parse actions with these names and argument names, prompts list the descriptions, error observations
quote the example inputs, native tool calling declares the tools from them, and the UI labels tools with them. The
functions behind the tools live in ``react_core.tools``.

Tools from MCP servers (``react_core.tools.mcp``) belong to the run that enabled them, never to this module: their
specs travel with the run's tools (``ToolRegistry.specs``) and are known by name only while that run's code runs
(``known``, ``scoped``), so one person's server's description (or an instruction injected in it) never reaches another
person's prompt, even when both named their servers alike. Their name is name-spaced by their server
(``git_git_status``), so they can never shadow Search, Lookup or Calculator, and ``schema`` carries the server's JSON
Schema for their input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

__all__ = [
    "BUILTIN",
    "CALCULATOR",
    "FINISH",
    "LOOKUP",
    "MCP_TOOL_NAME",
    "PARAMS",
    "SEARCH",
    "SPECS",
    "T",
    "TOOLS",
    "ToolSpec",
    "example",
    "is_tool_name",
    "known",
    "ordered_tools",
    "param",
    "scoped",
    "spec",
]

T = TypeVar("T")


@dataclass(frozen=True)
class ToolSpec:
    # The built-in tools' names, in the order prompts and menus list them (set below, once they are defined).
    ORDER: ClassVar[tuple[str, ...]]

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

    @staticmethod
    def label_of(name: str) -> str:
        """A tool's name for people: its label when known; an MCP tool's name as it is (its label, in a run or not);
        else the name capitalised."""
        found = spec(name)
        if found:
            return found.label
        return name if MCP_TOOL_NAME.match(name) else name[:1].upper() + name[1:]

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
ToolSpec.ORDER = tuple(t.name for t in TOOLS)
# What an MCP tool's name-spaced name looks like (``react_core.tools.mcp.tool_name``: server, '_', the tool's name).
MCP_TOOL_NAME = re.compile(r"^[a-z][a-z0-9]{0,19}_[a-z0-9_]{1,100}$")


def is_tool_name(name: object) -> bool:
    """Whether ``name`` can name a tool: a built-in one, or an MCP server's (which server offers it is checked when
    a run is built, ``react_core.tools.mcp_config.missing_servers``)."""
    return isinstance(name, str) and (name in ToolSpec.ORDER or bool(MCP_TOOL_NAME.match(name)))


def ordered_tools(names: Iterable[str]) -> list[str]:
    """Tool names as settings and prompt versions keep them: built-in ones in their order, then MCP tools sorted."""
    names = set(names)
    return [t for t in ToolSpec.ORDER if t in names] + sorted(names - set(ToolSpec.ORDER))


# The built-in tools, read-only: a tool from outside is its run's own (``known``).
SPECS: Mapping[str, ToolSpec] = MappingProxyType({t.name: t for t in (*TOOLS, FINISH)})
BUILTIN = frozenset(SPECS)


# The specs of the run whose code is running on this thread (``known``): empty outside a run.
_run_specs: ContextVar[Mapping[str, ToolSpec]] = ContextVar("react_run_tool_specs", default=MappingProxyType({}))


@contextmanager
def known(specs: Iterable[ToolSpec]) -> Iterator[None]:
    """Within this block (on this thread), one run's tools from outside (an MCP server's) are known by their specs to
    dialects, prompts and declarations, besides the built-in ones."""
    extra: dict[str, ToolSpec] = {}
    for s in specs:
        if s.name in BUILTIN:
            raise ValueError(f"{s.name!r} is a built-in tool's name")
        extra[s.name] = s
    token = _run_specs.set(MappingProxyType(extra))
    try:
        yield
    finally:
        _run_specs.reset(token)


def scoped(items: Iterator[T], specs: Iterable[ToolSpec]) -> Iterator[T]:
    """``items`` (a run's events) advanced with ``specs`` known each time, and unknown again in between: whoever reads
    a run's events on its thread, and another run read on the same thread, never sees this run's tools."""
    specs = tuple(specs)
    try:
        while True:
            with known(specs):
                try:
                    item = next(items)
                except StopIteration:
                    return
            yield item
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            with known(specs):
                close()


def _all() -> Mapping[str, ToolSpec]:
    extra = _run_specs.get()
    return {**SPECS, **extra} if extra else SPECS


class _Params(Mapping[str, str]):
    """Tool name -> the argument name call-style dialects write, over every known spec (the running run's too)."""

    def __getitem__(self, name: str) -> str:
        return _all()[name].param

    def __iter__(self) -> Iterator[str]:
        return iter(_all())

    def __len__(self) -> int:
        return len(_all())


PARAMS: Mapping[str, str] = _Params()


def spec(name: str) -> ToolSpec | None:
    return SPECS.get(name) or _run_specs.get().get(name)


def param(name: str) -> str:
    found = spec(name)
    return found.param if found else "input"


def example(name: str) -> str:
    found = spec(name)
    return found.example if found else "input"
