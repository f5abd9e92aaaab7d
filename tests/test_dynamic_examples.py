"""Dynamic examples, a per-version option: for each question the k examples whose questions are most like it (BM25
with bm25s) replace the fixed set, in the pool's order; the run's prompt holds only those, and its trace records which
were chosen. Off (0), or with a pool no larger than k, every example is sent and nothing is recorded."""

from __future__ import annotations

from dataclasses import replace

import pytest

from react_core.base.errors import ConfigError
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.diff import diff_versions
from react_core.presets.dynamic import choose, chosen_examples, pool
from react_core.presets.preset import dump_preset, load_preset, preset_from_toml
from react_core.presets.render import render_prefix
from react_core.providers.scripted import ScriptedProvider
from react_core.tools import build_tools

NOYES, MORTON, KING = 0, 1, 2  # the paper preset's three examples, in order


def paper(k: int):
    return replace(load_preset("paper"), dynamic_examples=k)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When was King George V born?", [KING]),
        ("Which silverware company did Pierrepont Noyes run?", [NOYES]),
        ("Is Terry Richardson older than Annie Morton?", [MORTON]),
    ],
)
def test_the_most_similar_example_is_chosen(question, expected):
    assert choose(paper(1), question) == expected


def test_the_chosen_keep_the_pools_order_and_ties_go_to_the_earlier():
    assert choose(paper(2), "When was the King born? Annie Morton asks.") == [MORTON, KING]
    assert choose(paper(2), "?? !!") == [NOYES, MORTON]  # no word to match: the first k
    assert choose(paper(2), "zebra quantum") == [NOYES, MORTON]  # words no example has: all tie


def test_off_or_a_small_pool_sends_every_example_and_records_nothing():
    full = load_preset("paper")
    assert chosen_examples(full, "When was King George V born?") == (full.examples, [])
    assert chosen_examples(paper(3), "When was King George V born?") == (full.examples, [])
    assert render_prefix(paper(1), ["search"]) == render_prefix(full, ["search"])  # no question: the whole pool


def test_a_run_sends_only_the_chosen_examples_and_its_trace_records_them():
    provider = ScriptedProvider(["Thought 1: Easy.\nAction 1: Finish[1865]"])
    config = RunConfig(provider=provider, preset=paper(1), tools=build_tools(None, ["calculator"]), max_calls=2)
    trace = Agent(config).run("When was King George V born?")
    examples = pool(load_preset("paper"))
    system = provider.requests[0].system
    assert examples[KING] in system and examples[NOYES] not in system and examples[MORTON] not in system
    assert trace.settings["examples_chosen"] == [examples[KING].split("\n")[0]]
    plain = Agent(replace(config, provider=ScriptedProvider(["Action 1: Finish[x]"]), preset=paper(0))).run("q")
    assert "examples_chosen" not in plain.settings


def test_the_option_is_saved_with_the_version_checked_and_diffed():
    again = preset_from_toml(dump_preset(paper(2)), "x", where="x")
    assert again.dynamic_examples == 2
    assert "dynamic_examples" not in dump_preset(load_preset("paper"))  # off: the file stays as it was
    for bad in ("-1", "21", "2.5", "'two'", "true"):
        with pytest.raises(ConfigError, match="dynamic_examples"):
            preset_from_toml(f"dynamic_examples = {bad}\n" + dump_preset(load_preset("paper")), "x", where="x")
    change = diff_versions(load_preset("paper"), paper(2))
    assert [f.field for f in change.fields] == ["dynamic_examples"] and "+2" in change.fields[0].lines
