"""A person's edits in a run (``react_core.report.edits``) and where runs side by side first part
(``react_core.evaluation.parting``): a fork's edited Thought or Observation, step mode's edited action or written
Observation and a similar title searched instead are each a difference, marked on the row where they were made, in
the app's view and in the HTML export alike; runs that differ only in their actions part where the actions do."""

from __future__ import annotations

from types import SimpleNamespace

from react_core.base.trace import Action, Intervention, Observation, Step, Trace
from react_core.evaluation.arena import ColumnResult
from react_core.evaluation.arena_html import SideBySide
from react_core.evaluation.parting import Parting
from react_core.report.edits import Edit, hand_edits


def _calc(observation: str = "6 * 7 = 42", note: str = "") -> Trace:
    return Trace(
        "What is 6 * 7?",
        settings={"provider": "scripted", "dialect": "paper"},
        steps=[
            Step(1, "Multiply.", Action("calculator", "6 * 7"), Observation(observation, note=note, evidence=True)),
            Step(2, "It is 42.", final_answer="42"),
        ],
        final_answer="42",
        stop_reason="finished",
    )


def test_each_kind_of_edit_is_found_on_its_step():
    assert hand_edits(_calc()) == []
    fork = _calc("6 * 7 = 42 (checked)", Observation.FORK_NOTE)
    assert hand_edits(fork, fork_step=1) == [Edit(1, "observation", "edited by hand in a fork")]
    assert hand_edits(_calc(), fork_step=2) == [Edit(2, "thought", "edited by hand in a fork")]
    assert hand_edits(_calc(), fork_step=1, origin="similar") == [
        Edit(1, "action", "changed by a person to a similar title")
    ]
    assert hand_edits(_calc(), fork_step=1, origin="retry") == []  # not an edit
    assert hand_edits(_calc(), fork_step=9) == []  # a step the run does not have
    paused = _calc()
    paused.steps[0].interventions = [Intervention("edit", "tool", before="Calculator[6*7]", after="Calculator[6 * 7]")]
    paused.steps[1].interventions = [Intervention("observe", "finish")]
    assert [e.said() for e in hand_edits(paused)] == [
        "step 1's action, edited by a person in step mode",
        "step 2's observation, written by a person in step mode",
    ]


def test_runs_part_where_a_person_edited_one_even_when_their_actions_agree():
    original, fork = _calc(), _calc("6 * 7 = 42 (checked)", Observation.FORK_NOTE)
    columns = [original.steps, fork.steps]
    assert Parting.first(columns) is None  # the actions alone agree throughout
    parting = Parting.first(columns, [[], hand_edits(fork, 1)])
    assert parting is not None and parting.row == 0
    assert parting.said(["#1", "#2"]) == "First difference: step 1, where #2's observation was edited by hand in a fork"
    # An edit after the actions have parted does not move the mark back.
    other = _calc()
    other.steps[0].action = Action("calculator", "7 * 6")
    later = Parting.first([other.steps, original.steps], [[], [Edit(2, "thought", "edited by hand in a fork")]])
    assert later is not None and later.row == 0 and later.said(["#1", "#2"]).endswith("where the columns' actions part")


def test_the_html_export_of_a_compare_marks_the_forks_edit():
    fork = _calc("6 * 7 = 42 (checked)", Observation.FORK_NOTE)
    records = [
        SimpleNamespace(id=1, trace=_calc(), origin="chat", fork_step=None),
        SimpleNamespace(id=2, trace=fork, origin="fork", fork_step=1),
    ]
    results = SideBySide.saved(records).columns
    assert [r.edits for r in results] == [[], [Edit(1, "observation", "edited by hand in a fork")]]
    page = SideBySide(results).to_html()
    assert "First difference: step 1, where #2&#x27;s observation was edited by hand in a fork" in page
    assert "✎ Observation edited by hand in a fork" in page
    assert "Every column took the same actions." not in page
    assert ColumnResult.of(_calc(), 0).edits == []  # a live arena column: nobody edited it
