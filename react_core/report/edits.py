"""What a person changed in a run: a fork's edited Thought or Observation, step mode's edited action or written
Observation. A run compared with another (History's Compare, its HTML export) differs where a person edited it even
when every action is the same, so each edit is said, and marked on its step. UI-free.

A fork records its edit in two places: an edited Observation carries ``Observation.FORK_NOTE`` in the trace itself;
an edited Thought is only known from the history row (``fork_step``: the step the fork went on from), since the model
continued that thought and the step holds the two as one.
"""

from __future__ import annotations

from dataclasses import dataclass

from react_core.base.trace import Step, Trace

__all__ = ["Edit", "FORK", "STEP_MODE", "hand_edits"]

FORK = "edited by hand in a fork"
STEP_MODE = "by a person in step mode"


@dataclass(frozen=True)
class Edit:
    """One step a person changed: its ``index``, which part (thought, action or observation) and how."""

    index: int
    part: str
    how: str

    def said(self) -> str:
        """``step 3's observation, edited by hand in a fork``"""
        return f"step {self.index}'s {self.part}, {self.how}"


def _of_step(step: Step) -> list[Edit]:
    found = []
    obs = step.observation
    if obs is not None and obs.edited_in_fork:
        found.append(Edit(step.index, "observation", FORK))
    for note in step.interventions:
        if note.kind == "edit":
            found.append(Edit(step.index, "action", f"edited {STEP_MODE}"))
        elif note.kind == "observe":
            found.append(Edit(step.index, "observation", f"written {STEP_MODE}"))
    return found


def hand_edits(trace: Trace, fork_step: int | None = None, origin: str = "fork") -> list[Edit]:
    """Every step of ``trace`` a person changed, in step order. ``fork_step`` and ``origin``: its history row's. A
    fork went on from that step, whose Thought was edited unless its Observation says it was; a run that searched a
    similar title instead (origin ``similar``) had that step's action changed."""
    found = [edit for step in trace.steps for edit in _of_step(step)]
    if fork_step is not None and any(s.index == fork_step for s in trace.steps):
        if origin == "similar":
            found.append(Edit(fork_step, "action", "changed by a person to a similar title"))
        elif origin == "fork" and not any(e.index == fork_step and e.how == FORK for e in found):
            found.append(Edit(fork_step, "thought", FORK))
    return sorted(found, key=lambda e: e.index)
