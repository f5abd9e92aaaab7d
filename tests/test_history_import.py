"""Imports are validated field by field (``react_core.base.trace_schema``): every hostile trace is refused with a
one-line
reason naming the field, valid exports import, and a stored row that no longer validates never breaks reading."""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import subprocess
import sys
from typing import get_type_hints

import pytest

from react_core.base import trace as trace_module
from react_core.base import trace_schema
from react_core.base.errors import ConfigError
from react_core.base.recorded_settings import SETTINGS_FIELDS
from react_core.base.trace import Action, Exchange, Observation, Source, Step, Trace, Usage
from react_core.base.trace_schema import SETTING_TYPES, parse_trace_json
from react_core.history import open_history
from react_core.loop.settings import RunSettings
from react_core.report.exports import to_json

ROOT = trace_schema.__file__.rsplit("/react_core/", 1)[0]


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, tmp_path):
    """(store, tamper): a store on either backend, and ``tamper(sql, params)`` to edit its rows behind its back."""
    if request.param == "sqlite":
        path = tmp_path / "h.sqlite"

        def tamper(sql: str, params: tuple = ()) -> None:
            with sqlite3.connect(path) as conn:
                conn.execute(sql, params)

        return open_history(url="", path=path), tamper
    url = request.getfixturevalue("postgres_url")

    def tamper_pg(sql: str, params: tuple = ()) -> None:
        import psycopg

        with psycopg.connect(url) as conn:
            conn.execute(sql.replace("?", "%s"), params)

    return open_history(url=url), tamper_pg


def rich_trace() -> Trace:
    return Trace(
        question="Which river flows through Paris?",
        settings={
            "provider": "scripted",
            "model": "m",
            "dialect": "paper",
            "temperature": 0.0,
            "max_calls": 8,
            "tools": ["search", "lookup"],
            "knowledge": "wikipedia",
        },  # fmt: skip
        steps=[
            Step(
                1,
                thought="Search Paris.",
                action=Action("search", "Paris"),
                observation=Observation(
                    "Paris is on the Seine.",
                    sources=[Source("Paris", "https://en.wikipedia.org/wiki/Paris", 123)],
                    note="from the offline pack",
                    evidence=True,
                ),
                raw_output="Thought 1: Search Paris.\nAction 1: Search[Paris]",
                usage=Usage(300, 20),
                seconds=1.25,
            ),
            Step(2, thought="It is the Seine.", final_answer="the Seine", usage=Usage(340, 8), seconds=0.5),
        ],
        final_answer="the Seine",
        stop_reason="finished",
        context=[Exchange("Where is Paris?", "France")],
        started_at="2026-03-01T09:30:00+00:00",
    )


def valid() -> dict:
    return rich_trace().to_dict()


def with_(path: str, value) -> bytes:
    """A valid export with one field (``steps.0.usage``) replaced."""
    data = valid()
    *parents, last = path.split(".")
    target = data
    for p in parents:
        target = target[int(p)] if isinstance(target, list) else target[p]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return json.dumps(data).encode()


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


HOSTILE = [
    (with_("steps.0.usage", "lots"), "steps[0].usage must be an object"),
    (with_("steps.0.index", "one"), "steps[0].index must be an integer"),
    (with_("steps.0.index", True), "steps[0].index must be an integer"),
    (with_("final_answer", {"text": "x"}), "final_answer must be text or null"),
    (with_("steps.1.final_answer", ["x"]), "steps[1].final_answer must be text or null"),
    (with_("steps.0.action", "search"), "steps[0].action must be an object or null"),
    (json.dumps(valid()).replace('"seconds": 1.25', '"seconds": NaN').encode(), "steps[0].seconds must be a finite"),
    (json.dumps(valid()).replace('"seconds": 1.25', '"seconds": Infinity').encode(), "steps[0].seconds must be a fin"),
    (with_("steps.0.seconds", -1), "steps[0].seconds must not be negative"),
    (with_("steps.0.usage.prompt_tokens", 10**15), "steps[0].usage.prompt_tokens must be at most"),
    (with_("steps.0.observation.stats.http_requests", 1.5), "http_requests must be an integer"),
    (with_("steps.0.observation.sources.0.revision", "v1"), "sources[0].revision must be an integer or null"),
    (b'{"question": "q", "settings": {"tools": ' + deep(10_000).encode() + b"}}", "nested deeper than 32 levels"),
    (deep(10_000).encode(), "nested deeper than 32 levels"),
    (b'{"question": "q", "x": ' + deep(40).encode() + b"}", "nested deeper than 32 levels"),
    (with_("surprise", 1), "surprise is not a known field"),
    (with_("steps.0.usage.cached_tokens", 1), "steps[0].usage.cached_tokens is not a known field"),
    (with_("settings.api_key", "sk-123"), "settings.api_key is not a setting a trace records"),
    (with_("settings.dialect", ["paper"]), "settings.dialect must be text or null"),
    (with_("settings.tools", [1, 2]), "settings.tools[0] must be text"),
    (with_("stop_reason", "exploded"), "stop_reason must be one of finished, answered_at_stop, max_calls"),
    (with_("started_at", "yesterday"), "started_at must be an ISO-8601 time"),
    (with_("steps.0.index", 0), "steps[0].index must be at least 1"),
    (with_("steps.1.index", 1), "steps[1].index must be greater than steps[0].index"),
    (with_("question", None), "question must be text"),
    (b'{"steps": []}', "question is missing"),
    (with_("steps", [{"index": i} for i in range(1, 10_002)]), "steps has more than 10,000 items"),
    (b'{"question": "q", "steps": [{"index": 1' + b"0" * 5000 + b"}]}", "Not valid JSON"),
    (b"\xff\xfe\x00garbage", "Not valid JSON"),
    (b" " * 5_000_001, "larger than 5 MB"),
    (with_('we"ird\nkey', 1), '"we\\"ird\\nkey" is not a known field'),
]


@pytest.mark.parametrize(("data", "reason"), HOSTILE, ids=[r[:40] for _, r in HOSTILE])
def test_every_hostile_trace_is_refused_with_a_one_line_reason(data, reason, tmp_path):
    store = open_history(url="", path=tmp_path / "h.sqlite")
    with pytest.raises(ConfigError, match=re.escape(reason)) as caught:
        store.import_json(data)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 400
    assert store.count() == 0


def test_lone_surrogates_are_replaced_and_the_trace_imports(tmp_path):
    store = open_history(url="", path=tmp_path / "h.sqlite")
    data = json.dumps(valid()).replace("Which river", "Which \\ud800 river").replace("Search Paris.", "\\udfff")
    record = store.get(store.import_json(data).run_id)
    assert record.question == "Which \ufffd river flows through Paris?" and record.trace.steps[0].thought == "\ufffd"
    assert record.damaged == ""


def test_a_json_export_imports_back_exactly(tmp_path):
    store = open_history(url="", path=tmp_path / "h.sqlite")
    trace = rich_trace()
    record = store.get(store.import_json(to_json(trace)).run_id)
    assert record.trace.to_dict() == trace.to_dict() and record.origin == "import" and record.imported
    assert not store.get(store.save(trace)).imported  # the same run, run here


def test_an_export_from_before_the_evidence_field_imports(tmp_path):
    data = valid()
    del data["steps"][0]["observation"]["evidence"], data["totals"], data["context"]
    store = open_history(url="", path=tmp_path / "h.sqlite")
    assert store.get(store.import_json(json.dumps(data)).run_id).trace.steps[0].observation.evidence is True


def test_ask_json_output_imports(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([" Compute it.\nAction 1: Calculator[6*7]", " Done.\nAction 2: Finish[42]"]))
    out = subprocess.run(
        [sys.executable, "-m", "react_core", "ask", "What is six times seven?", "--provider", "scripted",
         "--script", str(script), "--tools", "calculator", "--json"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    store = open_history(url="", path=tmp_path / "h.sqlite")
    record = store.get(store.import_json(out.stdout).run_id)
    assert record.final_answer == "42" and record.trace.to_dict() == json.loads(out.stdout)


@pytest.fixture
def fresh_hints():
    """The validator caches each dataclass's hints: clear them around a test that changes a dataclass."""
    trace_schema._hints.cache_clear()
    trace_schema._derived.cache_clear()
    yield
    trace_schema._hints.cache_clear()
    trace_schema._derived.cache_clear()


def test_a_field_added_to_a_dataclass_is_validated_without_touching_the_validator(monkeypatch, fresh_hints):
    extended = dataclasses.make_dataclass(
        "Step", [("confidence", float, dataclasses.field(default=0.0))], bases=(Step,)
    )
    monkeypatch.setattr(trace_module, "Step", extended)  # Trace's ``list[Step]`` now resolves to the new class
    trace_schema._hints.cache_clear()
    with pytest.raises(ConfigError, match=r"steps\[0\].confidence must be a number"):
        parse_trace_json(with_("steps.0.confidence", "high"))
    with pytest.raises(ConfigError, match=r"steps\[0\].confidence must not be negative"):
        parse_trace_json(with_("steps.0.confidence", -0.5))
    assert trace_schema.validate_trace(json.loads(with_("steps.0.confidence", 0.9)))["steps"][0]["confidence"] == 0.9


def test_the_setting_types_are_the_run_settings_types():
    assert set(SETTING_TYPES) == set(SETTINGS_FIELDS)
    hints = get_type_hints(RunSettings)
    for name, expected in SETTING_TYPES.items():
        if name in hints:
            assert hints[name] == expected, name


def test_a_tampered_row_is_shown_as_damaged_and_never_breaks_reading(backend):
    store, tamper = backend
    good = store.save(rich_trace())
    bad = store.save(rich_trace())
    broken = json.loads(json.dumps(valid()))
    broken["steps"][0]["index"] = "one"  # what once broke the History page's Compare tab for every visitor
    tamper("UPDATE runs SET trace_json = ? WHERE id = ?", (json.dumps(broken), bad))
    not_json = store.save(rich_trace())
    tamper("UPDATE runs SET trace_json = ? WHERE id = ?", ("{not json", not_json))

    assert [r.id for r in store.list()] == [not_json, bad, good]
    record = store.get(bad)
    assert record.damaged == "steps[0].index must be an integer"
    assert record.question == rich_trace().question and record.trace.stop_reason == "error"
    assert "damaged" in record.trace.error and record.damaged in record.trace.error
    assert "Not valid JSON" in store.get(not_json).damaged
    # What the Compare tab does with two runs' steps works on a damaged one.
    steps = {s["index"]: s for s in record.trace.to_dict()["steps"]} | {s.index: s for s in store.get(good).trace.steps}
    assert sorted(steps) == [1, 2]
    assert store.get(good).damaged == ""


def test_columns_of_the_wrong_type_in_sqlite_are_shown_as_damaged(tmp_path):
    path = tmp_path / "h.sqlite"
    store = open_history(url="", path=path)
    run_id = store.save(rich_trace())
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE runs SET steps = 'many', seconds = 'slow', question = CAST(X'FF41' AS TEXT) WHERE id = ?",
                     (run_id,))  # fmt: skip
    (record,) = store.list()
    assert (record.steps, record.seconds, record.question) == (0, 0.0, "\ufffdA")
    assert record.damaged == "stored columns of the wrong type: steps, seconds"
    assert store.get(run_id).trace.final_answer == "the Seine"
