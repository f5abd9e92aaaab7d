"""An arena as the history holds it: its columns are ordinary runs saved with origin ``arena`` and the same arena id in
their settings (``arena``, ``arena_column``), so no column of the database knows about arenas and older stores need no
migration. ``group`` turns those runs into one entry per arena for the History page's list.
"""

from __future__ import annotations

from dataclasses import dataclass

from react_core.history.records import RunRecord


@dataclass(frozen=True)
class ArenaSummary:
    """One arena for a list: its id, its question, its runs (column order) and when it was saved."""

    id: str
    question: str
    runs: tuple[RunRecord, ...]
    saved_at: str


def arena_of(rec: RunRecord) -> tuple[str, int] | None:
    """(arena id, column) of a run saved as an arena column; None for any other run (or a damaged one)."""
    settings = rec.trace.settings if rec.trace is not None else {}
    arena = settings.get("arena")
    if not rec.from_arena or not isinstance(arena, str) or not arena:
        return None
    column = settings.get("arena_column")
    return arena, column if isinstance(column, int) else 0


def group(records: list[RunRecord]) -> list[ArenaSummary]:
    """Runs (newest first, with their traces) as arenas, the newest arena first; each arena's runs in column order."""
    by_id: dict[str, list[tuple[int, RunRecord]]] = {}
    for rec in records:
        found = arena_of(rec)
        if found is not None:
            by_id.setdefault(found[0], []).append((found[1], rec))
    out = []
    for arena, members in by_id.items():
        runs = tuple(r for _, r in sorted(members, key=lambda m: (m[0], m[1].id)))
        out.append(ArenaSummary(arena, runs[0].question, runs, min(r.created_at for r in runs)))
    return out
