"""Scripts you can pick (AppTest): Settings lists the shipped sample scripts and shows the format beside the box;
choosing a sample makes it the script and, when the prompt in use speaks another dialect, brings that dialect's
shipped preset, so asking the sample's question in Chat replays its run; in the public demo the samples are among the
operator's scripts. History's "Save as script" writes a run's model replies as a script that replays it offline."""

from __future__ import annotations

import json

from app_helpers import ask, go, last_trace, new_session, unescape, use_app

from react_core.base.paths import SAMPLE_SCRIPTS_DIR
from react_core.providers.samples import SAMPLE_QUESTIONS, SampleScript

CALC = str(SAMPLE_SCRIPTS_DIR / "paper" / "calculator.json")
MRKL = str(SAMPLE_SCRIPTS_DIR / "mrkl" / "kiss-and-tell.json")


def _downloads(monkeypatch) -> dict[str, bytes]:
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    saved: dict[str, bytes] = {}
    keep = MemoryMediaFileStorage.load_and_get_id

    def spy(self, data, mimetype, kind, filename=None):  # what a person's browser would save
        saved[filename] = data
        return keep(self, data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    return saved


def test_a_sample_is_picked_from_a_list_with_its_dialect_and_replays_in_chat(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path)
    at = go(new_session(), "settings")
    samples = at.selectbox(key="set-script-sample")
    assert len(samples.options) == len(SampleScript.all()) == 14  # the two offline examples in seven dialects
    assert "Sample · LangChain MRKL (Action: / Action Input:) · " + SAMPLE_QUESTIONS["kiss-and-tell"] in samples.options
    assert any("A JSON array with one item per model call" in m.value for m in at.markdown)  # the format, beside it
    samples.set_value(MRKL).run()
    assert not at.exception, at.exception
    assert at.session_state.settings["script"] == MRKL and at.text_input(key="set-script").value == MRKL
    assert at.session_state.settings["preset"] == "mrkl"  # the paper preset would read none of its steps
    said = [unescape(s.value) for s in at.success]
    assert any(f"ask “{SAMPLE_QUESTIONS['kiss-and-tell']}” in Chat" in s and "mrkl preset" in s for s in said)
    go(at, "chat")
    trace = last_trace(ask(at, SAMPLE_QUESTIONS["kiss-and-tell"]))
    assert trace["final_answer"] == "Chief of Protocol" and trace["settings"]["dialect"] == "mrkl"
    assert not any(s["observation"] and s["observation"]["is_error"] for s in trace["steps"])

    go(at, "settings").selectbox(key="set-script-sample").set_value(CALC).run()  # back to paper: said again
    assert at.session_state.settings["preset"] == "paper"


def test_a_visitor_finds_the_samples_among_the_operators_scripts(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path)
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    at = go(new_session(), "settings")
    choices = at.selectbox(key="set-script")
    assert choices.options[0] == "script.json" and len(choices.options) == 1 + len(SampleScript.all())
    assert "Sample · ReAct paper (Search[entity]) · What is 17 * 23 + 4?" in choices.options
    choices.set_value(CALC).run()
    go(at, "chat")
    assert last_trace(ask(at, SAMPLE_QUESTIONS["calculator"]))["final_answer"] == "395"


def test_history_saves_a_run_as_a_script_that_replays_it(monkeypatch, tmp_path):
    saved = _downloads(monkeypatch)
    use_app(monkeypatch, tmp_path)
    at = go(new_session(), "settings")
    at.selectbox(key="set-script-sample").set_value(str(SAMPLE_SCRIPTS_DIR / "paper" / "kiss-and-tell.json")).run()
    first = last_trace(ask(go(at, "chat"), SAMPLE_QUESTIONS["kiss-and-tell"]))
    at.query_params["run"] = "1"
    at = go(at, "history")
    assert any("as a script: choose Scripted in Settings" in unescape(c.value) for c in at.caption)
    (name,) = [n for n in saved if n.endswith(".script.json")]
    script = tmp_path / name
    script.write_bytes(saved[name])
    assert json.loads(saved[name]) == [s["raw_output"] for s in first["steps"]]
    go(at, "settings").text_input(key="set-script").set_value(str(script)).run()
    again = last_trace(ask(go(at, "chat"), SAMPLE_QUESTIONS["kiss-and-tell"]))
    assert [s["action"] for s in again["steps"]] == [s["action"] for s in first["steps"]]
    assert again["final_answer"] == "Chief of Protocol"
