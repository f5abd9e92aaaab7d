"""The app keeps the prompt in use warm on the on-device model: a warm-up starts when the app starts and again when
the prompt changes, never twice for the same prompt, never waited for by a page, and the page says what the model is
doing. The model itself is not loaded here (``LocalProvider.warm`` is replaced by a recorder; test_provider_local_exact
tests the real warm-up)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import pytest
from app_helpers import go, new_session, run_headers, use_app, wait_idle

from react_core.loop.settings import RunSettings
from react_core.presets.preset import load_preset
from react_core.presets.render import render_first_prompt, render_prefix
from react_core.providers.llama_activity import Status
from react_core.providers.local import LocalProvider
from react_core.providers.scripted import ScriptedProvider

# The on-device default's prompt: the shipped adapter's own (tuned-react), or the paper's without it.
ON_DEVICE_DEFAULT = RunSettings(provider="local").preset_ref


@dataclass
class FakeWarmUp:
    state: str = "warming"
    progress: float = 0.4
    error: str = ""
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def finished(self) -> bool:
        return self.done.is_set()


asked_ahead: list[str] = []  # what each warm-up of the current test was asked to read ahead


@pytest.fixture
def warmed(monkeypatch, tmp_path):
    asked_ahead.clear()
    use_app(monkeypatch, tmp_path, [])
    monkeypatch.setenv("REACT_PROVIDER", "local")
    prefixes: list[str] = []
    handles: list[FakeWarmUp] = []

    def warm(self, prefix: str, ahead: str = "") -> FakeWarmUp:
        prefixes.append(prefix)
        asked_ahead.append(ahead)
        handles.append(FakeWarmUp())
        return handles[-1]

    monkeypatch.setattr(LocalProvider, "warm", warm)
    return prefixes, handles


def _sidebar(at) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


def test_the_prompt_in_use_is_warmed_once_at_start_and_again_when_it_changes(warmed):
    prefixes, handles = warmed
    at = new_session()
    tools = at.session_state.settings["tools"]
    assert prefixes == [render_prefix(load_preset(ON_DEVICE_DEFAULT), tools)]
    at.run()
    go(at, "settings")
    assert len(prefixes) == 1  # the same prompt: no second warm-up
    at.selectbox(key="set-preset").set_value("mrkl").run()
    assert prefixes[-1] == render_prefix(load_preset("mrkl"), tools) and len(prefixes) == 2
    at.text_area(key="edit-instructions").input("Answer with the tools:\n{tools}").run()
    assert prefixes[-1].startswith("Answer with the tools:") and len(prefixes) == 3  # an applied edit is warmed too
    assert "Getting the on-device model ready" in _sidebar(at) and "40%" in _sidebar(at)
    handles[-1].state = "warm"
    handles[-1].done.set()
    at.run()
    assert "Getting the on-device model ready" not in _sidebar(at)


def test_a_new_chat_reads_its_first_example_ahead(warmed):
    at = new_session()
    tools = at.session_state.settings["tools"]
    first = at.button(key="example-0").label
    assert asked_ahead == [render_first_prompt(load_preset(ON_DEVICE_DEFAULT), tools, first)]
    go(at, "settings")
    at.selectbox(key="set-preset").set_value("mrkl").run()  # another prompt: the same question, read in it
    assert asked_ahead[-1] == render_first_prompt(load_preset("mrkl"), tools, first) and len(asked_ahead) == 2


def test_a_failed_warm_up_says_why(warmed):
    _, handles = warmed
    at = new_session()
    handles[-1].state, handles[-1].error = "failed", "no such model file"
    handles[-1].done.set()
    at.run()
    assert "could not get the prompt ready: no such model file" in _sidebar(at)


def test_a_hosted_provider_is_never_warmed(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    called = []
    monkeypatch.setattr(LocalProvider, "warm", lambda self, prefix, ahead="": called.append(prefix))
    new_session()
    assert called == []  # the scripted provider has nothing to prepare


def test_a_turn_on_a_busy_machine_says_so_while_it_runs(monkeypatch, tmp_path):
    gate = tmp_path / "gate"
    use_app(monkeypatch, tmp_path, [{"text": "Thought 1: slow\nAction 1: Finish[late]", "gate": str(gate)}])
    busy = Status("generating", tokens_per_second=4.0, normal_tokens_per_second=38.0, slow=True)
    monkeypatch.setattr(ScriptedProvider, "status", lambda self: busy)
    at = new_session()
    at.chat_input[0].set_value("Slowly?").run()
    while at.session_state.job.preparing:
        at.session_state.job.wait(0.01)
    at.run()
    assert "generating at 4.0 tokens/s (normally 38): the machine is busy" in run_headers(at)[0].label
    gate.touch()
    assert run_headers(wait_idle(at))[0].label.startswith("Answered")
