"""One observation cap for every tool: whatever a registered tool gives (text, an Observation, an error it raises, a
crash), and the unknown-tool answer, is cut to the 10,000 characters docs/knowledge.md promises, with one marker. The
figure is written out here on purpose: a test that compared against the constant would pass whatever it became."""

from __future__ import annotations

import pytest

from react_core.base.errors import ToolError
from react_core.base.trace import Action, Observation
from react_core.tools.registry import MAX_OBSERVATION_CHARS, Tool, ToolRegistry, bounded

DOCUMENTED_CAP = 10_000  # docs/knowledge.md: "at most 10,000 characters"
MARKER = " [… cut at 10,000 characters]"
LONG = "word " * 5_000  # 25,000 characters


def _raises_tool_error(_: str) -> str:
    raise ToolError(LONG)


def _crashes(_: str) -> str:
    raise RuntimeError(LONG)


@pytest.mark.parametrize(
    "function",
    [lambda _: LONG, lambda _: Observation(LONG, evidence=True), _raises_tool_error, _crashes, lambda _: 7 * LONG],
    ids=["text", "observation", "tool-error", "crash", "longer-still"],
)
def test_every_tool_s_observation_is_cut_at_the_documented_figure_with_the_marker(function):
    obs = ToolRegistry([Tool("future_tool", function)]).run(Action("future_tool", "x"))
    assert DOCUMENTED_CAP - 1_000 < len(obs.text) <= DOCUMENTED_CAP
    assert obs.text.endswith(MARKER) and obs.text.count("[… cut at") == 1


def test_the_unknown_tool_answer_is_capped_too():
    obs = ToolRegistry().run(Action("x" * 50_000, "y"))
    assert obs.is_error and len(obs.text) <= DOCUMENTED_CAP and obs.text.endswith(MARKER)


def test_the_cap_is_the_documented_one_and_a_short_text_is_untouched():
    assert MAX_OBSERVATION_CHARS == DOCUMENTED_CAP
    exactly = "a" * DOCUMENTED_CAP
    assert bounded(exactly) == exactly and bounded("short") == "short"
    assert bounded(exactly + "a").endswith(MARKER)
