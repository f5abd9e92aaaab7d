"""The Evaluate page with FEVER's claims: choosing the paper's FEVER file brings the paper's FEVER prompts (and a
HotpotQA file brings HotpotQA's back), the results are scored by accuracy beside the paper's FEVER column, and the
page credits FEVER where it shows its claims."""

from __future__ import annotations

from app_helpers import go, new_session, run_evaluation_and_wait, unescape, use_app

from react_core.evaluation.paper import PAPER_FEVER_ACC
from react_core.evaluation.results import Evaluation, read_file

FEVER_FILE = "paper_dev.jsonl"
CREDIT = "Claims: FEVER (Thorne et al. 2018, CC BY-SA 3.0)."


def presets(at) -> list[str]:
    return [at.selectbox(key=f"eval-preset-{role}").value for role in ("standard", "cot")]


def test_fever_claims_run_with_the_papers_fever_prompts_and_are_scored_by_accuracy(monkeypatch, tmp_path):
    # The first two of the paper's 500 claims: "Paramore is not from Tennessee." (REFUTES), then NOT ENOUGH INFO.
    use_app(monkeypatch, tmp_path, [" REFUTES", " SUPPORTS", " t\nAnswer: REFUTES", " t\nAnswer: NOT ENOUGH INFO"])
    at = go(new_session(), "evaluate")
    assert any(CREDIT in unescape(c.value) for c in at.caption)
    at.multiselect(key="eval-strategies").set_value(["standard", "cot"]).run()
    assert presets(at) == ["hotpotqa-standard", "hotpotqa-cot"]
    assert f"{FEVER_FILE} (FEVER claims)" in at.selectbox(key="eval-dataset").options
    at.selectbox(key="eval-dataset").set_value(FEVER_FILE).run()
    assert presets(at) == ["fever-standard", "fever-cot"]
    assert at.checkbox(key="eval-500").label == "Only the paper's 500 claims (for paper_dev.jsonl)"
    at.checkbox(key="eval-500").check()
    at.number_input(key="eval-limit").set_value(2)
    at = run_evaluation_and_wait(at.run())

    summary = next(d.value for d in at.dataframe if "paper accuracy (n=500)" in d.value.columns)
    assert list(summary["strategy"]) == ["Standard", "CoT"] and list(summary["accuracy"]) == [50.0, 100.0]
    assert list(summary["paper accuracy (n=500)"]) == [PAPER_FEVER_ACC["standard"], PAPER_FEVER_ACC["cot"]]
    assert "EM" not in summary.columns and "F1" not in summary.columns
    questions = next(d.value for d in at.dataframe if "prediction" in d.value.columns)
    assert list(questions["question"])[0] == "Paramore is not from Tennessee." and "F1" not in questions.columns
    assert list(questions["gold"]) == ["REFUTES", "NOT ENOUGH INFO"] * 2
    assert any(c.value.startswith("FEVER evaluation of") and CREDIT in unescape(c.value) for c in at.caption)
    assert any("on 500 FEVER dev claims" in unescape(c.value) for c in at.caption)
    folder = Evaluation.load(at.session_state.eval_job.snapshot()["out_dir"]).folder
    header = read_file(folder / "cot.jsonl")[0]
    assert header["config"]["task"] == "fever" and header["versions"] == {"cot": "fever-cot@1"}
    assert header["questions"]["indices"] == "react_paper_eval_500_indices.json"

    at.selectbox(key="eval-dataset").set_value("dev_distractor_first100.json").run()
    assert presets(at) == ["hotpotqa-standard", "hotpotqa-cot"]  # another task: its own prompts
    assert at.checkbox(key="eval-500").label == "Only the paper's 500 questions (for hotpot_dev_v1_simplified.json)"


def test_a_prompt_chosen_by_hand_stays_while_the_task_does(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path)
    at = go(new_session(), "evaluate")
    at.multiselect(key="eval-strategies").set_value(["standard"]).run()
    at.selectbox(key="eval-dataset").set_value(FEVER_FILE).run()
    at.selectbox(key="eval-preset-standard").set_value("hotpotqa-standard").run()
    at.number_input(key="eval-limit").set_value(3).run()
    assert at.selectbox(key="eval-preset-standard").value == "hotpotqa-standard"
    at.button(key="eval-reset").click().run()
    assert at.selectbox(key="eval-preset-standard").value == "fever-standard"  # the paper's setup for FEVER
