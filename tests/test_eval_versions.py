"""Prompt versions in evaluations: a plan's versions each run on the same set into a results file of their own, a
version addressed by label is recorded as its number (in the header and in every trace), results are grouped and
filtered by version, a resume refuses a label that moved, and ``eval-report`` shows the version column."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from react_core.base.errors import ConfigError
from react_core.evaluation.report import load_groups, markdown_table
from react_core.evaluation.results import Evaluation, read_file
from react_core.evaluation.run import EvalPlan
from react_core.loop.settings import RunSettings
from react_core.presets.preset import load_preset
from react_core.presets.store import PresetStore
from react_core.providers.scripted import ScriptedProvider

QUESTIONS = [("a", "What is 6 * 7?", "42"), ("b", "What is 2 + 2?", "4")]


@pytest.fixture(autouse=True)
def own_history(tmp_path, monkeypatch):
    monkeypatch.setenv("REACT_HISTORY_DB", str(tmp_path / "history.sqlite"))
    monkeypatch.setenv("REACT_PRESETS_DIR", str(tmp_path / "no-presets"))


def dataset(tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps({"id": i, "question": q, "answer": a}) + "\n" for i, q, a in QUESTIONS))
    return str(path)


def save_paper_v2() -> str:
    """``paper@2`` (an edit of the shipped ``paper``), labelled ``best``."""
    store = PresetStore()
    preset = load_preset("paper")
    ref = store.save_version(replace(preset, instructions=preset.instructions + "\nBe brief.\n"), "paper")
    store.move_label("paper", "best", 2)
    return ref


def plan(tmp_path, versions, **changes) -> EvalPlan:
    settings = RunSettings(provider="scripted", script="[]")
    return EvalPlan(
        [dataset(tmp_path)], ["react"], str(tmp_path / "out"), settings, tools=["calculator"], versions=versions,
        **changes,
    )  # fmt: skip


def answers(*finals: str) -> list[str]:
    return [f"Thought 1: Known.\nAction 1: Finish[{a}]" for a in finals]


def test_each_version_runs_the_set_into_its_own_file_and_a_label_is_recorded_as_its_number(tmp_path):
    assert save_paper_v2() == "paper@2"
    # paper@1 gets both right, paper@best (= paper@2) only the first.
    run = plan(tmp_path, ["paper@1", "paper@best"]).run(provider=ScriptedProvider(answers("42", "4", "42", "5")))
    assert list(run.summaries) == ["react@paper@1", "react@paper@best"]
    assert run.summaries["react@paper@1"].em == 1.0 and run.summaries["react@paper@best"].em == 0.5
    header, records = read_file(tmp_path / "out" / "react@paper@best.jsonl")
    assert header["versions"] == {"react": "paper@2"} and header["config"]["presets"] == {"react": "paper@best"}
    assert {r["trace"]["settings"]["prompt_version"] for r in records} == {"paper@2"}
    evaluation = Evaluation.load(tmp_path / "out")
    assert [r.version for r in evaluation.results] == ["paper@1", "paper@2"]
    groups = Evaluation.by_version([evaluation])
    assert list(groups) == ["paper@1", "paper@2"]
    assert [r.summary().em for _, r in groups["paper@2"]] == [0.5]
    assert list(Evaluation.by_version([evaluation], "paper@1")) == ["paper@1"]
    table = markdown_table(load_groups([tmp_path / "out"]))
    assert "| ReAct (react@paper@1) | paper@1 | 2 | 100.0 |" in table
    assert "| ReAct (react@paper@best) | paper@2 | 2 | 50.0 |" in table


def test_a_resume_refuses_results_of_a_version_a_label_no_longer_names(tmp_path):
    save_paper_v2()
    plan(tmp_path, ["paper@best"], limit=1).run(provider=ScriptedProvider(answers("42")))
    PresetStore().move_label("paper", "best", 1)
    with pytest.raises(ConfigError, match="paper@2, not paper@1"):
        plan(tmp_path, ["paper@best"]).run(provider=ScriptedProvider(answers("4")))


def test_a_plan_without_versions_records_the_version_its_presets_name(tmp_path):
    save_paper_v2()
    run = plan(tmp_path, [], presets={"react": "paper@best"}).run(provider=ScriptedProvider(answers("42", "4")))
    assert list(run.summaries) == ["react"]
    assert Evaluation.load(tmp_path / "out").results[0].version == "paper@2"


def test_direct_strategies_record_their_version_too(tmp_path):
    settings = RunSettings(provider="scripted", script="[]")
    p = EvalPlan([dataset(tmp_path)], ["standard"], str(tmp_path / "out"), settings)
    p.run(provider=ScriptedProvider([" 42", " 4"]))
    result = Evaluation.load(tmp_path / "out").results[0]
    assert result.version == "hotpotqa-standard@1"
    assert result.records[0]["trace"]["settings"]["prompt_version"] == "hotpotqa-standard@1"


@pytest.mark.parametrize(
    ("strategies", "versions", "message"),
    [
        (["cot"], ["paper@1"], "Act or ReAct"),
        (["react"], ["paper@1", "paper@1"], "once"),
        (["react"], ["hotpotqa-cot"], "the react role needs a react one"),
        (["react"], ["paper@7"], "no prompt version paper@7"),
    ],
)
def test_a_plan_of_versions_is_checked_before_any_model_is_asked(tmp_path, strategies, versions, message):
    p = replace(plan(tmp_path, versions), strategies=strategies)
    provider = ScriptedProvider([])
    with pytest.raises(ConfigError, match=message):
        p.run(provider=provider)
    assert provider.requests == []


def test_eval_cli_runs_versions_and_eval_report_shows_them(tmp_path):
    import subprocess
    import sys

    save_paper_v2()
    script = tmp_path / "s.json"
    script.write_text(json.dumps(answers("42", "4", "42", "5")))
    run = [sys.executable, "-m", "react_core"]
    out = subprocess.run(
        [*run, "eval", "--dataset", dataset(tmp_path), "--strategy", "react", "--tools", "calculator",
         "--provider", "scripted", "--script", str(script), "--versions", "paper@1", "paper@best",
         "--out", str(tmp_path / "res"), "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "ReAct paper@1: EM 100.0  F1 100.0  n=2",
        "ReAct paper@best: EM 50.0  F1 50.0  n=2",
    ]
    report = subprocess.run([*run, "eval-report", str(tmp_path / "res")], capture_output=True, text=True, timeout=120)
    assert "| paper@1 | 2 | 100.0 |" in report.stdout and "| paper@2 | 2 | 50.0 |" in report.stdout
