"""A key is used, and then found nowhere: not in the CLI's output or errors, the trace, or any log line, for each
hosted provider, on success and when the service rejects the key (and echoes it back, as OpenAI's 401 does).

``assert_no_secret`` (tests/provider_helpers.py) takes any number of artefacts; extend the list as new places
appear (the history database, exports)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from provider_helpers import FakeGemini, FakeOpenAI, assert_no_secret, fast_retry

from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import Preset
from react_core.providers import create_provider
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import ToolRegistry

ROOT = Path(__file__).resolve().parent.parent
MARKER = "MARKER-KEY-7f3a9c1e5b"
ANSWER = [" I multiply.\nAction 1: Calculator[6*7]", " Done.\nAction 2: Finish[42]"]


def run_cli(provider: str, base_url: str, env_key: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "OPENAI_BASE_URL"}
    env.update({env_key: MARKER, "REACT_SECRETS_PATH": "", "PYTHONPATH": str(ROOT)})
    cmd = [sys.executable, "-m", "react_core", "ask", "What is 6*7?", "--provider", provider]
    cmd += ["--base-url", base_url, "--tools", "calculator", "--max-calls", "3", "--json"]
    if provider == "openai":
        cmd += ["--model", "gpt-4.1-mini"]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_cli_openai_uses_the_key_and_prints_it_nowhere() -> None:
    with FakeOpenAI(ANSWER) as server:
        done = run_cli("openai", server.root + "/v1", "OPENAI_API_KEY")
    assert done.returncode == 0, done.stderr
    trace = json.loads(done.stdout)
    assert trace["final_answer"] == "42" and trace["settings"]["provider"] == "openai"
    assert all(r.headers["authorization"] == f"Bearer {MARKER}" for r in server.requests)  # the key was used
    assert_no_secret(MARKER, done.stdout, done.stderr, trace)


def test_cli_gemini_uses_the_key_and_prints_it_nowhere() -> None:
    with FakeGemini(ANSWER) as server:
        done = run_cli("gemini", server.root, "GEMINI_API_KEY")
    assert done.returncode == 0, done.stderr
    trace = json.loads(done.stdout)
    assert trace["final_answer"] == "42" and trace["settings"]["provider"] == "gemini"
    assert all(r.headers["x-goog-api-key"] == MARKER for r in server.requests)
    assert_no_secret(MARKER, done.stdout, done.stderr, trace)


def test_cli_rejected_key_is_one_line_without_the_key() -> None:
    with FakeOpenAI(ANSWER, key="the-right-one-0000") as server:
        done = run_cli("openai", server.root + "/v1", "OPENAI_API_KEY")
    assert done.returncode == 0  # a run that ends (here with error) is not a usage error
    trace = json.loads(done.stdout)
    assert trace["stop_reason"] == "error" and "rejected the API key" in trace["error"]
    assert "OPENAI_API_KEY" in trace["error"] and "\n" not in trace["error"]
    assert_no_secret(MARKER, done.stdout, done.stderr, trace)


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_agent_runs_and_failures_log_nothing_of_the_key(name: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, SDKs and HTTP clients included, at their chattiest
    with FAKES[name](ANSWER) as server:
        provider = _hosted(name, server)
        ok = _run(provider)
        # A rejection that quotes the key back, as real services do.
        server.fail({"status": 401 if name == "openai" else 400, "message": f"API key not valid: {MARKER}"})
        failed = _run(provider)
    assert ok.final_answer == "42"
    assert failed.stop_reason == "error" and "rejected the API key" in failed.error
    assert caplog.records, "the SDKs logged nothing at DEBUG: the check would prove nothing"
    assert_no_secret(MARKER, ok, failed, caplog.text, [r.getMessage() for r in caplog.records])


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_a_key_echoed_where_a_message_is_cut_is_taken_out_before_the_cut(name: str) -> None:
    # The message is cut to 300 characters for a person; cut first, the key's first letters would stay unredacted.
    with FAKES[name](ANSWER) as server:
        provider = _hosted(name, server)
        server.fail({"status": 400, "message": "Bad request " + "." * 280 + MARKER})
        failed = _run(provider)
    assert failed.stop_reason == "error" and "HTTP 400: Bad request ..." in failed.error
    assert_no_secret(MARKER[:8], failed)


FAKES = {"openai": FakeOpenAI, "gemini": FakeGemini}


def _hosted(name: str, server):
    """The provider ``name`` against its fake ``server``, with the marker as its key."""
    base_url = server.root + ("/v1" if name == "openai" else "")
    options = {"model": "gpt-4.1-mini"} if name == "openai" else {}
    return create_provider(name, api_key=MARKER, base_url=base_url, retry=fast_retry(), **options)


def _run(provider):
    preset = Preset(name="t", dialect="paper", instructions="Tools:\n{tools}", examples="")
    return Agent(RunConfig(provider=provider, preset=preset, tools=ToolRegistry([CALCULATOR]))).run("6*7?")
