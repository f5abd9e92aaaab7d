"""The parts of the format contract other code calls: step titles, faithful rendering, and how a step without a
readable action is written back into the prompt (the model's own words and its error, never a placeholder)."""

from __future__ import annotations

import pytest

from react_core.base.trace import Action, Observation, Step
from react_core.dialects import DIALECTS
from react_core.dialects.base import TITLE_CHARS
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import Preset
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import Tool, ToolRegistry

ALL = sorted(DIALECTS)
# The dialects whose requests are one prompt of text (native tool calls send a conversation: test_tools_mode.py).
TEXT = [f for f in ALL if not DIALECTS[f].native_tools]

# -- titles ------------------------------------------------------------------------------------------------------

TITLES = {
    "paper": ("Search[High Plains]", "Finish[Paris]"),
    "act": ("Search[High Plains]", "Finish[Paris]"),
    "xml": ("<search>High Plains</search>", "<finish>Paris</finish>"),
    "json": ('Search · "High Plains"', 'Final Answer · "Paris"'),
    "pause": ("wikipedia: High Plains", "Answer: Paris"),
    "function": ('search(query="High Plains")', 'finish(answer="Paris")'),
    "mrkl": ("Search: High Plains", "Final Answer: Paris"),
    "tools": ('search(query="High Plains")', 'finish(answer="Paris")'),  # a native call, shown in call syntax
}


@pytest.mark.parametrize("fmt", ALL)
def test_a_title_is_the_action_in_the_dialects_own_words(fmt):
    f = DIALECTS[fmt]
    assert (f.title(Action("search", "High Plains")), f.title(None, "Paris")) == TITLES[fmt]
    assert f.title(None, None) == "(no action)"


@pytest.mark.parametrize("fmt", ALL)
@pytest.mark.parametrize(
    "value",
    [
        "word " * 200,
        "first line\nsecond line\r\nthird\u2028fourth\x85fifth",
        '"quotes" and \\ backslashes ' * 10,
        "x" * 5_000,
        "東京🚀" * 60,
    ],
)
def test_a_title_is_one_capped_line_whatever_the_input(fmt, value):
    f = DIALECTS[fmt]
    for title in (f.title(Action("calculator", value)), f.title(None, value)):
        assert len(title) <= TITLE_CHARS
        assert title == " ".join(title.split()), title  # one line, no blank runs
        assert "```" not in title
    long = f.title(Action("search", "x" * 500))
    assert long.count("…") == 1


# -- rendering faithfully, or saying why not ---------------------------------------------------------------------

REFUSED = [
    ("paper", Action("calculator", "]["), "bracket"),
    ("act", Action("search", "a] and [b"), "bracket"),
    ("xml", Action("search", "a </search> b"), "</"),
    ("pause", Action("search", "wait PAUSE"), "PAUSE"),
]


@pytest.mark.parametrize(("fmt", "action", "word"), REFUSED)
def test_an_input_the_dialect_cannot_write_is_refused_with_its_reason(fmt, action, word):
    reason = DIALECTS[fmt].unrenderable(action)
    assert word in reason and "\n" not in reason


def test_the_known_bracket_bug_is_refused_where_it_used_to_read_back_empty():
    f = DIALECTS["paper"]
    assert f.render_action(Action("calculator", "][")) == "Calculator[][]"
    assert f.unrenderable(Action("calculator", "]["))


@pytest.mark.parametrize("fmt", ["json", "function", "mrkl"])
def test_dialects_with_escapes_write_what_others_refuse(fmt):
    for action, _fmt, _word in ((a, f, w) for f, a, w in REFUSED):
        assert DIALECTS[fmt].unrenderable(action) == ""


@pytest.mark.parametrize("fmt", ALL)
def test_what_no_dialect_can_write_is_refused_everywhere(fmt):
    f = DIALECTS[fmt]
    assert "surrogate" in f.unrenderable(Action("search", "a\ud800b"))
    assert "one trimmed line" in f.unrenderable(Action("search", "two\nlines"))
    assert "empty" in f.unrenderable(Action("search", "   "))
    assert f.unrenderable(None, None)
    assert f.unrenderable(Action("search", "High Plains")) == ""
    assert f.unrenderable(None, "1,800 to 7,000 ft") == ""


# -- a step without a readable action -------------------------------------------------------------------------------

BROKEN = {
    "paper": " I should look for the plains.\nAction 2: Look up the High Plains region",
    "act": " look for High Plains please",
    "xml": "I should look for the plains.\n\nAction 2\nsearch High Plains",
    "json": ' I should look for the plains.\nAction: {"action" "Search" "High Plains"',
    "pause": " I should look for the plains.\nAction: look for High Plains\nPAUSE",
    "function": ' I should look for the plains.\nAction: search(query="High Plains"',
    "mrkl": " I should look for the plains.\nAction: Search High Plains",
}


@pytest.mark.parametrize("fmt", TEXT)
def test_a_step_without_an_action_is_written_back_with_the_models_own_words_and_its_error(fmt):
    f = DIALECTS[fmt]
    raw = BROKEN[fmt]
    parsed = f.parse(raw)
    assert parsed.error, parsed
    step = Step(2, thought=parsed.thought, raw_output=raw, observation=Observation.error("Invalid action."))
    text = f.render_step(step)
    assert "(none)" not in text
    assert text.startswith(f.step_prefix(2))
    kept = "look for High Plains" if fmt == "act" else "I should look for the plains."
    assert kept in text
    assert "High Plains" in text.split(kept, 1)[1] or fmt == "act"  # the broken action, as written
    assert text.rstrip().endswith("Invalid action.")
    assert f.parse(f.render_model_part(step)).error  # written back, it is still no action
    assert "PAUSE" not in f.render_model_part(step)


@pytest.mark.parametrize("fmt", ALL)
def test_the_written_back_text_stops_where_the_model_should_have_stopped(fmt):
    f = DIALECTS[fmt]
    leak = "\nObservation 2: I made this up.\nThought 3: and went on"
    raw = f.step_prefix(2) + " I am unsure what to do." + leak
    text = f.render_model_part(Step(2, raw_output=raw))
    assert "made this up" not in text and "went on" not in text
    assert text.count(f.step_prefix(2).strip()) == 1  # the restated prefix is not written twice
    assert "I am unsure what to do." in text


def test_the_paper_dialect_writes_a_bad_step_as_the_papers_environment_did():
    # webthink: "Thought i: …\nAction i: <what the model wrote>\nObservation i: Invalid action: …"
    f = DIALECTS["paper"]
    step = Step(
        3,
        raw_output=" Let me check.\nAction 3: Look up[eastern sector]\n",
        observation=Observation.error("Could not read the action."),
    )
    assert f.render_step(step) == (
        "Thought 3: Let me check.\nAction 3: Look up[eastern sector]\nObservation 3: Could not read the action.\n"
    )


@pytest.mark.parametrize("fmt", TEXT)
def test_the_next_prompt_holds_the_models_words_and_the_error_not_a_placeholder(fmt):
    f = DIALECTS[fmt]
    good = f.render_model_part(Step(2, thought="Done.", final_answer="42"))[len(f.step_prefix(2)) :]
    provider = ScriptedProvider([BROKEN[fmt], good])
    tools = ToolRegistry([Tool("search", lambda q: "x"), CALCULATOR])
    preset = Preset(name="t", dialect=fmt, instructions="Tools:\n{tools}", examples="")
    trace = Agent(RunConfig(provider=provider, preset=preset, tools=tools, max_calls=3)).run("What is it?")
    assert trace.final_answer == "42"
    second = provider.requests[1].prompt
    assert "(none)" not in second
    kept = "look for High Plains" if fmt == "act" else "I should look for the plains."
    assert kept in second
    assert " ".join(trace.steps[0].observation.text.split()) in " ".join(second.split())


@pytest.mark.parametrize("fmt", ["paper", "json", "mrkl", "function"])
def test_a_forked_step_is_written_back_with_the_thought_the_prompt_held(fmt):
    f = DIALECTS[fmt]
    # The model continued an edited thought ("The fact says b.") that the prompt ended with; its own text lacks it.
    continued = Step(2, thought="The fact says b. So I look.", raw_output=" So I look.\nAction: Look up b")
    text = f.render_model_part(continued)
    assert "The fact says b. So I look.\nAction: Look up b" in text
    # The model started a new line at once: the edited thought stands on the thought line.
    at_once = Step(2, thought="The fact says b.", raw_output="\nAction: Look up b")
    assert "The fact says b.\nAction: Look up b" in f.render_model_part(at_once)


def test_a_forked_step_reaches_the_next_prompt_with_the_edited_thought_and_the_models_words():
    prior = [Step(1, thought="Look up a.", action=Action("search", "a"), observation=Observation("a is b"))]
    provider = ScriptedProvider([" and so\nAction 2: Look up b", " Done.\nAction 3: Finish[b]"])
    tools = ToolRegistry([Tool("search", lambda q: "x")])
    preset = Preset(name="t", dialect="paper", instructions="Tools:\n{tools}", examples="")
    agent = Agent(RunConfig(provider=provider, preset=preset, tools=tools, max_calls=3))
    trace = agent.run("What is it?", prior_steps=prior, resume_thought="The fact says b")
    assert trace.final_answer == "b"
    assert "Thought 2: The fact says b and so\nAction 2: Look up b\nObservation 2: " in provider.requests[1].prompt
