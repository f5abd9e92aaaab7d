"""Questions from the shared files: HotpotQA's (the distractor format, official or HF layout, and the simplified one)
and FEVER's claims (the paper's ``paper_dev.jsonl``: one JSON object a line, ``claim`` and ``label``).

Rows keep their dev-set index, so ``--indices`` (e.g. the paper's 500) selects the same questions everywhere. A FEVER
claim is a Question whose text is the claim and whose answer is its label (SUPPORTS, REFUTES, NOT ENOUGH INFO).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from react_core.base.errors import ConfigError


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answer: str
    index: int
    type: str = ""


def _rows(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"Cannot read dataset {path}: {e.strerror or e}.") from None
    except ValueError as e:
        raise ConfigError(f"Dataset {path} is not valid JSON: {e}.") from None
    if not isinstance(data, list) or not all(isinstance(r, dict) and "question" in r for r in data):
        raise ConfigError(f"Dataset {path} must be a JSON list of HotpotQA records with a 'question'.")
    return data


def _select(questions: list[Question], indices: list[int] | None, path: Path | str) -> list[Question]:
    if indices is None:
        return questions
    by_index = {q.index: q for q in questions}
    missing = [i for i in indices if i not in by_index]
    if missing:
        raise ConfigError(f"{len(missing)} indices are not rows of {path} (first: {missing[0]}).")
    return [by_index[i] for i in indices]


def load_questions(path: str | Path, *, indices: list[int] | None = None, limit: int | None = None) -> list[Question]:
    """Questions in file order (or in ``indices`` order), at most ``limit`` of them."""
    rows = _rows(Path(path))
    questions = []
    for position, row in enumerate(rows):
        index = int(row.get("index", position))
        qid = str(row.get("id") or row.get("_id") or index)
        questions.append(Question(qid, row["question"], str(row.get("answer", "")), index, row.get("type", "")))
    questions = _select(questions, indices, path)
    return questions[:limit] if limit is not None else questions


def _first_row(path: Path) -> object:
    try:
        with path.open(encoding="utf-8") as f:
            line = next((line for line in f if line.strip()), "")
        return json.loads(line)
    except (OSError, ValueError):
        return None


def is_fever_file(path: str | Path) -> bool:
    """Whether a file holds FEVER claims: JSON lines whose first row has a ``claim`` and a ``label``."""
    path = Path(path)
    row = _first_row(path) if path.suffix.lower() == ".jsonl" else None
    return isinstance(row, dict) and "claim" in row and "label" in row


def load_claims(path: str | Path, *, indices: list[int] | None = None) -> list[Question]:
    """FEVER claims in file order (or in ``indices`` order, rows counted from 0 as the paper's notebook counts them):
    the claim is the question, its label the answer, as the paper's ``FeverWrapper`` reads them."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ConfigError(f"Cannot read claims {path}: {e.strerror or e}.") from None
    claims = []
    for number, line in enumerate(ln for ln in lines if ln.strip()):
        try:
            row = json.loads(line)
            claims.append(Question(str(row.get("id", number)), str(row["claim"]), str(row["label"]), number))
        except (ValueError, KeyError, TypeError, AttributeError):
            why = "not a FEVER claim (a JSON object with claim and label)"
            raise ConfigError(f"{path}, row {number}: {why}.") from None
    return _select(claims, indices, path)


def load_indices(path: str | Path) -> list[int]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ConfigError(f"Cannot read indices {path}: {e}.") from None
    if not isinstance(data, list) or not all(isinstance(i, int) for i in data):
        raise ConfigError(f"Indices file {path} must be a JSON list of row numbers.")
    return data
