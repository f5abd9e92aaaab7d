"""The line shown above a turn that is not a plain question (a fork, a re-ask with a similar title), made the same way
when the turn starts and when a reloaded or reopened conversation brings it back from history."""

from __future__ import annotations

from react_core import Trace


def fork(run_id: int, step_index: int, field: str) -> str:
    return f"Fork of run #{run_id} from step {step_index} ({field} edited)"


def similar(step_index: int, title: str) -> str:
    return f"Searched {title!r} instead at step {step_index}"


def of_saved(origin: str, parent_id: int | None, fork_step: int | None, trace: Trace) -> str:
    """The label of a saved run, from what its row and trace record ('' for a plain question or a retry)."""
    step = next((s for s in trace.steps if s.index == fork_step), None)
    if step is None:
        return ""
    if origin == "fork" and parent_id is not None:
        edited = step.observation is not None and step.observation.edited_in_fork
        return fork(parent_id, fork_step, "observation" if edited else "thought")
    if origin == "similar" and step.action is not None:
        return similar(fork_step, step.action.input)
    return ""
