"""The evaluation harness: the paper's scoring, the strategies driven by a script, resuming, failures, the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from react_core.errors import ProviderError
from react_core.evaluation.data import Question, load_indices, load_questions
from react_core.evaluation.harness import evaluate, read_results, summarize
from react_core.evaluation.scoring import exact_match, f1_score, normalize_answer
from react_core.evaluation.strategies import EvalContext, run_strategy
from react_core.providers.base import Chunk, Provider
from react_core.providers.scripted import ScriptedProvider
from react_core.settings import RunSettings

ROOT = Path(__file__).resolve().parent.parent


def ctx_for(outputs: list, samples: int = 3, **settings) -> EvalContext:
    base = RunSettings(provider="scripted", tools=["calculator"], max_calls=settings.pop("max_calls", 3), **settings)
    return EvalContext(settings=base, provider=ScriptedProvider(outputs), samples=samples)


QUESTIONS = [
    Question("a", "Were Scott Derrickson and Ed Wood of the same nationality?", "yes", 0),
    Question(
        "b", "What government position was held by the woman who portrayed Corliss Archer?", "Chief of Protocol", 1
    ),
    Question("c", "Which magazine was started first, Arthur's Magazine or First for Women?", "Arthur's Magazine", 2),
]


def test_normalisation_and_scores_follow_the_paper():
    assert normalize_answer("The  Saimaa Gesture!") == "saimaa gesture"
    assert normalize_answer("An apple, a pear") == "apple pear"
    assert exact_match("the Saimaa gesture", "The Saimaa Gesture") == 1.0
    assert exact_match("Saimaa", "The Saimaa Gesture") == 0.0
    assert f1_score("Saimaa Gesture film", "The Saimaa Gesture") == pytest.approx(0.8)
    assert f1_score("yes", "no") == 0.0 and f1_score("yes it is", "yes") == 0.0
    assert exact_match(None, "x") == 0.0 and f1_score(None, "x") == 0.0


def test_loads_distractor_and_simplified_files_with_the_papers_indices(shared_data):
    first = load_questions(shared_data / "hotpotqa/dev_distractor_first100.json")
    assert len(first) == 100 and first[0].id == "0" and first[0].answer == "yes"
    sample = load_questions(shared_data / "hotpotqa/dev_distractor_sample100.json", limit=5)
    assert len(sample) == 5 and sample[0].id == "5a7613c15542994ccc9186bf" and sample[0].index == 4367
    indices = load_indices(shared_data / "hotpotqa/react_paper_eval_500_indices.json")
    paper = load_questions(shared_data / "hotpotqa/hotpot_dev_v1_simplified.json", indices=indices)
    assert len(paper) == 500 and paper[0].index == indices[0]
    # The sample file's rows are the same questions as those rows of the simplified dev set.
    simplified = load_questions(shared_data / "hotpotqa/hotpot_dev_v1_simplified.json")
    assert simplified[sample[0].index].question == sample[0].question


def test_standard_and_cot_answer_in_one_call():
    ctx = ctx_for([" yes\nQuestion: invented", " Let's think step by step. Both are American.\nAnswer: yes\n"])
    standard = run_strategy("standard", QUESTIONS[0].question, ctx).trace
    assert standard.final_answer == "yes" and len(standard.steps) == 1
    assert ctx.provider.requests[0].prompt.endswith("Question: " + QUESTIONS[0].question + "\nAnswer:")
    assert "Answer: Arthur's Magazine" in ctx.provider.requests[0].system  # the paper's examples, read in place
    cot = run_strategy("cot", QUESTIONS[0].question, ctx).trace
    assert cot.final_answer == "yes" and cot.steps[0].thought.startswith("Let's think step by step")
    assert ctx.provider.requests[1].prompt.endswith("\nThought:")


def test_cot_sc_takes_the_majority_at_temperature_07():
    ctx = ctx_for([" a\nAnswer: Paris", " b\nAnswer: the paris", " c\nAnswer: Lyon"])
    outcome = run_strategy("cot-sc", "q", ctx)
    assert outcome.trace.final_answer == "Paris" and outcome.extra["votes"] == 2
    assert {r.temperature for r in ctx.provider.requests} == {0.7}
    assert len(outcome.trace.steps) == 3


def test_react_and_act_run_the_agent_with_the_papers_prompts():
    ctx = ctx_for([" Compute.\nAction 1: Calculator[6*7]", " So.\nAction 2: Finish[42]", " Finish[1]"])
    react = run_strategy("react", "q", ctx).trace
    assert react.final_answer == "42" and react.settings["strategy"] == "react"
    assert react.settings["preset"] == "hotpotqa-react"
    assert ctx.provider.requests[0].prompt.endswith("Question: q\nThought 1:")
    act = run_strategy("act", "q", ctx).trace
    assert act.final_answer == "1" and ctx.provider.requests[2].prompt.endswith("Question: q\nAction 1:")


def test_react_backs_off_to_cot_sc_when_it_does_not_finish():
    outputs = [f" t\nAction {i}: Calculator[{i}+1]" for i in (1, 2)] + [
        " x\nAnswer: 3",
        " y\nAnswer: 3",
        " z\nAnswer: 4",
    ]
    outcome = run_strategy("react-cot-sc", "q", ctx_for(outputs, max_calls=2))
    assert outcome.extra["fallback"] is True and outcome.extra["first_prediction"] is None
    assert outcome.trace.final_answer == "3"


def test_cot_sc_backs_off_to_react_without_a_majority():
    outputs = [" a\nAnswer: x", " b\nAnswer: y", " c\nAnswer: z", " Done.\nAction 1: Finish[w]"]
    outcome = run_strategy("cot-sc-react", "q", ctx_for(outputs))
    assert outcome.extra["fallback"] is True and outcome.extra["votes"] == 1
    assert outcome.trace.final_answer == "w"
    confident = run_strategy("cot-sc-react", "q", ctx_for([" a\nAnswer: x", " b\nAnswer: x", " c\nAnswer: z"]))
    assert "fallback" not in confident.extra and confident.trace.final_answer == "x"


def test_a_script_drives_a_whole_evaluation_and_the_scores_are_right(tmp_path):
    out = tmp_path / "r.jsonl"
    ctx = ctx_for([" yes", " Chief of Protocol", " First for Women"])
    summary = evaluate(QUESTIONS, "standard", ctx, out)
    assert summary.n == 3 and summary.em == pytest.approx(2 / 3) and summary.line() == "EM 66.7  F1 66.7  n=3"
    rows = read_results(out)
    assert [r["id"] for r in rows] == ["a", "b", "c"]
    assert set(rows[0]) >= {
        "id",
        "question",
        "gold",
        "prediction",
        "em",
        "f1",
        "steps",
        "stop_reason",
        "tokens",
        "seconds",
        "trace",
    }
    assert rows[2]["prediction"] == "First for Women" and rows[2]["em"] == 0.0


def test_resume_skips_questions_already_in_the_output(tmp_path):
    out = tmp_path / "r.jsonl"
    evaluate(QUESTIONS[:2], "standard", ctx_for([" yes", " no"]), out)
    ctx = ctx_for([" Arthur's Magazine"])
    summary = evaluate(QUESTIONS, "standard", ctx, out)
    assert len(ctx.provider.requests) == 1 and summary.n == 3
    assert summary.em == pytest.approx(2 / 3)


def test_a_provider_failure_stops_with_a_message_and_rerunning_resumes(tmp_path):
    out = tmp_path / "r.jsonl"
    with pytest.raises(ProviderError, match="run the same evaluation again to resume"):
        evaluate(QUESTIONS, "standard", ctx_for([" yes", {"error": "429 quota exhausted"}]), out)
    assert [r["id"] for r in read_results(out)] == ["a"]
    summary = evaluate(QUESTIONS, "standard", ctx_for([" Chief of Protocol", " Arthur's Magazine"]), out)
    assert summary.n == 3 and summary.em == 1.0


def test_cancel_stops_between_questions(tmp_path):
    ctx = ctx_for([" yes", " x", " y"])
    ctx.cancel = threading.Event()
    seen = []

    def on_progress(event):
        seen.append(event["kind"])
        if event["kind"] == "result":
            ctx.cancel.set()

    summary = evaluate(QUESTIONS, "standard", ctx, tmp_path / "r.jsonl", on_progress=on_progress)
    assert summary.n == 1 and seen[-1] == "done"


class Hosted(Provider):
    """A thread-safe stand-in for a hosted provider: answers with the question's last word."""

    name = "openai"

    def stream(self, request):
        yield Chunk(text=" " + request.prompt.split("Question: ")[-1].split("?")[0].split()[-1])


def test_hosted_providers_run_questions_concurrently(tmp_path):
    ctx = EvalContext(settings=RunSettings(provider="openai"), provider=Hosted())
    summary = evaluate(QUESTIONS, "standard", ctx, tmp_path / "r.jsonl", concurrency=3)
    assert summary.n == 3
    assert sorted(r["id"] for r in read_results(tmp_path / "r.jsonl")) == ["a", "b", "c"]


def test_summary_counts_finished_and_well_formed_steps():
    rows = [
        {
            "em": 1.0,
            "f1": 1.0,
            "stop_reason": "finished",
            "steps": 2,
            "seconds": 1.0,
            "trace": {"steps": [{"observation": {"is_error": True}}, {"observation": None}]},
        },
        {
            "em": 0.0,
            "f1": 0.5,
            "stop_reason": "max_calls",
            "steps": 2,
            "seconds": 3.0,
            "trace": {"steps": [{"observation": {"is_error": False}}, {"observation": {"is_error": False}}]},
        },
    ]
    s = summarize(rows)
    assert (s.n, s.em, s.f1, s.finished, s.well_formed, s.avg_steps, s.avg_seconds) == (2, 0.5, 0.75, 0.5, 0.75, 2, 2)


def test_eval_cli_prints_the_paper_style_line(tmp_path, shared_data):
    script = tmp_path / "s.json"
    script.write_text(json.dumps([" yes", " Chief of Protocol"]))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "react_core",
            "eval",
            "--dataset",
            str(shared_data / "hotpotqa/dev_distractor_first100.json"),
            "--limit",
            "2",
            "--strategy",
            "standard",
            "--provider",
            "scripted",
            "--script",
            str(script),
            "--out",
            str(tmp_path / "r.jsonl"),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(r"EM 100\.0  F1 100\.0  n=2\n", out.stdout)
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "react_core",
            "eval",
            "--dataset",
            "nope.json",
            "--strategy",
            "cot",
            "--out",
            str(tmp_path / "x.jsonl"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_eval_report_sets_results_beside_the_paper(tmp_path):
    out = tmp_path / "r.jsonl"
    evaluate(QUESTIONS, "standard", ctx_for([" yes", " Chief of Protocol", " no"]), out)
    report = subprocess.run(
        [sys.executable, "-m", "react_core", "eval-report", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert report.returncode == 0, report.stderr
    assert "| Standard | 3 | 66.7 | 66.7 |" in report.stdout and report.stdout.rstrip().endswith("| 28.7 |")
