"""HotpotQA questions from the shared files: the distractor format (official or HF layout) and the simplified one.

Rows keep their dev-set index, so ``--indices`` (e.g. the paper's 500) selects the same questions everywhere.
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


def load_questions(path: str | Path, *, indices: list[int] | None = None, limit: int | None = None) -> list[Question]:
    """Questions in file order (or in ``indices`` order), at most ``limit`` of them."""
    rows = _rows(Path(path))
    questions = []
    for position, row in enumerate(rows):
        index = int(row.get("index", position))
        qid = str(row.get("id") or row.get("_id") or index)
        questions.append(Question(qid, row["question"], str(row.get("answer", "")), index, row.get("type", "")))
    if indices is not None:
        by_index = {q.index: q for q in questions}
        missing = [i for i in indices if i not in by_index]
        if missing:
            raise ConfigError(f"{len(missing)} indices are not rows of {path} (first: {missing[0]}).")
        questions = [by_index[i] for i in indices]
    return questions[:limit] if limit is not None else questions


def load_indices(path: str | Path) -> list[int]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ConfigError(f"Cannot read indices {path}: {e}.") from None
    if not isinstance(data, list) or not all(isinstance(i, int) for i in data):
        raise ConfigError(f"Indices file {path} must be a JSON list of row numbers.")
    return data
