"""A class's assignments in the engine, on SQLite and PostgreSQL: a teacher hands out a question set by link, students
join by it and submit their versions' results, the board shows them to the assignment's owner only, a student reads
only their own submissions, and nobody reads anything of another's without the link or beyond what was submitted;
an evaluation's results become a submission with EM, grounded answers and trajectory checks against reference runs,
and the board keeps each student's best version."""

from __future__ import annotations

import pytest

from react_core.base.errors import ConfigError
from react_core.base.trace import Action, Observation, Source, Step, Trace
from react_core.evaluation.assignments import Board, write_assignment_file
from react_core.evaluation.question_sets import QuestionSets, load_question_set
from react_core.evaluation.results import ASSIGNMENT_NOTE, Evaluation, StrategyResults
from react_core.history.assignments import Assignment, Submission
from react_core.history.migrations import LATEST
from react_core.report.checks import NO_LONGER, SAME_PAGES, SAME_TOOLS, reference_checks

QUESTIONS = [
    {"id": "a", "question": "What is 6 * 7?", "answer": "42"},
    {"id": "b", "question": "Who directed Sinister?", "answer": "Scott Derrickson"},
]


def _submit(store, token, student="ann@example.org", version="paper@2", em=0.5, runs=None):
    runs = runs if runs is not None else [{"id": "a", "em": em, "trace": {"question": "What is 6 * 7?"}}]
    return store.submit(
        token, student=student, version=version, model="Scripted", em=em, grounded=0.5, checks={}, runs=runs
    )


def test_a_teacher_hands_out_a_set_and_only_they_see_the_board(open_store, tmp_path):
    teacher, ann, bob, stranger = (open_store(o) for o in ("oidc:t#teacher", "oidc:t#ann", "oidc:t#bob", "oidc:t#x"))
    made = teacher.create_assignment("Week 3", QUESTIONS, {"a": {"question": "x"}, "zz": {"question": "not asked"}})
    assert made.mine and made.references == {"a": {"question": "x"}}  # only references of its own questions
    assert [a.name for a in teacher.assignments()] == ["Week 3"] and ann.assignments() == []

    with pytest.raises(ConfigError, match="Open the assignment's link first"):
        _submit(ann, made.token)  # not joined yet
    joined = ann.join_assignment(made.token)
    assert joined is not None and joined.questions == QUESTIONS and not joined.mine
    assert bob.join_assignment(made.token) is not None
    assert [a.token for a in ann.joined_assignments()] == [made.token] and stranger.joined_assignments() == []
    assert ann.assignment(made.token) is not None and stranger.assignment(made.token) is None  # the link is the key
    path = QuestionSets(ann).write_assignment(made.token, tmp_path / "eval")  # what an evaluation of it reads
    assert [q.id for q in load_question_set(path)] == ["a", "b"]
    assert Evaluation.load(tmp_path / "eval").assignment == {"token": made.token, "name": "Week 3"}
    with pytest.raises(ConfigError, match="never opened here"):
        QuestionSets(stranger).write_assignment(made.token, tmp_path / "other")

    first = _submit(ann, made.token, em=0.5)
    second = _submit(ann, made.token, version="paper@3", em=1.0)
    by_bob = _submit(bob, made.token, student="bob@example.org", em=0.0)
    assert [s.id for s in teacher.board(made.token)] == [first, second, by_bob]
    for other in (ann, bob, stranger):
        assert other.board(made.token) == []  # the board is the teacher's alone
    assert [s.id for s in ann.my_submissions(made.token)] == [first, second]  # each student sees their own only
    assert [s.id for s in bob.my_submissions(made.token)] == [by_bob]
    assert teacher.submission(second).runs[0]["id"] == "a" and ann.submission(second) is not None
    assert bob.submission(second) is None and stranger.submission(second) is None

    assert bob.withdraw_submission(second) is False and ann.withdraw_submission(second) is True
    assert [s.id for s in teacher.board(made.token)] == [first, by_bob]
    assert ann.delete_assignment(made.token) is False  # only the owner withdraws it
    assert teacher.delete_assignment(made.token) is True
    assert teacher.board(made.token) == [] and ann.joined_assignments() == [] and ann.submission(first) is None


def test_links_that_are_not_tokens_and_bad_assignments_are_refused(open_store):
    teacher, ann = open_store("oidc:t#teacher"), open_store("oidc:t#ann")
    for bad in ("", "x", "' OR 1=1 --", "a" * 43 + "'", None, 7):
        assert ann.join_assignment(bad) is None and teacher.board(bad) == [] and ann.assignment(bad) is None
    assert ann.join_assignment("A" * 43) is None  # well formed, but no such link
    with pytest.raises(ConfigError, match="name"):
        teacher.create_assignment("  ", QUESTIONS)
    with pytest.raises(ConfigError, match="at least one question"):
        teacher.create_assignment("Empty", [])
    assert teacher.submission("1 OR 1=1") is None


def test_the_tables_come_with_a_migration():
    assert LATEST >= 8


def _trace(question: str, tools: list[str], answer: str, pages: list[str] = ()) -> Trace:
    steps = [
        Step(
            i + 1,
            "Act.",
            Action(tool, "x"),
            Observation(
                f"{answer} is here.", sources=[Source(p, f"https://w/{p}") for p in pages[i : i + 1]], evidence=True
            ),
        )
        for i, tool in enumerate(tools)
    ]
    steps.append(Step(len(steps) + 1, "Done.", final_answer=answer))
    return Trace(question, steps=steps, final_answer=answer, stop_reason="finished")


def test_trajectory_checks_against_a_reference_run():
    reference = _trace("Q", ["search", "search"], "Scott Derrickson", ["Sinister (film)", "Scott Derrickson"])
    same = _trace("Q", ["search", "search"], "Scott Derrickson", ["Sinister (film)", "Scott Derrickson"])
    assert reference_checks(same, reference) == {SAME_TOOLS: True, NO_LONGER: True, SAME_PAGES: True}
    guessed = _trace("Q", [], "Scott Derrickson")
    assert reference_checks(guessed, reference) == {SAME_TOOLS: False, NO_LONGER: True, SAME_PAGES: False}
    wandering = _trace("Q", ["search", "lookup", "search"], "x", ["Sinister (film)", "Ethan Hawke", "Scott Derrickson"])
    assert reference_checks(wandering, reference) == {SAME_TOOLS: True, NO_LONGER: False, SAME_PAGES: True}


def test_an_evaluation_of_an_assignment_says_which_one_it_ran(tmp_path):
    handed = Assignment("tok-1", "Week 3", QUESTIONS, "2026-01-01T00:00:00")
    path = write_assignment_file(handed, tmp_path / "eval")
    assert path.parent.name == "questions" and path.read_text().count("\n") == 2
    assert Evaluation.load(tmp_path / "eval").assignment == {"token": "tok-1", "name": "Week 3"}
    assert Evaluation.load(tmp_path / "other").assignment is None  # an evaluation of a set or the shared files
    (tmp_path / "eval" / ASSIGNMENT_NOTE).write_text('{"token": 3}')
    assert Evaluation.load(tmp_path / "eval").assignment is None  # a note that is not one names nothing


def test_results_become_a_submission_with_reference_checks_and_the_best_version_counts(tmp_path):
    reference = _trace("What is 6 * 7?", ["calculator"], "42")
    teacher = StrategyResults("react", "react", tmp_path / "t.jsonl", None, [_record("a", reference, 1.0)])
    refs = Board.references_from(teacher, QUESTIONS)
    assert refs == {"a": reference.to_dict()}
    header = {"versions": {"react": "paper@2"}, "model": "Scripted · script.json"}
    mine = StrategyResults(
        "react",
        "react",
        tmp_path / "s.jsonl",
        header,
        [
            _record("a#1", _trace("What is 6 * 7?", ["calculator"], "42"), 1.0),
            _record("a#2", _trace("What is 6 * 7?", [], "41"), 0.0),  # a repeated run: the first one counts
            _record("b", _trace("Who directed Sinister?", [], "Ethan Hawke"), 0.0),
        ],
    )
    made = Board.submission_of(mine, refs)
    assert (made["version"], made["model"]) == ("paper@2", "Scripted · script.json")
    assert [r["id"] for r in made["runs"]] == ["a", "b"] and made["em"] == 0.5
    assert made["checks"] == {SAME_TOOLS: 1.0, NO_LONGER: 1.0, SAME_PAGES: 1.0}  # b has no reference: not counted
    assert made["grounded"] == 0.5  # 42 is in the calculator's evidence; Ethan Hawke in nothing

    def sub(i, student, em, grounded):
        return Submission(i, "t", student, f"v{i}", "", 2, em, grounded, {}, "")

    board = Board([sub(1, "ann", 0.5, 1.0), sub(2, "bob", 0.0, 0.0), sub(3, "ann", 0.5, 0.5), sub(4, "ann", 1.0, 0.0)])
    best = board.best()
    assert [(s.student, s.id) for s in best] == [("ann", 4), ("bob", 2)]
    assert [board.versions_of(s) for s in best] == [3, 1]
    namesakes = [Submission(i, "t", "Ann", f"v{i}", "", 2, 0.5 * i, 0, {}, "", owner=f"oidc:{i}") for i in (1, 2)]
    assert [s.id for s in Board(namesakes).best()] == [1, 2]  # two accounts of one name: two rows
    assert Board(namesakes).versions_of(namesakes[0]) == 1


def _record(qid: str, trace: Trace, em: float) -> dict:
    return {
        "id": qid,
        "question": trace.question,
        "gold": "42",
        "prediction": trace.final_answer,
        "em": em,
        "trace": trace.to_dict(),
    }
