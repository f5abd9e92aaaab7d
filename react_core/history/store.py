"""The history store's interface and everything both databases share: runs, search, import, remembered settings and
prompt versions, each bound to one owner.

A store belongs to one ``owner`` (the signed-in person; '' for the local single-user app) and every statement filters
by it, so a run id of another owner is simply not found. A backend supplies the connection (``_transaction``), how
it opens (``_open``: migrations, and whether it can be written) and how its errors read (``_failure``). Keys never
reach the store: traces drop unknown settings, and remembered settings are filtered through ``safe_setting``. The one
credential it keeps is a person's own MCP server's headers, with that server in their remembered settings
(``sealed``: under the operator's key when there is one).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, ClassVar

from react_core.base.errors import ConfigError, Conflict
from react_core.base.trace import Trace
from react_core.base.trace_schema import load_trace_json
from react_core.history.arenas import ArenaSummary, group
from react_core.history.assignments import AssignmentStore
from react_core.history.conversations import ConversationSummary, conversation_turns, summary
from react_core.history.migrations import Tx
from react_core.history.question_sets import QuestionSets
from react_core.history.records import (
    ARENA_ORIGIN,
    COLUMNS,
    IMPORTED,
    RunRecord,
    column_text,
    like_patterns,
    record,
    row_id,
    run_row,
    safe_setting,
    with_trace,
)
from react_core.history.sealed import seal, unseal
from react_core.history.shares import ShareStore
from react_core.history.status import READ_ONLY, UNAVAILABLE, USABLE, HistoryError, StoreStatus
from react_core.history.versions import VersionStore

MAX_LIST = 10_000


@dataclass(frozen=True)
class Imported:
    run_id: int
    existing: bool  # the same run was already in this owner's history, so nothing was added
    # What an OpenTelemetry file held that the run could not keep (``telemetry.otlp_import``), one phrase each.
    unmapped: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        if self.existing:
            said = f"This run is already in History as run #{self.run_id}; it is opened below."
        else:
            said = f"Imported as run #{self.run_id}."
        if self.unmapped:
            said += " Not kept from the file: " + "; ".join(self.unmapped) + "."
        return said


def resumed_elsewhere(run_id: int) -> Conflict:
    """What the second of two resumes of one paused run is told."""
    return Conflict(
        f"Run #{run_id} was resumed somewhere else (another tab or window) a moment ago, so this decision was not "
        "taken. Open it again from History to see where it is now."
    )


class Store(VersionStore, QuestionSets, ShareStore, AssignmentStore, ABC):
    """Runs, remembered settings, prompt versions (``VersionStore``), question sets (``QuestionSets``), read-only
    share links (``ShareStore``) and assignments (``AssignmentStore``) of one owner. Cheap to create; opens (and
    migrates) on first use."""

    # The environment variable that points the app at another store, named in every error message.
    variable: ClassVar[str]
    MAX_OWNER_CHARS: ClassVar[int] = 200

    def __init__(self, owner: str = "") -> None:
        self.owner = self.check_owner(owner)
        self._opened = False
        self._read_only: HistoryError | None = None

    @classmethod
    def check_owner(cls, owner: str) -> str:
        """``owner`` as the store keeps it; a ConfigError for what it refuses (too long, or holding a NUL)."""
        if not isinstance(owner, str) or len(owner) > cls.MAX_OWNER_CHARS or "\x00" in owner:
            raise ConfigError(f"A history owner is text of at most {cls.MAX_OWNER_CHARS} characters.")
        return owner

    @property
    @abstractmethod
    def where(self) -> str:
        """The store for a person to read: a file path, or a database URL without its password."""

    @abstractmethod
    def _open_backend(self) -> HistoryError | None:
        """Open and migrate; returns why writing is refused (None when it is not); raises HistoryError."""

    @abstractmethod
    def _transaction(self, write: bool) -> AbstractContextManager[Tx]:
        """One transaction, committed when the block ends; every database error leaves it as a HistoryError."""

    # -- state ------------------------------------------------------------------------------------------------

    def _open(self) -> None:
        if not self._opened:
            self._read_only = self._open_backend()
            self._opened = True

    def status(self) -> StoreStatus:
        """Whether history can be read and written now, and if not, why (a message for the person)."""
        try:
            self._open()
        except HistoryError as e:
            return StoreStatus(UNAVAILABLE, self.where, str(e))
        if self._read_only is not None:
            return StoreStatus(READ_ONLY, self.where, str(self._read_only))
        return StoreStatus(USABLE, self.where)

    def _read(self) -> AbstractContextManager[Tx]:
        self._open()
        return self._transaction(write=False)

    def _write(self) -> AbstractContextManager[Tx]:
        self._open()
        if self._read_only is not None:
            raise self._read_only
        return self._transaction(write=True)

    # -- runs -------------------------------------------------------------------------------------------------

    def save(
        self,
        trace: Trace,
        *,
        origin: str = "chat",
        conversation: str = "",
        parent_id: int | None = None,
        fork_step: int | None = None,
    ) -> int:
        """Store a finished run in one transaction; returns its id."""
        row = run_row(trace, self.owner, origin, conversation, parent_id, fork_step)
        names = ", ".join(row)
        with self._write() as tx:
            got = tx.rows(
                f"INSERT INTO runs ({names}) VALUES ({', '.join('?' for _ in row)}) RETURNING id", tuple(row.values())
            )
        return int(got[0]["id"])

    def claim(self, run_id: int, revision: int) -> int:
        """Take this owner's paused run to resume it: a compare-and-set that moves its revision on by one only while
        it is still paused at ``revision``; returns the new revision. Of two resumes of the same pause (two tabs, two
        replicas) one wins; the other gets a Conflict and nothing changes."""
        n = row_id(run_id)
        with self._write() as tx:
            changed = n is not None and tx.run(
                "UPDATE runs SET revision = revision + 1 WHERE id = ? AND owner = ? AND stop_reason = 'paused' "
                "AND revision = ?",
                (n, self.owner, int(revision)),
            )
        if not changed:
            raise resumed_elsewhere(run_id)
        return int(revision) + 1

    def update(self, run_id: int, trace: Trace, revision: int) -> bool:
        """Write the resumed ``trace`` over this owner's run while its row is still at ``revision`` (the one its
        ``claim`` returned); False when another resume changed it meanwhile (nothing is written)."""
        n = row_id(run_id)
        if n is None:
            return False
        row = run_row(trace, self.owner, "", "", None, None)
        names = ("final_answer", "stop_reason", "steps", "tokens", "seconds", "search_text", "trace_json")
        sets = ", ".join(f"{name} = ?" for name in names)
        with self._write() as tx:
            return (
                tx.run(
                    f"UPDATE runs SET {sets}, revision = revision + 1 WHERE id = ? AND owner = ? AND revision = ?",
                    (*(row[name] for name in names), n, self.owner, int(revision)),
                )
                > 0
            )

    def list(self, query: str = "", *, limit: int = 200, version: str | None = None) -> list[RunRecord]:
        """Newest first; every word of ``query`` must occur (any case) in the question, answer, thoughts, actions
        or observations. ``%`` and ``_`` in the query are plain characters. ``version``: only the runs that used
        that prompt version (``name@3``; '' for the runs that used none: an unsaved edit, an older run)."""
        patterns = like_patterns(query)
        where = "".join(" AND search_text LIKE ? ESCAPE '\\'" for _ in patterns)
        params: tuple = (self.owner, *patterns)
        if version is not None:
            where, params = where + " AND prompt_version = ?", (*params, column_text(str(version)))
        with self._read() as tx:
            rows = tx.rows(
                f"SELECT {COLUMNS} FROM runs WHERE owner = ?{where} ORDER BY id DESC LIMIT ?",
                (*params, max(0, min(int(limit), MAX_LIST))),
            )
        return [record(r) for r in rows]

    def run_versions(self) -> dict[str, int]:
        """The prompt versions this owner's runs used, each with its number of runs (most runs first)."""
        with self._read() as tx:
            rows = tx.rows(
                "SELECT prompt_version, COUNT(*) AS n FROM runs WHERE owner = ? AND prompt_version <> '' "
                "GROUP BY prompt_version ORDER BY n DESC, prompt_version",
                (self.owner,),
            )
        return {r["prompt_version"]: int(r["n"]) for r in rows}

    def get(self, run_id: int) -> RunRecord | None:
        """The run with its trace, or None when this owner has no such run."""
        n = row_id(run_id)
        if n is None:
            return None
        with self._read() as tx:
            rows = tx.rows(f"SELECT {COLUMNS}, trace_json FROM runs WHERE id = ? AND owner = ?", (n, self.owner))
        if not rows:
            return None
        data = dict(rows[0])
        return with_trace(record(data), data.pop("trace_json"))

    def conversation(self, chat_id: str, *, limit: int = 200) -> list[RunRecord]:
        """The runs of one chat conversation of this owner, oldest first, with their traces (to restore a chat after
        a reload)."""
        if not chat_id:
            return []
        with self._read() as tx:
            rows = tx.rows(
                f"SELECT {COLUMNS}, trace_json FROM runs WHERE owner = ? AND conversation = ? ORDER BY id LIMIT ?",
                (self.owner, chat_id, max(0, min(int(limit), MAX_LIST))),
            )
        out = []
        for row in rows:
            data = dict(row)
            out.append(with_trace(record(data), data.pop("trace_json")))
        return out

    def conversation_turns(self, chat_id: str) -> list[RunRecord]:
        """One chat conversation of this owner as the Chat page shows it again: its runs as its turns, oldest first
        (``conversations.conversation_turns``: a retry in the place of the failed turn it retried)."""
        return conversation_turns(self.conversation(chat_id))

    def conversations(self, *, limit: int = 50) -> list[ConversationSummary]:
        """This owner's chat conversations, the one continued most recently first (runs saved without a conversation,
        such as imports, are in no conversation)."""
        with self._read() as tx:
            chosen = tx.rows(
                "SELECT conversation, MAX(id) AS last_id FROM runs WHERE owner = ? AND conversation <> '' "
                "GROUP BY conversation ORDER BY last_id DESC LIMIT ?",
                (self.owner, max(0, min(int(limit), MAX_LIST))),
            )
            ids = [r["conversation"] for r in chosen]
            rows = []
            for start in range(0, len(ids), 100):  # bounded statements: SQLite caps its parameters
                part = ids[start : start + 100]
                rows += tx.rows(
                    f"SELECT {COLUMNS} FROM runs WHERE owner = ? AND conversation IN ({', '.join('?' for _ in part)}) "
                    "ORDER BY id",
                    (self.owner, *part),
                )
        by_id: dict[str, list[RunRecord]] = {c: [] for c in ids}
        for row in rows:
            rec = record(row)
            if rec.conversation in by_id:  # (a hand-damaged column reads as another text)
                by_id[rec.conversation].append(rec)
        found = (summary(c, records) for c, records in by_id.items())
        return [s for s in found if s is not None]

    def arenas(self, *, limit: int = 50) -> list[ArenaSummary]:
        """This owner's arenas, the newest first, each with its runs (and their traces) in column order. An arena's
        id lives in its runs' settings, so the newest arena runs are read and grouped (at most four columns each)."""
        rows_wanted = max(0, min(int(limit), MAX_LIST)) * 4
        return group(self._arena_runs("", rows_wanted))[: max(0, int(limit))]

    def arena(self, arena_id: str) -> ArenaSummary | None:
        """One arena of this owner by its id (however old), or None when it has no runs here."""
        if not isinstance(arena_id, str) or not arena_id.isalnum():
            return None  # the engine's ids are hex: anything else is no arena's
        found = [a for a in group(self._arena_runs(arena_id, MAX_LIST)) if a.id == arena_id]
        return found[0] if found else None

    def _arena_runs(self, arena_id: str, limit: int) -> list:
        """Runs saved as arena columns, newest first, with their traces; only those whose stored settings name
        ``arena_id`` when one is given (the stored JSON holds ``"arena": "<id>"``; ``group`` checks the value)."""
        where, params = "", ()
        if arena_id:
            where, params = " AND trace_json LIKE ?", (f'%"arena": "{arena_id}"%',)
        with self._read() as tx:
            rows = tx.rows(
                f"SELECT {COLUMNS}, trace_json FROM runs WHERE owner = ? AND origin = ?{where} "
                "ORDER BY id DESC LIMIT ?",
                (self.owner, ARENA_ORIGIN, *params, limit),
            )
        found = []
        for row in rows:
            data = dict(row)
            found.append(with_trace(record(data), data.pop("trace_json")))
        return found

    def delete(self, run_id: int) -> bool:
        n = row_id(run_id)
        if n is None:
            return False
        with self._write() as tx:
            tx.run("DELETE FROM shares WHERE run_id = ? AND owner = ?", (n, self.owner))  # its links die with it
            return tx.run("DELETE FROM runs WHERE id = ? AND owner = ?", (n, self.owner)) > 0

    def count(self) -> int:
        with self._read() as tx:
            return int(tx.rows("SELECT COUNT(*) AS n FROM runs WHERE owner = ?", (self.owner,))[0]["n"])

    def import_json(self, data: bytes | str) -> Imported:
        """Store a trace exported as JSON (by the app or ``ask --json``), or an OTLP/JSON file of spans (ReAct Lab's
        OpenTelemetry export, or another tool's agent run: ``react_core.telemetry.otlp_import``), after validating
        every field (``react_core.base.trace_schema``); a ConfigError names the first field that is wrong. A run this
        owner already has (the same trace, field for field) is not stored twice: the answer names the one there."""
        from react_core.telemetry.imports import read_trace_file

        found = read_trace_file(data)
        same = self._same_run(found.trace)
        if same is not None:
            return Imported(same, existing=True, unmapped=found.unmapped)
        return Imported(self.save(found.trace, origin=IMPORTED), existing=False, unmapped=found.unmapped)

    def _same_run(self, trace: Trace) -> int | None:
        """The id of this owner's first stored run whose trace equals ``trace`` (read back as ``get`` reads it)."""
        wanted = trace.to_dict()
        with self._read() as tx:
            rows = tx.rows(
                "SELECT id, trace_json FROM runs WHERE owner = ? AND question = ? ORDER BY id",
                (self.owner, column_text(trace.question)),
            )
        for row in rows:
            try:
                stored = load_trace_json(row["trace_json"])
            except (ConfigError, TypeError):  # a damaged row is no copy of anything
                continue
            if stored.to_dict() == wanted:
                return int(row["id"])
        return None

    # -- remembered settings ----------------------------------------------------------------------------------

    def remember_settings(self, settings: dict[str, Any]) -> None:
        # A person's own MCP servers keep their headers here, sealed when the operator set a key (``sealed``).
        clean = seal({k: v for k, v in settings.items() if safe_setting(k)})
        with self._write() as tx:
            tx.run(
                "INSERT INTO remembered (owner, name, value) VALUES (?, 'settings', ?) "
                "ON CONFLICT (owner, name) DO UPDATE SET value = excluded.value",
                (self.owner, json.dumps(clean, ensure_ascii=False)),
            )

    def remember(self, name: str, text: str) -> None:
        """Keep ``text`` under ``name`` for this owner ('' forgets it): a value beside the settings (an MCP server's
        OAuth tokens, sealed by the caller)."""
        with self._write() as tx:
            tx.run(
                "INSERT INTO remembered (owner, name, value) VALUES (?, ?, ?) "
                "ON CONFLICT (owner, name) DO UPDATE SET value = excluded.value",
                (self.owner, name, text),
            )

    def remembered(self, name: str) -> str:
        with self._read() as tx:
            rows = tx.rows("SELECT value FROM remembered WHERE owner = ? AND name = ?", (self.owner, name))
        return str(rows[0]["value"]) if rows else ""

    def last_settings(self) -> dict[str, Any] | None:
        with self._read() as tx:
            rows = tx.rows("SELECT value FROM remembered WHERE owner = ? AND name = 'settings'", (self.owner,))
        try:
            value = json.loads(rows[0]["value"]) if rows else None
        except (ValueError, TypeError, RecursionError):
            return None
        return unseal({k: v for k, v in value.items() if safe_setting(k)}) if isinstance(value, dict) else None
