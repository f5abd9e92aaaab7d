"""An imported run on its own History page: exported as ATIF; another tool's trajectory (ATIF) or spans (OTLP)
imported, its page saying where it came from and never claiming this app's settings as its own (the header, the fork
form, the model-call note, the evidence badge), and forked and run again from any step."""

from __future__ import annotations

import json

import pytest
from app_helpers import ask, fork_thought, go, markdowns, new_session, open_panels, provider, unescape, use_app
from test_atif import terminus_trajectory

from react_core.history import HistoryStore
from react_core.telemetry.imports import read_trace_file

CALC = [
    "Thought 1: Multiply first.\nAction 1: Calculator[6 * 7]",
    "Thought 2: It is 42.\nAction 2: Finish[42]",
]


def _captions(at) -> list[str]:
    return [unescape(c.value) for c in at.caption]


def _import(at, name: str, data: str):
    at.file_uploader(key="import-file").upload(name, data.encode(), "application/json").run()
    at.button(key="import-run").click().run()
    assert not at.exception, at.exception
    return at


def test_a_run_exports_as_atif_and_that_file_imports_as_the_same_run(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, CALC)
    at = go(ask(new_session(), "What is 6 * 7?"), "history")
    at.button(key="open-1").click().run()
    record = HistoryStore().get(1)
    assert "Export ATIF" in [b.label for b in at.get("download_button")]
    assert read_trace_file(_atif_of(record)).trace.to_dict() == record.trace.to_dict()
    at.button(key="close-run").click().run()
    _import(at, "run.atif.json", _atif_of(record))
    assert any("already in History as run #1" in i.value for i in at.info)


def _atif_of(record) -> str:
    from react_core import RunExport

    return RunExport(record.trace, conversation=record.conversation).download("atif").data


def _foreign_files() -> list[tuple[str, str]]:
    from otel_helpers import smolagents_run

    return [("terminus.atif.json", json.dumps(terminus_trajectory())), ("smolagents.otlp.json", smolagents_run())]


@pytest.mark.parametrize(("name", "data"), _foreign_files(), ids=["atif", "otlp"])
def test_another_tools_run_says_where_it_came_from_and_claims_no_settings_of_ours(monkeypatch, tmp_path, name, data):
    use_app(monkeypatch, tmp_path, CALC)
    at = _import(go(new_session(), "history"), name, data)
    said = " ".join(unescape(s.value) for s in at.success)
    assert "Imported as run #1" in said
    trace = HistoryStore().get(1).trace
    where = trace.imported_from.described
    assert any(f"Imported from {where}" in unescape(i.value) for i in at.info)  # the page says where it came from
    assert f"Imported from {where}" in _captions(open_panels(at))  # and its header, instead of a line of settings
    assert not any("scripted ·" in c or "preset" in c for c in _captions(at))
    # The model-call note says what the file holds, not that an old version of this app lost it.
    assert not any("a run saved before ReAct Lab" in c for c in _captions(at))
    assert any("holds the model's reply, not the request" in c for c in _captions(at))
    # The evidence check reads the other tool's results; it never says no tool returned any.
    badges = [unescape(m) for m in markdowns(at) if "-badge[" in m]
    assert badges and not any("No tool returned evidence" in b for b in badges), badges
    assert any("Occurs in step 1" in b or "occurs in the evidence" in b for b in badges), badges
    # The fork form runs with the person's current settings and says so; nothing is "this run's own".
    text = " ".join(markdowns(at))
    assert "this run's own settings" not in text and "your current settings" in text
    assert "the imported run has none of this app's" in text
    assert "fork-current-1" not in [c.key for c in at.checkbox]  # no "use my current settings instead"


def test_an_imported_trajectory_is_forked_and_run_again_from_any_step(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, ["Thought 2: So it is big.bin.\nAction 2: Finish[big.bin]"])
    at = _import(go(new_session(), "history"), "terminus.atif.json", json.dumps(terminus_trajectory()))
    fork_thought(at, 1, 2, "The listing named one file")

    turn = at.session_state.chat["turns"][-1]
    assert turn.label == "Fork of run #1 from step 2 (thought edited)"
    prompt = provider(at).requests[-1].prompt
    assert "Question: Which file is largest?" in prompt
    assert "Observation 1: big.bin" in prompt  # the imported step before the fork is kept
    assert prompt.endswith("Thought 2: The listing named one file")
    assert turn.trace.final_answer == "big.bin" and turn.trace.imported_from is None  # a run of this app's now
    fork = HistoryStore().get(turn.history_id)
    assert (fork.parent_id, fork.fork_step, fork.origin) == (1, 2, "fork")
    assert fork.trace.settings["provider"] == "scripted"
