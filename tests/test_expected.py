"""The expected answer: known for a question that is word for word a known HotpotQA question (one of the offline pack's,
or of the shared data's HotpotQA files, whatever the knowledge) and for every evaluation question, recorded in the
trace, and compared with the run's answer by HotpotQA's exact match: only an exact match is called a match."""

from __future__ import annotations

import json

import pytest
from app_helpers import offline_pack
from wiki_helpers import closed_port

from react_core.base.paths import shared_data_dir
from react_core.base.trace import Step, Trace
from react_core.base.trace_schema import InvalidTrace, parse_trace_json
from react_core.knowledge.pack import PackSource
from react_core.loop.settings import RunSettings
from react_core.report.expected import check_expected, expected_answer_for
from react_core.report.exports import to_json, to_markdown


def answered(answer: str | None, expected: str | None) -> Trace:
    steps = [Step(1, thought="Done.", final_answer=answer)] if answer is not None else []
    stop = "finished" if answer is not None else "max_calls"
    return Trace("Q?", steps=steps, final_answer=answer, stop_reason=stop, expected_answer=expected)


@pytest.mark.parametrize(
    ("answer", "expected", "kind", "message"),
    [
        ("the Chief of Protocol!", "Chief of Protocol", "match", "Expected answer: «Chief of Protocol» · exact match"),
        (
            "Protocol",
            "Chief of Protocol",
            "close",
            "Expected answer: «Chief of Protocol» · not an exact match (word overlap F1 0.50)",
        ),
        (  # most words right is still not the answer: only an exact match is a match
            "Chief Protocol",
            "Chief of Protocol",
            "close",
            "Expected answer: «Chief of Protocol» · not an exact match (word overlap F1 0.80)",
        ),
        (
            "Chief of Protocol of the United States",
            "Chief of Protocol of United States",
            "match",  # HotpotQA's normalisation drops articles
            "Expected answer: «Chief of Protocol of United States» · exact match",
        ),
        (
            "Chief of Protocol of the US",
            "Chief of Protocol of United States",
            "close",
            "Expected answer: «Chief of Protocol of United States» · not an exact match (word overlap F1 0.73)",
        ),
        ("1925 Birthday Honours", "Rachel Jackson", "differs", "Expected answer: «Rachel Jackson» · no match"),
        ("no", "yes", "differs", "Expected answer: «yes» · no match"),
        (None, "yes", "no_answer", "Expected answer: «yes» · this run gave no answer"),
    ],
)
def test_the_answer_is_compared_by_hotpotqa_exact_match(answer, expected, kind, message):
    check = check_expected(answered(answer, expected))
    assert check is not None and (check.kind, check.message) == (kind, message)


def test_a_paused_run_is_not_answered_yet_rather_than_without_an_answer():
    trace = answered(None, "yes")
    trace.stop_reason = "paused"
    check = check_expected(trace)
    assert check is not None and check.message == "Expected answer: «yes» · not answered yet: the run is paused"


def test_nothing_is_said_when_no_answer_is_expected():
    assert check_expected(answered("Paris", None)) is None


def test_a_chat_question_that_is_a_pack_question_gets_its_answer():
    pack = PackSource(offline_pack())
    question = pack.sample_questions(1, seed=3)[0]
    settings = {"knowledge": f"pack:{offline_pack()}"}
    assert expected_answer_for(question.question, settings) == question.answer
    assert expected_answer_for(f"  {question.question}\n", settings) == question.answer  # as the chat box strips it
    assert expected_answer_for(question.question.rstrip("?") + " exactly?", settings) is None  # word for word only
    assert expected_answer_for(question.question.lower(), settings) is None
    # A person's settings answer the same (the Arena page fills a column's gold answer with it).
    assert RunSettings(knowledge=settings["knowledge"]).expected_answer(question.question) == question.answer


def test_a_question_of_the_shared_hotpotqa_files_gets_its_answer_whatever_the_knowledge(monkeypatch, tmp_path):
    # Neither question is one of the pack's: the dev set's row 7000 and a training question are known all the same,
    # with Wikipedia, with a pack that is not there, with a pack that does not hold them.
    dev = (
        "The Lang Labor Party was the group that aligned with the policies of the government that followed what system?"
    )
    train = json.loads((shared_data_dir() / "hotpotqa" / "train_distractor_996.json").read_text(encoding="utf-8"))[0]
    for knowledge in ("wikipedia", "pack:/nowhere/pack.sqlite", f"pack:{offline_pack()}"):
        settings = {"knowledge": knowledge, "wiki_url": f"http://127.0.0.1:{closed_port()}/w/api.php"}
        assert expected_answer_for(dev, settings) == "Westminster"
        assert expected_answer_for(f" {train['question']} ", settings) == train["answer"]
        assert expected_answer_for(dev.rstrip("?") + " exactly?", settings) is None  # word for word only
    pack_question = PackSource(offline_pack()).sample_questions(1, seed=3)[0].question
    assert expected_answer_for(pack_question, {"knowledge": "pack:/nowhere/pack.sqlite"}) is not None
    monkeypatch.setenv("REACT_SHARED_DATA", str(tmp_path))  # no shared data: only a pack knows a question
    (tmp_path / "hotpotqa").mkdir()
    (tmp_path / "hotpotqa" / "indices.json").write_text("[1, 2]")  # not questions: read as none
    assert expected_answer_for(dev, {"knowledge": "pack:/nowhere/pack.sqlite"}) is None
    assert expected_answer_for(pack_question, {"knowledge": "pack:/nowhere/pack.sqlite"}) is None
    assert expected_answer_for(pack_question, {"knowledge": f"pack:{offline_pack()}"}) is not None


def test_while_wikipedia_cannot_be_reached_the_default_pack_knows_its_questions(monkeypatch, tmp_path):
    monkeypatch.setenv("REACT_PACK", str(tmp_path / "pack.sqlite"))  # built on first need from the shared data
    settings = {"knowledge": "wikipedia", "wiki_url": f"http://127.0.0.1:{closed_port()}/w/api.php"}
    question = "Were Scott Derrickson and Ed Wood of the same nationality?"  # HotpotQA dev's first question
    assert expected_answer_for(question, settings) == "yes"


def test_the_trace_records_it_and_both_exports_show_it():
    trace = answered("1925 Birthday Honours", "Rachel Jackson")
    again = parse_trace_json(to_json(trace))
    assert again.expected_answer == "Rachel Jackson" and again.to_dict() == trace.to_dict()
    md = to_markdown(trace)
    assert "- **Final Answer:** 1925 Birthday Honours\n- **Expected answer:** Rachel Jackson (no match)\n" in md
    older = json.loads(to_json(trace))
    del older["expected_answer"]  # a trace exported before the field existed
    assert parse_trace_json(json.dumps(older)).expected_answer is None


def test_import_validation_checks_the_field():
    data = json.loads(to_json(answered("x", "y")))
    data["expected_answer"] = 5
    with pytest.raises(InvalidTrace, match="expected_answer must be text or null"):
        parse_trace_json(json.dumps(data))
