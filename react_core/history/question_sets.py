"""A person's question sets in the history store: each a name and its questions (id, question, answer), kept per
owner like runs and presets. The store keeps what it is given; what makes a set acceptable (one line of text per
field, sizes, unique ids) is checked before it gets here, by ``react_core.evaluation.question_sets``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from react_core.base.errors import ConfigError
from react_core.history.records import column_text, now

MAX_SET_NAME_CHARS = 80
MAX_SET_BYTES = 4_000_000


@dataclass(frozen=True)
class SavedQuestionSet:
    name: str
    questions: list[dict[str, str]]  # {"id", "question", "answer"}, in order
    saved_at: str


class QuestionSets:
    """The question-set half of a Store (it supplies ``owner``, ``_read`` and ``_write``)."""

    owner: str

    def save_question_set(self, name: str, questions: list[dict[str, str]]) -> SavedQuestionSet:
        """Save (or replace) this owner's set ``name``."""
        name = column_text(name.strip()) if isinstance(name, str) else ""
        if not name or len(name) > MAX_SET_NAME_CHARS:
            raise ConfigError(f"A question set needs a name of 1 to {MAX_SET_NAME_CHARS} characters.")
        items = [{k: column_text(str(q[k])) for k in ("id", "question", "answer")} for q in questions]
        text = json.dumps(items, ensure_ascii=False)
        if len(text.encode("utf-8")) > MAX_SET_BYTES:
            raise ConfigError(f"A question set may hold at most {MAX_SET_BYTES // 1_000_000} MB of text.")
        saved = SavedQuestionSet(name, items, now())
        with self._write() as tx:  # type: ignore[attr-defined]
            tx.run(
                "INSERT INTO question_sets (owner, name, questions_json, saved_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (owner, name) DO UPDATE SET questions_json = excluded.questions_json, "
                "saved_at = excluded.saved_at",
                (self.owner, name, text, saved.saved_at),
            )
        return saved

    def question_sets(self) -> list[SavedQuestionSet]:
        """This owner's sets, by name."""
        with self._read() as tx:  # type: ignore[attr-defined]
            rows = tx.rows(
                "SELECT name, questions_json, saved_at FROM question_sets WHERE owner = ? ORDER BY name", (self.owner,)
            )
        return [_saved(r) for r in rows]

    def get_question_set(self, name: str) -> SavedQuestionSet | None:
        with self._read() as tx:  # type: ignore[attr-defined]
            rows = tx.rows(
                "SELECT name, questions_json, saved_at FROM question_sets WHERE owner = ? AND name = ?",
                (self.owner, column_text(str(name))),
            )
        return _saved(rows[0]) if rows else None

    def delete_question_set(self, name: str) -> bool:
        with self._write() as tx:  # type: ignore[attr-defined]
            sql = "DELETE FROM question_sets WHERE owner = ? AND name = ?"
            return tx.run(sql, (self.owner, column_text(str(name)))) > 0


def _saved(row: dict[str, Any]) -> SavedQuestionSet:
    try:
        items = json.loads(row["questions_json"])
    except ValueError:
        items = []
    return SavedQuestionSet(row["name"], items if isinstance(items, list) else [], row["saved_at"])
