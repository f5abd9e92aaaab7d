"""Where a tool says how far it has got while it runs: the run's reporter, known on the thread that runs the action.

The loop sets a reporter around a tool that can report (``react_core.loop.acting``) and turns each report into a
``ToolProgress`` event; a tool (an MCP tool, whose server sends progress notifications) takes ``reporter()`` when its
call starts and calls it from wherever its progress arrives. Outside such a run there is none, and nothing is said.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Reporter = Callable[[float, float | None, str], None]  # (progress, total or None, message)

_reporter: ContextVar[Reporter | None] = ContextVar("react_tool_progress", default=None)


@contextmanager
def reporting(report: Reporter) -> Iterator[None]:
    """Within this block, on this thread, a running tool's progress goes to ``report``."""
    token = _reporter.set(report)
    try:
        yield
    finally:
        _reporter.reset(token)


def reporter() -> Reporter | None:
    return _reporter.get()
