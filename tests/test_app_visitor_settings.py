"""The Settings page in visitor modes (public demo; signed in): the fields that name something on the server (the
MediaWiki API URL, the script, the pack file, the model file) offer only the operator's choices and say why, a visitor
may upload a script of their own, and a value set by any other way (a crafted session) is refused by the engine with
one message that tells nothing of the server's files. Local mode keeps its typed fields."""

from __future__ import annotations

import json
import shutil

import pytest
from app_helpers import APP, APP_TIMEOUT, ask, go, last_trace, new_session, offline_pack, unescape, use_app
from streamlit.testing.v1 import AppTest
from test_app_share import ANN, AUTH
from wiki_helpers import small_pack

from react_core.knowledge.server import start_wiki_server
from react_core.knowledge.spec import pack_spec
from react_core.providers.local import LocalProvider

FINISH = "Thought 1: Easy.\nAction 1: Finish[from the operator's script]"
UPLOADED = ["Thought 1: Easy.\nAction 1: Finish[from my upload]"]
SECRET = "the server's private text"


@pytest.fixture
def demo(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH, FINISH])
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    return tmp_path


def _text_inputs(at) -> set[str]:
    return {t.key for t in at.text_input}


def _captions(at) -> str:
    return unescape(" ".join(c.value for c in at.caption))


def _everything(at) -> str:
    return unescape(str(at))


def test_a_visitor_chooses_the_operator_s_script_or_uploads_one(demo):
    at = go(new_session(), "settings")
    assert "set-script" not in _text_inputs(at)
    options = at.selectbox(key="set-script").options
    assert options[0] == "script.json"  # by file name: the operator's path stays theirs
    assert all(o.startswith("Sample · ") for o in options[1:])  # then the samples shipped with the app
    assert "the operator's to choose" in _captions(at)
    at.file_uploader(key="set-script-upload").upload("mine.json", json.dumps(UPLOADED).encode(), "application/json")
    at.run()
    assert at.session_state.settings["script"] == UPLOADED
    assert "your uploaded script (1 output)" in _captions(at)
    go(at, "chat")
    assert last_trace(ask(at, "Q?"))["final_answer"] == "from my upload"

    go(at, "settings").selectbox(key="set-script").set_value(str(demo / "script.json")).run()
    go(at, "chat")
    assert last_trace(ask(at, "Q again?"))["final_answer"] == "from the operator's script"


def test_an_upload_that_is_not_a_script_is_refused_with_its_reason(demo):
    at = go(new_session(), "settings")
    at.file_uploader(key="set-script-upload").upload("bad.json", b'{"not": "a list"}', "application/json").run()
    assert [unescape(e.value) for e in at.error] == [
        "bad.json: The script must be a JSON array of strings (one model output per call)."
    ]
    assert at.session_state.settings["script"] == str(demo / "script.json")


def test_a_crafted_script_path_shows_nothing_of_the_file(demo):
    (demo / "secret.json").write_text(json.dumps([SECRET]), encoding="utf-8")
    said = set()
    for path in (demo / "secret.json", demo / "missing.json", demo, demo / "history.sqlite"):
        at = new_session()
        at.session_state.settings = {**at.session_state.settings, "script": str(path)}
        trace = last_trace(ask(at, "Q?"))
        assert trace["stop_reason"] == "error" and SECRET not in _everything(at)
        said.add(trace["error"])
    assert len(said) == 1, said


def test_a_visitor_chooses_among_the_operator_s_packs(demo):
    at = go(new_session(), "settings")
    at.radio(key="set-knowledge-kind").set_value("pack").run()
    assert "set-knowledge-path" not in _text_inputs(at)
    assert at.selectbox(key="set-knowledge-path").options == ["hotpotqa-pack.sqlite", offline_pack().name]
    assert not at.warning  # nothing says whether a file is there

    other = demo / "other.sqlite"  # a pack on the server the operator did not offer
    shutil.copyfile(offline_pack(), other)
    at.session_state.settings = {**at.session_state.settings, "knowledge": pack_spec(other)}
    go(at, "chat")
    assert "read an offline pack" not in _everything(at)  # the example questions are not drawn from it
    trace = last_trace(ask(at, "Q?"))
    assert trace["stop_reason"] == "error" and "operator's choice" in trace["error"]


def test_a_visitor_s_wiki_url_is_not_offered_and_not_fetched(demo, tmp_path_factory):
    at = go(new_session(), "settings")
    assert "set-wiki_url" not in _text_inputs(at) and "set-wiki_language" in _text_inputs(at)
    assert "Search and Lookup read Wikipedia, in the language you choose" in _captions(at)
    with start_wiki_server(small_pack(tmp_path_factory.mktemp("internal") / "s.sqlite")) as internal:
        crafted = {"knowledge": "wikipedia", "wiki_url": internal.url, "tools": ["search"]}
        at.session_state.settings = {**at.session_state.settings, **crafted}
        go(at, "chat")
        trace = last_trace(ask(at, "Q?"))
        assert trace["stop_reason"] == "error" and "MediaWiki API URL is the operator's choice" in trace["error"]
        assert internal.requests == 0


def test_with_the_operator_s_wiki_a_visitor_chooses_neither_its_url_nor_its_language(demo, monkeypatch):
    monkeypatch.setenv("REACT_WIKI_URL", "http://127.0.0.1:9/w/api.php")
    at = go(new_session(), "settings")
    assert not {"set-wiki_url", "set-wiki_language"} & _text_inputs(at)
    assert "Search and Lookup read the operator's wiki" in _captions(at)


def test_a_visitor_may_not_name_a_model_file(demo):
    at = go(new_session(), "settings")
    at.selectbox(key="set-provider").set_value("local").run()
    assert "set-model_path" not in _text_inputs(at)
    assert "the model file is the bundled Gemma 3 270M or one the operator offers" in _captions(at)


def test_a_crafted_model_file_is_never_loaded(demo, monkeypatch):
    loaded = []
    monkeypatch.setattr(LocalProvider, "warm", lambda self, prefix, ahead="": loaded.append(self.model_path))
    gguf = demo / "other.gguf"
    gguf.write_bytes(b"GGUF")
    at = new_session()
    at.session_state.settings = {**at.session_state.settings, "provider": "local", "model_path": str(gguf)}
    at.run()  # every render warms the prompt on the model the next turn would use
    assert loaded == []
    trace = last_trace(ask(at, "Q?"))
    assert trace["stop_reason"] == "error" and "model file is the operator's choice" in trace["error"]


def test_signed_in_is_a_visitor_mode_too(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
    at.secrets["auth"] = AUTH
    at.user = ANN
    at.run()
    go(at, "settings")
    assert not {"set-script", "set-wiki_url"} & _text_inputs(at)


def test_local_mode_types_paths_and_urls(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    at = go(new_session(), "settings")
    at.radio(key="set-knowledge-kind").set_value("pack").run()
    assert {"set-script", "set-wiki_url", "set-knowledge-path"} <= _text_inputs(at)
    at.text_input(key="set-script").input(str(tmp_path / "other.json")).run()
    assert at.session_state.settings["script"] == str(tmp_path / "other.json")


def test_a_visitor_s_adapter_choices_are_named_as_adapters(demo):
    # The adapter list offers the shipped adapter and none (and REACT_ADAPTER's file), not model files: "" is the
    # shipped adapter, not the bundled model.
    at = go(new_session(), "settings")
    at.selectbox(key="set-provider").set_value("local").run()
    shipped, none = at.selectbox(key="set-adapter").options
    assert shipped.startswith("the shipped one") and none == "none: the base model alone"
