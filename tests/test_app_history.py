"""The History page in AppTest: saved runs listed and searchable, opened with their panels, exported, deleted,
imported from JSON, forked from an edited step, and compared side by side (the arena's view)."""

from __future__ import annotations

import json

from app_helpers import (
    ask,
    expander_labels,
    fork_thought,
    go,
    new_session,
    provider,
    reload,
    run_headers,
    unescape,
    use_app,
    wait_idle,
)

from react_core.history import HistoryStore
from react_core.report.exports import to_json
from react_core.telemetry.otlp_json import to_otlp_json

CALC = [
    "Thought 1: Multiply first.\nAction 1: Calculator[6 * 7]",
    "Thought 2: It is 42.\nAction 2: Finish[42]",
]


def _two_runs(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [*CALC, "Thought 1: Square it.\nAction 1: Calculator[9 ** 2]", "Thought 2: Done.\nAction 2: Finish[81]"],
    )
    at = ask(new_session(), "What is 6 * 7?")
    return ask(at, "What is 9 squared?")


def test_runs_are_listed_newest_first_and_searchable(monkeypatch, tmp_path):
    at = go(_two_runs(monkeypatch, tmp_path), "history")
    assert [b.key for b in at.button if b.key and b.key.startswith("open-")] == ["open-2", "open-1"]
    at.text_input(key="history-query").input("squared").run()
    assert [b.key for b in at.button if b.key and b.key.startswith("open-")] == ["open-2"]
    at.text_input(key="history-query").input("no such words anywhere").run()
    assert any("No runs match" in i.value for i in at.info)


def test_open_a_run_to_read_its_panels_export_and_delete_it(monkeypatch, tmp_path):
    at = go(_two_runs(monkeypatch, tmp_path), "history")
    at.button(key="open-1").click().run()
    assert expander_labels(at)[:2] == ["Step 1 · Calculator[6 * 7]", "Step 2 · Finish[42]"]
    assert run_headers(at)[0].label.startswith("Answered · 2 steps")
    assert [d.label for d in at.get("download_button")] == [
        "Export JSON",
        "Export Markdown",
        "Export HTML",
        "Export ATIF",
        "Export OpenTelemetry (OTLP/JSON)",
        "Download the script (JSON)",  # Save as script: its model replies, to replay offline
        "Download HTML",  # the Compare tab's, of the two runs it shows side by side
    ]
    assert at.checkbox(key="otel-content").value is False  # messages only when the person includes them

    at.button(key="delete-run").click().run()
    assert any("Deleted run #1" in s.value for s in at.success)
    assert [r.id for r in HistoryStore().list()] == [2]
    assert at.session_state.history_open is None


def test_import_a_json_trace_and_refuse_a_file_that_is_not_one(monkeypatch, tmp_path):
    at = _two_runs(monkeypatch, tmp_path)
    trace = HistoryStore().get(1).trace
    trace.final_answer = "another answer"  # a run this history does not hold yet
    exported = to_json(trace).encode()
    go(at, "history")
    at.file_uploader(key="import-file").upload("run.json", exported, "application/json").run()
    at.button(key="import-run").click().run()
    assert any("Imported as run #3" in s.value for s in at.success)
    record = HistoryStore().get(3)
    assert record.origin == "import" and record.trace.to_dict() == json.loads(exported)
    assert at.session_state.history_open == 3

    # The export of a run already there is not stored twice: the page names that run and opens it.
    at.button(key="close-run").click().run()
    at.file_uploader(key="import-file").upload("run.json", to_json(HistoryStore().get(1).trace).encode()).run()
    at.button(key="import-run").click().run()
    assert any("already in History as run #1" in i.value for i in at.info) and not at.success
    assert HistoryStore().count() == 3 and at.session_state.history_open == 1

    at.button(key="close-run").click().run()
    at.file_uploader(key="import-file").set_value(("bad.json", b'{"not": "a trace"}', "application/json")).run()
    at.button(key="import-run").click().run()
    assert any("Not a ReAct Lab trace" in unescape(e.value) for e in at.error)
    assert HistoryStore().count() == 3


def test_import_an_opentelemetry_file_and_name_what_it_could_not_keep(monkeypatch, tmp_path):
    at = _two_runs(monkeypatch, tmp_path)
    trace = HistoryStore().get(1).trace
    go(at, "history")
    # This app's export with messages: the run already there.
    at.file_uploader(key="import-file").upload(
        "run.otlp.json", to_otlp_json(trace, include_content=True).encode()
    ).run()
    at.button(key="import-run").click().run()
    assert any("already in History as run #1" in i.value for i in at.info)
    # Without messages: the run's shape, and the page says what the file did not hold.
    at.button(key="close-run").click().run()
    at.file_uploader(key="import-file").upload("run.otlp.json", to_otlp_json(trace).encode()).run()
    at.button(key="import-run").click().run()
    said = " ".join(unescape(s.value) for s in at.success)
    assert "Imported as run #3" in said and "Not kept from the file: the question, thoughts" in said
    assert expander_labels(at)[:2] == ["Step 1 · Calculator[]", "Step 2 · (no action)"]


def test_files_nested_far_too_deep_are_refused_in_one_line(monkeypatch, tmp_path):
    at = _two_runs(monkeypatch, tmp_path)
    deep = "[" * 100_000 + "]" * 100_000
    otlp = json.loads(to_otlp_json(HistoryStore().get(1).trace, include_content=True))
    for span in otlp["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for a in span["attributes"]:
            if a["key"] == "reactlab.step":
                a["value"] = {"stringValue": '{"index": 1, "x": ' + deep + "}"}
    go(at, "history")
    for name, data in [("trace.json", '{"question": "q", "x": ' + deep + "}"), ("run.otlp.json", json.dumps(otlp))]:
        at.file_uploader(key="import-file").upload(name, data.encode(), "application/json").run()
        at.button(key="import-run").click().run()
        assert not at.exception, at.exception
        assert any("nested deeper than 32 levels." in unescape(e.value) for e in at.error), name
    assert HistoryStore().count() == 2


def test_another_tools_run_is_imported_and_drawn_as_steps(monkeypatch, tmp_path):
    from otel_helpers import smolagents_run

    use_app(monkeypatch, tmp_path, CALC)
    at = go(new_session(), "history")
    at.file_uploader(key="import-file").upload("smolagents.json", smolagents_run().encode()).run()
    at.button(key="import-run").click().run()
    said = " ".join(unescape(s.value) for s in at.success)
    assert "Imported as run #1" in said and "Step 1, Step 2" in said and not at.exception
    labels = expander_labels(at)
    assert labels[:2] == ["Step 1 · Web_search[capital of France]", "Step 2 · Finish[Paris]"], labels
    assert run_headers(at)[0].label.startswith("Answered · 2 steps")


def test_fork_edits_a_thought_and_reruns_from_that_step_in_chat(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [*CALC, "Thought 2: so the answer is forty-two.\nAction 2: Finish[forty-two]"])
    at = go(ask(new_session(), "What is 6 * 7?"), "history")
    at.button(key="open-1").click().run()
    fork_thought(at, 1, 2, "I should spell the number out")

    turn = at.session_state.chat["turns"][-1]
    assert turn.label == "Fork of run #1 from step 2 (thought edited)"
    prompt = provider(at).requests[-1].prompt
    assert prompt.endswith("Thought 2: I should spell the number out")  # the model continues the edited thought
    assert "Observation 1: 6 * 7 = 42" in prompt  # the steps before it are kept
    assert turn.trace.final_answer == "forty-two"
    fork = HistoryStore().get(turn.history_id)
    assert (fork.parent_id, fork.fork_step, fork.origin) == (1, 2, "fork")


def test_fork_with_an_edited_observation_keeps_that_step_and_goes_on(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [*CALC, "Thought 2: The tool says 41.\nAction 2: Finish[41]"])
    at = go(ask(new_session(), "What is 6 * 7?"), "history")
    at.button(key="open-1").click().run()
    at.radio(key="fork-field-1").set_value("observation").run()
    at.text_area(key="fork-text-1-1-observation").input("6 * 7 = 41").run()
    at.button(key="fork-run").click().run()
    wait_idle(at)

    steps = at.session_state.chat["turns"][-1].trace.to_dict()["steps"]
    assert steps[0]["observation"]["text"] == "6 * 7 = 41"
    assert steps[0]["observation"]["note"] == "Edited by hand in a fork."
    assert "Observation 1: 6 * 7 = 41" in provider(at).requests[-1].prompt
    assert steps[1]["final_answer"] == "41"
    restored = reload(at).session_state.chat["turns"]  # the fork's own conversation, its label made again
    assert [t.label for t in restored] == ["Fork of run #1 from step 1 (observation edited)"]


def test_compare_two_runs_side_by_side_step_by_step(monkeypatch, tmp_path):
    at = go(_two_runs(monkeypatch, tmp_path), "history")
    assert at.multiselect(key="cmp-runs").value == [1, 2]  # the two newest, the older on the left
    labels = expander_labels(at)
    assert labels == [
        "Step 1 · Calculator[6 * 7]",
        "Step 1 · Calculator[9 ** 2]",
        "Step 2 · Finish[42]",
        "Step 2 · Finish[81]",
    ]
    assert any("These runs used the same settings" in c.value for c in at.caption)


def _compare(at, runs: list[int]):
    at = go(at, "history")
    at.multiselect(key="cmp-runs").set_value(runs).run()
    assert not at.exception, at.exception
    return at


def test_compare_shows_a_forks_edited_observation_as_the_difference_where_it_was_made(monkeypatch, tmp_path):
    # The fork's model takes the same actions as the original's: only the hand-edited observation differs.
    use_app(monkeypatch, tmp_path, [*CALC, "Thought 2: It is 42.\nAction 2: Finish[42]"])
    at = go(ask(new_session(), "What is 6 * 7?"), "history")
    at.button(key="open-1").click().run()
    at.radio(key="fork-field-1").set_value("observation").run()
    at.text_area(key="fork-text-1-1-observation").input("6 * 7 = 42 (checked by the teacher)").run()
    at.button(key="fork-run").click().run()
    wait_idle(at)

    at = _compare(at, [1, 2])
    marks = [unescape(m.value) for m in at.markdown]
    mark = "First difference: step 1, where #2's observation was edited by hand in a fork"
    assert any(mark in m for m in marks), marks  # before: "Every column took the same actions."
    assert not any("Every column took the same actions" in unescape(c.value) for c in at.caption)
    assert "✎ Observation edited by hand in a fork" in [unescape(c.value) for c in at.caption]
    table = next(m for m in marks if m.startswith("| setting |"))
    assert "| edited by hand | — | step 1's observation, edited by hand in a fork |" in table
    # The edit is read where it was made: that row opens in both columns, the tool's observation beside the person's.
    assert "Observation as this run recorded it" in [unescape(c.value) for c in at.caption]
    opened = [e for e in at.expander if e.label.startswith("Step 1 ·") and e.proto.expanded]
    assert len(opened) == 2
    texts = [t.value for t in at.text]
    assert "6 * 7 = 42" in texts and "6 * 7 = 42 (checked by the teacher)" in texts


def test_compare_shows_a_forks_edited_thought_even_when_its_actions_are_the_same(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [*CALC, " so it is 42.\nAction 2: Finish[42]"])
    at = go(ask(new_session(), "What is 6 * 7?"), "history")
    at.button(key="open-1").click().run()
    at.selectbox(key="fork-step-1").set_value(2).run()
    at.text_area(key="fork-text-1-2-thought").input("Six sevens").run()
    at.button(key="fork-run").click().run()
    wait_idle(at)

    at = _compare(at, [1, 2])
    marks = [unescape(m.value) for m in at.markdown]
    assert any("First difference: step 2, where #2's thought was edited by hand in a fork" in m for m in marks)
    assert "✎ Thought edited by hand in a fork" in [unescape(c.value) for c in at.caption]
    # A setting one run did not record reads as a dash, not "None".
    assert not any("None" in m for m in marks if m.startswith("| setting |"))
