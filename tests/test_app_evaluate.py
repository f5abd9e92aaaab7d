"""The Evaluate page: run strategies over shared HotpotQA questions with a script, see scores beside the paper's
table, open a question's trace in the chat's step panels, and stop a run."""

from __future__ import annotations

import time
from pathlib import Path

from app_helpers import go, new_session, use_app

from react_core.evaluation.paper import PAPER_HOTPOTQA_EM


def run_evaluation(at, *, limit: int, strategies: list[str], timeout: float = 30.0):
    at.selectbox(key="eval-dataset").set_value("dev_distractor_first100.json")
    at.number_input(key="eval-limit").set_value(limit)
    at.multiselect(key="eval-strategies").set_value(strategies)
    at.button[0].click().run()  # the form's submit button
    assert not at.exception, at.exception
    deadline = time.monotonic() + timeout
    while not at.session_state.eval_job.done:
        at.session_state.eval_job.wait(0.05)
        assert time.monotonic() < deadline, "the evaluation did not finish"
    at.run()
    assert not at.exception, at.exception
    return at


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
    at = go(new_session(), "evaluate")
    run_evaluation(at, limit=2, strategies=["standard", "cot"])
    summary = at.dataframe[0].value
    assert list(summary["strategy"]) == ["Standard", "CoT"]
    assert list(summary["EM"]) == [50.0, 100.0]
    assert list(summary["paper EM (PaLM-540B)"]) == [PAPER_HOTPOTQA_EM["standard"], PAPER_HOTPOTQA_EM["cot"]]
    questions = at.dataframe[1].value
    assert len(questions) == 4 and list(questions["prediction"])[1] == "Secretary of State"
    snap = at.session_state.eval_job.snapshot()
    assert (tmp_path / "data") in Path(snap["out_dir"]).parents
    at.selectbox(key="eval-open").set_value(3).run()
    assert not at.exception, at.exception
    assert any("Chief of Protocol" in m.value for m in [*at.markdown, *at.caption])
    assert any("Step 1" in e.label for e in at.expander)


def test_a_failure_is_shown_and_stop_ends_the_run(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [" yes", {"error": "quota exhausted"}])
    monkeypatch.setenv("REACT_DATA_DIR", str(tmp_path / "data"))
    at = go(new_session(), "evaluate")
    run_evaluation(at, limit=3, strategies=["standard"])
    assert any("quota exhausted" in e.value for e in at.error)
    assert list(at.dataframe[0].value["n"]) == [1]

    use_app(monkeypatch, tmp_path, [{"text": " yes", "delay": 0.2}] * 10)
    at = go(new_session(), "evaluate")
    at.selectbox(key="eval-dataset").set_value("dev_distractor_first100.json")
    at.number_input(key="eval-limit").set_value(10)
    at.multiselect(key="eval-strategies").set_value(["standard"])
    at.button[0].click().run()
    at.session_state.eval_job.cancel()
    at.session_state.eval_job.wait(10)
    at.run()
    snap = at.session_state.eval_job.snapshot()
    assert snap["finished"] and snap["done"] < 10
