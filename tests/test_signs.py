"""A check mark only on what is known right: each other outcome has a sign of its own (issue 33, item 3)."""

from __future__ import annotations

from react_core.base.trace import Observation, Step, Trace
from react_core.report.expected import check_expected
from react_core.report.grounding import check_grounding
from react_core.report.signs import Verdict, run_sign
from ui.shared.render import EXPECTED_BADGES, status_text


def _answered(answer: str, *, expected: str | None = None, evidence: str | None = None) -> Trace:
    steps = []
    if evidence is not None:
        steps.append(Step(index=1, thought="t", observation=Observation(text=evidence, evidence=True)))
    steps.append(Step(index=len(steps) + 1, thought="done", final_answer=answer))
    return Trace(question="q", steps=steps, final_answer=answer, stop_reason="finished", expected_answer=expected)


def test_only_a_matched_expected_answer_wears_the_check_mark():
    assert run_sign(_answered("American", expected="American")).kind == "right"
    assert status_text(_answered("American", expected="American"))[1] == Verdict.SIGNS["right"].icon
    assert EXPECTED_BADGES["match"][1] == Verdict.SIGNS["right"].icon


def test_a_nonsense_answer_nobody_checked_is_answered_not_right():
    sign = run_sign(_answered("1970 - 1965"))
    assert sign.kind == "answered" and sign.icon != Verdict.SIGNS["right"].icon


def test_a_wrong_answer_to_a_known_question_is_marked_not_expected():
    assert run_sign(_answered("1970 - 1965", expected="5")).kind == "not_expected"


def test_an_answer_found_in_the_evidence_is_grounded_not_right():
    trace = _answered("American", evidence="Scott Derrickson is an American director.")
    assert run_sign(trace).kind == "grounded"


def test_paused_and_stopped_each_have_their_own_sign():
    paused = run_sign(Trace(question="q", steps=[Step(index=1, thought="t")], stop_reason="paused"))
    stopped = run_sign(Trace(question="q", steps=[Step(index=1, thought="t")], stop_reason="cancelled"))
    assert paused.kind == "paused" and stopped.kind == "stopped"
    assert len({paused.icon, stopped.icon, Verdict.SIGNS["right"].icon, Verdict.SIGNS["answered"].icon}) == 4


def test_every_sign_is_its_own():
    assert len({s.icon for s in Verdict.SIGNS.values()}) == len(Verdict.SIGNS)
    assert len({s.symbol for s in Verdict.SIGNS.values()}) == len(Verdict.SIGNS)


def test_a_verdict_says_the_sign_and_both_checks_as_each_says_them_alone():
    runs = [
        _answered("American", expected="American"),
        _answered("1970 - 1965", expected="5"),
        _answered("American", evidence="Scott Derrickson is an American director."),
        _answered("1970 - 1965"),
        Trace(question="q", steps=[Step(index=1, thought="t")], stop_reason="max_calls", expected_answer="5"),
    ]
    for trace in runs:
        verdict = Verdict.of(trace)
        assert verdict.sign == run_sign(trace) and verdict.expected == check_expected(trace)
        assert verdict.evidence == (check_grounding(trace) if trace.final_answer is not None else None)
    assert [Verdict.of(t).sign.kind for t in runs] == ["right", "not_expected", "grounded", "answered", "no_answer"]
