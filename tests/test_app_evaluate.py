"""The Evaluate page: run strategies over shared HotpotQA questions with a script, see scores beside the paper's
table with how the episodes ended, open a question's trace, stop a run and be told how far it got, find past
evaluations after a reload, and choose the budget, tools, prompts and samples on the page (the paper's by default).
A question's trace shows its gold answer beside the model's, and the page names the model and knowledge as the
sidebar does."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from app_helpers import go, new_session, run_evaluation_and_wait, unescape, use_app
from wiki_helpers import closed_port

import react_core.evaluation.run as engine
from react_core.evaluation.paper import PAPER_HOTPOTQA_EM
from react_core.evaluation.results import Evaluation, read_file
from react_core.providers.base import Chunk, Provider
from react_core.providers.local import LocalProvider
from ui.evaluate import evaluations as ev
from ui.evaluate import tables


def choose(at, *, limit: int, strategies: list[str], **widgets):
    at.selectbox(key="eval-dataset").set_value("dev_distractor_first100.json")
    at.number_input(key="eval-limit").set_value(limit)
    at.multiselect(key="eval-strategies").set_value(strategies).run()
    for key, value in widgets.items():
        element = at.number_input(key=key) if isinstance(value, int) else at.multiselect(key=key)
        element.set_value(value)
    at.run()
    assert not at.exception, at.exception
    return at


def run_evaluation(at, *, limit: int, strategies: list[str], timeout: float = 30.0, **widgets):
    choose(at, limit=limit, strategies=strategies, **widgets)
    return run_evaluation_and_wait(at, timeout)


def frame(at, column: str):
    """The first table on the page with this column."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def progress_text(at) -> str:
    bars = at.get("progress")
    assert bars, "no progress bar"
    return unescape(bars[0].proto.text)


def badges(at) -> list[str]:
    return [unescape(m.value) for m in at.markdown if "-badge[" in m.value]


def folder(at) -> Path:
    return Path(at.session_state.eval_job.snapshot()["out_dir"])


def test_scores_two_strategies_beside_the_paper_and_opens_a_trace(monkeypatch, tmp_path):
    # Questions 0 and 1 of the first-100 file: "yes" and "Chief of Protocol".
    use_app(
        monkeypatch,
        tmp_path,
        [
            " yes",
            " Secretary of State",  # standard
            " Let's think step by step. Both are American.\nAnswer: yes",
            " Let's think step by step. She was Chief of Protocol.\nAnswer: Chief of Protocol",  # cot
        ],
    )
    monkeypatch.setenv("REACT_DATA_DIR", str(tmp_path / "data"))
    at = run_evaluation(go(new_session(), "evaluate"), limit=2, strategies=["standard", "cot"])
    summary = frame(at, "EM")
    assert list(summary["strategy"]) == ["Standard", "CoT"] and list(summary["n"]) == [2, 2]
    assert list(summary["EM"]) == [50.0, 100.0]
    assert list(summary["paper EM (n=500)"]) == [PAPER_HOTPOTQA_EM["standard"], PAPER_HOTPOTQA_EM["cot"]]
    assert list(summary["finished"]) == [2, 2] and list(summary["context"]) == [0, 0]
    questions = frame(at, "prediction")
    assert len(questions) == 4 and list(questions["prediction"])[1] == "Secretary of State"
    assert (tmp_path / "data") in folder(at).parents
    at.selectbox(key="eval-open").set_value(3).run()
    assert not at.exception, at.exception
    assert any("Step 1" in e.label for e in at.expander)
    # The gold answer beside the model's, green only for an exact match.
    assert ":green-badge[:material/check_circle: Expected answer: «Chief of Protocol» · exact match]" in badges(at)
    at.selectbox(key="eval-open").set_value(1).run()
    shared_of = "not an exact match (word overlap F1 0.33)"  # "Secretary of State": only "of" in common
    assert f":orange-badge[:material/rule: Expected answer: «Chief of Protocol» · {shared_of}]" in badges(at)
    assert "Secretary of State" in [s.value for s in at.subheader]


def test_runs_the_papers_budget_and_tools_not_the_chats_and_records_a_deliberate_change(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [" I know.\nAction 1: Finish[yes]"] * 2)
    at = go(new_session(), "evaluate")
    assert at.session_state.settings["max_calls"] == 8 and "calculator" in at.session_state.settings["tools"]
    choose(at, limit=1, strategies=["react"])
    assert at.number_input(key="eval-max-calls").value == 7
    assert at.multiselect(key="eval-tools").value == ["search", "lookup"]
    assert at.selectbox(key="eval-preset-react").value == "hotpotqa-react"
    at.button(key="eval-run").click().run()
    assert at.session_state.eval_job.wait(30)
    header, records = read_file(folder(at) / "react.jsonl")
    assert header["config"]["max_calls"] == 7 and header["config"]["tools"] == ["search", "lookup"]
    assert records[0]["trace"]["settings"]["tools"] == ["search", "lookup"]
    assert records[0]["trace"]["settings"]["provider"] == "scripted"  # the model still comes from Settings

    at.run()
    run_evaluation(at, limit=1, strategies=["react"], **{"eval-max-calls": 3, "eval-tools": ["search", "calculator"]})
    header = read_file(folder(at) / "react.jsonl")[0]
    assert header["config"]["max_calls"] == 3 and header["config"]["tools"] == ["search", "calculator"]


def test_widgets_show_only_for_strategies_that_use_them(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path)
    at = go(new_session(), "evaluate")
    keys = lambda: {w.key for w in [*at.number_input, *at.multiselect, *at.selectbox]}  # noqa: E731
    choose(at, limit=1, strategies=["standard", "cot"])
    assert {"eval-samples", "eval-max-calls", "eval-tools", "eval-preset-react"}.isdisjoint(keys())
    assert {"eval-preset-standard", "eval-preset-cot"} <= keys()
    assert "hotpotqa-standard" in at.selectbox(key="eval-preset-standard").options  # direct-answer prompts offered
    choose(at, limit=1, strategies=["cot", "react"])
    assert "eval-samples" not in keys() and {"eval-max-calls", "eval-tools"} <= keys()
    choose(at, limit=1, strategies=["cot-sc"])
    assert "eval-samples" in keys() and "eval-max-calls" not in keys()
    assert at.number_input(key="eval-samples").value == 21


class Gated(Provider):
    """Answers one call at a time, each when the test lets it: ``asked`` counts calls begun, ``go`` lets one end."""

    name = "scripted"
    model = "gated"
    concurrent = False

    def __init__(self, outputs: list[str]) -> None:
        self.outputs = list(outputs)
        self.asked = threading.Semaphore(0)
        self.go = threading.Semaphore(0)

    def stream(self, request):
        self.asked.release()
        assert self.go.acquire(timeout=30)
        yield Chunk(text=self.outputs.pop(0))


def test_progress_says_where_it_is_and_stop_says_how_far_it_got(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path)
    gated, ready = Gated([" yes", " x", " y"]), threading.Event()

    def build(settings, **_options):
        assert ready.wait(30)  # the model is still being prepared
        return gated

    monkeypatch.setattr(engine, "provider_for", build)
    at = choose(go(new_session(), "evaluate"), limit=3, strategies=["standard", "cot"])
    at.button(key="eval-run").click().run()
    label = progress_text(at)
    assert label.startswith("Preparing") and "0 of 0" not in label and "of 1" not in label
    ready.set()
    assert gated.asked.acquire(timeout=30)
    at.run()
    assert progress_text(at) == "Standard (strategy 1 of 2): 0 of 3 questions done"
    gated.go.release()
    assert gated.asked.acquire(timeout=30)  # question 2 has begun, so question 1 is counted
    at.run()
    assert progress_text(at).startswith("Standard (strategy 1 of 2): 1 of 3 questions done")  # then the time left
    at.button(key="eval-stop").click().run()
    assert progress_text(at).startswith("Stopping after the question under way")
    assert at.button(key="eval-stop").disabled
    gated.go.release()
    assert at.session_state.eval_job.wait(30)
    at.run()
    assert not at.exception, at.exception
    assert [unescape(w.value) for w in at.warning] == [
        "Stopped: Standard after 1 of 3 questions; not run: CoT. What finished is saved and shown below."
    ]
    assert list(frame(at, "EM")["n"]) == [1] and list(frame(at, "EM")["of"]) == [3]


def test_a_failure_is_shown_with_what_was_saved(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [" yes", {"error": "quota exhausted"}])
    at = run_evaluation(go(new_session(), "evaluate"), limit=3, strategies=["standard"])
    assert any("quota exhausted" in e.value and "after 1 of 3" in unescape(e.value) for e in at.error)
    assert list(frame(at, "EM")["n"]) == [1]


def test_past_evaluations_are_listed_after_a_reload_and_reopen_from_their_files(monkeypatch, tmp_path):
    # Each run reads the script from its start: CoT answers nothing twice, then fails on the third question.
    use_app(monkeypatch, tmp_path, [" yes", " Chief of Protocol", {"error": "quota exhausted"}])
    monkeypatch.setenv("REACT_DATA_DIR", str(tmp_path / "data"))
    at = run_evaluation(go(new_session(), "evaluate"), limit=2, strategies=["standard"])
    run_evaluation(at, limit=3, strategies=["cot"])
    first = Evaluation.load(sorted((tmp_path / "data" / "evaluations").iterdir())[0])

    at = go(new_session(), "evaluate")  # a reload: a new session, nothing in memory
    assert "paper EM (n=500)" not in [c for d in at.dataframe for c in d.value.columns]  # no results open
    past = frame(at, "when")
    assert list(past["strategies"]) == ["CoT", "Standard"]  # newest first
    assert list(past["questions"]) == [3, 2]
    assert list(past["done"]) == ["stopped: CoT 2 of 3", "complete"]
    assert list(past["ended"])[0] == "finished 0 · max_calls 2 · context 0 · loop 0"
    assert list(past["ended"])[1] == "finished 2 · max_calls 0 · context 0 · loop 0"
    at.selectbox(key="eval-past").set_value(str(first.folder)).run()
    assert not at.exception, at.exception
    summary = frame(at, "EM")
    assert list(summary["strategy"]) == ["Standard"] and list(summary["EM"]) == [100.0]
    at.selectbox(key="eval-open").set_value(1).run()
    assert any("Step 1" in e.label for e in at.expander)


def test_the_chart_shows_n_and_draws_no_bar_for_fewer_than_20_questions(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [" yes"] * 22)
    at = run_evaluation(go(new_session(), "evaluate"), limit=2, strategies=["standard"])
    assert not at.get("vega_lite_chart")
    assert any("No bar for Standard (n=2): fewer than 20 questions" in unescape(c.value) for c in at.caption)
    at = run_evaluation(at, limit=20, strategies=["standard"])
    assert len(at.get("vega_lite_chart")) == 1
    chart, why = tables.chart(Evaluation.load(folder(at)))
    assert list(chart.index) == ["Standard (n=20)"] and why == ""
    assert list(chart.columns) == ["this evaluation", "paper, PaLM-540B (n=500)"]


def test_the_demo_model_note_appears_once(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path)
    monkeypatch.setenv("REACT_PROVIDER", "local")
    at = go(new_session(), "evaluate")
    notes = [w for w in at.warning if w.value == LocalProvider.notice_for_settings({"provider": "local"})]
    assert len(notes) == 1 and notes[0] in at.sidebar.warning


def test_the_message_after_stop_says_how_far_it_got():
    snap = {"stopped": True, "error": None, "strategies": ["cot", "react"], "counts": {}}
    assert ev.ending(snap) == ("warning", "Stopped before the first question; nothing was run.")
    snap["counts"] = {"cot": [10, 10], "react": [4, 10]}
    assert ev.ending(snap)[1].startswith("Stopped: ReAct after 4 of 10 questions.")
    assert ev.ending({**snap, "stopped": False}) is None


def test_progress_label_is_true_in_every_state():
    base = {"strategy": "", "position": 0, "done": 0, "total": 0, "cancelling": False, "message": ""}
    base["strategies"] = ["react"]
    assert ev.progress_label(base).startswith("Preparing")
    assert ev.progress_label({**base, "message": "Loading the model…"}) == "Loading the model…"
    running = {**base, "strategy": "react", "position": 1, "done": 2, "total": 5}
    assert ev.progress_label(running) == "ReAct: 2 of 5 questions done"
    assert ev.progress_label({**running, "cancelling": True}) == (
        "Stopping after the question under way… (ReAct: 2 of 5 questions done)"
    )
    assert ev.progress_label({**base, "cancelling": True}) == "Stopping after the question under way…"


def test_the_page_names_model_and_knowledge_as_the_sidebar_does(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    monkeypatch.setenv("REACT_KNOWLEDGE", "wikipedia")
    monkeypatch.setenv("REACT_WIKI_URL", f"http://127.0.0.1:{closed_port()}/w/api.php")  # the pack stands in
    at = go(new_session(), "evaluate")
    caption = next(unescape(c.value) for c in at.caption if "Model and knowledge come from Settings" in c.value)
    assert "Wikipedia unreachable: offline pack" in caption and "live" not in caption
    sidebar = unescape(" ".join(m.value for m in at.sidebar.markdown))
    model = re.search(r"\*\*Model:\*\* ([^\n]+)", sidebar).group(1)
    assert f" · {model} · Wikipedia unreachable: offline pack." in caption


def test_questions_at_once_and_calls_per_minute_are_offered_and_reach_the_plan(monkeypatch, tmp_path):
    from react_core.evaluation.plan import HOSTED_CONCURRENCY, HOSTED_RPM

    use_app(monkeypatch, tmp_path, [" yes"])
    at = choose(go(new_session(), "evaluate"), limit=1, strategies=["standard"])
    assert at.number_input(key="eval-at-once").value == HOSTED_CONCURRENCY > 1
    assert at.number_input(key="eval-rpm").value == HOSTED_RPM
    at.number_input(key="eval-at-once").set_value(3)
    at.number_input(key="eval-rpm").set_value(120.0)
    at.button(key="eval-run").click().run()
    assert at.session_state.eval_job.wait(30)
    plan = at.session_state.eval_job.plan
    assert (plan.concurrency, plan.rpm) == (3, 120.0)


def test_progress_says_about_how_long_is_left_at_the_pace_so_far(tmp_path):
    from react_core import EvalPlan, RunSettings
    from react_core.providers.allowance import Allowance
    from ui.evaluate.job import EvalJob

    plan = EvalPlan(datasets=["q.jsonl"], strategies=["cot", "react"], out_dir=str(tmp_path), settings=RunSettings())
    job = EvalJob(plan, Allowance.OPERATOR)
    now = [100.0]
    job.clock = lambda: now[0]  # the job's clock, moved by hand: the figures are checked, not the waiting
    job._on_progress({"kind": "strategy", "unit": "cot", "strategy": "cot", "position": 1, "total": 10})
    job._on_progress({"kind": "start", "unit": "cot", "strategy": "cot", "done": 0, "total": 10})
    assert ev.progress_label(job.snapshot()) == "CoT (strategy 1 of 2): 0 of 10 questions done"  # no pace yet
    for _ in range(4):
        now[0] += 30.0
        job._on_progress({"kind": "result", "unit": "cot", "strategy": "cot"})
    snap = job.snapshot()
    assert (snap["per_question"], snap["left"]) == (30.0, 16)  # 6 of CoT's and all 10 of ReAct's, not begun
    assert ev.progress_label(snap) == "CoT (strategy 1 of 2): 4 of 10 questions done · about 8 min left"
    assert ev.time_left(2.0, 10) == " · under a minute left" and ev.time_left(60.0, 200) == " · about 3.3 h left"
    assert ev.time_left(5.0, 0) == "" and ev.time_left(None, 5) == ""
