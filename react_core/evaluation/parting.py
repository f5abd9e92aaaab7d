"""Where runs side by side first part: the first row where their actions differ, or an earlier row where a person
edited one of them (a fork's Thought or Observation, step mode's action or Observation), since an edit is a
difference even when every action after it is the same. The Arena, History's Compare and their HTML export mark the
same row with the same words. UI-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from react_core.base.trace import Step
from react_core.evaluation.arena import DIFFERENCE_MARK, first_difference
from react_core.report.edits import Edit

__all__ = ["Parting", "edit_positions"]


@dataclass(frozen=True)
class Parting:
    """The row (0-based) where the columns first part, and the edits made there, by column (none: their actions
    part there). ``Parting.first`` finds it."""

    SAME_ACTIONS: ClassVar[str] = "Every column took the same actions."  # said where columns with steps never part

    row: int
    edits: tuple[tuple[int, Edit], ...] = ()

    @classmethod
    def first(cls, columns: Sequence[Sequence[Step]], edits: Sequence[Sequence[Edit]] = ()) -> Parting | None:
        """Where the columns first part (None: the same actions throughout and no edit, or a single column)."""
        if len(columns) < 2:
            return None
        edits = list(edits) or [[] for _ in columns]
        by_row = [edit_positions(steps, found) for steps, found in zip(columns, edits, strict=True)]
        rows = [k for found in by_row for k in found]
        actions = first_difference(columns)
        if actions is not None:
            rows.append(actions)
        if not rows:
            return None
        row = min(rows)
        return cls(row, tuple((c, e) for c, found in enumerate(by_row) for e in found.get(row, [])))

    def said(self, names: Sequence[str]) -> str:
        """``First difference: step 3, where #12's observation was edited by hand in a fork`` (``names``: each
        column's, such as its run number)."""
        if not self.edits:
            return f"{DIFFERENCE_MARK}: step {self.row + 1}, where the columns' actions part"
        what = "; ".join(f"{names[c]}'s {e.part} was {e.how}" for c, e in self.edits)
        return f"{DIFFERENCE_MARK}: step {self.row + 1}, where {what}"


def edit_positions(steps: Sequence[Step], edits: Sequence[Edit]) -> dict[int, list[Edit]]:
    """A column's edits by the row (0-based) of the step they were made on, among ``steps``."""
    position = {s.index: k for k, s in enumerate(steps)}
    rows: dict[int, list[Edit]] = {}
    for edit in edits:
        if edit.index in position:
            rows.setdefault(position[edit.index], []).append(edit)
    return rows
