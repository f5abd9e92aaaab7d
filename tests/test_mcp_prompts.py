"""MCP tools are enabled per prompt like Search and Lookup: a prompt version saved with an MCP tool on brings it back
when picked, a preset file's ``[run] tools`` may name MCP tools (``server_tool``), and a tool whose server this
configuration lacks is refused with a message naming it (when a version is picked, and when a run is built)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from app_helpers import ask, go, last_trace, markdowns, new_session, use_app
from mcp_helpers import our_server

from react_core import PresetStore
from react_core.base.errors import ConfigError
from react_core.loop.settings import RunSettings, build_run_config
from react_core.presets.preset import dump_preset, load_preset, preset_from_toml
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.mcp_client import POOL

ECHO_RUN = ["Thought 1: Ask the echo.\nAction 1: T_echo[hi]", "Thought 2: Done.\nAction 2: Finish[echo: hi]"]


@pytest.fixture(scope="module")
def url():
    with our_server() as (address, _proc):
        yield address
        POOL.close_all()


def test_a_preset_file_may_name_mcp_tools_and_keeps_them():
    text = dump_preset(replace(load_preset("paper"), run_tools=["search", "git_git_status"]))
    assert 'tools = ["search", "git_git_status"]' in text
    assert preset_from_toml(text, "x", where="x").run_tools == ["search", "git_git_status"]
    for bad in ("Git_status", "git-status", "gitstatus", ""):  # not a built-in tool, not server_tool
        with pytest.raises(ConfigError, match="server_tool"):
            preset_from_toml(text.replace('"git_git_status"', json.dumps(bad)), "x", where="x")


def test_a_run_with_a_tool_whose_server_is_not_configured_is_refused_naming_it(monkeypatch):
    monkeypatch.delenv("REACT_MCP_SERVERS", raising=False)
    settings = RunSettings(provider="scripted", tools=["calculator", "git_git_status"])
    with pytest.raises(ConfigError, match="git_git_status cannot be used: no MCP server named 'git'"):
        build_run_config(settings, provider=ScriptedProvider(ECHO_RUN))


def test_a_version_saved_with_an_mcp_tool_brings_it_back_when_picked(monkeypatch, tmp_path, url):
    use_app(monkeypatch, tmp_path, ECHO_RUN)
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps({"t": {"url": url}}))
    at = go(new_session(), "settings")
    at.checkbox(key="set-tool-t_echo").check().run()
    at.checkbox(key="set-tool-lookup").uncheck().run()
    at.button(key="save-version").click().run()
    assert not at.exception, at.exception
    assert PresetStore().load("paper@2").run_tools == ["search", "calculator", "t_echo"]

    at.checkbox(key="set-tool-t_echo").uncheck().run()
    at.checkbox(key="set-tool-lookup").check().run()
    assert not at.button(key="save-version").disabled  # the setup differs from version 2's
    at.selectbox(key="set-version").set_value("2").run()
    assert at.session_state.settings["tools"] == ["search", "calculator", "t_echo"]
    assert at.checkbox(key="set-tool-t_echo").value is True
    go(at, "chat")
    trace = last_trace(ask(at, "What does the echo say?"))
    assert trace["settings"]["prompt_version"] == "paper@2" and "t_echo" in trace["settings"]["tools"]
    assert trace["steps"][0]["observation"]["mcp"]["arguments"] == {"text": "hi"}
    assert trace["final_answer"] == "echo: hi"


def test_a_preset_listing_a_tool_of_a_missing_server_is_refused_with_a_message(monkeypatch, tmp_path, url):
    use_app(monkeypatch, tmp_path, ECHO_RUN)
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps({"t": {"url": url}}))
    folder = tmp_path / "presets"
    folder.mkdir()
    setup = replace(load_preset("paper"), run_tools=["calculator", "t_echo", "zz_lookup"])
    (folder / "mine.toml").write_text(dump_preset(setup), encoding="utf-8")
    at = go(new_session(), "settings")
    at.selectbox(key="set-preset").set_value("mine").run()
    assert not at.exception, at.exception
    warned = " ".join(w.value for w in at.warning)
    assert "zz_lookup cannot be used: no MCP server named 'zz'" in warned.replace("\\", "")
    assert at.session_state.settings["tools"] == ["calculator", "t_echo"]  # what this configuration has, and no more
    assert "zz_lookup" not in " ".join(markdowns(at))


MCP_EXAMPLE = {
    "function": (
        "Question: What is 2 + 40?\nStep 1\nThought: I add them.\nAction: t_add(a=2, b=40)\nObservation: 42\n\n"
        'Step 2\nThought: It is 42.\nAction: finish(answer="42")\n'
    ),
    "paper": (
        'Question: What is 2 + 40?\nThought 1: I add them.\nAction 1: T_add[{"a": 2, "b": 40}]\nObservation 1: 42\n'
        "Thought 2: It is 42.\nAction 2: Finish[42]\n"
    ),
}


@pytest.mark.parametrize(("preset", "dialect"), [("function-call", "function"), ("paper", "paper")])
def test_a_presets_examples_may_call_the_mcp_tools_its_run_table_enables(preset, dialect):
    from react_core.presets.check import validate_preset

    written = replace(load_preset(preset), examples=MCP_EXAMPLE[dialect], run_tools=["calculator", "t_add"])
    assert validate_preset(written) == []
    assert validate_preset(preset_from_toml(dump_preset(written), "x", where="x")) == []  # as a file, too
    (problem,) = validate_preset(replace(written, run_tools=["calculator"]))  # a tool it does not enable
    assert "t_add is not enabled: an example may call Search, Lookup, Calculator or Finish" in str(problem)


def test_ask_with_a_preset_file_enables_the_tools_it_keeps(url, tmp_path):
    import os
    import subprocess
    import sys

    written = replace(load_preset("function-call"), examples=MCP_EXAMPLE["function"], run_tools=["t_add"])
    path = tmp_path / "adding.toml"
    path.write_text(dump_preset(written), encoding="utf-8")
    script = tmp_path / "script.json"
    steps = [
        "Step 1\nThought: I add them.\nAction: t_add(a=2, b=40)",
        'Step 2\nThought: 42.\nAction: finish(answer="42")',
    ]
    script.write_text(json.dumps(steps))
    env = {**os.environ, "REACT_MCP_SERVERS": json.dumps({"t": {"url": url}}), "REACT_SECRETS_PATH": ""}
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    args = ["ask", "What is 2 + 40?", "--provider", "scripted", "--script", str(script), "--preset", str(path)]
    out = subprocess.run(
        [sys.executable, "-m", "react_core", *args, "--json"], capture_output=True, text=True, timeout=120, env=env
    )
    assert out.returncode == 0, out.stderr
    trace = json.loads(out.stdout)
    assert trace["settings"]["tools"] == ["t_add"] and trace["final_answer"] == "42"
    assert trace["steps"][0]["observation"]["text"] == "42"
    argv = [sys.executable, "-m", "react_core", *args, "--tools", "calculator", "--json"]
    with_tools = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    assert json.loads(with_tools.stdout)["settings"]["tools"] == ["calculator"]  # --tools still says
