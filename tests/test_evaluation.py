"""The evaluation: the paper's scoring, the strategies driven by a script, the harness (resuming, failures,
concurrency), the one engine function (the paper's defaults, results files that say how they were made, hybrids
reusing results, Stop), and the CLI (eval, eval-report, eval-table)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from react_core.base.answers import exact_match, f1_score, normalize_answer
from react_core.base.errors import ConfigError, ContextOverflowError, ProviderError
from react_core.evaluation import table
from react_core.evaluation.data import Question, load_indices, load_questions
from react_core.evaluation.harness import evaluate
from react_core.evaluation.paper import PAPER_HOTPOTQA_EM
from react_core.evaluation.results import Evaluation, read_file, read_results
from react_core.evaluation.run import EvalPlan, strategy_config
from react_core.evaluation.strategies import STRATEGIES, EvalContext, run_strategy
from react_core.evaluation.summary import summarize
from react_core.loop.settings import RunSettings
from react_core.providers.base import Chunk, Provider
from react_core.providers.scripted import ScriptedProvider

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


class OutOfTokens(ScriptedProvider):
    """Every reply ends as an API ends one whose model ran out of tokens."""

    def stream(self, request):
        for chunk in super().stream(request):
            yield Chunk(usage=chunk.usage, finish_reason="length") if chunk.finish_reason else chunk


def test_a_direct_answer_cut_at_its_length_is_no_answer_and_casts_no_vote():
    ctx = EvalContext(settings=RunSettings(provider="scripted"), provider=OutOfTokens([" Par"] * 2), samples=1)
    standard = run_strategy("standard", "q", ctx).trace
    assert standard.final_answer is None and standard.stop_reason == "max_calls"
    assert standard.steps[0].call.finish_reason == "length"
    ctx = EvalContext(
        settings=RunSettings(provider="scripted"), provider=OutOfTokens([" Hm.\nAnswer: Par"] * 3), samples=2
    )
    assert run_strategy("cot", "q", ctx).trace.final_answer is None
    outcome = run_strategy("cot-sc", "q", ctx)
    assert outcome.trace.final_answer is None and outcome.extra["votes"] == 0


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
    assert confident.extra["fallback"] is False and confident.trace.final_answer == "x"
    # Exactly half of n is not "fewer than half": 2 of 4 votes keep CoT-SC's answer.
    half = [" a\nAnswer: x", " b\nAnswer: x", " c\nAnswer: y", " d\nAnswer: z"]
    assert run_strategy("cot-sc-react", "q", ctx_for(half, samples=4)).extra["fallback"] is False


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
    assert s.ended == {"finished": 1, "max_calls": 1, "context": 0, "loop": 0}


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
    assert "| Standard | hotpotqa-standard@1 | 3 | 66.7 | 66.7 |" in report.stdout
    assert report.stdout.rstrip().endswith("| 28.7 |")


# -- the engine function: one path for the CLI and the page -------------------------------------------------


class Overflowing(ScriptedProvider):
    """A script where "OVERFLOW" stands for a prompt that does not fit the model's context window."""

    def stream(self, request):
        if self._next < len(self.outputs) and self.outputs[self._next] == "OVERFLOW":
            self._take(request)
            raise ContextOverflowError("The prompt does not fit the model's 4,096-token context.")
        yield from super().stream(request)


def write_dataset(tmp_path: Path, questions=QUESTIONS) -> Path:
    path = tmp_path / "questions.json"
    rows = [{"_id": q.id, "question": q.question, "answer": q.answer, "index": q.index} for q in questions]
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def plan_for(tmp_path: Path, strategies: list[str], **changes) -> EvalPlan:
    from app_helpers import offline_pack

    settings = RunSettings(provider="scripted", knowledge=f"pack:{offline_pack()}", max_calls=8)
    changes.setdefault("out_dir", str(tmp_path / "out"))
    return EvalPlan(datasets=[str(write_dataset(tmp_path))], strategies=strategies, settings=settings, **changes)


FINISH = [
    " I know it.\nAction 1: Finish[yes]",
    " I know.\nAction 1: Finish[Chief of Protocol]",
    " Hm.\nAction 1: Finish[x]",
]


def test_the_papers_setup_is_the_default_and_every_results_file_says_how_it_was_made(tmp_path):
    provider = ScriptedProvider(FINISH)
    run = plan_for(tmp_path, ["react"]).run(provider=provider)
    assert run.summaries["react"].n == 3 and run.summaries["react"].em == pytest.approx(2 / 3)
    # Search and Lookup only, as in the paper: the chat's Calculator is not offered to the model.
    assert "Search[" in provider.requests[0].system and "Calculator" not in provider.requests[0].system
    header, records = read_file(tmp_path / "out" / "react.jsonl")
    assert header["config"]["max_calls"] == 7 and header["config"]["tools"] == ["search", "lookup"]
    assert header["config"]["presets"] == {"react": "hotpotqa-react"} and header["config"]["temperature"] == 0.0
    assert header["config"]["knowledge"].startswith("pack:") and header["questions"]["n"] == 3
    assert records[0]["trace"]["settings"]["max_calls"] == 7


def test_a_resume_made_differently_is_refused_and_a_longer_one_extends_the_file(tmp_path):
    plan_for(tmp_path, ["standard"], limit=1).run(provider=ScriptedProvider([" yes"]))
    with pytest.raises(ConfigError, match="temperature 0.0 there, 0.5 now"):
        plan = plan_for(tmp_path, ["standard"], temperature=0.5)
        plan.run(provider=ScriptedProvider([" no"]))
    provider = ScriptedProvider([" Chief of Protocol", " no"])
    run = plan_for(tmp_path, ["standard"]).run(provider=provider)
    assert len(provider.requests) == 2 and run.summaries["standard"].n == 3
    header, records = read_file(tmp_path / "out" / "standard.jsonl")
    assert header["questions"]["n"] == 3 and [r["id"] for r in records] == ["a", "b", "c"]


def test_a_preset_of_the_wrong_kind_is_refused_before_anything_runs(tmp_path):
    provider = ScriptedProvider([" yes"])
    with pytest.raises(ConfigError, match="needs a cot one"):
        plan_for(tmp_path, ["cot-sc"], presets={"cot": "hotpotqa-react"}).run(provider=provider)
    assert provider.requests == []


def test_the_hybrids_reuse_the_folders_react_and_cot_sc_results(tmp_path):
    sc = [" a\nAnswer: yes", " b\nAnswer: yes", " c\nAnswer: no"]  # a: a majority of 2 of 3
    sc += [" a\nAnswer: x", " b\nAnswer: y", " c\nAnswer: z"]  # b: no majority
    sc += [" a\nAnswer: q", " b\nAnswer: q", " c\nAnswer: q"]  # c
    react = [" I know.\nAction 1: Finish[yes]", " Let me look.\nAction 1: Search[Corliss Archer]"] + [
        f" Again.\nAction {i}: Lookup[protocol {i}]" for i in (2, 3)
    ]
    react += [" Sure.\nAction 1: Finish[Arthur's Magazine]"]
    plan = plan_for(tmp_path, ["cot-sc", "react", "cot-sc-react", "react-cot-sc"], samples=3, max_calls=3)
    provider = ScriptedProvider(sc + react)
    run = plan.run(provider=provider)
    assert len(provider.requests) == len(provider.outputs)  # the hybrids asked the model nothing
    hybrid = {r["id"]: r for r in read_results(tmp_path / "out" / "cot-sc-react.jsonl")}
    assert hybrid["a"]["fallback"] is False and hybrid["a"]["prediction"] == "yes"
    assert hybrid["b"]["fallback"] is True and hybrid["b"]["reused"] == ["cot-sc", "react"]
    assert hybrid["b"]["stop_reason"] == "max_calls" and hybrid["b"]["trace"]["settings"]["strategy"] == "cot-sc-react"
    backoff = {r["id"]: r for r in read_results(tmp_path / "out" / "react-cot-sc.jsonl")}
    assert backoff["b"]["fallback"] is True and backoff["b"]["prediction"] == "x"  # CoT-SC's first of x/y/z
    assert backoff["c"]["fallback"] is False and backoff["c"]["prediction"] == "Arthur's Magazine"
    assert run.summaries["react-cot-sc"].em == pytest.approx(2 / 3)
    # What the hybrid cost counts both halves: CoT-SC's and ReAct's seconds and tokens.
    assert (
        hybrid["b"]["tokens"]
        == hybrid["b"]["trace"]["totals"]["tokens"] + hybrid["b"]["first_trace"]["totals"]["tokens"]
    )


def test_results_made_otherwise_are_not_reused(tmp_path):
    plan = plan_for(tmp_path, ["cot-sc"], samples=3, limit=1)
    plan.run(provider=ScriptedProvider([" a\nAnswer: yes"] * 3))
    provider = ScriptedProvider([" a\nAnswer: yes"] * 2)  # two samples now: CoT-SC runs again
    plan_for(tmp_path, ["cot-sc-react"], samples=2, limit=1).run(provider=provider)
    assert len(provider.requests) == len(provider.outputs) == 2


def test_react_that_outgrows_the_context_backs_off_to_cot_sc_and_the_tables_show_it(tmp_path):
    outputs = ["OVERFLOW", " a\nAnswer: yes", " b\nAnswer: yes", " c\nAnswer: no"]
    outcome = run_strategy("react-cot-sc", "q", EvalContext(RunSettings(tools=[]), Overflowing(outputs), samples=3))
    assert outcome.extra["fallback"] is True and outcome.trace.final_answer == "yes"
    assert outcome.extra["first_trace"]["stop_reason"] == "context"
    # CoT-SC whose prompt does not fit ends with "context" and no votes, so CoT-SC -> ReAct backs off to ReAct.
    ctx = EvalContext(RunSettings(tools=[]), Overflowing(["OVERFLOW", " Sure.\nAction 1: Finish[no]"]), samples=3)
    outcome = run_strategy("cot-sc-react", "q", ctx)
    assert outcome.extra["fallback"] is True and outcome.extra["votes"] == 0 and outcome.trace.final_answer == "no"
    assert outcome.extra["first_trace"]["stop_reason"] == "context"
    # ReAct alone: the episode is scored as "context", and the table has a column for it.
    plan_for(tmp_path, ["react"], limit=1).run(provider=Overflowing(["OVERFLOW"]))
    row = [line for line in report_of(tmp_path / "out").splitlines() if line.startswith("| ReAct |")][0]
    cells = [c.strip() for c in row.strip("|").split("|")]
    header = [c.strip() for c in report_of(tmp_path / "out").splitlines()[0].strip("|").split("|")]
    assert dict(zip(header, cells, strict=True))["context"] == "1"
    assert dict(zip(header, cells, strict=True))["finished"] == "0"


def report_of(*paths: Path) -> str:
    from react_core.evaluation.report import load_groups, markdown_table

    return markdown_table(load_groups(list(paths)))


def test_stop_ends_the_evaluation_and_says_how_far_it_got(tmp_path):
    cancel = threading.Event()
    events = []

    def on_progress(event):
        events.append(event)
        if event["kind"] == "result":
            cancel.set()

    plan = plan_for(tmp_path, ["standard", "cot"])
    run = plan.run(provider=ScriptedProvider([" yes", " x", " y"]), on_progress=on_progress, cancel=cancel)
    assert run.stopped and list(run.summaries) == ["standard"]
    assert (run.summaries["standard"].n, run.summaries["standard"].planned) == (1, 3)
    assert [e["kind"] for e in events][:2] == ["strategy", "start"] and events[0]["total"] == 3
    assert all(e["strategy"] == "standard" for e in events)


def test_stop_reaches_a_question_under_way_through_the_cancel_scope(tmp_path):
    from react_core.base import cancel as cancel_scope

    class Waiting(ScriptedProvider):
        def stream(self, request):
            self._take(request)
            started.set()
            cancel_scope.sleep(30)  # a retry's backoff, say: Stop must interrupt it
            yield from ()

    started, stop = threading.Event(), threading.Event()
    result = {}
    worker = threading.Thread(
        target=lambda: result.update(run=plan_for(tmp_path, ["standard"]).run(provider=Waiting([" x"]), cancel=stop))
    )
    worker.start()
    assert started.wait(10)
    stop.set()
    worker.join(10)
    assert not worker.is_alive() and result["run"].stopped and result["run"].summaries["standard"].n == 0


def test_hosted_providers_are_rate_limited(monkeypatch, tmp_path):
    import react_core.providers.rate_limit as rate_limit

    made = []

    class Recording(rate_limit.RateLimited):
        def __init__(self, inner, rpm, **kw):
            made.append(rpm)
            super().__init__(inner, rpm, **kw)

    class HostedScript(ScriptedProvider):
        hosted = True

    monkeypatch.setattr(rate_limit, "RateLimited", Recording)
    plan_for(tmp_path, ["standard"], limit=1, rpm=30).run(provider=HostedScript([" yes"]))
    assert made == [30]
    plan_for(tmp_path, ["standard"], limit=1, out_dir=str(tmp_path / "2")).run(provider=ScriptedProvider([" yes"]))
    assert made == [30]


def test_past_evaluations_are_listed_newest_first_with_how_they_ended(tmp_path):
    root = tmp_path / "evaluations"
    first = Evaluation.new_folder(root)
    plan_for(tmp_path, ["standard"], out_dir=str(first), limit=2).run(provider=ScriptedProvider([" yes", ""]))
    second = Evaluation.new_folder(root)
    assert second != first
    plan = plan_for(tmp_path, ["cot", "react"], out_dir=str(second), limit=1)
    plan.run(provider=ScriptedProvider([" t\nAnswer: yes", " t\nAction 1: Finish[no]"]))
    (root / "empty").mkdir()
    found = Evaluation.load_all(root)
    assert [e.folder for e in found] == [second, first]
    assert found[0].strategies == ["cot", "react"] and found[1].planned == 2
    assert found[1].ended() == {"finished": 1, "max_calls": 1, "context": 0, "loop": 0}


def test_a_line_cut_short_by_a_crash_is_skipped_and_the_question_runs_again(tmp_path):
    plan_for(tmp_path, ["standard"], limit=2).run(provider=ScriptedProvider([" yes", " no"]))
    path = tmp_path / "out" / "standard.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:40], encoding="utf-8")
    provider = ScriptedProvider([" Chief of Protocol"])
    run = plan_for(tmp_path, ["standard"], limit=2).run(provider=provider)
    assert run.summaries["standard"].n == 2 and run.summaries["standard"].em == 1.0


# -- the command line ----------------------------------------------------------------------------------


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "react_core", *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout
    )


def test_eval_runs_several_strategies_into_a_folder_with_the_same_setup_as_the_engine(tmp_path, shared_data):
    script = tmp_path / "s.json"
    script.write_text(json.dumps([" yes", " Thought.\nAnswer: Chief of Protocol"]))
    dataset = str(shared_data / "hotpotqa/dev_distractor_first100.json")
    out = cli(
        "eval", "--dataset", dataset, "--limit", "1", "--strategy", "standard", "cot", "--provider", "scripted",
        "--script", str(script), "--out", str(tmp_path / "res"), "--no-progress",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["Standard: EM 100.0  F1 100.0  n=1", "CoT: EM 0.0  F1 0.0  n=1"]
    assert "ended: finished 1, max_calls 0, context 0, loop 0" in out.stderr
    header = read_file(tmp_path / "res" / "cot.jsonl")[0]
    plan = EvalPlan([dataset], ["cot"], str(tmp_path), RunSettings(provider="scripted", script=str(script)))
    assert header["config"] == strategy_config(plan, "cot", "script")
    report = cli("eval-report", str(tmp_path / "res"))
    assert (
        report.returncode == 0
        and "| Standard | hotpotqa-standard@1 | 1 | 100.0 |" in report.stdout
        and "| CoT | hotpotqa-cot@1 | 1 | 0.0 |" in report.stdout
    )


def test_eval_table_runs_the_seven_strategies_and_rewrites_only_the_marked_section(tmp_path, shared_data):
    outputs = [" yes", " t\nAnswer: yes"] + [" t\nAnswer: yes"] * 3  # standard, cot, cot-sc (3 samples)
    outputs += [" Finish[yes]", " I know.\nAction 1: Finish[yes]"]  # act, react; the hybrids reuse the rest
    script = tmp_path / "s.json"
    script.write_text(json.dumps(outputs))
    doc = tmp_path / "evaluation.md"
    doc.write_text(f"# Before\n\n{table.BEGIN}\nold table\n{table.END}\n\nAfter.\n", encoding="utf-8")
    args = ["eval-table", "--limit", "1", "--out", str(tmp_path / "res"), "--samples", "3", "--no-progress"]
    args += ["--dataset", str(shared_data / "hotpotqa/dev_distractor_first100.json"), "--doc", str(doc)]
    out = cli(*args, "--provider", "scripted", "--script", str(script))
    assert out.returncode == 0, out.stderr
    text = doc.read_text()
    assert text.startswith("# Before\n\n") and text.endswith(f"{table.END}\n\nAfter.\n") and "old table" not in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [r.split(" | ")[0] for r in rows] == [
        "| Standard", "| CoT", "| CoT-SC", "| Act", "| ReAct", "| CoT-SC → ReAct", "| ReAct → CoT-SC"
    ]  # fmt: skip
    for row, strategy in zip(rows, STRATEGIES, strict=True):
        assert row.split(" | ")[2] == "1" and row.endswith(f"| {PAPER_HOTPOTQA_EM[strategy]} |")
    assert (tmp_path / "res" / "pack.sqlite").is_file() and "--limit 1" in text and "reuse" in text
    # Run again: everything is in the folder, so nothing is asked of the model and the table is the same.
    script.write_text("[]")
    again = cli(*args, "--provider", "scripted", "--script", str(script))
    assert again.returncode == 0, again.stderr
    assert [line for line in doc.read_text().splitlines() if line.startswith("| ")][1:] == rows


def test_eval_refuses_options_that_do_not_fit_with_one_line(tmp_path, shared_data):
    dataset = str(shared_data / "hotpotqa/dev_distractor_first100.json")
    script = tmp_path / "s.json"
    script.write_text(json.dumps([" t\nAnswer: yes", " I know.\nAction 1: Finish[yes]"] * 3))
    base = ["eval", "--dataset", dataset, "--provider", "scripted", "--script", str(script), "--no-progress"]
    assert cli(*base, "--strategy", "cot", "react", "--limit", "1", "--out", str(tmp_path / "ok")).returncode == 0
    for extra in (
        ["--strategy", "react", "--format", "xml", "--out", str(tmp_path / "r")],
        ["--strategy", "cot", "react", "--out", str(tmp_path / "r.jsonl")],
        ["--strategy", "cot", "--limit", "0", "--out", str(tmp_path / "r")],
    ):
        out = cli(*base, *extra)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, (extra, out.stderr)


def test_eval_table_needs_the_markers(tmp_path):
    doc = tmp_path / "evaluation.md"
    doc.write_text("no markers here\n")
    out = cli("eval-table", "--out", str(tmp_path / "res"), "--doc", str(doc), "--provider", "scripted", "--script",
              str(tmp_path / "none.json"), "--knowledge", "pack:x")  # fmt: skip
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1


def test_eval_report_reads_files_written_before_headers(tmp_path):
    legacy = tmp_path / "old.jsonl"
    rows = [
        {"id": "a", "strategy": "react", "em": 1.0, "f1": 1.0, "steps": 1, "stop_reason": "finished", "seconds": 1.0,
         "trace": {"steps": [{"observation": None}]}},
        {"id": "b", "strategy": "react", "em": 0.0, "f1": 0.0, "steps": 7, "stop_reason": "max_calls", "seconds": 2.0,
         "trace": {"steps": [{"observation": None}]}},
    ]  # fmt: skip
    legacy.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = cli("eval-report", str(legacy))
    assert out.returncode == 0 and "| ReAct | — | 2 | 50.0 | 50.0 | 100.0% | 1 | 1 | 0 | 0 |" in out.stdout


def test_an_agents_results_header_says_whether_its_steps_were_decoded_under_a_grammar():
    # A resume must not mix questions run with and without the on-device model's grammar: it is part of the config.
    def config(strategy: str, **settings) -> dict:
        plan = EvalPlan(["q.json"], [strategy], "out", RunSettings(knowledge="pack:p.sqlite", **settings))
        return strategy_config(plan, strategy, "m")

    assert config("react", provider="local")["grammar"] is True
    assert config("act", provider="local", grammar=False)["grammar"] is False
    assert "grammar" not in config("cot", provider="local")  # one direct call: no dialect to constrain
    assert "grammar" not in config("react", provider="scripted")  # a provider that cannot constrain decoding


def test_the_papers_figure_stands_beside_the_papers_data_only(tmp_path):
    from react_core.base.paths import shared_data_dir
    from react_core.evaluation.results import StrategyResults
    from react_core.evaluation.tasks import paper_data

    hotpot = shared_data_dir() / "hotpotqa"
    assert paper_data([hotpot / "dev_distractor_first100.json"]) and paper_data(
        [hotpot / "hotpot_dev_v1_simplified.json"]
    )
    assert paper_data([shared_data_dir() / "fever" / "paper_dev.jsonl"])
    assert not paper_data([hotpot / "train_distractor_996.json"])  # not the split the paper scored
    own = tmp_path / "questions" / "dev.jsonl"  # a person's set, whatever its name
    assert not paper_data([own]) and not paper_data([])

    def results(questions: dict | None) -> StrategyResults:
        header = None if questions is None else {"strategy": "react", "questions": questions}
        return StrategyResults("react", "react", tmp_path / "react.jsonl", header, [])

    assert results({"datasets": ["arith.jsonl"], "paper_data": False}).paper_figure is None
    assert results({"datasets": ["dev_distractor_first100.json"], "paper_data": True}).paper_figure == 27.4
    assert results({"datasets": ["arith.jsonl"]}).paper_figure is None  # a header from before it said so
    assert results({"datasets": ["hotpot_dev_v1_simplified.json"]}).paper_data
    assert results(None).paper_data  # files without a header ran the shared files
