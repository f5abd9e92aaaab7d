"""Running a step's action, with the tool's progress as events while it runs.

A tool that can say how far it has got (``Tool.reports_progress``: an MCP tool) runs on a thread of its own, in a
copy of the run's context (its cancellation scope, its tools' specs, whose keys): the loop yields a ``ToolProgress``
event for each report as it arrives, and the observation once the tool returns. Every other tool runs on the loop's
own thread, as it always has (a knowledge pack's SQLite connection belongs to the thread that opened it).
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Generator
from typing import Any

from react_core.base import progress
from react_core.base.events import Event, ToolProgress
from react_core.base.trace import Action, Observation
from react_core.tools.mcp_asks import declined as declined
from react_core.tools.registry import ToolRegistry

__all__ = ["act", "declined"]

_DONE = object()


def act(
    tools: ToolRegistry, action: Action, index: int, approved: bool = False, answer: dict | None = None
) -> Generator[Event, None, Observation]:
    """``action``'s observation (``ToolRegistry.run``), its tool's progress yielded as it reports it."""
    tool = tools.get(action.tool)
    if tool is None or not tool.reports_progress:
        return tools.run(action, approved=approved, answer=answer)
    updates: queue.Queue[Any] = queue.Queue()
    outcome: dict[str, Any] = {}

    def report(done: float, total: float | None, message: str) -> None:
        updates.put(ToolProgress(index, done, total, message))

    def work() -> None:
        try:
            with progress.reporting(report):
                outcome["observation"] = tools.run(action, approved=approved, answer=answer)
        except BaseException as e:  # Stop while the tool waited: raised again on the loop's thread
            outcome["error"] = e
        finally:
            updates.put(_DONE)

    context = contextvars.copy_context()
    worker = threading.Thread(target=context.run, args=(work,), name=f"act-{action.tool}", daemon=True)
    worker.start()
    while (update := updates.get()) is not _DONE:
        yield update
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["observation"]
