"""Assignments in the history store: a teacher hands out a question set by link, students run their prompt versions
on it and submit, and a board shows the teacher each student's results.

An assignment is a copy of the teacher's questions (and, optionally, a reference run per question), under an
unguessable token (``shares.new_token``) that is the link. Whoever holds the link may join (a row of their own in
``assignment_members``) and read the questions; nobody reads the teacher's question sets or history. A student
submits results they chose (each a prompt version's scores on the questions and its runs of them): a row of their
own in ``submissions``, the only thing of theirs anyone else can read, and only the assignment's owner can. Every
statement is scoped to this store's owner: the teacher's by ``assignments.owner``, a student's by the row's
``owner``; the board's query reads submissions only through an assignment the reader owns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from react_core.base.errors import ConfigError
from react_core.history.migrations import Tx
from react_core.history.records import column_text, now, row_id
from react_core.history.shares import new_token, well_formed

__all__ = [
    "Assignment",
    "AssignmentStore",
    "MAX_ASSIGNMENT_NAME_CHARS",
    "MAX_STUDENT_CHARS",
    "MAX_SUBMISSION_BYTES",
    "SUBMISSION_COLUMNS",
    "Submission",
]

MAX_ASSIGNMENT_NAME_CHARS = 80
MAX_SUBMISSION_BYTES = 20_000_000  # a submission's runs (traces) together
MAX_STUDENT_CHARS = 200


@dataclass(frozen=True)
class Assignment:
    token: str
    name: str
    questions: list[dict[str, str]]  # {"id", "question", "answer"}, in order
    created_at: str
    references: dict[str, Any] = field(default_factory=dict)  # question id -> the reference run's trace (a dict)
    mine: bool = False  # whether the reader handed it out


@dataclass(frozen=True)
class Submission:
    """One prompt version's results on an assignment, as its student submitted them. ``runs``: per question, its
    id, question, prediction, em, grounded, checks (name -> passed) and trace (a dict); loaded by ``submission``."""

    id: int
    token: str
    student: str
    version: str
    model: str
    questions: int
    em: float
    grounded: float
    checks: dict[str, float]
    submitted_at: str
    runs: list[dict[str, Any]] = field(default_factory=list)
    owner: str = ""  # the student's account: the board's rows are by account (two students may share a name)


SUBMISSION_COLUMNS = "id, token, student, version, model, questions, em, grounded, checks_json, submitted_at, owner"


def _json(text: str, default: Any) -> Any:
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return default
    return value if isinstance(value, type(default)) else default


def _assignment(row: dict[str, Any], owner: str) -> Assignment:
    return Assignment(
        row["token"],
        row["name"],
        _json(row["questions_json"], []),
        row["created_at"],
        _json(row.get("references_json") or "{}", {}),
        row.get("owner") == owner,
    )


def _submission(row: dict[str, Any], runs: str | None = None) -> Submission:
    return Submission(
        int(row["id"]),
        row["token"],
        row["student"],
        row["version"],
        row["model"],
        int(row["questions"]),
        float(row["em"]),
        float(row["grounded"]),
        _json(row["checks_json"], {}),
        row["submitted_at"],
        _json(runs, []) if runs is not None else [],
        row.get("owner") or "",
    )


class AssignmentStore:
    """Mixed into ``Store``: ``owner``, ``_read`` and ``_write`` come from there."""

    owner: str
    _read: Callable[[], AbstractContextManager[Tx]]
    _write: Callable[[], AbstractContextManager[Tx]]

    # -- the teacher's ---------------------------------------------------------------------------------------

    def create_assignment(
        self, name: str, questions: list[dict[str, str]], references: dict[str, Any] | None = None
    ) -> Assignment:
        """Hand out ``questions`` (a copy: later edits of the set change nothing) under a new link."""
        name = column_text(name.strip()) if isinstance(name, str) else ""
        if not name or len(name) > MAX_ASSIGNMENT_NAME_CHARS:
            raise ConfigError(f"An assignment needs a name of 1 to {MAX_ASSIGNMENT_NAME_CHARS} characters.")
        if not questions:
            raise ConfigError("An assignment needs at least one question.")
        items = [{k: column_text(str(q[k])) for k in ("id", "question", "answer")} for q in questions]
        ids = {q["id"] for q in items}
        refs = {str(k): v for k, v in (references or {}).items() if str(k) in ids}
        made = Assignment(new_token(), name, items, now(), refs, mine=True)
        with self._write() as tx:
            tx.run(
                "INSERT INTO assignments (token, owner, name, questions_json, references_json, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    made.token,
                    self.owner,
                    name,
                    json.dumps(items, ensure_ascii=False),
                    json.dumps(refs, ensure_ascii=False),
                    made.created_at,
                ),
            )
        return made

    def assignments(self) -> list[Assignment]:
        """The assignments this owner handed out, newest first."""
        with self._read() as tx:
            rows = tx.rows(
                "SELECT token, owner, name, questions_json, references_json, created_at FROM assignments "
                "WHERE owner = ? ORDER BY created_at DESC, token",
                (self.owner,),
            )
        return [_assignment(r, self.owner) for r in rows]

    def delete_assignment(self, token: str) -> bool:
        """Withdraw one of this owner's assignments, with every submission to it (the link then opens nothing)."""
        if not well_formed(token):
            return False
        with self._write() as tx:
            if not tx.rows("SELECT token FROM assignments WHERE token = ? AND owner = ?", (token, self.owner)):
                return False
            tx.run("DELETE FROM submissions WHERE token = ?", (token,))
            tx.run("DELETE FROM assignment_members WHERE token = ?", (token,))
            return tx.run("DELETE FROM assignments WHERE token = ? AND owner = ?", (token, self.owner)) > 0

    def board(self, token: str) -> list[Submission]:
        """Every submission to one of this owner's assignments, oldest first (none for anyone else's)."""
        if not well_formed(token):
            return []
        with self._read() as tx:
            rows = tx.rows(
                f"SELECT {SUBMISSION_COLUMNS} FROM submissions WHERE token = ? AND EXISTS "
                "(SELECT 1 FROM assignments a WHERE a.token = submissions.token AND a.owner = ?) ORDER BY id",
                (token, self.owner),
            )
        return [_submission(r) for r in rows]

    # -- a student's ----------------------------------------------------------------------------------------

    def join_assignment(self, token: str) -> Assignment | None:
        """Join the assignment behind a link (the token is the key), and read it; None for no such link."""
        if not well_formed(token):
            return None
        with self._write() as tx:
            rows = tx.rows(
                "SELECT token, owner, name, questions_json, references_json, created_at FROM assignments "
                "WHERE token = ?",
                (token,),
            )
            if not rows:
                return None
            tx.run(
                "INSERT INTO assignment_members (token, owner, joined_at) VALUES (?, ?, ?) "
                "ON CONFLICT (token, owner) DO NOTHING",
                (token, self.owner, now()),
            )
        return _assignment(rows[0], self.owner)

    def joined_assignments(self) -> list[Assignment]:
        """The assignments this owner joined (their own included, once opened by link), newest joined first."""
        with self._read() as tx:
            rows = tx.rows(
                "SELECT a.token, a.owner, a.name, a.questions_json, a.references_json, a.created_at "
                "FROM assignments a JOIN assignment_members m ON m.token = a.token "
                "WHERE m.owner = ? ORDER BY m.joined_at DESC, a.token",
                (self.owner,),
            )
        return [_assignment(r, self.owner) for r in rows]

    def assignment(self, token: str) -> Assignment | None:
        """One assignment this owner handed out or joined (None for any other)."""
        if not well_formed(token):
            return None
        with self._read() as tx:
            rows = tx.rows(
                "SELECT token, owner, name, questions_json, references_json, created_at FROM assignments a "
                "WHERE token = ? AND (owner = ? OR EXISTS "
                "(SELECT 1 FROM assignment_members m WHERE m.token = a.token AND m.owner = ?))",
                (token, self.owner, self.owner),
            )
        return _assignment(rows[0], self.owner) if rows else None

    def submit(
        self,
        token: str,
        *,
        student: str,
        version: str,
        model: str,
        em: float,
        grounded: float,
        checks: dict[str, float],
        runs: list[dict[str, Any]],
    ) -> int:
        """Submit one prompt version's results to an assignment this owner joined; returns the submission's id."""
        student = column_text(str(student))[:MAX_STUDENT_CHARS] or "a student"
        text = json.dumps(runs, ensure_ascii=False)
        if len(text.encode("utf-8")) > MAX_SUBMISSION_BYTES:
            raise ConfigError(f"A submission may hold at most {MAX_SUBMISSION_BYTES // 1_000_000} MB of runs.")
        with self._write() as tx:
            joined = tx.rows(
                "SELECT token FROM assignment_members WHERE token = ? AND owner = ?", (str(token), self.owner)
            )
            if not well_formed(token) or not joined:
                raise ConfigError("Open the assignment's link first: only a joined assignment takes submissions.")
            rows = tx.rows(
                "INSERT INTO submissions (token, owner, student, version, model, questions, em, grounded, "
                "checks_json, runs_json, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    token,
                    self.owner,
                    student,
                    column_text(version),
                    column_text(model),
                    len(runs),
                    float(em),
                    float(grounded),
                    json.dumps(checks, ensure_ascii=False),
                    text,
                    now(),
                ),
            )
        return int(rows[0]["id"])

    def my_submissions(self, token: str) -> list[Submission]:
        """This owner's own submissions to an assignment, oldest first."""
        with self._read() as tx:
            rows = tx.rows(
                f"SELECT {SUBMISSION_COLUMNS} FROM submissions WHERE token = ? AND owner = ? ORDER BY id",
                (str(token), self.owner),
            )
        return [_submission(r) for r in rows]

    def submission(self, submission_id: int) -> Submission | None:
        """One submission with its runs, for its student or the owner of its assignment (None for anyone else)."""
        n = row_id(submission_id)
        if n is None:
            return None
        with self._read() as tx:
            rows = tx.rows(
                f"SELECT {SUBMISSION_COLUMNS}, runs_json FROM submissions s WHERE id = ? AND (owner = ? OR EXISTS "
                "(SELECT 1 FROM assignments a WHERE a.token = s.token AND a.owner = ?))",
                (n, self.owner, self.owner),
            )
        return _submission(rows[0], rows[0]["runs_json"]) if rows else None

    def withdraw_submission(self, submission_id: int) -> bool:
        """Withdraw one of this owner's own submissions."""
        n = row_id(submission_id)
        if n is None:
            return False
        with self._write() as tx:
            return tx.run("DELETE FROM submissions WHERE id = ? AND owner = ?", (n, self.owner)) > 0
