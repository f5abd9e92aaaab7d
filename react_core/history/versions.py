"""Prompt versions and their labels in the history store, for one owner: what ``Store`` does with them.

A version is never changed once saved: there is no statement here that updates or deletes one. Saving adds the next
number of its line in one transaction; a label is a movable pointer to one number of a line. What a version's text
must be (a valid preset) is checked above, in ``react_core.presets.store``; the store only bounds its size.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from react_core.history.migrations import Tx
from react_core.history.records import SavedVersion, check_version, column_text, now
from react_core.history.status import FAILED, HistoryError

_FIELDS = "name, number, toml, saved_at, note"
SAVE_TRIES = 100  # writers adding to one line at once: each that loses a number takes the next


class VersionStore:
    """Mixed into ``Store``: ``owner``, ``_read`` and ``_write`` come from there."""

    owner: str
    where: str
    _read: Callable[[], AbstractContextManager[Tx]]
    _write: Callable[[], AbstractContextManager[Tx]]

    def save_version(self, name: str, toml: str, *, first: int = 1, note: str = "") -> SavedVersion:
        """Add a version to line ``name`` (numbered after its newest, from ``first``: 2 for a shipped preset's line,
        whose version 1 is the shipped file); returns it."""
        name, toml = check_version(name, toml)
        with self._write() as tx:
            for _ in range(SAVE_TRIES):
                newest = tx.rows(
                    "SELECT COALESCE(MAX(number), 0) AS n FROM prompt_versions WHERE owner = ? AND name = ?",
                    (self.owner, name),
                )[0]["n"]
                saved = SavedVersion(name, max(int(newest) + 1, first), toml, now(), column_text(note)[:200])
                # Another writer may have taken that number since (PostgreSQL lets two transactions read the same
                # newest): then nothing is inserted, and the next statement sees theirs and takes the next one.
                added = tx.rows(
                    f"INSERT INTO prompt_versions (owner, {_FIELDS}) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (owner, name, number) DO NOTHING RETURNING number",
                    (self.owner, saved.name, saved.number, saved.toml, saved.saved_at, saved.note),
                )
                if added:
                    return saved
        raise HistoryError(
            FAILED, self.where, f"Version {saved.ref} could not be numbered: too many saves at once.", "Try again."
        )

    def version_lines(self) -> dict[str, int]:
        """This owner's lines, by name, each with its newest number."""
        with self._read() as tx:
            rows = tx.rows(
                "SELECT name, MAX(number) AS n FROM prompt_versions WHERE owner = ? GROUP BY name ORDER BY name",
                (self.owner,),
            )
        return {r["name"]: int(r["n"]) for r in rows}

    def versions(self, name: str) -> list[SavedVersion]:
        """Every version of line ``name``, oldest first."""
        with self._read() as tx:
            rows = tx.rows(
                f"SELECT {_FIELDS} FROM prompt_versions WHERE owner = ? AND name = ? ORDER BY number",
                (self.owner, column_text(str(name))),
            )
        return [SavedVersion(**r) for r in rows]

    def get_version(self, name: str, number: int) -> SavedVersion | None:
        with self._read() as tx:
            rows = tx.rows(
                f"SELECT {_FIELDS} FROM prompt_versions WHERE owner = ? AND name = ? AND number = ?",
                (self.owner, column_text(str(name)), int(number)),
            )
        return SavedVersion(**rows[0]) if rows else None

    # -- labels ---------------------------------------------------------------------------------------------

    def move_label(self, name: str, label: str, number: int) -> None:
        """Point ``label`` of line ``name`` at version ``number`` (set it, or move it from where it was)."""
        with self._write() as tx:
            tx.run(
                "INSERT INTO prompt_labels (owner, name, label, number, moved_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (owner, name, label) DO UPDATE SET number = excluded.number, moved_at = excluded.moved_at",
                (self.owner, column_text(str(name)), column_text(str(label)), int(number), now()),
            )

    def labels(self, name: str) -> dict[str, int]:
        """Line ``name``'s labels and the number each points at, by label."""
        with self._read() as tx:
            rows = tx.rows(
                "SELECT label, number FROM prompt_labels WHERE owner = ? AND name = ? ORDER BY label",
                (self.owner, column_text(str(name))),
            )
        return {r["label"]: int(r["number"]) for r in rows}

    def remove_label(self, name: str, label: str) -> bool:
        with self._write() as tx:
            return (
                tx.run(
                    "DELETE FROM prompt_labels WHERE owner = ? AND name = ? AND label = ?",
                    (self.owner, column_text(str(name)), column_text(str(label))),
                )
                > 0
            )
