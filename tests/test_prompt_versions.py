"""Prompt versions in the engine: the address parser (hostile names included), versions that never change, labels that
move, a shipped preset as version 1 of its line, each owner's versions their own, the diff with whole examples, one
TOML file out and back in (and refused with the reason and the line), preset files adopted as version 1, a run that
records its version, and a run written back as an example in every text dialect."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from react_core import RunSettings, ask
from react_core.base.errors import ConfigError
from react_core.base.trace import Action, Observation, Step, Trace
from react_core.base.trace_schema import parse_trace_json
from react_core.presets.diff import ADDED, CHANGED, REMOVED, SAME, diff_versions, mark_lines, split_examples
from react_core.presets.edit import PromptEdit
from react_core.presets.preset import dump_preset, list_presets, load_preset, preset_from_toml
from react_core.presets.store import PresetStore
from react_core.presets.versions import VersionRef, export_version, import_version


@pytest.fixture(autouse=True)
def own_history(tmp_path, monkeypatch):
    """Each test its own history store and presets folder."""
    monkeypatch.setenv("REACT_HISTORY_DB", str(tmp_path / "history.sqlite"))
    monkeypatch.setenv("REACT_PRESETS_DIR", str(tmp_path / "no-presets"))


TEXT_PRESETS = ("paper", "gemini-xml", "langchain-json", "pause", "function-call", "mrkl")


def edited(name: str = "paper", line: str = "Be brief.") -> object:
    preset = load_preset(name)
    return replace(preset, instructions=preset.instructions + f"\n{line}\n")


# -- addresses -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ref"),
    [
        ("paper", VersionRef("paper")),
        ("paper@3", VersionRef("paper", number=3)),
        (" my.prompt_2@best-on-gemma ", VersionRef("my.prompt_2", label="best-on-gemma")),
        ("x@lesson-step-2", VersionRef("x", label="lesson-step-2")),
    ],
)
def test_an_address_is_a_name_a_number_or_a_label(text, ref):
    assert VersionRef.parse(text) == ref and VersionRef.parse(str(ref)) == ref
    # What the version chooser shows beside the line: the number, the label, or '' for the newest.
    assert VersionRef.parse(text).choice == {"paper": "", "paper@3": "3", "x@lesson-step-2": "lesson-step-2"}.get(
        text.strip(), "best-on-gemma"
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "@3",
        "paper@",
        "paper@0",
        "paper@-1",
        "paper@03",
        "paper@٣",  # an Arabic-Indic digit: str.isdigit() says yes, a version number it is not
        "paper@3x",
        "paper@1@2",
        "paper@99999999999",
        "../etc/passwd",
        "a/b",
        "pa\nper",
        "paper@be\nst",
        "pa per",
        "nul\x00",
        "-leading-dash",
        "x" * 65,
        "paper@" + "l" * 65,
        "paper@lab el",
        "paper@'; DROP TABLE runs; --",
    ],
)
def test_a_hostile_address_is_refused_with_a_reason(text):
    with pytest.raises(ConfigError):
        VersionRef.parse(text)
    with pytest.raises(ConfigError):  # nor taken as a line's name by the version chooser
        VersionRef.of(text, 1)


# -- versions and labels ---------------------------------------------------------------------------------------


def test_saving_adds_a_version_and_never_changes_one():
    store = PresetStore()
    assert store.load("paper").ref == "paper@1"  # a shipped preset is version 1 of its own line, not stored
    first = store.save_new(edited(line="One."), "mine")
    second = store.save_version(edited(line="Two."), "mine")
    assert (first, second) == ("mine@1", "mine@2")
    assert store.load("mine@1").instructions.endswith("One.\n")  # unchanged by the second save
    assert store.load("mine").ref == "mine@2" and store.load("mine").instructions.endswith("Two.\n")
    assert [n for n, _, _ in store.versions("mine")] == [1, 2]
    with pytest.raises(ConfigError, match="already one of your prompts"):
        store.save_new(edited(), "mine")


def test_a_shipped_line_goes_on_at_version_2_and_its_file_stays():
    store = PresetStore()
    assert store.save_version(edited(), "paper") == "paper@2"
    assert store.load("paper@1").builtin and store.load("paper@1").instructions == load_preset("paper").instructions
    assert [n for n, _, _ in store.versions("paper")] == [1, 2]


def test_labels_point_at_one_version_and_move():
    store = PresetStore()
    store.save_new(edited(line="One."), "mine")
    store.save_version(edited(line="Two."), "mine")
    store.move_label("mine", "lesson-step-2", 1)
    assert store.load("mine@lesson-step-2").ref == "mine@1"
    store.move_label("mine", "lesson-step-2", 2)
    assert store.load("mine@lesson-step-2").ref == "mine@2" and store.labels("mine") == {"lesson-step-2": 2}
    # Every version's address, then every label's: what the choosers offer, written by VersionRef alone.
    assert store.addresses("mine") == ["mine@1", "mine@2"]
    assert store.addresses("mine", labels=True) == ["mine@1", "mine@2", "mine@lesson-step-2"]
    assert [str(VersionRef.of("mine", choice)) for choice in ("", 2, "lesson-step-2")] == [
        "mine",
        "mine@2",
        "mine@lesson-step-2",
    ]
    store.move_label("paper", "baseline", 1)  # a shipped version can carry a label too
    assert store.load("paper@baseline").builtin
    with pytest.raises(ConfigError, match="no prompt version mine@3"):
        store.move_label("mine", "best", 3)
    with pytest.raises(ConfigError, match="not a label"):
        store.move_label("mine", "3", 1)
    with pytest.raises(ConfigError, match="no label 'gone'"):
        store.load("mine@gone")
    with pytest.raises(ConfigError, match="no prompt version mine@9"):
        store.load("mine@9")


def test_a_version_that_does_not_check_is_not_saved():
    broken = replace(load_preset("paper"), examples="Question: q\nThought 1: go\nAction 1: Fly[away]\n")
    with pytest.raises(ConfigError, match="Fly is not a tool"):
        PresetStore().save_version(broken, "paper")
    assert PresetStore().load("paper").ref == "paper@1"


def test_each_person_has_their_own_versions_and_labels():
    ann, bob = PresetStore("ann@example.org"), PresetStore("bob@example.org")
    ann.save_new(edited(line="Ann's."), "shared")
    bob.save_new(edited(line="Bob's."), "shared")
    ann.save_version(edited(line="Ann's again."), "shared")
    ann.move_label("shared", "best", 1)
    assert bob.load("shared").ref == "shared@1" and bob.load("shared").instructions.endswith("Bob's.\n")
    assert bob.labels("shared") == {} and "shared" not in PresetStore().names()
    with pytest.raises(ConfigError):
        bob.load("shared@2")


def test_local_preset_files_become_version_1_of_their_lines(tmp_path, monkeypatch):
    folder = tmp_path / "presets"
    folder.mkdir()
    monkeypatch.setenv("REACT_PRESETS_DIR", str(folder))
    (folder / "old-one.toml").write_text(dump_preset(edited(line="From a file.")), encoding="utf-8")
    store = PresetStore()
    assert "old-one" in store.names()
    assert store.load("old-one").ref == "old-one@1" and store.load("old-one").instructions.endswith("file.\n")
    assert store.save_version(edited(line="Next."), "old-one") == "old-one@2"
    assert [note for _, _, note in store.versions("old-one")][0] == "adopted from the presets folder"


# -- a run records its version -----------------------------------------------------------------------------------


def test_a_run_records_the_version_it_used_and_older_traces_still_read(tmp_path):
    store = PresetStore()
    store.save_new(edited(), "mine")
    store.save_version(edited(line="Second."), "mine")
    store.move_label("mine", "best", 1)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["Thought 1: Easy.\nAction 1: Finish[4]"] * 3), encoding="utf-8")
    settings = RunSettings(provider="scripted", script=str(script), tools=["calculator"])
    assert ask("2+2?", settings.updated(preset="mine@best")).settings["prompt_version"] == "mine@1"
    assert ask("2+2?", settings.updated(preset="mine")).settings["prompt_version"] == "mine@2"
    assert ask("2+2?", settings).settings["prompt_version"] == "paper@1"
    old = Trace(question="q", settings={"provider": "scripted", "preset": "paper"}).to_dict()
    assert "prompt_version" not in parse_trace_json(json.dumps(old)).settings
    with pytest.raises(ConfigError, match="prompt_version"):
        parse_trace_json(json.dumps({**old, "settings": {"prompt_version": 3}}))


# -- diff ---------------------------------------------------------------------------------------------------------


def test_the_diff_shows_examples_added_removed_and_changed_whole():
    old = load_preset("paper")
    examples = split_examples(old.examples)
    assert len(examples) == 3 and all(e.startswith("Question:") for e in examples)
    changed = examples[1].replace("Thought 1:", "Thought 1: First,", 1)
    added = "Question: What is 2+2?\nThought 1: Compute.\nAction 1: Finish[4]"
    new = replace(old, examples="\n".join([changed, examples[2], added]) + "\n", question="Q: {question}\n")
    diff = diff_versions(old, new, "paper@1", "paper@2")
    kinds = {c.kind: c for c in diff.examples}
    assert [c.kind for c in diff.examples] == [REMOVED, CHANGED, ADDED] and diff.unchanged_examples == 1
    assert kinds[REMOVED].old == examples[0] and kinds[ADDED].new == added  # whole examples
    assert kinds[CHANGED].old == examples[1] and kinds[CHANGED].new == changed
    assert any(line.startswith("+") and "First," in line for line in kinds[CHANGED].lines)
    assert [f.field for f in diff.fields] == ["question"]
    assert "-Question: {question}" in diff.fields[0].lines and "+Q: {question}" in diff.fields[0].lines
    assert diff_versions(old, old).same


def test_one_edited_line_of_a_long_example_is_marked_with_the_words_that_changed():
    lines = [f"Observation {n}: line {n} of a long worked example." for n in range(1, 31)]
    edited = list(lines)
    edited[16] = "Observation 17: line 17 of a short worked example."
    marked = mark_lines("\n".join(lines), "\n".join(edited))
    assert [m.kind for m in marked].count(SAME) == 29  # every other line kept, and said to be
    changed = [m for m in marked if m.kind != SAME]
    assert [(m.kind, m.text) for m in changed] == [(REMOVED, lines[16]), (ADDED, edited[16])]
    assert [s.text for s in changed[0].spans if s.kind == REMOVED] == ["long"]  # the word, not the line
    assert [s.text for s in changed[1].spans if s.kind == ADDED] == ["short"]
    # Lines added or removed whole are marked whole; the order is the new text's, removed lines where they stood.
    whole = mark_lines("a\nb\nc", "a\nc\nd")
    assert [(m.kind, m.text, len(m.spans)) for m in whole] == [
        (SAME, "a", 1),
        (REMOVED, "b", 1),
        (SAME, "c", 1),
        (ADDED, "d", 1),
    ]
    assert mark_lines("", "x") == [m for m in mark_lines("", "x") if m.kind == ADDED]


def test_a_changed_example_and_a_field_come_marked_too():
    old = load_preset("paper")
    examples = split_examples(old.examples)
    changed = examples[1].replace("Thought 1:", "Thought 1: First,", 1)
    new = replace(old, examples="\n".join([examples[0], changed, examples[2]]) + "\n", instructions="Be brief.\n")
    diff = diff_versions(old, new)
    (change,) = diff.examples
    assert len(change.marked) == len(examples[1].split("\n")) + 1  # the whole example, one line as before and after
    assert [s.text for m in change.marked for s in m.spans if s.kind == ADDED] == [" First,"]
    (field,) = diff.fields
    assert ("Be brief.", ADDED) in [(m.text, m.kind) for m in field.marked]


def test_xml_examples_are_told_apart_by_their_question_on_the_next_line():
    old = load_preset("gemini-xml")
    examples = split_examples(old.examples)
    new = replace(old, examples="\n\n".join(examples[1:]) + "\n")
    diff = diff_versions(old, new)
    assert [c.kind for c in diff.examples] == [REMOVED] and diff.examples[0].old == examples[0]


# -- one file out and in ----------------------------------------------------------------------------------------


def test_a_version_goes_out_as_one_toml_file_and_comes_back_the_same():
    store = PresetStore()
    store.save_new(replace(edited(), example_sources={"Question: x": 12}), "mine")
    name, text = store.export("mine")
    assert name == "mine-v1.toml" and text.startswith("# ReAct Lab prompt version mine@1\n")
    again = import_version(text, "copy")
    fields = ("dialect", "mode", "instructions", "examples", "question", "tools", "example_sources")
    assert {f: getattr(again, f) for f in fields} == {f: getattr(store.load("mine"), f) for f in fields}
    assert PresetStore("ann").import_file(text.encode(), "mine") == "mine@1"


def test_an_import_that_does_not_parse_is_refused_with_the_reason_and_the_line():
    text = export_version(load_preset("paper"), "paper@1")
    with pytest.raises(ConfigError, match=r"not valid TOML: .*line 3"):
        import_version("# a\ntitle = 'x'\ndialect = \n", "x")
    bad = text.replace("Action 2: Search[Oneida Limited]", "Action 2: Fly[Oneida Limited]")
    line = bad.split("\n").index("Action 2: Fly[Oneida Limited]") + 1
    with pytest.raises(ConfigError, match=rf"line {line}: Fly is not a tool"):
        import_version(bad, "x")
    with pytest.raises(ConfigError, match="needs dialect"):
        import_version("title = 'x'\n", "x")
    with pytest.raises(ConfigError, match="not UTF-8"):
        import_version(b"\xff\xfe", "x")
    with pytest.raises(ConfigError, match="not a prompt name"):
        import_version(text, "../x")
    with pytest.raises(ConfigError, match="question = run id"):
        preset_from_toml(text + "\n[example_sources]\n'Question: q' = 'seven'\n", "x", where="x")


DEEP = {
    "array": lambda n: "x = " + "[" * n + "]" * n,
    "inline table": lambda n: "x = " + "{a = " * n + "1" + "}" * n,
    "dotted key": lambda n: ".".join(["a"] * n) + " = 1",
    "table header": lambda n: "[" + ".".join(["a"] * n) + "]",
}


@pytest.mark.parametrize("levels", [33, 700])
@pytest.mark.parametrize("form", DEEP)
def test_a_toml_file_nested_too_deep_is_refused_in_one_line_wherever_a_prompt_is_read(form, levels, tmp_path):
    text = 'dialect = "paper"\n' + DEEP[form](levels) + "\n"
    refused = "nested deeper than 32 levels."
    with pytest.raises(ConfigError, match=f"^The file was not imported: the TOML is {refused}$"):
        import_version(text, "deep")
    with pytest.raises(ConfigError, match=f"^The file was not imported: the TOML is {refused}$"):
        PresetStore().import_file(text.encode(), "deep")
    folder = tmp_path / "no-presets"  # a file in the presets folder: listed on every page, adopted as a line
    folder.mkdir()
    (folder / "deep.toml").write_text(text, encoding="utf-8")
    assert "deep" in list_presets() and "deep" not in PresetStore().names()  # the lists still read; not adopted
    with pytest.raises(ConfigError, match=f"^Preset {re.escape(str(folder))}/deep.toml was refused: the TOML is"):
        load_preset("deep")


# -- a run as an example ------------------------------------------------------------------------------------------


RUN = Trace(
    question="What is 17 * 23?",
    steps=[
        Step(1, thought="I should compute it.", action=Action("calculator", "17 * 23"), observation=Observation("391")),
        Step(2, thought="The product is 391.", final_answer="391"),
    ],
    final_answer="391",
    stop_reason="finished",
)


@pytest.mark.parametrize("name", TEXT_PRESETS)
def test_a_run_becomes_an_example_in_the_prompts_own_dialect(name):
    preset = load_preset(name)
    new = PromptEdit(preset).with_run(RUN, 42)
    assert new.examples.startswith(preset.examples.rstrip("\n")) and new.version == 0
    added = [c for c in diff_versions(preset, new).examples]
    assert [c.kind for c in added] == [ADDED] and "391" in added[0].new and "17 * 23" in added[0].new
    assert new.example_sources == {"What is 17 * 23?": 42}
    again = preset_from_toml(dump_preset(new), "x", where="x")  # the source survives a save
    assert again.example_sources == {"What is 17 * 23?": 42} and again.examples == new.examples


def test_a_run_without_an_answer_or_with_an_unreadable_step_is_no_example():
    unfinished = replace(RUN, steps=RUN.steps[:1], final_answer=None, stop_reason="max_calls")
    with pytest.raises(ConfigError, match="ended with an answer"):
        PromptEdit(load_preset("paper")).with_run(unfinished, 1)
    unreadable = replace(RUN, steps=[Step(1, thought="hmm", raw_output="hmm"), RUN.steps[1]])
    with pytest.raises(ConfigError, match="Step 1 has no readable action"):
        PromptEdit(load_preset("paper")).with_run(unreadable, 1)
    with pytest.raises(ConfigError, match="Run #5 written as an example does not check"):
        flying = Step(1, thought="Fly there.", action=Action("fly", "Paris"), observation=Observation("?"))
        PromptEdit(load_preset("paper")).with_run(replace(RUN, steps=[flying, RUN.steps[1]]), 5)


def test_a_version_keeps_its_agent_setup_in_a_run_table():
    setup = replace(load_preset("paper"), run_tools=["search", "calculator"], grammar=False)
    again = preset_from_toml(dump_preset(setup), "x", where="x")
    assert (again.run_tools, again.grammar) == (["search", "calculator"], False)
    shipped = preset_from_toml(dump_preset(load_preset("paper")), "x", where="x")
    assert (shipped.run_tools, shipped.grammar) == (None, None) and "[run]" not in dump_preset(load_preset("paper"))
    diff = diff_versions(load_preset("paper"), setup)
    assert [f.field for f in diff.fields] == ["run"] and "+grammar = off" in diff.fields[0].lines
    base = dump_preset(load_preset("paper"))
    for bad, reason in (
        ("[run]\ntools = ['fly']\n", "not among"),
        ("[run]\ntools = 'search'\n", "not among"),
        ("[run]\ngrammar = 'yes'\n", "true or false"),
        ("run = 3\n", "not a \\[run\\] table"),
    ):
        text = bad + base if bad.startswith("run =") else base + "\n" + bad
        with pytest.raises(ConfigError, match=reason):
            preset_from_toml(text, "x", where="x")


def test_a_version_runs_as_it_says_and_one_that_does_not_say_runs_as_the_defaults():
    shipped = load_preset("paper")  # keeps no agent setup: the settings' defaults run it as it is
    assert shipped.runs_as(["lookup", "search", "calculator"], True)
    assert not shipped.runs_as(["search"], True) and not shipped.runs_as(["search", "lookup", "calculator"], False)
    kept = shipped.with_setup(["calculator", "search"], False)
    assert kept.run_tools == ["search", "calculator"] and kept.grammar is False  # in the tools' own order
    assert kept.runs_as(["search", "calculator"], False) and not kept.runs_as(["search", "calculator"], True)
