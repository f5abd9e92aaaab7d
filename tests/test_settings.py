"""Run settings: their bounds, and what a run is built from."""

from __future__ import annotations

import pytest

from react_core.base.errors import ConfigError
from react_core.loop.settings import RunSettings, build_run_config


@pytest.mark.parametrize(
    "field, bad, good",
    [
        ("temperature", [-0.01, 2.01, 7], [0.0, 0.7, 2.0]),
        ("max_calls", [0, RunSettings.MAX_CALLS + 1], [1, RunSettings.MAX_CALLS]),
        ("sentences", [0, 51], [1, 50]),
        ("tools", [["search", "shell"]], [[], ["calculator"]]),
    ],
)
def test_each_bound_is_checked_at_both_ends(field, bad, good):
    for value in bad:
        with pytest.raises(ConfigError, match=field.replace("_", " ")):
            RunSettings(**{field: value}).check()
    for value in good:
        RunSettings(**{field: value}).check()


def test_a_run_cannot_be_built_from_settings_out_of_bounds():
    with pytest.raises(ConfigError, match="temperature must be between 0 and 2"):
        build_run_config(RunSettings(provider="scripted", script=["x"], temperature=3.0, tools=["calculator"]))


def test_from_dict_keeps_known_fields_only():
    s = RunSettings.from_dict({"temperature": 0.5, "api_key": "sk-secret", "unknown": 1})
    assert s.temperature == 0.5 and "api_key" not in s.to_dict() and "unknown" not in s.to_dict()


def test_grammar_is_on_where_the_provider_can_constrain_decoding_and_recorded_only_there():
    from react_core.loop.agent import Agent
    from react_core.providers.scripted import ScriptedProvider

    class Constrained(ScriptedProvider):
        constrained = True

    settings = RunSettings(provider="scripted", script=["x"], tools=["calculator"])
    assert settings.grammar and build_run_config(settings).grammar
    plain = Agent(build_run_config(settings, provider=ScriptedProvider(["Thought 1: a\nAction 1: Finish[b]"])))
    assert "grammar" not in plain.run("q").settings  # a provider without the control: nothing to record
    held = Agent(build_run_config(settings, provider=Constrained(["Thought 1: a\nAction 1: Finish[b]"])))
    trace = held.run("q")
    assert trace.settings.get("grammar") is True
    assert not build_run_config(settings.updated(grammar=False)).grammar
