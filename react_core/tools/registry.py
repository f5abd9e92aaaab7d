"""The tool registry: a tool is a name and a function; only registered tools run.

A tool function takes the action input (a string) and returns an Observation or plain text. It raises ToolError
for a failure the model should hear about; any other exception is turned into an error observation too, because a
tool failing is the model's problem to work around, not a reason to stop the run. The one exception that passes
through is ``react_core.base.cancel.Cancelled``: the person stopped the run while a tool was waiting.

Every observation a registered tool gives, whatever it is (a page, an error, a result), is cut here to
``MAX_OBSERVATION_CHARS``, so no tool, present or future, can flood the prompt.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from react_core.base.cancel import Cancelled
from react_core.base.errors import ToolError
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import Action, Observation

# Far above 5 sentences of any article (HotpotQA's longest paragraph is 8,237 characters), but a page whose "sentence"
# is megabytes long, a tool's runaway output or an error quoting a whole response cannot flood the prompt.
MAX_OBSERVATION_CHARS = 10_000


def bounded(text: str, limit: int = MAX_OBSERVATION_CHARS) -> str:
    """``text`` cut to ``limit`` characters at a word boundary, saying that it was cut."""
    if len(text) <= limit:
        return text
    marker = f" [… cut at {limit:,} characters]"
    head = text[: max(0, limit - len(marker))]
    space = head.rfind(" ")
    return (head[:space] if space > len(head) // 2 else head) + marker


@dataclass(frozen=True)
class Tool:
    """A registered tool: its name (``react_core.base.tool_specs`` holds its vocabulary) and the function behind it."""

    name: str
    function: Callable[[str], Observation | str]
    # A tool from outside (an MCP server's) brings its spec; it is known only while its run runs (``tool_specs.known``).
    spec: ToolSpec | None = None
    # A tool that runs only with a person's approval (an MCP tool not declared read-only, where the operator does not
    # allow destructive tools): ``function`` refuses it, and this runs one call a person approved in step mode.
    run_approved: Callable[[str], Observation | str] | None = None
    # It says how far it has got while it runs (``react_core.base.progress``): the loop shows it as it goes.
    reports_progress: bool = False
    # Its call may ask a person something first (an MCP server's questions: ``Observation.mcp.asks``); the call sent
    # again with their answer takes it as ``answer=``.
    answers: bool = False


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.register(t)

    def register(self, tool: Tool) -> None:
        if tool.name != tool.name.lower() or tool.name == "finish":
            raise ValueError(f"tool names are lower-case and 'finish' is reserved: {tool.name!r}")
        self._tools[tool.name] = tool

    @property
    def names(self) -> list[str]:
        order = {n: i for i, n in enumerate(ToolSpec.ORDER)}
        return sorted(self._tools, key=lambda n: (order.get(n, len(order)), n))

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """The specs the run's own tools bring (an MCP server's), for ``tool_specs.known``."""
        return tuple(t.spec for t in self._tools.values() if t.spec is not None)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def asks_approval(self, name: str) -> bool:
        """Whether ``name`` runs only when a person approves the call (``Tool.run_approved``)."""
        tool = self._tools.get(name)
        return tool is not None and tool.run_approved is not None

    def unknown_tool(self, name: str) -> Observation:
        listed = ", ".join(ToolSpec.label_of(n) for n in self.names) or "none"
        return Observation.error(
            bounded(f"Unknown tool {name!r}. Available tools: {listed}; use Finish to give the answer.")
        )

    def run(self, action: Action, *, approved: bool = False, answer: dict | None = None) -> Observation:
        """The action's observation; ``approved``: a person approved this call (step mode), for a tool that asks;
        ``answer``: a person's answer to what the tool's last call asked them (``Tool.answers``)."""
        tool = self._tools.get(action.tool)
        if tool is None:
            return self.unknown_tool(action.tool)
        function = tool.run_approved if approved and tool.run_approved is not None else tool.function
        started = time.perf_counter()
        try:
            result = (
                function(action.input, answer=answer) if answer is not None and tool.answers else function(action.input)
            )
        except Cancelled:
            raise
        except ToolError as e:
            result = Observation.error(str(e))
        except Exception as e:  # a broken tool must not end the run; the model hears why
            result = Observation.error(f"{ToolSpec.label_of(tool.name)} failed: {type(e).__name__}: {e}")
        obs = result if isinstance(result, Observation) else Observation(text=str(result))
        obs.text = bounded(obs.text)
        obs.stats.seconds = round(time.perf_counter() - started, 6)
        return obs
