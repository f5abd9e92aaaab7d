"""One home per rule: the places that read the knowledge setting, name a model or a knowledge source, decide whether a
provider speaks a dialect, cap an observation, hold the paper's figures and credit a dataset are each one place,
and a second copy of their wording or syntax anywhere in the code fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from react_core import (
    DIALECTS,
    PROVIDERS,
)
from react_core.base.errors import ConfigError
from react_core.dialects import get_dialect
from react_core.loop.agent import check_supported

ROOT = Path(__file__).resolve().parent.parent
CODE = [p for d in ("react_core", "ui", "pages") for p in (ROOT / d).rglob("*.py")] + [ROOT / "app.py"]


def _homes(pattern: str) -> list[str]:
    """The code files (docstrings and comments included) whose text matches ``pattern``."""
    found = re.compile(pattern)
    return sorted(str(p.relative_to(ROOT)) for p in CODE if found.search(p.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("what", "pattern", "home"),
    [
        ("the pack: syntax", r"startswith\(\s*[\"']pack:|[\"']pack:\{|len\([\"']pack:", "react_core/knowledge/spec.py"),
        ("the knowledge label", r"Wikipedia \(live\)|[\"']offline pack ", "react_core/knowledge/setting.py"),
        ("the model label", r"[\"']provider default|[\"']the bundled model", "react_core/providers/base.py"),
        ("the dialect rule", r"cannot call tools natively", "react_core/providers/base.py"),
        ("the observation cap", r"cut at \{|_OBSERVATION_CHARS\s*=", "react_core/tools/registry.py"),
        ("reading a model choice", r"partition\(\s*[\"']:[\"']", "react_core/providers/choice.py"),
        ("reading a version's address", r"partition\(\s*[\"']@|split\(\s*[\"']@", "react_core/presets/versions.py"),
        ("the temperature range", r"<=\s*2(\.0)?\b|between 0 and 2", "react_core/loop/settings.py"),
        (
            "the dynamic-example limit",
            r"dynamic\w*\s*<=\s*[1-9]|max_value=20\b|from 0 (\(off\) )?to 20",
            "react_core/presets/preset.py",
        ),
        ("the paper's figures", r"\b(?:28\.7|35\.1|57\.1|64\.6)\b", "react_core/evaluation/paper.py"),
        ("the datasets' credit lines", r"FEVER \(Thorne|HotpotQA \(CC BY-SA", "react_core/evaluation/tasks.py"),
        # The run service: one place makes the Agent, one keeps the finished run (saved, sent).
        ("making an Agent", r"\bAgent\(", "react_core/loop/service.py"),
        ("sending a finished run", r"(?<!def )export_finished_run\(|export_run_live\(", "react_core/loop/keeping.py"),
        ("saving a finished run", r"could not be saved|\.save\(\s*trace\b", "react_core/loop/keeping.py"),
        ("how a run with no stop reason ended", r"[\"']Unfinished[\"']", "react_core/base/trace.py"),
        ("a run's file names by format", r"\.(?:atif|otlp)\.json[\"']", "react_core/report/downloads.py"),
        ("an arena column's origin", r"(?:ORIGIN\s*=|origin\s*==?)\s*[\"']arena[\"']", "react_core/history/records.py"),
    ],
)
def test_each_rule_is_written_once(what, pattern, home):
    assert set(_homes(pattern)) <= {home}, f"{what} is written outside {home}"


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_the_settings_page_and_the_loop_apply_the_same_dialect_rule(provider, dialect):
    cls = PROVIDERS[provider]
    why = cls.unspoken(dialect)
    assert PROVIDERS[provider].speaks(dialect) == (why == "")
    if why:
        with pytest.raises(ConfigError, match=re.escape(why)):
            check_supported(cls, get_dialect(dialect))
    else:
        check_supported(cls, get_dialect(dialect))


def test_a_run_asks_the_dialect_rule_once(monkeypatch):
    # It was asked where the run was built and again where the loop started (and a third time by the Settings page).
    import react_core
    from react_core.providers.base import Provider

    asked: list[str] = []
    rule = Provider.unspoken.__func__
    counted = classmethod(lambda cls, dialect: asked.append(dialect) or rule(cls, dialect))
    monkeypatch.setattr(Provider, "unspoken", counted)
    script = [" Compute.\nAction 1: Calculator[6 * 7]", " So.\nAction 2: Finish[42]"]
    react_core.ask("What is 6 * 7?", react_core.RunSettings(provider="scripted", script=script, tools=["calculator"]))
    assert asked == ["paper"]
