"""Tools the loop may run, built per run: Search and Lookup over a knowledge source, the Calculator, and the enabled
tools of MCP servers (``react_core.tools.mcp``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from react_core.base.tool_specs import ToolSpec
from react_core.knowledge.base import KnowledgeSource
from react_core.tools.calculator import CALCULATOR
from react_core.tools.mcp_config import ServerConfig
from react_core.tools.registry import Tool, ToolRegistry

DEFAULT_SENTENCES = 5


def build_tools(
    knowledge: KnowledgeSource | None = None,
    enabled: Iterable[str] = ToolSpec.ORDER,
    *,
    sentences: int = DEFAULT_SENTENCES,
    mcp_servers: Sequence[ServerConfig] = (),
) -> ToolRegistry:
    """A fresh registry for one run (Lookup keeps per-run state). Search and Lookup need a knowledge source; an
    enabled MCP tool needs its server among ``mcp_servers``."""
    enabled = set(enabled)
    registry = ToolRegistry()
    if knowledge is not None and enabled & {"search", "lookup"}:
        from react_core.tools.wiki import make_wiki_tools

        for tool in make_wiki_tools(knowledge, sentences=sentences):
            if tool.name in enabled:
                registry.register(tool)
    if "calculator" in enabled:
        registry.register(CALCULATOR)
    if mcp_servers and enabled - set(ToolSpec.ORDER):
        from react_core.tools.mcp import mcp_tools

        for tool in mcp_tools(enabled - set(ToolSpec.ORDER), mcp_servers):
            registry.register(tool)
    return registry


__all__ = ["Tool", "ToolRegistry", "build_tools", "DEFAULT_SENTENCES"]
