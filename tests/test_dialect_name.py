"""One word, "dialect", for an action format, and what was stored before it still reads: traces and exports whose
settings say "format", presets saved with a ``format`` key, histories with a ``format`` column, and ``--format`` on
the command line."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from schema_helpers import sqlite_history_at

from react_core.base.trace import Trace
from react_core.history import HistoryStore, parse_trace_json
from react_core.loop.settings import RunSettings
from react_core.presets.preset import load_preset, preset_from_toml

ROOT = Path(__file__).resolve().parent.parent
OLD_TRACE = {"question": "q", "settings": {"provider": "scripted", "format": "mrkl"}, "steps": []}


def test_a_trace_written_with_format_reads_as_its_dialect():
    assert Trace.from_dict(OLD_TRACE).settings == {"provider": "scripted", "dialect": "mrkl"}
    assert parse_trace_json(json.dumps(OLD_TRACE)).settings["dialect"] == "mrkl"
    assert Trace.from_dict(OLD_TRACE).to_dict()["settings"] == {"provider": "scripted", "dialect": "mrkl"}
    # Both present (a hand-edited file): today's name wins.
    both = {**OLD_TRACE, "settings": {"format": "mrkl", "dialect": "xml"}}
    assert Trace.from_dict(both).settings == {"dialect": "xml"}


def test_settings_and_presets_saved_with_format_still_load(tmp_path, monkeypatch):
    assert RunSettings.from_dict({"format": "xml"}).dialect == "xml"
    old = load_preset("paper")
    text = (ROOT / "prompts" / "paper.toml").read_text(encoding="utf-8").replace("dialect = ", "format = ", 1)
    assert "format = " in text
    assert preset_from_toml(text, "mine", where="mine.toml").dialect == old.dialect == "paper"
    folder = tmp_path / "presets"
    folder.mkdir()
    (folder / "mine.toml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("REACT_PRESETS_DIR", str(folder))
    assert load_preset("mine").dialect == "paper"


def test_a_history_with_a_format_column_keeps_each_runs_dialect(tmp_path):
    path = tmp_path / "h.sqlite"
    sqlite_history_at(path, 2)  # the history as the version before the rename left it
    with sqlite3.connect(path) as conn:
        for question, column, trace in (
            ("today", "xml", {"question": "today", "settings": {"dialect": "xml"}}),
            ("before", "mrkl", OLD_TRACE | {"question": "before"}),
        ):
            conn.execute(
                "INSERT INTO runs (created_at, question, provider, model, format, trace_json) "
                "VALUES ('2026-01-01T00:00:00+00:00', ?, 'scripted', 'm', ?, ?)",
                (question, column, json.dumps(trace)),
            )
    store = HistoryStore(path)
    assert {r.question: r.dialect for r in store.list()} == {"today": "xml", "before": "mrkl"}
    before = next(r for r in store.list() if r.question == "before")
    assert store.get(before.id).trace.settings["dialect"] == "mrkl"


def test_the_command_line_takes_dialect_and_still_takes_format():
    for option in ("--dialect", "--format"):
        out = subprocess.run(
            [sys.executable, "-m", "react_core", "parse", option, "mrkl"],
            input="Thought: go\nAction: Search\nAction Input: Paris",
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["action"] == {"tool": "search", "input": "Paris"}
