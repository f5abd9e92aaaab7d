"""A person's own questions: a CSV or JSON-lines file with ``question`` and ``answer`` (and optional ``id``).

A file is read as data, never run: its text only ever reaches a prompt as a question and a results file as a gold
answer. A bad file is refused whole, with the line and the reason (``QuestionSets.Error``), before any model is asked:
too big, not UTF-8, a missing or empty field, a line break or control character inside a field (a question with a
line break could write its own ``Observation:`` into the prompt), a field too long, a repeated id. Rows without an
``id`` are numbered by their line. ``Question.index`` is the row's position, so ``--indices`` works on a set too.
UI-free; the Evaluate page and ``eval --dataset FILE.csv|jsonl`` read sets through here.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from react_core.base.errors import ConfigError
from react_core.base.nesting import TooDeep, loads_json
from react_core.evaluation.assignments import write_assignment_file
from react_core.evaluation.data import Question, is_fever_file, load_claims, load_questions

__all__ = [
    "MAX_ANSWER_CHARS",
    "MAX_BYTES",
    "MAX_ID_CHARS",
    "MAX_QUESTIONS",
    "MAX_QUESTION_CHARS",
    "QuestionSets",
    "SUFFIXES",
    "dump_jsonl",
    "is_question_set",
    "load_any",
    "load_question_set",
    "parse_question_set",
]

SUFFIXES = (".csv", ".jsonl")
MAX_BYTES = 2_000_000  # a file larger than this is refused before it is read
MAX_QUESTIONS = 5_000
MAX_QUESTION_CHARS = 2_000
MAX_ANSWER_CHARS = 500
MAX_ID_CHARS = 100
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def is_question_set(path: str | Path) -> bool:
    return Path(path).suffix.lower() in SUFFIXES


def load_any(path: str | Path, *, indices: list[int] | None = None) -> list[Question]:
    """The questions of any dataset file an evaluation takes: a person's set (.csv, .jsonl), FEVER's claims (.jsonl) or
    a HotpotQA file."""
    if is_fever_file(path):
        return load_claims(path, indices=indices)
    if not is_question_set(path):
        return load_questions(path, indices=indices)
    questions = load_question_set(path)
    if indices is None:
        return questions
    missing = [i for i in indices if not 0 <= i < len(questions)]
    if missing:
        raise ConfigError(f"{len(missing)} indices are not rows of {path} (first: {missing[0]}).")
    return [questions[i] for i in indices]


def load_question_set(path: str | Path) -> list[Question]:
    """The questions of a CSV or JSONL file, or a QuestionSets.Error saying which line is wrong and why."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise QuestionSets.Error(path.name, 0, f"the file is {size:,} bytes; a question set may be {MAX_BYTES:,}")
        data = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"Cannot read question set {path}: {e.strerror or e}.") from None
    return parse_question_set(data, path.name)


def parse_question_set(data: bytes, name: str) -> list[Question]:
    """The questions of an uploaded file's bytes; ``name``'s suffix says CSV or JSONL."""
    suffix = Path(name).suffix.lower()
    if suffix not in SUFFIXES:
        raise QuestionSets.Error(name, 0, "a question set is a .csv or .jsonl file")
    if len(data) > MAX_BYTES:
        raise QuestionSets.Error(name, 0, f"the file is {len(data):,} bytes; a question set may be {MAX_BYTES:,}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise QuestionSets.Error(
            name, line, f"not UTF-8 text (byte 0x{data[e.start]:02x}); save the file as UTF-8"
        ) from None
    rows = _csv_rows(text, name) if suffix == ".csv" else _jsonl_rows(text, name)
    if not rows:
        raise QuestionSets.Error(name, 0, "no questions in the file")
    if len(rows) > MAX_QUESTIONS:
        raise QuestionSets.Error(name, rows[MAX_QUESTIONS][0], f"more than {MAX_QUESTIONS:,} questions")
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for position, (line, row) in enumerate(rows):
        question = _field(row, "question", name, line, MAX_QUESTION_CHARS)
        answer = _field(row, "answer", name, line, MAX_ANSWER_CHARS)
        qid = _field(row, "id", name, line, MAX_ID_CHARS, required=False) or f"line-{line}"
        if qid in seen:
            raise QuestionSets.Error(name, line, f"id {qid!r} is used again (first on line {seen[qid]})")
        seen[qid] = line
        questions.append(Question(qid, question, answer, position))
    return questions


def _csv_rows(text: str, name: str) -> list[tuple[int, dict[str, Any]]]:
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise QuestionSets.Error(name, line, "a NUL byte: this is not a text file")
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
        missing = [f for f in ("question", "answer") if f not in header]
        if missing:
            reason = f"the header needs the columns question and answer (missing {missing[0]})"
            raise QuestionSets.Error(name, 1, reason)
        reader.fieldnames = header
        rows = []
        for row in reader:
            if None in row:
                raise QuestionSets.Error(name, reader.line_num, "more cells than the header has columns")
            if any((v or "").strip() for v in row.values()):
                # The record's first line: a quoted cell may span lines, and line_num is where the record ends.
                start = reader.line_num - sum((v or "").count("\n") for v in row.values())
                rows.append((start, row))
            if len(rows) > MAX_QUESTIONS:
                break
        return rows
    except csv.Error as e:
        raise QuestionSets.Error(name, reader.line_num, f"not valid CSV ({e})") from None


def _jsonl_rows(text: str, name: str) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for line_no, line in enumerate(text.split("\n"), 1):  # only \n ends a line: JSON text may hold U+2028
        if not line.strip():
            continue
        try:
            item = loads_json(line)
        except TooDeep as e:
            raise QuestionSets.Error(name, line_no, str(e)) from None
        except ValueError as e:
            raise QuestionSets.Error(name, line_no, f"not a JSON object ({getattr(e, 'msg', e)})") from None
        if not isinstance(item, dict):
            raise QuestionSets.Error(name, line_no, "each line must be one JSON object with question and answer")
        rows.append((line_no, item))
        if len(rows) > MAX_QUESTIONS:
            break
    return rows


def _field(row: dict[str, Any], key: str, name: str, line: int, limit: int, *, required: bool = True) -> str:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, str | int | float | type(None)):
        raise QuestionSets.Error(name, line, f"{key} must be text (got {type(value).__name__})")
    text = "" if value is None else str(value).strip()
    if not text:
        if required:
            raise QuestionSets.Error(name, line, f"{key} is missing or empty")
        return ""
    if len(text) > limit:
        raise QuestionSets.Error(name, line, f"{key} is {len(text):,} characters; at most {limit:,}")
    bad = _CONTROL.search(text)
    if bad:
        what = "a line break" if bad.group() in "\r\n\u2028\u2029" else f"control character U+{ord(bad.group()):04X}"
        raise QuestionSets.Error(name, line, f"{key} holds {what}; a field is one line of text")
    return text


def dump_jsonl(questions: list[dict[str, str]] | list[Question]) -> str:
    """A set as JSON lines (id, question, answer): how the app hands a stored set to an evaluation as a file."""
    out = []
    for q in questions:
        d = q if isinstance(q, dict) else {"id": q.id, "question": q.question, "answer": q.answer}
        out.append(json.dumps({k: d[k] for k in ("id", "question", "answer")}, ensure_ascii=False))
    return "\n".join(out) + "\n"


# -- sets kept in a person's history ----------------------------------------------------------------------


class QuestionSets:
    """A person's own questions, kept in their history store (``store``): their sets (``get_question_set``,
    ``save_question_set``), each row checked by the rules above on its way in, and the assignments they joined
    (``assignment``); either written out as the file an evaluation reads."""

    class Error(ConfigError):
        """A refused question set: ``line`` (1-based; 0 for the file as a whole) and ``reason``."""

        def __init__(self, name: str, line: int, reason: str) -> None:
            self.name, self.line, self.reason = name, line, reason
            super().__init__(f"{name}, line {line}: {reason}" if line else f"{name}: {reason}")

    def __init__(self, store: Any) -> None:
        self.store = store

    def save_upload(self, name: str, data: bytes, filename: str) -> list[Question]:
        """Check an uploaded file and keep it as the set ``name`` (replacing one of that name)."""
        questions = parse_question_set(data, filename)
        self.store.save_question_set(name, [_item(q) for q in questions])
        return questions

    def add_run(self, name: str, question: str, answer: str, *, run_id: int | None = None) -> int:
        """Add a run's question with its (corrected) answer to the set ``name``, made when missing; returns the set's
        size. The new row is checked by the same rules as a file's rows, and may not repeat a question."""
        saved = self.store.get_question_set(name)
        items = list(saved.questions) if saved else []
        qid = f"run-{run_id}" if run_id is not None else f"q{len(items) + 1}"
        row = json.dumps({"id": qid, "question": question, "answer": answer}, ensure_ascii=False).encode("utf-8")
        (new,) = parse_question_set(row, "the new row.jsonl")
        if any(i["id"] == new.id for i in items):
            raise QuestionSets.Error(name, 0, f"run {run_id} is already in this set")
        if any(_same(i["question"], new.question) for i in items):
            raise QuestionSets.Error(name, 0, "this question is already in the set")
        self.store.save_question_set(name, [*items, _item(new)])
        return len(items) + 1

    def write_file(self, name: str, folder: str | Path) -> Path:
        """The set ``name`` as a JSONL file in ``folder`` (what an evaluation reads); ConfigError when missing."""
        saved = self.store.get_question_set(name)
        if saved is None or not saved.questions:
            raise ConfigError(f"No question set named {name!r}.")
        path = Path(folder) / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name).strip('-.') or 'questions'}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_jsonl(saved.questions), encoding="utf-8")
        return path

    def write_assignment(self, token: str, folder: str | Path) -> Path:
        """The joined assignment ``token``'s questions in ``folder``, with the note that names it for its submissions
        (``assignments.write_assignment_file``); ConfigError when it is gone or was never joined here."""
        found = self.store.assignment(token)
        if found is None:
            raise ConfigError("That assignment is gone, or its link was never opened here.")
        return write_assignment_file(found, folder)


def _item(q: Question) -> dict[str, str]:
    return {"id": q.id, "question": q.question, "answer": q.answer}


def _same(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())
