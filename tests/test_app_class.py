"""The Class page and the class board (AppTest, signed in): a teacher hands out one of their question sets by link,
with their own evaluation as reference runs; two students open the link, run their prompt versions on it from the
Evaluate page and submit; the board shows the teacher each student's best version (EM, grounded answers, the
trajectory checks against the reference) and opens its runs; a student sees only their own results, cannot open
another's runs, and nothing of a student's history is shown to anyone."""

from __future__ import annotations

import json

from app_helpers import go, run_evaluation_and_wait, unescape, use_app, wait_idle
from test_app_question_sets import GOOD, RIGHT, table, upload
from test_app_share import ANN, session

from react_core.history import open_history
from ui.shared import identity

TEACHER = {"is_logged_in": True, "iss": "https://id.example.org", "sub": "teacher", "email": "teacher@example.org"}
BOB = {"is_logged_in": True, "iss": "https://id.example.org", "sub": "bob", "email": "bob@example.org"}
WRONG = ["Thought 1: Guess.\nAction 1: Finish[41]", "Thought 1: Guess.\nAction 1: Finish[5]"]


def _owner(user: dict) -> str:
    return identity.oidc_owner(user["iss"], user["sub"])


def _evaluate(at, dataset: str):
    at = go(at, "evaluate")
    at.selectbox(key="eval-dataset").set_value(dataset)
    at.multiselect(key="eval-strategies").set_value(["react"]).run()
    at.multiselect(key="eval-tools").set_value(["calculator"])
    at.selectbox(key="eval-preset-react").set_value("paper").run()
    return run_evaluation_and_wait(at)


def _says(at, kind: str) -> list[str]:
    return [unescape(m.value) for m in getattr(at, kind)]


def test_a_teacher_hands_out_a_set_and_sees_two_students_best_versions_on_the_board(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, RIGHT + ["Thought 1: Mine.\nAction 1: Finish[mine]"])
    teacher = upload(go(session(TEACHER), "evaluate"), "numbers.csv", GOOD, "arith")
    teacher = _evaluate(teacher, "Your set: arith")  # the teacher's own run of the set: the reference
    teacher = go(teacher, "class")
    teacher.selectbox(key="class-set").set_value("arith")
    teacher.text_input(key="class-name").set_value("Week 3")
    teacher.selectbox(key="class-reference").set_value(teacher.selectbox(key="class-reference").options[0])
    teacher.button(key="class-hand-out").click().run()
    assert any("Handed out 'Week 3' (2 questions, with 2 reference runs)" in s for s in _says(teacher, "success"))
    (link,) = [c.value for c in teacher.code if "/class?assignment=" in c.value]
    token = link.split("assignment=")[1]

    ann = session(ANN)
    ann.chat_input[0].set_value("My private question").run()  # a run of Ann's own, never submitted
    wait_idle(ann)
    ann.query_params["assignment"] = token
    ann = go(ann, "class")
    assert any("You joined 'Week 3'" in s for s in _says(ann, "success"))
    ann = _evaluate(ann, "Assignment: " + token)
    assert [b.label for b in ann.button if b.key and b.key.startswith("class-submit-")] == [
        "Submit paper@1 · Scripted · script.json"
    ]
    ann.button(key="class-submit-react").click().run()
    assert any("Submitted paper@1 to 'Week 3'" in s for s in _says(ann, "success"))

    bob = session(BOB)
    bob = go(bob, "settings")
    wrong = json.dumps(WRONG).encode()
    bob.file_uploader(key="set-script-upload").upload("wrong.json", wrong, "application/json").run()
    bob.query_params["assignment"] = token
    bob = _evaluate(go(bob, "class"), "Assignment: " + token)
    bob.button(key="class-submit-react").click().run()

    teacher = go(teacher, "class")
    board = table(teacher, "best version")
    assert list(board["student"]) == ["ann@example.org", "bob@example.org"]
    assert list(board["EM %"]) == [100.0, 0.0] and list(board["grounded %"]) == [100.0, 0.0]
    assert list(board["the reference's tools %"]) == [100.0, 0.0]  # bob answered without the Calculator
    teacher.button(key=f"class-open-{open_history(_owner(BOB)).my_submissions(token)[0].id}").click().run()
    runs = table(teacher, "prediction")
    assert list(runs["prediction"]) == ["41", "5"] and list(runs["EM"]) == [0.0, 0.0]

    # Ann sees her own results only; Bob's runs do not open for her; the teacher's board is not hers.
    ann = go(ann, "class")
    assert "bob@example.org" not in unescape(str(ann)) and not [d for d in ann.dataframe if "student" in d.value]
    ann.query_params["submission"] = str(open_history(_owner(BOB)).my_submissions(token)[0].id)
    ann = go(ann, "class")
    assert "This submission is not one you can open." in _says(ann, "warning")
    assert open_history(_owner(ANN)).board(token) == []
    # Nothing of a student's history reaches the teacher: only what was submitted.
    teacher = go(teacher, "class")
    assert "My private question" not in unescape(str(teacher))
    assert open_history(_owner(ANN)).list()[0].question == "My private question"


def _open_tab(at) -> str:
    """The tab the Class page shows: the one its tabs' container tells the browser to open."""
    from streamlit.proto.Block_pb2 import Block

    blocks = [at._tree]
    while blocks:
        block = blocks.pop()
        proto = getattr(block, "proto", None)
        if isinstance(proto, Block) and proto.HasField("tab_container"):
            labels = [tab.label for _, tab in sorted(block.children.items())]
            return labels[proto.tab_container.default_tab_index]
        blocks.extend(getattr(block, "children", {}).values())
    raise AssertionError("no tabs on the page")


def test_a_student_opening_the_link_lands_on_the_assignments_they_joined(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, RIGHT)
    teacher = go(upload(go(session(TEACHER), "evaluate"), "numbers.csv", GOOD, "arith"), "class")
    teacher.text_input(key="class-name").set_value("Week 3")
    teacher.button(key="class-hand-out").click().run()
    (link,) = [c.value for c in teacher.code if "/class?assignment=" in c.value]
    assert _open_tab(teacher) == "Assignments you handed out"

    # Joined by the link, the page says it is "below": the tab with it and its "Evaluate it" is the one shown.
    ann = session(ANN)
    ann.query_params["assignment"] = link.split("assignment=")[1]
    ann = go(ann, "class")
    assert any("You joined 'Week 3'" in s for s in _says(ann, "success"))
    assert _open_tab(ann) == "Assignments you joined"
    # Back on the page later, a student who handed nothing out lands there again; a tab they choose stays chosen.
    ann = go(go(ann, "chat"), "class")
    assert _open_tab(ann) == "Assignments you joined"
    ann.session_state["class-tab"] = "Assignments you handed out"  # as a click on the tab sets it
    ann.run()
    assert _open_tab(ann) == "Assignments you handed out"
    assert _open_tab(go(teacher, "class")) == "Assignments you handed out"  # a teacher's board is theirs to see first


def test_two_students_of_one_name_are_two_rows_each_with_their_own_versions():
    from react_core.history.assignments import Submission
    from ui.classroom.view import board_frame

    def sub(i: int, owner: str, em: float) -> Submission:
        return Submission(i, "t", "Ann", f"v{i}", "Scripted", 2, em, 0.0, {}, "", owner=owner)

    frame = board_frame([sub(1, "oidc:t#ann1", 0.5), sub(2, "oidc:t#ann2", 1.0), sub(3, "oidc:t#ann1", 0.0)])
    assert list(frame["run"]) == ["#1", "#2"] and list(frame["versions submitted"]) == [2, 1]
    assert list(frame.columns[:4]) == ["student", "best version", "EM %", "grounded %"]  # the scores first
