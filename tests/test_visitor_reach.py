"""What a visitor's settings may make the server reach (public demo and signed-in modes, ``keys.lending`` with
``own_endpoints``), through the engine: the MediaWiki endpoint, the scripted provider's script, the offline pack and the
on-device model file are the operator's (their environment's values, the shipped ones), or a script the visitor
uploaded (its outputs, never a path). A refusal is decided before the path is looked at, so its message is the same
whatever is there: it tells nothing of the server's files. The operator (local mode, the CLI) may name anything."""

from __future__ import annotations

import json
import sqlite3

import pytest
from wiki_helpers import close_shared_sources, small_pack

from react_core.base.errors import ConfigError
from react_core.knowledge import create_knowledge
from react_core.knowledge.server import start_wiki_server
from react_core.knowledge.setting import Knowledge
from react_core.knowledge.spec import pack_spec
from react_core.loop.run import ask
from react_core.loop.settings import RunSettings, build_run_config, provider_for
from react_core.providers.keys import lending

READ_IT = "Thought 1: Read the internal page.\nAction 1: Search[Widget Company]"  # a page the internal service holds
INTERNAL_TEXT = "maker of widgets"
FINISH = "Thought 2: Done.\nAction 2: Finish[ok]"


@pytest.fixture(scope="module")
def internal(tmp_path_factory):
    """An internal service on 127.0.0.1 that answers like MediaWiki: what a visitor must not make the server read."""
    with start_wiki_server(small_pack(tmp_path_factory.mktemp("internal") / "small.sqlite")) as srv:
        yield srv


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    for var in ("REACT_WIKI_URL", "REACT_WIKI_LANGUAGE", "REACT_SCRIPT", "REACT_MODEL_PATH", "REACT_KNOWLEDGE"):
        monkeypatch.delenv(var, raising=False)
    yield
    close_shared_sources()


def visitor():
    return lending(server_keys=True, own_endpoints=True)


def _wiki(url: str = "", language: str = "", **changes) -> RunSettings:
    return RunSettings(
        provider="scripted",
        script=[READ_IT, FINISH],
        knowledge="wikipedia",
        wiki_url=url,
        wiki_language=language,
        tools=["search"],
        **changes,
    )


# -- 4. the MediaWiki endpoint -----------------------------------------------------------------------------------------


def test_a_visitor_s_wiki_url_is_refused_before_anything_is_fetched(internal):
    internal.reset()
    with visitor(), pytest.raises(ConfigError, match="operator") as refused:
        build_run_config(_wiki(internal.url))
    assert internal.url not in str(refused.value)
    with visitor(), pytest.raises(ConfigError, match="operator"):
        create_knowledge("wikipedia", wiki_url=internal.url, visitor=True)
    with visitor():
        assert Knowledge("wikipedia", wiki_url=internal.url).standing_pack(visitor=True) is None
    assert Knowledge.of({"knowledge": "wikipedia", "wiki_url": internal.url}).label(visitor=True) == "Wikipedia (live)"
    assert internal.requests == 0


def test_the_operator_s_wiki_url_serves_visitors_and_the_operator_may_name_any(internal, monkeypatch):
    internal.reset()
    trace = ask("What is it?", _wiki(internal.url))  # local mode, the CLI: the person is the operator
    assert INTERNAL_TEXT in trace.steps[0].observation.text
    monkeypatch.setenv("REACT_WIKI_URL", internal.url)
    with visitor():
        for chosen in ("", internal.url):
            trace = ask("What is it?", _wiki(chosen))
            assert INTERNAL_TEXT in trace.steps[0].observation.text, chosen


@pytest.mark.parametrize(
    "code", ["en.evil.example#", "127.0.0.1:8080/x?", "en@127.0.0.1", "en/../x", "en-", "en--x", "-en", "e n", "xn--e"]
)
def test_a_language_code_never_becomes_a_host(code):
    for who in (visitor, lending):
        with who(), pytest.raises(ConfigError, match="not a language code"):
            build_run_config(_wiki(language=code))


def test_a_visitor_may_choose_the_wikipedia_language():
    with visitor():
        config = build_run_config(_wiki(language="zh-min-nan"))
    assert config.tools.get("search") is not None


# -- 5. files of the server: the script, the pack, the model file ----------------------------------------------------


def _server_files(tmp_path) -> dict[str, str]:
    """Paths of every kind a probe would try: a JSON script, a folder, a text file, a database, nothing at all."""
    (tmp_path / "secret.json").write_text(json.dumps(["the server's private text"]), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not JSON", encoding="utf-8")
    sqlite3.connect(tmp_path / "data.sqlite").execute("CREATE TABLE t (x)").connection.close()
    small_pack(tmp_path / "pack.sqlite")
    (tmp_path / "model.gguf").write_bytes(b"GGUF")
    (tmp_path / "folder").mkdir()
    names = ("secret.json", "notes.txt", "data.sqlite", "pack.sqlite", "model.gguf", "folder", "missing.json")
    return {name: str(tmp_path / name) for name in names}


def _refusal(make) -> str:
    with visitor(), pytest.raises(ConfigError) as refused:
        make()
    return str(refused.value)


def test_a_visitor_s_script_path_is_refused_alike_whatever_is_there(tmp_path):
    paths = _server_files(tmp_path)
    said = {_refusal(lambda p=p: provider_for(RunSettings(provider="scripted", script=p))) for p in paths.values()}
    assert len(said) == 1, said  # one message: nothing tells whether a path exists, is a folder, JSON or a database
    (message,) = said
    assert "operator" in message and "upload" in message and str(tmp_path) not in message
    with visitor(), pytest.raises(ConfigError):
        ask("Q?", RunSettings(provider="scripted", script=paths["secret.json"], tools=[]))


def test_a_visitor_s_pack_path_is_refused_alike_whatever_is_there(tmp_path):
    paths = _server_files(tmp_path)
    said = set()
    for path in paths.values():
        settings = RunSettings(provider="scripted", script=[FINISH], knowledge=pack_spec(path), tools=["search"])
        said.add(_refusal(lambda s=settings: build_run_config(s)))
        with visitor():
            assert Knowledge.of_pack(path).standing_pack(visitor=True) is None
            assert settings.expected_answer("Q?") is None
    assert len(said) == 1, said
    assert "operator" in said.pop()


def test_a_visitor_s_model_file_is_refused_alike_whatever_is_there(tmp_path):
    paths = _server_files(tmp_path)
    said = {_refusal(lambda p=p: provider_for(RunSettings(provider="local", model_path=p))) for p in paths.values()}
    assert len(said) == 1, said
    assert "operator" in said.pop()


def test_a_visitor_s_adapter_named_in_a_model_choice_is_refused_alike_whatever_is_there(tmp_path):
    # An evaluation's models may name an adapter (`local+FILE`): the choice becomes the run's settings, and the same
    # rule as Settings' refuses a visitor's file before anything is read; `local+none` and the shipped one serve.
    from react_core.providers.choice import ModelChoice

    def run_of(spec: str):
        changes = ModelChoice.parse(spec).changes({"provider": "local"})
        return provider_for(RunSettings(provider="local").updated(**changes))

    paths = _server_files(tmp_path)
    said = {_refusal(lambda p=p: run_of(f"local+{p}")) for p in paths.values()}
    assert len(said) == 1, said
    assert "adapter" in (only := said.pop()) and "operator" in only
    with visitor():
        assert run_of("local+none").adapter is None


def test_the_operator_s_files_serve_visitors(tmp_path, monkeypatch):
    paths = _server_files(tmp_path)
    monkeypatch.setenv("REACT_SCRIPT", paths["secret.json"])
    monkeypatch.setenv("REACT_KNOWLEDGE", pack_spec(paths["pack.sqlite"]))
    monkeypatch.setenv("REACT_MODEL_PATH", paths["model.gguf"])
    monkeypatch.setenv("REACT_PACK", str(small_pack(tmp_path / "default.sqlite")))  # the default pack
    with visitor():
        assert len(provider_for(RunSettings(provider="scripted", script=paths["secret.json"])).outputs) == 1
        assert provider_for(RunSettings(provider="local", model_path=paths["model.gguf"])).model == "model.gguf"
        assert provider_for(RunSettings(provider="local")).is_demo  # the bundled model
        for spec in (pack_spec(paths["pack.sqlite"]), pack_spec(tmp_path / "default.sqlite")):
            config = build_run_config(RunSettings(provider="scripted", script=[FINISH], knowledge=spec))
            assert config.tools.get("search") is not None


def test_the_operator_names_any_file(tmp_path):
    paths = _server_files(tmp_path)
    assert len(provider_for(RunSettings(provider="scripted", script=paths["secret.json"])).outputs) == 1
    with pytest.raises(ConfigError, match="does not exist"):
        provider_for(RunSettings(provider="local", model_path=paths["missing.json"]))


def test_a_visitor_s_uploaded_script_runs_and_names_no_server_file(tmp_path):
    from react_core.providers.script import Script

    outputs = Script.upload(json.dumps(["Thought 1: Easy.\nAction 1: Finish[uploaded]"]).encode()).outputs
    with visitor():
        trace = ask("Q?", RunSettings(provider="scripted", script=outputs, tools=[]))
    assert trace.final_answer == "uploaded"
    gate = tmp_path / "precious.db"
    gate.write_text("keep me", encoding="utf-8")
    gated = Script.upload(json.dumps([{"text": "x", "gate": str(gate)}]).encode()).outputs
    with visitor(), pytest.raises(ConfigError, match="gate"):
        provider_for(RunSettings(provider="scripted", script=gated))
    assert gate.read_text(encoding="utf-8") == "keep me"  # a gate item takes its file away as it passes


@pytest.mark.parametrize(
    "data, problem",
    [(b"not json", "not valid JSON"), (b'{"a": 1}', "JSON array"), (b"[1, 2]", "JSON array"), (b"\xff", "UTF-8")],
)
def test_an_uploaded_script_is_checked(data, problem):
    from react_core.providers.script import Script

    with pytest.raises(ConfigError, match=problem):
        Script.upload(data)


def test_an_uploaded_script_has_a_size_limit():
    from react_core.providers.script import Script

    with pytest.raises(ConfigError, match="larger"):
        Script.upload(b"[" + b'"x",' * Script.MAX_BYTES + b'"x"]')


def test_an_evaluation_and_an_arena_keep_the_rule_too(tmp_path):
    from react_core.evaluation.arena import Arena, Variant
    from react_core.evaluation.run import EvalPlan
    from react_core.providers.allowance import Allowance

    paths = _server_files(tmp_path)
    as_visitor = Allowance(own_endpoints=True)
    dataset = tmp_path / "questions.json"
    dataset.write_text(json.dumps([{"_id": "a", "question": "Q?", "answer": "ok"}]), encoding="utf-8")
    script = RunSettings(provider="scripted", script=paths["secret.json"], tools=[])
    plan = EvalPlan(datasets=[str(dataset)], strategies=["standard"], out_dir=str(tmp_path / "out"), settings=script)
    with pytest.raises(ConfigError, match="operator's choice"):
        plan.run(allowance=as_visitor)

    pack = RunSettings(provider="scripted", script=[FINISH], knowledge=pack_spec(paths["pack.sqlite"]))
    results = Arena("Q?", [Variant(settings=script), Variant(settings=pack)], allowance=as_visitor).run()
    assert [r.trace.stop_reason for r in results] == ["error", "error"]
    assert all("operator's choice" in r.trace.error for r in results)
    assert not any("private text" in json.dumps(r.trace.to_dict()) for r in results)


def test_a_visitor_s_preset_names_no_file_of_the_server(tmp_path, monkeypatch):
    from react_core.base.paths import BUILTIN_PRESETS_DIR

    monkeypatch.chdir(tmp_path)  # a relative name is read from the server's working folder too
    (tmp_path / "mine.toml").write_text((BUILTIN_PRESETS_DIR / "paper.toml").read_text(encoding="utf-8"), "utf-8")
    (tmp_path / "secrets.toml").write_text('GEMINI_API_KEY = "sk-not-yours"\n', encoding="utf-8")
    (tmp_path / "broken.toml").write_text("not = [toml", encoding="utf-8")
    said = set()
    for name in ("mine.toml", "secrets.toml", "broken.toml", "missing.toml"):
        settings = RunSettings(provider="scripted", script=[FINISH], preset=name)
        said.add(_refusal(lambda s=settings: build_run_config(s)).replace(name, "NAME"))
    # The same for a preset file, another TOML file, a broken one and nothing at all: a name, never a file.
    assert said == {"Unknown preset 'NAME'."}
    absolute = RunSettings(provider="scripted", script=[FINISH], preset=str(tmp_path / "mine.toml"))
    assert "is not a prompt name" in _refusal(lambda: build_run_config(absolute))
    assert build_run_config(RunSettings(provider="scripted", script=[FINISH], preset="mine.toml")).preset.title


def test_the_files_offered_to_visitors_are_the_operator_s(monkeypatch):
    from react_core.providers.file_choices import offered_files

    for variable in ("REACT_MODEL_PATH", "REACT_ADAPTER"):
        monkeypatch.delenv(variable, raising=False)
    assert offered_files("model_path") == [""] and offered_files("adapter") == ["", "shipped", "none"]
    monkeypatch.setenv("REACT_MODEL_PATH", "/srv/model.gguf")
    monkeypatch.setenv("REACT_ADAPTER", "/srv/adapter.gguf")
    assert offered_files("model_path") == ["", "/srv/model.gguf"]
    assert offered_files("adapter") == ["", "shipped", "none", "/srv/adapter.gguf"]
    assert offered_files("base_url") == []  # an option that names no file on the server
