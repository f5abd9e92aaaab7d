"""Prompt versions in the app (AppTest): Settings saves an edit as a new version, picks one by label or number and
diffs two with whole examples; History filters runs by the version they used and turns a run into an example of the
prompt in use, with the run's id kept beside it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from app_helpers import ask, go, last_trace, new_session, open_panels, provider, unescape, use_app, wait_idle

from react_core import PresetStore
from react_core.evaluation.results import read_file
from react_core.history import HistoryStore
from react_core.presets.preset import load_preset
from react_core.report.exports import to_json

FINISH = "Thought 1: Easy.\nAction 1: Finish[done]"
CALC = [
    "Thought 1: I should compute it.\nAction 1: Calculator[6 * 7]",
    "Thought 2: It is 42.\nAction 2: Finish[42]",
]


def html_bodies(at) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def _save_version(at, instructions: str):
    at.text_area(key="edit-instructions").input(instructions).run()
    at.button(key="save-version").click().run()
    assert not at.exception, at.exception
    return at


def test_save_a_new_version_pick_one_by_label_and_diff_two(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH, FINISH, FINISH])
    at = go(new_session(), "settings")
    assert at.button(key="save-version").disabled  # nothing changed: nothing to save
    assert at.selectbox(key="diff-right").value == "paper@1"  # one version yet: the panel shows it
    _save_version(at, "Be careful.\n{tools}\n")
    assert any("Saved as paper@2" in unescape(s.value) for s in at.success)
    # The diff turns to the two newest by itself, rather than comparing version 1 with itself as before the save.
    assert (at.selectbox(key="diff-left").value, at.selectbox(key="diff-right").value) == ("paper@1", "paper@2")
    assert at.session_state.settings["preset"] == "paper" and at.session_state.prompt is None
    go(at, "chat")
    ask(at, "First")
    assert last_trace(at)["settings"]["prompt_version"] == "paper@2"

    go(at, "settings")
    at.text_input(key="label-name").input("lesson-step-1").run()
    at.selectbox(key="label-version").set_value(1).run()
    at.button(key="move-label").click().run()
    assert PresetStore().labels("paper") == {"lesson-step-1": 1}
    at.selectbox(key="set-version").set_value("lesson-step-1").run()
    assert at.session_state.settings["preset"] == "paper@lesson-step-1"
    assert at.text_area(key="edit-instructions").value == load_preset("paper").instructions
    go(at, "chat")
    ask(at, "Second")
    assert last_trace(at)["settings"]["prompt_version"] == "paper@1"

    go(at, "settings")
    at.selectbox(key="set-version").set_value("2").run()
    assert at.session_state.settings["preset"] == "paper@2"
    assert {"paper@1", "paper@2", "mrkl@1"} <= set(at.selectbox(key="diff-left").options)  # any two versions
    at.selectbox(key="diff-left").set_value("paper@1").run()
    at.selectbox(key="diff-right").set_value("paper@2").run()
    added, removed = '<div class="added">+ Be careful.</div>', '<div class="removed">- Solve a question'
    assert any(added in h and removed in h for h in html_bodies(at))
    assert any("Field instructions" in unescape(m.value) for m in at.markdown)


def test_use_a_run_as_an_example_then_save_it_as_a_version(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, CALC)
    at = ask(new_session(), "What is 6 * 7?")
    run_id = HistoryStore().list()[0].id
    go(at, "history")
    at.button(key=f"open-{run_id}").click().run()
    at.button(key="use-as-example").click().run()
    assert not at.exception, at.exception
    assert any(f"Run #{run_id} is now the last example" in unescape(s.value) for s in at.success)
    prompt = at.session_state.prompt
    assert prompt.example_sources == {"What is 6 * 7?": run_id}
    assert prompt.examples.endswith(
        "Question: What is 6 * 7?\nThought 1: I should compute it.\nAction 1: Calculator[6 * 7]\n"
        "Observation 1: 6 * 7 = 42\nThought 2: It is 42.\nAction 2: Finish[42]\n"
    )

    go(at, "settings")
    assert at.text_area(key="edit-examples").value == prompt.examples
    assert any(f"run #{run_id}: What is 6 * 7?" in unescape(c.value) for c in at.caption)
    assert not at.error, [e.value for e in at.error]
    at.button(key="save-version").click().run()
    saved = PresetStore().load("paper")
    assert saved.ref == "paper@2" and saved.example_sources == {"What is 6 * 7?": run_id}
    at.selectbox(key="diff-left").set_value("paper@1").run()
    at.selectbox(key="diff-right").set_value("paper@2").run()
    assert any("Example added: Question: What is 6 * 7?" in unescape(m.value) for m in at.markdown)
    assert any(c.value.startswith("Question: What is 6 * 7?") for c in at.code)  # the whole example


def test_a_run_without_an_answer_is_refused_as_an_example(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, ["Thought 1: Hmm.\nAction 1: Calculator[6 * 7]"])
    at = new_session()
    at.session_state.settings = {**at.session_state.settings, "max_calls": 1}
    at = ask(at, "What is 6 * 7?")
    go(at, "history")
    at.button(key=f"open-{HistoryStore().list()[0].id}").click().run()
    at.button(key="use-as-example").click().run()
    assert any("Only a run that ended with an answer" in unescape(e.value) for e in at.error)
    assert at.session_state.prompt is None


def test_history_filters_runs_by_the_prompt_version_they_used(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH, FINISH])
    at = ask(new_session(), "On the shipped prompt")
    go(at, "settings")
    _save_version(at, "Be careful.\n{tools}\n")
    go(at, "chat")
    ask(at, "On version 2")
    go(at, "history")
    first, second = [r.id for r in HistoryStore().list()][::-1]
    assert set(at.selectbox(key="history-version").options) >= {"paper@1 (1 run)", "paper@2 (1 run)"}
    at.selectbox(key="history-version").set_value("paper@2").run()
    assert [b.key for b in at.button if b.key and b.key.startswith("open-")] == [f"open-{second}"]
    at.selectbox(key="history-version").set_value("paper@1").run()
    assert [b.key for b in at.button if b.key and b.key.startswith("open-")] == [f"open-{first}"]


def test_dynamic_examples_send_the_most_similar_and_the_model_call_names_them(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, ["Thought 1: He was born in 1865.\nAction 1: Finish[1865]"])
    at = go(new_session(), "settings")
    at.number_input(key="edit-dynamic").set_value(1).run()
    assert at.session_state.prompt.dynamic_examples == 1
    at.button(key="save-version").click().run()
    assert PresetStore().load("paper").dynamic_examples == 1
    go(at, "chat")
    ask(at, "When was King George V born?")
    chosen = last_trace(at)["settings"]["examples_chosen"]
    assert chosen == ["Question: In which year was the King who made the 1925 Birthday Honours born?"]
    assert "Pierrepont Noyes" not in provider(at).requests[-1].system
    assert any("Dynamic examples: the 1 most like this question" in unescape(c.value) for c in open_panels(at).caption)


def test_a_fork_goes_on_from_the_exact_version_its_run_used(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [*CALC, "Thought 2: Spelled out.\nAction 2: Finish[forty-two]"])
    at = go(new_session(), "settings")
    _save_version(at, "Version two.\n{tools}\n")
    go(at, "chat")
    ask(at, "What is 6 * 7?")
    go(at, "settings")
    _save_version(at, "Version three.\n{tools}\n")  # newer than the run's: the fork must not take it
    at.query_params["run"] = str(HistoryStore().list()[0].id)
    go(at, "history")
    at.selectbox(key="fork-step-1").set_value(2).run()
    at.text_area(key="fork-text-1-2-thought").input("I should spell it out").run()
    at.button(key="fork-run").click().run()
    wait_idle(at)
    assert last_trace(at)["settings"]["prompt_version"] == "paper@2"
    assert provider(at).requests[-1].system.startswith("Version two.")


def test_a_version_keeps_the_tools_and_grammar_and_picking_it_brings_them_back(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    at = go(new_session(), "settings")
    at.checkbox(key="set-tool-lookup").uncheck().run()
    assert not at.button(key="save-version").disabled  # the prompt is the same, the setup is not: worth a version
    at.button(key="save-version").click().run()
    saved = PresetStore().load("paper@2")
    assert (saved.run_tools, saved.grammar) == (["search", "calculator"], True)
    at.checkbox(key="set-tool-lookup").check().run()
    at.selectbox(key="set-version").set_value("1").run()  # the shipped version says nothing: the settings stay
    assert at.session_state.settings["tools"] == ["search", "lookup", "calculator"]
    at.selectbox(key="set-version").set_value("2").run()
    assert at.session_state.settings["tools"] == ["search", "calculator"]
    assert at.checkbox(key="set-tool-lookup").value is False
    at.selectbox(key="diff-left").set_value("paper@1").run()
    at.selectbox(key="diff-right").set_value("paper@2").run()
    assert any('<div class="added">+ tools enabled = search, calculator</div>' in h for h in html_bodies(at))
    go(at, "chat")
    assert ask(at, "Anything?").session_state.chat["turns"][-1].trace.settings["tools"] == ["search", "calculator"]


def test_a_saved_version_can_be_evaluated(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [" I know.\nAction 1: Finish[yes]"])
    hotpot = load_preset("hotpotqa-react")
    PresetStore().save_version(replace(hotpot, instructions=hotpot.instructions + "\nBe brief.\n"), "hotpotqa-react")
    at = go(new_session(), "evaluate")
    at.selectbox(key="eval-dataset").set_value("dev_distractor_first100.json")
    at.number_input(key="eval-limit").set_value(1)
    at.multiselect(key="eval-strategies").set_value(["react"]).run()
    assert at.selectbox(key="eval-preset-react").value == "hotpotqa-react"  # its newest version: hotpotqa-react@2
    at.button(key="eval-run").click().run()
    assert at.session_state.eval_job.wait(30)
    out = Path(at.session_state.eval_job.snapshot()["out_dir"])
    assert read_file(out / "react.jsonl")[1][0]["trace"]["settings"]["prompt_version"] == "hotpotqa-react@2"


def test_a_version_file_nested_hundreds_of_levels_deep_is_refused_in_one_line(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    at = go(new_session(), "settings")
    deep = 'dialect = "paper"\nx = ' + "[" * 700 + "]" * 700 + "\n"
    at.file_uploader(key="import-version-file").upload("deep.toml", deep.encode(), "application/toml").run()
    at.button(key="import-version").click().run()
    assert not at.exception, at.exception
    said = [unescape(e.value) for e in at.error]
    assert said == ["The file was not imported: the TOML is nested deeper than 32 levels."]
    assert [n for n, _, _ in PresetStore().versions("paper")] == [1]


def test_an_edited_example_is_marked_where_it_changed_and_a_label_points_at_the_newest(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    at = go(new_session(), "settings")
    assert at.selectbox(key="label-version").value == 1  # the panel drawn while there is one version
    examples = at.text_area(key="edit-examples").value
    at.text_area(key="edit-examples").input(examples.replace("Thought 2:", "Thought 2: Hmm,", 1)).run()
    at.button(key="save-version").click().run()
    assert not at.exception, at.exception
    # The label goes on the version just saved unless the person picks another (before: still v1).
    assert at.selectbox(key="label-version").value == 2
    at.selectbox(key="diff-left").set_value("paper@1").run()
    at.selectbox(key="diff-right").set_value("paper@2").run()
    assert any("Example changed" in unescape(m.value) for m in at.markdown)
    assert not any("Thought 2: Hmm," in c.value for c in at.code)  # not two whole examples side by side
    (marked,) = [h for h in html_bodies(at) if "Hmm," in h]
    assert marked.count('<div class="removed">') == 1 and marked.count('<div class="added">') == 1
    assert "<ins> Hmm,</ins>" in marked and marked.count('<div class="same">') > 3

    at.session_state["versions-panel"] = True  # the panel open, as a person opened it
    at.text_input(key="label-name").input("lesson-step-2").run()
    at.button(key="move-label").click().run()
    assert PresetStore().labels("paper") == {"lesson-step-2": 2}
    assert at.session_state["versions-panel"] is True  # still open after the rerun
    said = [unescape(s.value) for s in at.expander(key="versions-panel").success]
    assert said == ["Label lesson-step-2 now points at paper@2."]  # in the panel, beside the button


def test_use_as_example_warns_about_an_edited_step_and_says_what_happens_to_an_imported_run(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [*CALC, "Thought 2: It is 42.\nAction 2: Finish[42]"])
    at = go(ask(new_session(), "What is 6 * 7?"), "history")
    at.button(key="open-1").click().run()
    at.radio(key="fork-field-1").set_value("observation").run()
    at.text_area(key="fork-text-1-1-observation").input("6 * 7 = 42, as the teacher says").run()
    at.button(key="fork-run").click().run()
    wait_idle(at)
    at.query_params["run"] = "2"  # the link under the fork's answer
    at = go(at, "history")
    said = [unescape(w.value) for w in at.warning]
    assert any(w.startswith("Step 1's observation was edited by hand in a fork") for w in said), said
    assert any(w.startswith("The answer is unverified") for w in said)
    assert at.button(key="use-as-example").label == "Append it anyway"  # before: taken at once, no warning
    at.button(key="use-as-example").click().run()
    assert at.session_state.prompt.example_sources == {"What is 6 * 7?": 2}  # still the person's choice to make

    exported = HistoryStore().get(1).trace
    exported.settings.update(preset="mine", prompt_version="mine@3")  # a prompt on another machine
    at.button(key="close-run").click().run()
    at.file_uploader(key="import-file").upload("run.json", to_json(exported).encode(), "application/json").run()
    at.button(key="import-run").click().run()
    assert not at.exception, at.exception
    said = [unescape(w.value) for w in at.warning]
    assert any(w.startswith("This run was imported from a file: its question and steps are written") for w in said)
    # The fork form says the same plainly, instead of "… so it cannot be used again".
    assert any(w.startswith("This run was imported from a file, so the prompt it ran with") for w in said), said
    assert not any("cannot be used again" in w for w in said)


def test_a_label_is_removed_from_the_panel_and_its_version_stays(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    at = go(new_session(), "settings")
    _save_version(at, "Be careful.\n{tools}\n")
    at.text_input(key="label-name").input("lesson-step-1").run()
    at.selectbox(key="label-version").set_value(1).run()
    at.button(key="move-label").click().run()
    assert PresetStore().labels("paper") == {"lesson-step-1": 1}

    at.text_input(key="label-name").input("no-such-label").run()
    at.button(key="remove-label").click().run()
    assert any("has no label no-such-label" in unescape(w.value) for w in at.warning)
    assert PresetStore().labels("paper") == {"lesson-step-1": 1}  # a mistyped name removes nothing

    at.text_input(key="label-name").input("lesson-step-1").run()
    at.button(key="remove-label").click().run()
    assert PresetStore().labels("paper") == {}
    assert any("Label lesson-step-1 removed from paper" in unescape(s.value) for s in at.success)
    assert [n for n, _, _ in PresetStore().versions("paper")] == [1, 2]  # the versions stay
    assert "lesson-step-1" not in at.selectbox(key="set-version").options
