"""The scripted provider's shipped samples and a run written as a script (``react_core.providers.samples``): every
sample, in every chat dialect, replays a whole run of its offline example against the offline pack, with the dialect's
shipped preset, to the right answer and with no unreadable step; a run recorded with any model replays from its
script to the same steps; a fork's edited thought and a hand-written observation are said, not silently lost."""

from __future__ import annotations

import pytest
from app_helpers import offline_pack

from react_core import RunSettings, ask
from react_core.base.answers import exact_match
from react_core.base.paths import SAMPLE_SCRIPTS_DIR
from react_core.base.trace import Observation
from react_core.dialects import DIALECTS
from react_core.presets.preset import Preset
from react_core.providers.file_choices import offered_files
from react_core.providers.samples import SAMPLE_QUESTIONS, SampleScript
from react_core.providers.script import Script
from react_core.providers.scripted import load_script

ANSWERS = {"calculator": "395", "kiss-and-tell": "Chief of Protocol"}
CHAT_DIALECTS = [d for d in DIALECTS if d != "act"]  # act is the evaluation's Act-only baseline, never a chat's


def _settings(dialect: str, script) -> RunSettings:
    return RunSettings(
        provider="scripted",
        script=script,
        dialect=dialect,
        preset=Preset.default_for(dialect),
        knowledge=f"pack:{offline_pack()}",
        tools=["search", "lookup", "calculator"],
    )


def test_every_chat_dialect_has_a_sample_of_each_offline_example():
    found = {(s.dialect, s.example) for s in SampleScript.all()}
    assert found == {(d, e) for d in CHAT_DIALECTS for e in SAMPLE_QUESTIONS}


@pytest.mark.parametrize("sample", SampleScript.all(), ids=lambda s: f"{s.dialect}-{s.example}")
def test_each_sample_replays_its_example_to_the_right_answer(sample):
    trace = ask(sample.question, _settings(sample.dialect, str(sample.path)))
    assert trace.stop_reason == "finished" and exact_match(trace.final_answer, ANSWERS[sample.example])
    assert not any(s.is_error for s in trace.steps), [s.observation.text for s in trace.steps if s.is_error]
    searched = [s for s in trace.steps if s.action is not None and s.action.tool == "search"]
    assert all(s.observation.evidence for s in searched)  # the pack has every page the sample searches


def test_the_samples_are_labelled_and_offered_to_visitors(monkeypatch):
    paper = SampleScript.at(SAMPLE_SCRIPTS_DIR / "paper" / "calculator.json")
    assert paper is not None and paper.label == "Sample · ReAct paper (Search[entity]) · What is 17 * 23 + 4?"
    assert SampleScript.label_of(SAMPLE_SCRIPTS_DIR / "paper" / "calculator.json") == paper.label
    assert SampleScript.label_of("/srv/mine.json") == "mine.json" and SampleScript.at("/srv/mine.json") is None
    monkeypatch.delenv("REACT_SCRIPT", raising=False)
    assert offered_files("script") == [
        str(s.path) for s in SampleScript.all()
    ]  # in visitor modes, among the operator's
    monkeypatch.setenv("REACT_SCRIPT", "/srv/operator.json")
    assert offered_files("script")[0] == "/srv/operator.json" and len(offered_files("script")) == 1 + len(
        SampleScript.all()
    )


@pytest.mark.parametrize("dialect", ["paper", "mrkl", "tools"])
def test_a_run_written_as_a_script_replays_to_the_same_steps(dialect, tmp_path):
    sample = next(s for s in SampleScript.all() if (s.dialect, s.example) == (dialect, "kiss-and-tell"))
    recorded = ask(sample.question, _settings(dialect, str(sample.path)))
    script = Script.from_run(recorded)
    outputs, notes = script.outputs, script.notes
    assert notes == [] and len(outputs) == len(recorded.steps)
    path = tmp_path / "saved.json"
    path.write_text(script.json, encoding="utf-8")
    assert load_script(path) == outputs  # a file the scripted provider reads
    replayed = ask(sample.question, _settings(dialect, str(path)))
    moves = lambda t: [(s.thought, s.action, s.final_answer, s.observation and s.observation.text) for s in t.steps]  # noqa: E731
    assert moves(replayed) == moves(recorded)


def test_a_forks_edits_are_written_as_recorded_and_said():
    sample = SAMPLE_SCRIPTS_DIR / "paper" / "kiss-and-tell.json"
    trace = ask(SAMPLE_QUESTIONS["kiss-and-tell"], _settings("paper", str(sample)))
    trace.steps[1].raw_output = " it does not matter.\nAction 2: Search[Shirley Temple]\n"  # the model went on...
    trace.steps[1].thought = "Now Shirley Temple: it does not matter."  # ...from a thought a person wrote
    trace.steps[0].observation.note = Observation.FORK_NOTE
    script = Script.from_run(trace)
    outputs, notes = script.outputs, script.notes
    assert outputs[1] == " Now Shirley Temple: it does not matter.\nAction 2: Search[Shirley Temple]\n"
    assert notes == [
        "Step 1's observation was written by a person: a replay runs the tool.",
        "Step 2 is written as the run recorded it, not as the model first wrote it.",
    ]
