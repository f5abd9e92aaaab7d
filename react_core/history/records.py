"""What the store hands back (a run's row, a prompt version) and how a trace becomes a row and a row a record.

Rows are read defensively: a row written by an older version, or edited by hand, that no longer validates is shown
as damaged with the reason instead of breaking the list or the run view.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from react_core.base.errors import ConfigError
from react_core.base.text import scrub, scrub_value
from react_core.base.trace import Trace, ended
from react_core.base.trace_schema import load_trace_json

__all__ = [
    "ARENA_ORIGIN",
    "COLUMNS",
    "IMPORTED",
    "MAX_ID",
    "MAX_PRESET_BYTES",
    "MAX_PRESET_NAME_CHARS",
    "MAX_SEARCH_TERMS",
    "RunRecord",
    "SavedVersion",
    "check_version",
    "column_text",
    "like_patterns",
    "now",
    "record",
    "row_id",
    "run_row",
    "safe_setting",
    "search_text",
    "with_trace",
]

# A remembered setting may never look like a secret, whatever a future settings field is called.
_SECRET_NAME = re.compile(r"key|token|secret|password|credential", re.IGNORECASE)
IMPORTED = "import"  # the origin of a run imported from a file (``Store.import_json``)
ARENA_ORIGIN = "arena"  # the origin every arena column is saved with (``evaluation.arena``, ``history.arenas``)
MAX_PRESET_NAME_CHARS = 200
MAX_PRESET_BYTES = 1_000_000
MAX_ID = 2**63 - 1  # the largest id either database stores
MAX_SEARCH_TERMS = 20


def safe_setting(name: str) -> bool:
    return not _SECRET_NAME.search(name)


@dataclass
class RunRecord:
    """One stored run: its row and (when loaded) its trace. ``damaged`` is why a stored run no longer reads (its
    trace is then a stand-in that says so); empty for every sound run."""

    id: int
    created_at: str
    question: str
    final_answer: str | None
    stop_reason: str | None
    provider: str
    model: str
    dialect: str
    steps: int
    tokens: int
    seconds: float
    origin: str
    conversation: str
    parent_id: int | None
    fork_step: int | None
    prompt_version: str = ""  # the prompt version the run used ("name@3"); '' for an unsaved edit or an older run
    trace: Trace | None = None
    damaged: str = ""
    revision: int = 0  # moves on each time the row changes after it was saved (a paused run resumed)

    @property
    def ended(self) -> str:
        """How the run ended, said to a person (``Answered``, ``Stopped by you``, … ``Unfinished``)."""
        return ended(self.stop_reason)

    @property
    def from_arena(self) -> bool:
        """Whether the run was a column of an arena (``history.arenas`` groups them)."""
        return self.origin == ARENA_ORIGIN

    @property
    def imported(self) -> bool:
        """Whether the run came from a file (``Store.import_json``) rather than from a run here."""
        return self.origin == IMPORTED

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "trace"}
        d["trace"] = self.trace.to_dict() if self.trace else None
        return d


@dataclass(frozen=True)
class SavedVersion:
    """One version of a person's prompt: its line's name, its number (1, 2, … never reused or changed), its TOML
    text, when it was saved (ISO-8601, UTC) and a note (where it came from)."""

    name: str
    number: int
    toml: str
    saved_at: str
    note: str = ""

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.number}"


COLUMNS = (
    "id, created_at, question, final_answer, stop_reason, provider, model, dialect, steps, tokens, seconds, "
    "origin, conversation, parent_id, fork_step, revision, prompt_version"
)
_TEXT = ("created_at", "question", "provider", "model", "dialect", "origin", "conversation", "prompt_version")
_OPTIONAL_TEXT = ("final_answer", "stop_reason")
_COUNTS = ("steps", "tokens", "revision")
_OPTIONAL_IDS = ("parent_id", "fork_step")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def column_text(text: str) -> str:
    """Text a column can hold in both databases: PostgreSQL refuses NUL, UTF-8 refuses lone surrogates. (The trace
    itself is stored as JSON, where both are escapes, so it still round-trips exactly.)"""
    return scrub(text).replace("\x00", "\ufffd")


def search_text(trace: Trace) -> str:
    """Everything a search looks in, case-folded, so one LIKE matches case-insensitively in both databases."""
    parts = [trace.question, trace.final_answer or "", trace.error or ""]
    for s in trace.steps:
        parts.append(s.thought)
        if s.action:
            parts.append(f"{s.action.tool} {s.action.input}")
        if s.observation:
            parts.append(s.observation.text)
            parts += [src.title for src in s.observation.sources]
    return column_text("\n".join(parts).casefold())


def like_patterns(query: str) -> list[str]:
    """One LIKE pattern per word of ``query`` (case-folded), its wildcards escaped with a backslash."""
    words = column_text(query).casefold().split()[:MAX_SEARCH_TERMS]
    return ["%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for w in words]


def run_row(trace: Trace, owner: str, origin: str, conversation: str, parent_id, fork_step) -> dict[str, Any]:
    totals = trace.totals
    return {
        "owner": owner,
        "created_at": now(),
        "question": column_text(trace.question),
        "final_answer": None if trace.final_answer is None else column_text(trace.final_answer),
        "stop_reason": trace.stop_reason,
        "provider": column_text(str(trace.settings.get("provider", ""))),
        "model": column_text(str(trace.settings.get("model", ""))),
        "dialect": column_text(str(trace.settings.get("dialect", ""))),
        "prompt_version": column_text(str(trace.settings.get("prompt_version", ""))),
        "steps": totals["steps"],
        "tokens": totals["tokens"],
        "seconds": totals["seconds"],
        "origin": column_text(origin),
        "conversation": column_text(conversation),
        "parent_id": row_id(parent_id) if parent_id is not None else None,
        "fork_step": int(fork_step) if fork_step is not None else None,
        "search_text": search_text(trace),
        "trace_json": json.dumps(scrub_value(trace.to_dict()), ensure_ascii=False),
    }


def row_id(value: Any) -> int | None:
    """A run id as the databases store it, or None for anything that cannot be one (a crafted "1 OR 1=1")."""
    try:
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return n if 1 <= n <= MAX_ID and not isinstance(value, bool) else None


def record(row: dict[str, Any]) -> RunRecord:
    """A row as a RunRecord; a column of the wrong type (a hand-edited file) is replaced and the run marked damaged."""
    data, problems = dict(row), []
    for name in _TEXT + _OPTIONAL_TEXT:
        value = data.get(name)
        if not isinstance(value, str) and not (value is None and name in _OPTIONAL_TEXT):
            data[name] = "" if value is None else str(value)
            problems.append(name)
    for name in _COUNTS:
        if not isinstance(data.get(name), int) or data[name] < 0:
            data[name], problems = 0, [*problems, name]
    seconds = data.get("seconds")
    if not isinstance(seconds, int | float) or not math.isfinite(seconds) or seconds < 0:
        data["seconds"], problems = 0.0, [*problems, "seconds"]
    for name in _OPTIONAL_IDS:
        if data.get(name) is not None and not isinstance(data[name], int):
            data[name], problems = None, [*problems, name]
    damaged = f"stored columns of the wrong type: {', '.join(problems)}" if problems else ""
    return RunRecord(**{k: data[k] for k in COLUMNS.split(", ")}, damaged=damaged)


def with_trace(rec: RunRecord, trace_json: Any) -> RunRecord:
    """``rec`` with its stored trace, validated as an import is; a trace that no longer validates becomes a stand-in
    that says why, so opening or comparing the run never breaks."""
    try:
        if not isinstance(trace_json, str):
            raise ConfigError("the stored trace is not text")
        rec.trace = load_trace_json(trace_json)
    except (ConfigError, ValueError, TypeError, KeyError) as e:
        reason = str(e).removeprefix("Not a ReAct Lab trace: ").rstrip(".")
        rec.damaged = f"{rec.damaged}; {reason}" if rec.damaged else reason
        rec.trace = Trace(
            question=rec.question,
            stop_reason="error",
            error=f"This saved run is damaged and cannot be shown: {rec.damaged}",
        )
    return rec


def check_version(name: str, toml: str) -> tuple[str, str]:
    name = column_text(name.strip()) if isinstance(name, str) else ""
    if not name or len(name) > MAX_PRESET_NAME_CHARS:
        raise ConfigError(f"A prompt version needs a name of 1 to {MAX_PRESET_NAME_CHARS} characters.")
    if not isinstance(toml, str) or len(toml.encode("utf-8", "replace")) > MAX_PRESET_BYTES:
        raise ConfigError(f"A prompt version is TOML text of at most {MAX_PRESET_BYTES // 1_000_000} MB.")
    return name, column_text(toml)
