"""The Evaluate page with several models: the model in Settings is chosen by default, another is added as
provider:model (a bad one refused with the reason), both run the set into files of their own, every table has a model
column, one model's results are the baseline for the other's, and past results are filtered and grouped by model."""

from __future__ import annotations

import json

from app_helpers import go, new_session, run_evaluation_and_wait, use_app
from test_app_eval_versions import assert_a_newly_fails_against, past_results_filtered
from test_app_question_sets import GOOD, RIGHT, messages, table, upload

from ui.evaluate import evaluations as ev

WRONG_FIRST = ["Thought 1: Guess.\nAction 1: Finish[41]", "Thought 1: Guess.\nAction 1: Finish[4]"]


def test_two_models_run_on_a_set_are_scored_compared_and_grouped(monkeypatch, tmp_path):
    script = use_app(monkeypatch, tmp_path, RIGHT)  # the model in Settings answers both right
    other = tmp_path / "other.json"
    other.write_text(json.dumps(WRONG_FIRST))  # a second scripted "model" gets "a" wrong
    at = upload(go(new_session(), "evaluate"), "numbers.csv", GOOD, "arith")
    at.selectbox(key="eval-dataset").set_value("Your set: arith")
    at.multiselect(key="eval-strategies").set_value(["react"]).run()
    at.multiselect(key="eval-tools").set_value(["calculator"])
    at.selectbox(key="eval-preset-react").set_value("paper")
    models = at.multiselect(key="eval-models")
    assert models.value == [f"scripted:{script}"]  # the model in Settings, by default
    assert models.options[0] == "Scripted · script.json" and models.options[1].startswith("On-device")

    at.text_input(key="eval-model-add").set_value("claude:opus").run()
    assert any("Unknown provider 'claude'" in m for m in messages(at, "error"))
    at.text_input(key="eval-model-add").set_value(f"scripted:{other}").run()
    assert at.multiselect(key="eval-models").value == [f"scripted:{script}", f"scripted:{other}"]
    run_evaluation_and_wait(at)

    scores = table(at, "grounded")
    assert list(scores["model"]) == ["Scripted · other.json", "Scripted · script.json"]
    assert [e.split(" ")[0] for e in scores["EM"]] == ["50.0", "100.0"]
    assert "paper EM (n=500)" not in [c for d in at.dataframe for c in d.value.columns]  # a set: not the paper's data
    assert set(table(at, "prediction")["model"]) == {"Scripted · other.json", "Scripted · script.json"}

    baseline = at.selectbox(key="eval-baseline")
    own = [o for o in baseline.options if "Scripted · script.json" in o and o.endswith("/react+scripted-script.json")]
    assert len(own) == 1
    assert_a_newly_fails_against(at, own[0])

    past = at.selectbox(key="eval-past-model")
    assert past.options == ["Scripted · other.json", "Scripted · script.json"]
    assert list(table(at, "models")["models"]) == ["Scripted · other.json, Scripted · script.json"]
    grouped = past_results_filtered(at, past, "Scripted · other.json")
    assert list(grouped["model"]) == ["Scripted · other.json"] and list(grouped["EM"]) == [50.0]


def test_progress_and_stop_name_the_model_under_way():
    snap = {
        "strategy": "react@paper@2+scripted-b.json",
        "strategies": ["react@paper@2+scripted-a.json", "react@paper@2+scripted-b.json"],
        "versions": {"react@paper@2+scripted-a.json": "paper@2", "react@paper@2+scripted-b.json": "paper@2"},
        "models": {
            "react@paper@2+scripted-a.json": "Scripted · a.json",
            "react@paper@2+scripted-b.json": "Scripted · b.json",
        },
        "counts": {"react@paper@2+scripted-a.json": [2, 2], "react@paper@2+scripted-b.json": [1, 2]},
        "done": 1,
        "total": 2,
        "position": 2,
        "cancelling": False,
        "message": "",
        "stopped": True,
        "error": None,
    }
    assert ev.progress_label(snap) == "ReAct paper@2 on Scripted · b.json (strategy 2 of 2): 1 of 2 questions done"
    assert ev.ending(snap) == (
        "warning",
        "Stopped: ReAct paper@2 on Scripted · b.json after 1 of 2 questions. What finished is saved and shown below.",
    )
