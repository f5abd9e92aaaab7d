"""A Base URL belongs to one provider, and a key goes only where it belongs: on the command line (REACT_BASE_URL is
REACT_PROVIDER's, not another --provider's), in the Arena (a column of another provider does not inherit the Base URL
set for the first, typed or the operator's) and on the Settings page (choosing another provider forgets the Base URL
and the key typed for the previous one).

Every request goes to a real local server that records the key it was sent; no test reaches a real provider: where a
provider must go to "its own endpoint", the operator's OPENAI_BASE_URL points that endpoint at a local server too."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from app_helpers import ROOT, ask, go, last_trace, new_session, use_app
from provider_helpers import FakeGemini, FakeOpenAI
from test_app_arena import start, wait_arena

from react_core.base.errors import ConfigError
from react_core.loop.settings import RunSettings
from react_core.providers.choice import ModelChoice

ANSWER = " Done.\nAction 1: Finish[ok]"
OPENAI_KEY, GEMINI_KEY = "sk-OPERATORS-OPENAI-7f3a", "GEMINI-OPERATORS-KEY-9c2d"


def _keys_seen(server) -> list[str]:
    return [r.headers.get("authorization") or r.headers.get("x-goog-api-key") or "" for r in server.requests]


def test_react_base_url_is_the_named_providers_alone(monkeypatch):
    from react_core.providers.choice import environment_settings

    env = {"REACT_PROVIDER": "openai", "REACT_BASE_URL": "http://models.internal/v1", "REACT_MODEL": "gemma"}
    assert RunSettings.from_env(env).base_url == "http://models.internal/v1"
    other = RunSettings.from_env(env, provider="gemini")
    assert (other.base_url, other.model) == ("", "")  # nor is a model named for one provider another's
    assert environment_settings("gemini", env) == {}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # A choice of another provider (an Arena column, an evaluation's model): that provider's connection, as the
    # environment gives it, never the Base URL set for the settings' own.
    assert ModelChoice("gemini").changes({"provider": "openai", "base_url": "http://typed/v1"})["base_url"] == ""
    back = ModelChoice("openai").changes({"provider": "gemini", "base_url": ""})
    assert (back["base_url"], back["model"]) == ("http://models.internal/v1", "gemma")  # not OpenAI's own host
    with pytest.raises(ConfigError, match="set REACT_PROVIDER to the provider it belongs to"):
        RunSettings.from_env({"REACT_BASE_URL": "http://models.internal/v1"})


def test_on_the_command_line_react_base_url_does_not_follow_another_provider(tmp_path):
    with FakeGemini([]) as gemini_server, FakeOpenAI([ANSWER]) as openai_server:
        env = {
            **os.environ,
            "REACT_PROVIDER": "gemini",
            "REACT_BASE_URL": gemini_server.root,  # the operator's Gemini endpoint
            "GEMINI_API_KEY": GEMINI_KEY,
            "OPENAI_API_KEY": OPENAI_KEY,
            "OPENAI_BASE_URL": openai_server.root + "/v1",  # where the operator sends OpenAI's calls
            "REACT_SECRETS_PATH": "",
        }
        args = ["ask", "q", "--provider", "openai", "--model", "gpt-4.1-mini", "--tools", "calculator", "--json"]
        out = subprocess.run(
            [sys.executable, "-m", "react_core", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=60
        )
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["final_answer"] == "ok"
        assert gemini_server.requests == []  # the OpenAI key never went to Gemini's endpoint
        assert _keys_seen(openai_server) == [f"Bearer {OPENAI_KEY}"]


def _two_servers(monkeypatch, gemini_server, openai_server, *, react_base_url: bool):
    monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.root + "/v1")
    if react_base_url:
        monkeypatch.setenv("REACT_PROVIDER", "gemini")
        monkeypatch.setenv("REACT_BASE_URL", gemini_server.root)


def _arena_of_gemini_then_openai(at):
    at = go(at, "arena")
    at.selectbox(key="arena-provider-0").set_value("gemini")
    at.selectbox(key="arena-provider-1").set_value("openai").run()
    at.text_input(key="arena-model-1").input("gpt-4.1-mini").run()
    return wait_arena(start(at)).session_state.arena_job.arena.results


def test_an_arena_column_of_another_provider_does_not_get_the_base_url_typed_for_the_first(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    with FakeGemini([ANSWER]) as gemini_server, FakeOpenAI([ANSWER]) as openai_server:
        _two_servers(monkeypatch, gemini_server, openai_server, react_base_url=False)
        at = go(new_session(), "settings")
        at.selectbox(key="set-provider").set_value("gemini").run()
        at.text_input(key="set-base_url").input(gemini_server.root).run()  # local mode: the operator types it
        results = _arena_of_gemini_then_openai(at)
        assert [r.trace.final_answer for r in results] == ["ok", "ok"]
        assert _keys_seen(gemini_server) == [GEMINI_KEY]
        assert _keys_seen(openai_server) == [f"Bearer {OPENAI_KEY}"]


def test_a_visitors_arena_column_of_another_provider_uses_that_providers_endpoint(monkeypatch, tmp_path):
    # Signed-in people (and demo visitors when the keys are lent) use the server's keys at the server's endpoints:
    # a column of the provider REACT_BASE_URL is not for must not take it as a Base URL the visitor set.
    use_app(monkeypatch, tmp_path, [])
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv("REACT_DEMO_SERVER_KEYS", "1")
    with FakeGemini([ANSWER]) as gemini_server, FakeOpenAI([ANSWER]) as openai_server:
        _two_servers(monkeypatch, gemini_server, openai_server, react_base_url=True)
        results = _arena_of_gemini_then_openai(new_session())
        assert [r.trace.error for r in results] == [None, None]  # not "No OpenAI API key for the Base URL you set"
        assert _keys_seen(gemini_server) == [GEMINI_KEY]
        assert _keys_seen(openai_server) == [f"Bearer {OPENAI_KEY}"]


def test_choosing_another_provider_in_settings_forgets_the_base_url_and_the_key_typed_for_the_first(
    monkeypatch, tmp_path
):
    use_app(monkeypatch, tmp_path, [])
    with FakeGemini([ANSWER]) as gemini_server, FakeOpenAI([ANSWER]) as openai_server:
        _two_servers(monkeypatch, gemini_server, openai_server, react_base_url=False)
        at = go(new_session(), "settings")
        at.selectbox(key="set-provider").set_value("gemini").run()
        at.text_input(key="set-api-key").input("typed-for-gemini-3e8b").run()
        at.text_input(key="set-base_url").input(gemini_server.root).run()
        at.selectbox(key="set-provider").set_value("openai").run()
        assert at.text_input(key="set-base_url").value == "" and at.text_input(key="set-api-key").value == ""
        at.text_input(key="set-model").input("gpt-4.1-mini").run()
        at = ask(go(at, "chat"), "Where does it go?")
        assert last_trace(at)["final_answer"] == "ok"
        assert gemini_server.requests == []
        assert _keys_seen(openai_server) == [f"Bearer {OPENAI_KEY}"]  # the operator's, not the one typed for Gemini
