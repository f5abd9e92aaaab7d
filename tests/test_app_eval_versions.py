"""The Evaluate page by prompt version: saved versions and labels are offered by address, several versions run on one
set (a label run and shown as its number), the intervals table has a row per version, one version is compared with
another of the same evaluation as a baseline, and past results are filtered and grouped by version."""

from __future__ import annotations

from dataclasses import replace

from app_helpers import go, new_session, run_evaluation_and_wait, use_app
from test_app_question_sets import GOOD, RIGHT, table, upload

from react_core.presets.preset import load_preset
from react_core.presets.store import PresetStore
from ui.evaluate import evaluations as ev

WRONG_FIRST = ["Thought 1: Guess.\nAction 1: Finish[41]", "Thought 1: Guess.\nAction 1: Finish[4]"]


def assert_a_newly_fails_against(at, baseline: str) -> None:
    """Picked as the baseline, ``baseline``'s results show question a (42 then, 41 now) as the one that newly fails."""
    at.selectbox(key="eval-baseline").set_value(baseline).run()
    assert not at.exception, at.exception
    changes = table(at, "change")
    assert list(changes["change"]) == ["newly fails"] and list(changes["id"]) == ["a"]
    assert list(changes["baseline"]) == ["42"] and list(changes["now"]) == ["41"]


def past_results_filtered(at, choice, value: str):
    """Past evaluations with ``choice`` (a version or model filter) set to ``value``: the table by version and model."""
    choice.set_value(value).run()
    assert not at.exception, at.exception
    return next(d.value for d in at.dataframe if list(d.value.columns)[:3] == ["prompt version", "model", "strategy"])


def save_paper_v2() -> None:
    store = PresetStore()
    preset = load_preset("paper")
    store.save_version(replace(preset, instructions=preset.instructions + "\nBe brief.\n"), "paper")
    store.move_label("paper", "best", 2)


def test_versions_run_on_a_set_are_scored_compared_and_grouped(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, RIGHT + WRONG_FIRST)  # paper@1 answers both right, then paper@2 gets "a" wrong
    save_paper_v2()
    at = upload(go(new_session(), "evaluate"), "numbers.csv", GOOD, "arith")
    at.selectbox(key="eval-dataset").set_value("Your set: arith")
    at.multiselect(key="eval-strategies").set_value(["react"]).run()
    assert {"paper@1", "paper@2", "paper@best"} <= set(at.selectbox(key="eval-preset-react").options)
    at.multiselect(key="eval-tools").set_value(["calculator"])
    versions = at.multiselect(key="eval-versions")
    assert {"paper@1", "paper@2", "paper@best"} <= set(versions.options)
    versions.set_value(["paper@1", "paper@best"])
    run_evaluation_and_wait(at)

    scores = table(at, "grounded")
    assert list(scores["prompt version"]) == ["paper@1", "paper@2"]  # the label is recorded as its number
    assert [e.split(" ")[0] for e in scores["EM"]] == ["100.0", "50.0"]
    assert "paper EM (n=500)" not in [c for d in at.dataframe for c in d.value.columns]  # a set: not the paper's data

    baseline = at.selectbox(key="eval-baseline")
    own = [o for o in baseline.options if o.endswith("/react@paper@1")]
    assert len(own) == 1 and "paper@1" in own[0]
    assert_a_newly_fails_against(at, own[0])

    past = at.selectbox(key="eval-past-version")
    assert past.options == ["paper@1", "paper@2"]
    assert list(table(at, "prompt versions")["prompt versions"]) == ["paper@1, paper@2"]
    grouped = past_results_filtered(at, past, "paper@2")
    assert list(grouped["prompt version"]) == ["paper@2"] and list(grouped["EM"]) == [50.0]


def test_versions_are_offered_only_for_act_and_react(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    at = go(new_session(), "evaluate")
    at.multiselect(key="eval-strategies").set_value(["cot", "react"]).run()
    assert not at.exception, at.exception
    assert "eval-versions" not in {w.key for w in at.multiselect}


def test_progress_and_stop_name_the_version_under_way():
    snap = {
        "strategy": "react@paper@best",
        "strategies": ["react@paper@1", "react@paper@best"],
        "versions": {"react@paper@1": "paper@1", "react@paper@best": "paper@best"},
        "counts": {"react@paper@1": [2, 2], "react@paper@best": [1, 2]},
        "done": 1,
        "total": 2,
        "position": 2,
        "cancelling": False,
        "message": "",
        "stopped": True,
        "error": None,
    }
    assert ev.progress_label(snap) == "ReAct paper@best (strategy 2 of 2): 1 of 2 questions done"
    assert ev.ending(snap)[1].startswith("Stopped: ReAct paper@best after 1 of 2 questions.")
