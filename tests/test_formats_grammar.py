"""GBNF grammars per dialect (``Dialect.grammar``): llama.cpp accepts each one, everything a grammar allows
parses with the dialect's own parser into an enabled tool or a final answer, and (marked ``model``) replies sampled
from the on-device model at temperature 1 under each grammar parse that way too.

Offline, the grammars are turned into Python regular expressions (they use only literals, character classes,
alternation, ``?`` and bounded repetition) and hypothesis draws replies from them.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from react_core.base.trace import Action, Step
from react_core.dialects import DIALECTS
from react_core.dialects.base import ParseResult

ALL = sorted(DIALECTS)
TEXT_DIALECTS = ["paper", "xml", "json", "pause", "function", "mrkl", "act"]  # the model writes the action as text
TOOL_SETS = [["search", "lookup", "calculator"], ["search"], ["calculator", "lookup"], []]


def llama_cpp_accepts(grammar: str) -> bool:
    """Whether llama.cpp's own grammar parser accepts ``grammar`` (it prints the reason when not)."""
    import llama_cpp.llama_cpp as ll

    sampler = ll.llama_sampler_init_grammar(None, grammar.encode("utf-8"), b"root")
    if not sampler:
        return False
    ll.llama_sampler_free(sampler)
    return True


_TOKEN = re.compile(r'\s*("(?:\\.|[^"\\])*"|\[(?:\\.|[^\]\\])*\]|\{\d+,\d+\}|[()|?]|[A-Za-z0-9-]+)')
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def _literal_regex(token: str) -> str:
    body, out, i = token[1:-1], [], 0
    while i < len(body):
        if body[i] == "\\":
            if body[i + 1] == "x":
                out.append(chr(int(body[i + 2 : i + 4], 16)))
                i += 4
                continue
            out.append(_ESCAPES[body[i + 1]])
            i += 2
            continue
        out.append(body[i])
        i += 1
    return re.escape("".join(out))


def gbnf_to_regex(grammar: str) -> str:
    """The grammar's root as a Python pattern (no recursion: each rule is inlined where it is used)."""
    rules = dict(line.split(" ::= ", 1) for line in grammar.strip().split("\n"))

    def expand(name: str) -> str:
        out = []
        for token in _TOKEN.findall(rules[name]):
            if token.startswith('"'):
                out.append(_literal_regex(token))
            elif token.startswith(("[", "{")) or token in "()|?":
                out.append(token)
            else:
                out.append(f"(?:{expand(token)})")
        return "".join(out)

    return expand("root")


def draw_reply(data: st.DataObject, fmt: str, tool_sets: list[list[str]]) -> tuple[list[str], str]:
    """A tool set, a step number and a reply the dialect's grammar allows for them, drawn by hypothesis: the tools and
    the reply."""
    tools = data.draw(st.sampled_from(tool_sets))
    index = data.draw(st.integers(1, 12))
    return tools, data.draw(st.from_regex(gbnf_to_regex(DIALECTS[fmt].grammar(tools, index)), fullmatch=True))


def assert_enabled_action_or_answer(result: ParseResult, tools: list[str]) -> None:
    assert result.error is None, result
    assert (result.action is not None and result.action.tool in tools) or result.final_answer, result


@pytest.mark.parametrize("fmt", ALL)
@pytest.mark.parametrize("tools", TOOL_SETS)
def test_llama_cpp_accepts_every_dialects_grammar(fmt, tools):
    grammar = DIALECTS[fmt].grammar(tools, 3)
    assert llama_cpp_accepts(grammar), grammar


def test_the_checker_itself_refuses_a_broken_grammar():
    assert not llama_cpp_accepts('root ::= "a" [bc')
    assert not llama_cpp_accepts("root ::= missing-rule")


@pytest.mark.parametrize("fmt", ALL)
def test_a_grammar_names_only_the_enabled_tools_and_the_final_answer(fmt):
    f = DIALECTS[fmt]
    grammar = f.grammar(["calculator"], 2)
    pattern = re.compile(gbnf_to_regex(grammar), re.DOTALL)

    def reply(action: Action | None, answer: str | None = None) -> str:
        step = Step(2, thought="Add them.", action=action, final_answer=answer)
        return f.render_model_part(step)[len(f.step_prefix(2)) :]

    assert pattern.fullmatch(reply(Action("calculator", "2 + 2")))
    assert pattern.fullmatch(reply(None, "4"))
    assert not pattern.fullmatch(reply(Action("search", "x")))  # Search is not enabled
    if "Add them." in reply(None, "4"):  # the Act-only dialect writes no thought
        assert not pattern.fullmatch(reply(None, "4").replace("Add them.", "Add\nthem."))  # a thought is one line


@pytest.mark.parametrize("fmt", ALL)
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_every_reply_a_grammar_allows_parses_into_an_enabled_tool_or_an_answer(fmt, data):
    tools, reply = draw_reply(data, fmt, TOOL_SETS)
    assert_enabled_action_or_answer(DIALECTS[fmt].parse(reply), tools)


# -- the on-device model, sampling under each grammar -------------------------------------------------------------


@pytest.fixture(scope="module")
def llama():
    from react_core.providers.local import LocalProvider

    return LocalProvider(on_progress=None).llama


def _question_prompt(fmt: str) -> tuple[list[str], str]:
    """The dialect's preset (the paper's Act prompt for act) with an everyday question: its tools and the prompt.
    Without the worked examples: the grammar holds the model to the dialect, and a prompt a fifth as long keeps the
    suite quick (the examples' effect on the model is what the full episodes in test_provider_local show)."""
    from dataclasses import replace

    from react_core.presets.preset import Preset, load_preset
    from react_core.presets.render import render_prefix, render_question

    preset = load_preset(Preset.default_for(fmt) if fmt != "act" else "hotpotqa-act")
    preset = replace(preset, examples="")
    tools = ["search", "lookup"] if fmt == "act" else ["search", "calculator"]
    # A question every dialect's greedy first step answers in under 40 tokens (asked how tall, the pause dialect's
    # writes 80 zeros, and llama.cpp's own sampler, the reference below, checks the whole vocabulary at every token).
    return tools, render_prefix(preset, tools) + render_question(preset, "In which country is the Eiffel Tower?")


@pytest.mark.model
@pytest.mark.timeout(600)
@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_replies_sampled_under_the_grammar_parse(fmt, llama):
    from llama_cpp import LlamaGrammar

    f = DIALECTS[fmt]
    tools, prompt = _question_prompt(fmt)
    # One sample of a step: that llama.cpp takes the grammar and what it samples parses; a first step in half the
    # dialects, a second (after an observation, with its numbered labels) in the others. Whether every text a grammar
    # allows parses, at any step, is proven without the model, above.
    index = 1 + TEXT_DIALECTS.index(fmt) % 2
    seed = 11 + 2 * (index - 1)
    text = prompt + (f.step_prefix(1) if index == 1 else "")
    if index == 2:  # a second step, after a first one and its observation
        first = f.render_model_part(
            Step(1, thought="I need to search the Eiffel Tower.", action=Action("search", "Eiffel Tower"))
        )
        text += first + f.render_observation(1, "The Eiffel Tower is a wrought-iron lattice tower in Paris, France.")
        text += f.step_prefix(2)
    out = llama.create_completion(
        text,
        max_tokens=320,
        temperature=1.0,
        seed=seed,
        grammar=LlamaGrammar.from_string(f.grammar(tools, index), verbose=False),
    )
    reply = out["choices"][0]["text"]
    assert_enabled_action_or_answer(f.parse(reply), tools)


@pytest.mark.model
@pytest.mark.timeout(900)
@pytest.mark.parametrize("fmt", TEXT_DIALECTS)
def test_greedy_steps_under_the_grammar_are_llama_cpps_own_only_faster(fmt, llama):
    # The provider's sampler asks the grammar about the best token first (llama_grammar); the text must be exactly
    # what llama-cpp-python's sampler, which constrains the whole vocabulary at every token, gives.
    from llama_cpp import Llama, LlamaGrammar

    from react_core.providers.llama_grammar import GreedyUnderGrammar

    f = DIALECTS[fmt]
    tools, prompt = _question_prompt(fmt)
    text = prompt + f.step_prefix(1)
    installed, used = llama._init_sampler, []

    def recording(**options):
        sampler = installed(**options)
        used.append(type(sampler))
        return sampler

    def complete() -> str:
        # Each from an empty context: a prompt read again from the cache can give other logits (a near tie then
        # flips), and only the samplers may differ here.
        llama.reset()
        grammar = LlamaGrammar.from_string(f.grammar(tools, 1), verbose=False)
        return llama.create_completion(text, max_tokens=120, temperature=0.0, grammar=grammar)["choices"][0]["text"]

    try:
        llama._init_sampler = recording
        fast = complete()
        llama._init_sampler = lambda **options: Llama._init_sampler(llama, **options)
        reference = complete()
    finally:
        llama._init_sampler = installed
    assert used == [GreedyUnderGrammar]
    assert fast == reference
    assert_enabled_action_or_answer(f.parse(fast), tools)


@pytest.mark.parametrize("fmt", ALL)
def test_an_input_or_a_thought_cannot_start_with_what_parsing_would_trim(fmt):
    # Found by exploring: the grammars allowed the inputs "\x0c" and "\x00", which parsing reads as empty.
    f = DIALECTS[fmt]
    pattern = re.compile(gbnf_to_regex(f.grammar(["search"], 1)), re.DOTALL)
    valid = f.render_model_part(Step(1, thought="Go.", action=Action("search", "QQ")))[len(f.step_prefix(1)) :]
    assert pattern.fullmatch(valid)
    for blank in ("\x0c", "\x0b", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "\x00"):
        assert not pattern.fullmatch(valid.replace("QQ", blank)), repr(blank)
        if "Go." in valid:
            assert not pattern.fullmatch(valid.replace("Go.", blank + "Go.")), repr(blank)


@pytest.mark.parametrize("fmt", ["paper", "pause", "xml"])
def test_a_thought_may_start_with_o_but_never_with_observation(fmt):
    f = DIALECTS[fmt]
    pattern = re.compile(gbnf_to_regex(f.grammar(["search"], 1)), re.DOTALL)

    def allowed(thought: str) -> bool:
        step = Step(1, thought=thought, action=Action("search", "Oneida Community"))
        return bool(pattern.fullmatch(f.render_model_part(step)[len(f.step_prefix(1)) :]))

    assert allowed("Oneida Limited has no page of its own.") and allowed("only one is left.")
    for leaked in ("Observation 1: Oneida Limited is a company.", "observation: none", "Ob"):
        assert not allowed(leaked), leaked
