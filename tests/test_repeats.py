"""Repetitions, 95 % intervals, baselines and trajectory checks: intervals on known data, questions that newly pass
and fail against a baseline, each check failing the run it should, and the eval / bootstrap command lines on a
person's question set."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from react_core.base.errors import ConfigError
from react_core.base.trace import Action, Observation, Step, Trace
from react_core.evaluation.data import Question
from react_core.evaluation.repeats import (
    base_id,
    bootstrap_interval,
    common_questions,
    compare_results,
    repeated,
    score_results,
)
from react_core.evaluation.results import StrategyResults
from react_core.evaluation.run import EvalPlan, check_plan, load_plan_questions
from react_core.loop.settings import RunSettings
from react_core.report.checks import Checks, run_checks

ROOT = Path(__file__).resolve().parent.parent


def trace(answer: str | None, *, tool: str = "calculator", evidence: str = "6 * 7 = 42", steps: int = 2) -> Trace:
    done = [Step(1, "Compute.", Action(tool, "6 * 7"), Observation(evidence, evidence=True))]
    done += [Step(i, "More.", Action(tool, "x"), Observation("x", evidence=True)) for i in range(2, steps)]
    done.append(Step(steps, "Done.", final_answer=answer))
    return Trace("What is 6 * 7?", steps=done, final_answer=answer, stop_reason="finished" if answer else "max_calls")


def record(qid: str, em: float, answer: str = "42", **kw) -> dict:
    return {
        "id": qid,
        "question": f"Q {base_id(qid)}",  # repeated runs of a question ask the same question
        "gold": "42",
        "prediction": answer,
        "em": em,
        "f1": em,
        "strategy": "react",
        "trace": trace(answer, **kw).to_dict(),
    }


def test_intervals_on_known_data():
    assert bootstrap_interval([[1.0]] * 50) == (1.0, 1.0)  # no spread, no interval
    low, high = bootstrap_interval([[1.0]] * 50 + [[0.0]] * 50)
    assert 0.39 <= low <= 0.42 and 0.58 <= high <= 0.61  # ±1.96·sqrt(.25/100) ≈ ±0.098 around 0.5
    assert bootstrap_interval([[1.0, 0.0]] * 20) == (0.5, 0.5)  # repetitions of a question count as one question
    assert bootstrap_interval([[1.0]] * 3 + [[0.0]] * 7) == bootstrap_interval([[1.0]] * 3 + [[0.0]] * 7)


def test_scores_count_repetitions_per_question_and_rate_grounded_answers():
    rows = [record("a#1", 1), record("a#2", 1), record("b#1", 1, evidence="nothing here"), record("b#2", 0, "7")]
    s = score_results(rows)
    assert (s.questions, s.runs) == (2, 4) and s.em.value == 0.75 and s.grounded.value == 0.5
    assert s.em.low <= s.em.value <= s.em.high and "95 % bootstrap" in s.line()
    assert base_id("a#2") == "a" and base_id("5a7#b") == "5a7#b" and base_id("x") == "x"
    qs = repeated([Question("a", "Q", "A", 0)], 3)
    assert [q.id for q in qs] == ["a#1", "a#2", "a#3"] and repeated(qs, 1) is qs


def test_a_baseline_comparison_lists_questions_that_newly_pass_and_fail():
    baseline = [record("a", 0, "7"), record("b", 1), record("c", 1), record("d", 0, "7")]
    now = [
        record("a#1", 1),
        record("a#2", 1),
        record("b#1", 0, "7"),
        record("b#2", 1),
        record("c#1", 0, "7"),
        record("c#2", 0, "7"),
        record("d#1", 0, "7"),
        record("d#2", 0, "7"),
        record("e#1", 1),
    ]
    c = compare_results(baseline, now)
    assert c.newly_pass == ["a"] and c.newly_fail == ["c"]  # b: one of two runs right still passes
    assert (c.both_pass, c.both_fail, c.only_here) == (1, 1, ["e"])
    assert c.rows["c"] == {"question": "Q c", "gold": "42", "baseline": "42", "now": "7"}
    assert c.shared == 4


def test_a_results_file_scores_checks_and_compares_itself():
    # StrategyResults' verbs (what the Evaluate page calls) answer as the record functions do on its records.
    base = StrategyResults("react", "react", ROOT / "base.jsonl", None, [record("a", 0, "7"), record("b", 1)])
    now_records = [record("a#1", 1), record("a#2", 0, "7", tool="search"), record("c#1", 1)]
    now = StrategyResults("react-mine", "react", ROOT / "now.jsonl", None, now_records)
    assert now.scores().line() == score_results(now_records).line()
    chosen = Checks(tool="calculator")
    assert now.checked(chosen) == [run_checks(Trace.from_dict(r["trace"]), chosen) for r in now_records]
    assert [now.checked(chosen)[i]["used calculator"] for i in range(3)] == [True, False, True]
    assert now.compare(base) == compare_results(base.records, now_records) and now.compare(base).newly_pass == ["a"]
    assert now.in_common(base.records) == ["a"] and now.first_run("a") is now_records[0] and now.first_run("b") is None
    assert (
        now.label() == "ReAct" and now.label([base, now]) == "ReAct (react-mine)" and base.label([base, now]) == "ReAct"
    )


def test_sets_numbered_alike_share_only_the_questions_they_both_ask():
    # Two people's own sets, rows numbered by their line: line-2 is another question in each, line-3 the same one.
    baseline = [dict(record("line-2", 1), question="Who wrote Emma?"), dict(record("line-3", 1), question="2 + 2?")]
    now = [dict(record("line-2", 0), question="Who painted Guernica?"), dict(record("line-3", 0), question="2 + 2?")]
    assert common_questions(baseline, now) == ["line-3"]
    c = compare_results(baseline, now)
    assert (c.newly_fail, c.shared, c.only_here) == (["line-3"], 1, ["line-2"])  # line-2 is not said to newly fail
    unrelated = compare_results(baseline[:1], now[:1])
    assert (unrelated.shared, unrelated.newly_fail, unrelated.newly_pass) == (0, [], [])


def test_each_trajectory_check_fails_the_run_it_should():
    good = run_checks(trace("42"), Checks(tool="calculator", max_steps=2))
    assert good == {"finished": True, "grounded": True, "readable": True, "used calculator": True, "≤ 2 steps": True}
    assert not run_checks(trace(None))["finished"]
    assert not run_checks(trace("43"))["grounded"]
    unread = trace("42")
    unread.steps.insert(1, Step(2, "I am confused", observation=Observation("Invalid action", is_error=True)))
    assert not run_checks(unread)["readable"]
    assert run_checks(trace("42", tool="search"), Checks(tool="calculator"))["used calculator"] is False
    assert run_checks(trace("42"), Checks(tool="calculator", tool_absent=True))["no calculator"] is False
    assert run_checks(trace("42", steps=4), Checks(max_steps=3))["≤ 3 steps"] is False


def test_repetitions_need_a_temperature_above_zero(tmp_path):
    data = tmp_path / "s.csv"
    data.write_text("question,answer\nQ1,A\nQ2,B\n")
    plan = EvalPlan(
        [str(data)],
        ["react"],
        str(tmp_path),
        RunSettings(provider="scripted", script="[]"),
        repetitions=3,
        presets={"react": "paper"},
    )
    with pytest.raises(ConfigError, match="temperature above 0"):
        check_plan(plan)
    plan.temperature = 0.7
    check_plan(plan)
    assert [q.id for q in load_plan_questions(plan)][:4] == ["line-2#1", "line-2#2", "line-2#3", "line-3#1"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "react_core", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_eval_cli_runs_a_set_with_repetitions_checks_and_a_baseline(tmp_path):
    data = tmp_path / "mine.csv"
    data.write_text("id,question,answer\na,What is 6 * 7?,42\nb,What is 2 + 2?,4\n")
    right = [
        "Thought 1: Compute.\nAction 1: Calculator[6 * 7]",
        "Thought 2: Done.\nAction 2: Finish[42]",
        "Thought 1: Compute.\nAction 1: Calculator[2 + 2]",
        "Thought 2: Done.\nAction 2: Finish[4]",
    ]
    wrong = ["Thought 1: Guess.\nAction 1: Finish[41]", "Thought 1: Guess.\nAction 1: Finish[4]"]
    (tmp_path / "base.json").write_text(json.dumps(right))
    (tmp_path / "now.json").write_text(json.dumps(wrong * 2))
    common = [
        "eval",
        "--dataset",
        str(data),
        "--strategy",
        "react",
        "--provider",
        "scripted",
        "--tools",
        "calculator",
        "--preset",
        "paper",
        "--no-progress",
    ]
    base = cli(*common, "--script", str(tmp_path / "base.json"), "--out", str(tmp_path / "base.jsonl"))
    assert base.returncode == 0, base.stderr
    assert base.stdout.startswith("EM 100.0  F1 100.0  n=2") and "grounded 100.0" in base.stderr
    now = cli(
        *common,
        "--script",
        str(tmp_path / "now.json"),
        "--out",
        str(tmp_path / "now.jsonl"),
        "--repetitions",
        "2",
        "--temperature",
        "0.7",
        "--baseline",
        str(tmp_path / "base.jsonl"),
        "--check-tool",
        "calculator",
    )
    assert now.returncode == 0, now.stderr
    assert "1 newly pass" not in now.stdout and "0 newly pass, 1 newly fail" in now.stdout
    assert "on 2 questions in common" in now.stdout
    assert "newly fail: a — What is 6 * 7?" in now.stdout
    assert "2 questions, 4 runs" in now.stderr and "used calculator 0%" in now.stderr
    refused = cli(
        *common, "--script", str(tmp_path / "now.json"), "--out", str(tmp_path / "x.jsonl"), "--repetitions", "2"
    )
    assert refused.returncode == 2 and "temperature above 0" in refused.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "Q", "answer": "A"}\n{"question": "Q2"}\n')
    refused = cli(
        "eval",
        "--dataset",
        str(bad),
        "--strategy",
        "react",
        "--provider",
        "scripted",
        "--script",
        str(tmp_path / "now.json"),
        "--out",
        str(tmp_path / "y.jsonl"),
    )
    assert refused.returncode == 2 and "bad.jsonl, line 2: answer is missing or empty" in refused.stderr


def test_bootstrap_cli_says_when_nothing_qualified_and_refuses_bad_options(tmp_path):
    data = tmp_path / "mine.csv"
    data.write_text("question,answer\n" + "".join(f"What is {n} * 3?,{n * 3}\n" for n in range(1, 6)))
    script = tmp_path / "s.json"
    script.write_text(json.dumps(["Thought 1: Guess.\nAction 1: Finish[0]"] * 5))
    args = [
        "bootstrap",
        "--dataset",
        str(data),
        "--train",
        "3",
        "--dev",
        "2",
        "--from",
        "paper",
        "--provider",
        "scripted",
        "--script",
        str(script),
        "--tools",
        "calculator",
        "--out",
        str(tmp_path / "new.toml"),
        "--no-progress",
    ]
    out = cli(*args)
    assert (
        out.returncode == 1
        and out.stdout.startswith("No trajectory qualified")
        and not (tmp_path / "new.toml").exists()
    )
    assert (tmp_path / "new.bootstrap" / "teacher.jsonl").is_file()
    out = cli(*args[:-3], "--out", str(tmp_path / "new.txt"))
    assert out.returncode == 2 and "is a .toml file" in out.stderr
    out = cli(*args, "--teacher-provider", "nonsense")
    assert out.returncode == 2 and "--teacher-provider" in out.stderr
