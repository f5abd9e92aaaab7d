"""Gold trajectories (react_core.training.gold, .sources): written from supporting facts with the knowledge source's
own Search and Lookup, thoughts that quote what was read and fit the grammar's line, a miss recovered from, and no
trajectory at all where it could not be faithful."""

from __future__ import annotations

import pytest
from training_helpers import RECORDS, UNFOUND, write_records

from react_core.dialects.grammar import MAX_THOUGHT_CHARS
from react_core.knowledge.pack import PackSource
from react_core.tools.registry import ToolRegistry
from react_core.tools.wiki import make_wiki_tools
from react_core.training import gold
from react_core.training.sources import from_gold, gold_pack


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gold")
    pack = PackSource(gold_pack([write_records(folder, [*RECORDS, UNFOUND])], folder / "pack.sqlite"))
    yield pack
    pack.close()


def _write(source, record, writer=gold.write_react):
    return writer(gold.GoldQuestion.from_record(record), ToolRegistry(make_wiki_tools(source)))


def _record(qid):
    return next(r for r in RECORDS if r["id"] == qid)


def _actions(trace):
    return [(s.action.tool, s.action.input) if s.action else ("finish", s.final_answer) for s in trace.steps]


def test_a_bridge_searches_the_named_entity_then_the_one_it_leads_to_and_quotes_the_answer(source):
    trace = _write(source, _record("bridge"))
    assert _actions(trace) == [("search", "Blue Harbour"), ("search", "Anna Varga"), ("finish", "Marseille")]
    assert "directed by Anna Varga" in trace.steps[1].thought  # the words that lead to the next entity
    assert "born in Marseille" in trace.steps[2].thought and trace.steps[2].thought.endswith("answer is Marseille.")
    assert trace.final_answer == trace.expected_answer == "Marseille" and trace.stop_reason == "finished"


def test_every_observation_is_what_the_knowledge_sources_own_tools_return(source):
    for record in RECORDS:
        trace = _write(source, record)
        again = ToolRegistry(make_wiki_tools(source))  # a fresh run's tools, the same actions in order
        for step in trace.steps:
            if step.action is not None:
                assert step.observation.text == again.run(step.action).text


def test_every_thought_is_one_line_the_grammar_allows(source):
    assert gold.GOLD_THOUGHT_CHARS <= MAX_THOUGHT_CHARS  # a gold thought is one the on-device model may write
    for record in RECORDS:
        for step in _write(source, record).steps:
            assert 0 < len(step.thought) <= gold.GOLD_THOUGHT_CHARS and "\n" not in step.thought


def test_a_supporting_sentence_past_the_first_five_is_looked_up(source):
    trace = _write(source, _record("lookup"))
    tools = [a[0] for a in _actions(trace)]
    assert tools == ["search", "lookup", "search", "finish"]
    lookup = trace.steps[1]
    assert lookup.observation.text.startswith("(Result 1 / ") and "founded in Aylsham" in lookup.observation.text
    assert "founded in Aylsham" not in trace.steps[0].observation.text  # Search did not show it


def test_a_title_a_text_names_without_its_parenthesis_is_a_miss_recovered_from(source):
    trace = _write(source, _record("miss"))
    assert _actions(trace)[:2] == [("search", "Doolittle"), ("search", "Doolittle (album)")]
    assert trace.steps[0].observation.text.startswith("Could not find [Doolittle]. Similar:")
    assert "Doolittle (album)" in trace.steps[1].thought and trace.final_answer == "Pixies"


def test_a_comparison_reads_both_in_the_questions_order_and_quotes_both(source):
    trace = _write(source, _record("compare"))
    assert _actions(trace) == [
        ("search", "Arthur's Magazine"),
        ("search", "First for Women"),
        ("finish", "Arthur's Magazine"),
    ]
    last = trace.steps[-1].thought
    assert "1844" in last and "1989" in last and last.endswith("So the answer is Arthur's Magazine.")


def test_a_yes_no_question_reads_both_and_answers_yes(source):
    trace = _write(source, _record("yesno"))
    assert [a[0] for a in _actions(trace)] == ["search", "search", "finish"] and trace.final_answer == "yes"


def test_no_trajectory_where_the_source_lacks_a_gold_paragraph(source):
    assert _write(source, UNFOUND) is None


def test_an_answer_finish_cannot_write_as_it_is_is_unquoted_or_left_out():
    quoted = gold.GoldQuestion.from_record({**_record("bridge"), "answer": '"Salt Rain"'})
    inner = gold.GoldQuestion.from_record({**_record("bridge"), "answer": '"panthers", "pumas"'})
    assert quoted.final == "Salt Rain" and inner.final == ""
    assert gold.write_standard(inner) is None and gold.write_cot(inner) is None


def test_the_other_methods_keep_the_same_facts_in_their_own_shape(source):
    record = _record("bridge")
    react, act = _write(source, record), _write(source, record, gold.write_act)
    assert _actions(act) == _actions(react) and all(s.thought == "" for s in act.steps)
    cot = gold.write_cot(gold.GoldQuestion.from_record(record))
    assert len(cot.steps) == 1 and cot.steps[0].thought.startswith("Let's think step by step.")
    assert "Marseille" in cot.steps[0].thought and cot.final_answer == "Marseille"
    assert gold.write_standard(gold.GoldQuestion.from_record(record)).steps[0].final_answer == "Marseille"


def test_the_same_file_gives_the_same_trajectories(tmp_path, source):
    files = [write_records(tmp_path)]
    first = [t.to_dict() if t else None for t in from_gold(files, "react", source)]
    again = [t.to_dict() if t else None for t in from_gold(files, "react", source)]
    assert first == again and sum(t is not None for t in first) == len(RECORDS)
    assert [t["trace"]["steps"][0]["action"] for t in first][0] == {"tool": "search", "input": "Blue Harbour"}


def test_a_snippet_is_whole_words_around_the_answer_within_its_limit():
    sentence = "Brian Keith Bosworth (born March 9, 1965), nicknamed The Boz, is a former American football player."
    cut = gold.snippet(sentence, 40, anchor="The Boz", about="What is the nickname of the football player?")
    assert "The Boz" in cut and len(cut) <= 40 and sentence.find(cut) >= 0
    assert gold.snippet("Short one.", 40) == "Short one"


def test_hops_follow_the_question():
    bridge = gold.GoldQuestion.from_record(_record("bridge"))
    assert gold.plan_hops(bridge) == ["Blue Harbour", "Anna Varga"]
    swapped = {**_record("compare"), "question": "Which was started first, First for Women or Arthur's Magazine?"}
    assert gold.plan_hops(gold.GoldQuestion.from_record(swapped)) == ["First for Women", "Arthur's Magazine"]


def _quotes(thought):
    return [q for i, q in enumerate(thought.split('"')) if i % 2 == 1]


def _pairs(source, one, other):
    """Each record's trajectories by two writers that must take the same actions and see the same observations."""
    for record in RECORDS:
        a, b = _write(source, record, one), _write(source, record, other)
        if a is None:
            assert b is None
            continue
        assert _actions(b) == _actions(a)
        assert [s.observation.text for s in b.steps if s.observation] == [
            s.observation.text for s in a.steps if s.observation
        ]
        yield a, b


def test_short_quotes_keep_the_same_actions_and_quote_the_words_around_the_answer(source):
    """Recipe v3's thoughts (``quote``): each quote at most that many characters, still holding the answer or the next
    title, the actions and observations the same as with whole-line quotes."""
    for _long, short in _pairs(source, gold.write_react, lambda q, t: gold.write_react(q, t, quote=30)):
        for step in short.steps:
            assert all(len(q) <= 30 for q in _quotes(step.thought))
    bridge = _write(source, _record("bridge"), lambda q, t: gold.write_react(q, t, quote=30))
    assert "Anna Varga" in _quotes(bridge.steps[1].thought)[0] and "Marseille" in _quotes(bridge.steps[2].thought)[0]
    assert any(len(q) > 30 for s in _write(source, _record("bridge")).steps for q in _quotes(s.thought))  # v1's: longer


def test_the_v3_recipe_is_v1_with_short_quotes_and_v1s_record_is_unchanged():
    from react_core.base.errors import ConfigError
    from react_core.training.recipe import DEV_QUESTIONS, Recipe

    v1, v3 = Recipe.ALL["v1"], Recipe.ALL["v3"]
    assert v3 == v1.updated(quote=60, held_out=DEV_QUESTIONS)
    assert "quote" not in v1.to_dict() and v3.to_dict()["quote"] == 60
    assert v1.digest != v3.digest
    with pytest.raises(ConfigError, match="react only"):
        v1.updated(method="act", quote=60)


def test_decision_first_thoughts_name_the_next_title_or_the_answer_before_the_quote(source):
    """Recipe v4's thoughts (``decide_first``): the same actions and observations as v3's, and each thought that reads
    one page names what comes next before the words that lead there; a thought comparing two pages compares first."""
    v3 = lambda q, t: gold.write_react(q, t, quote=30)  # noqa: E731
    v4 = lambda q, t: gold.write_react(q, t, quote=30, decide_first=True)  # noqa: E731
    for before, after in _pairs(source, v3, v4):
        assert [sorted(_quotes(s.thought)) for s in after.steps] == [sorted(_quotes(s.thought)) for s in before.steps]
    bridge = _write(source, _record("bridge"), v4)
    assert bridge.steps[1].thought.startswith('Next I need to search Anna Varga. It says "')
    assert bridge.steps[2].thought.startswith('The answer is Marseille. It says "')
    assert "Marseille" in _quotes(bridge.steps[2].thought)[0]
    compare = _write(source, _record("compare"), v4)
    assert compare.steps[1].thought.startswith("Now I need to search ")
    assert compare.steps[-1].thought.startswith('"') and "So the answer is" in compare.steps[-1].thought


def test_the_v4_recipe_is_v3_with_the_decision_first_on_600_questions():
    from react_core.base.errors import ConfigError
    from react_core.training.recipe import Recipe

    v1, v3, v4 = Recipe.ALL["v1"], Recipe.ALL["v3"], Recipe.ALL["v4"]
    assert v4 == v3.updated(decide_first=True, limit=600)
    assert "decide_first" not in v1.to_dict() and "decide_first" not in v3.to_dict() and v4.to_dict()["decide_first"]
    with pytest.raises(ConfigError, match="react only"):
        v1.updated(method="act", decide_first=True)


def test_terse_thoughts_name_the_decision_alone_and_a_miss_names_the_title_as_listed(source):
    """Recipe v5's thoughts (``terse``): the same actions and observations as v4's; a thought that reads one page names
    the next title or the answer and quotes nothing, the thought after a miss names the title the similar titles
    offer, the plan and the comparing thought stay as they were."""
    v4 = lambda q, t: gold.write_react(q, t, quote=30, decide_first=True)  # noqa: E731
    v5 = lambda q, t: gold.write_react(q, t, quote=30, terse=True)  # noqa: E731
    for before, after in _pairs(source, v4, v5):
        assert after.steps[0].thought == before.steps[0].thought  # the plan
        compares = '" and "' in before.steps[-1].thought
        assert (after.steps[-1].thought == before.steps[-1].thought) is compares
        assert all(not _quotes(s.thought) for s in after.steps[: -1 if compares else None])
    bridge = _write(source, _record("bridge"), v5)
    assert [s.thought for s in bridge.steps[1:]] == ["Next I need to search Anna Varga.", "So the answer is Marseille."]
    missed, v4_missed = (_write(source, _record("miss"), w) for w in (v5, v4))
    assert missed.steps[1].thought == "I need to search Doolittle (album), as the similar titles spell it."
    # v4 keeps v1's thought after a miss
    assert v4_missed.steps[1].thought == "Doolittle (album) is among the similar titles, so I need to search it."
    assert missed.steps[0].observation.text.startswith("Could not find [Doolittle]. Similar: ['Doolittle (album)'")


def test_the_v5_recipe_is_v4_with_the_decision_alone():
    from react_core.base.errors import ConfigError
    from react_core.training.recipe import Recipe

    v4, v5 = Recipe.ALL["v4"], Recipe.ALL["v5"]
    assert v5 == v4.updated(decide_first=False, terse=True)
    assert all("terse" not in Recipe.ALL[name].to_dict() for name in ("v1", "v2", "v3", "v4")) and v5.to_dict()["terse"]
    with pytest.raises(ConfigError, match="react only"):
        v4.updated(method="act", decide_first=False, quote=0, terse=True)


def test_terse_comparisons_name_the_answer_alone_after_the_same_steps(source):
    """Recipe v6's thoughts (``terse_compare``): v5's trajectories, but the thought that compares two pages names the
    answer alone; every other thought, action and observation is v5's."""
    v5 = lambda q, t: gold.write_react(q, t, quote=30, terse=True)  # noqa: E731
    v6 = lambda q, t: gold.write_react(q, t, quote=30, terse=True, terse_compare=True)  # noqa: E731
    compared = 0
    for before, after in _pairs(source, v5, v6):  # the same actions and observations
        assert [s.thought for s in after.steps[:-1]] == [s.thought for s in before.steps[:-1]]
        if '" and "' in before.steps[-1].thought:
            compared += 1
            assert after.steps[-1].thought == f"So the answer is {after.steps[-1].final_answer}."
        else:
            assert after.steps[-1].thought == before.steps[-1].thought
        assert not any(_quotes(s.thought) for s in after.steps)
    assert compared


def test_the_v6_recipe_is_v5_with_terse_comparisons():
    from react_core.base.errors import ConfigError
    from react_core.training.recipe import Recipe

    v5, v6 = Recipe.ALL["v5"], Recipe.ALL["v6"]
    assert v6 == v5.updated(terse_compare=True) and v6.thoughts["terse_compare"]
    assert all("terse_compare" not in Recipe.ALL[n].to_dict() for n in ("v1", "v2", "v3", "v4", "v5"))
    with pytest.raises(ConfigError, match="react only"):
        Recipe(method="act", terse_compare=True)
