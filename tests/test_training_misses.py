"""The v2 recipe's data (react_core.training.misses, .queries, finetune's trajectory phase), written from the first
questions of the shared train file with a pack of their own paragraphs, as ``finetune --recipe v2`` writes them:
misses whose observations are the real Search tool's own text, recovered by a title from the Similar list or an
honest rewrite; answers from what was read after two different misses; no query searched twice; every trajectory
run again by the real loop within the paper's budget; and as many of each kind as the recipe says."""

from __future__ import annotations

import json

import pytest

from react_core.base.answers import normalize_answer
from react_core.base.events import final_trace
from react_core.base.paths import shared_data_dir
from react_core.base.trace import Action, Observation, Step, Trace
from react_core.evaluation.strategies import PAPER_REACT_STEPS
from react_core.knowledge.pack import PackSource
from react_core.loop.agent import RunConfig
from react_core.loop.keeping import UNKEPT
from react_core.loop.service import Run, RunRequest
from react_core.presets.preset import load_preset
from react_core.providers.scripted import ScriptedProvider
from react_core.tools import build_tools
from react_core.training import gold, queries
from react_core.training.examples import segments_for
from react_core.training.finetune import FinetunePlan, _tools_for, kinds, write_trajectory_file
from react_core.training.misses import NOT_LISTED, repeats_a_query, searched
from react_core.training.recipe import DEV_QUESTIONS, Recipe
from react_core.training.sources import Trajectory, read_trajectories

QUESTIONS = 80  # the first questions of the shared train file
COUNTS = {"miss": 12, "partial": 3, "arithmetic": 4}
ANSWERED = 'From what I read: "'


@pytest.fixture(scope="module", params=["v2", "v7"])
def made(request, tmp_path_factory):
    """Each recipe that teaches misses (v2 over v1's thoughts, v7 over v6's terse ones), on the first questions."""
    folder = tmp_path_factory.mktemp(request.param)
    train = json.loads((shared_data_dir() / "hotpotqa" / "train_distractor_996.json").read_text(encoding="utf-8"))
    data = folder / "train.json"
    data.write_text(json.dumps(train[:QUESTIONS]), encoding="utf-8")
    recipe = Recipe.ALL[request.param].updated(
        gold=(str(data),), limit=0, misses=COUNTS["miss"], partial=COUNTS["partial"], arithmetic=4
    )
    events: list[dict] = []
    path = write_trajectory_file(FinetunePlan(recipe=recipe, out=folder), events.append)
    pack = PackSource(folder / "gold-pack.sqlite")
    yield read_trajectories(path), events[-1], pack
    pack.close()


def _of(trajectories: list[Trajectory], kind: str) -> list[Trajectory]:
    return [t for t in trajectories if t.source.startswith(f"{kind}:") and t.source != "gold:arithmetic"]


def _misses(steps: list[Step]) -> list[int]:
    return [i for i, s in enumerate(steps) if s.action and s.action.tool == "search" and not s.observation.evidence]


def test_counts_per_kind_are_what_the_recipe_says(made):
    trajectories, event, _ = made
    by_kind = kinds(trajectories)
    assert {k: by_kind[k] for k in COUNTS} == COUNTS and {k: event[k] for k in by_kind} == by_kind
    assert all(isinstance(v, int) for k, v in event.items() if k != "kind")  # the Fine-tune page shows each as a number
    assert by_kind["gold"] + event["skipped"] == QUESTIONS and event["written"] == len(trajectories)
    assert len({t.id for t in trajectories}) == len(trajectories)


def test_every_observation_is_byte_for_byte_what_the_real_tools_return(made):
    trajectories, _, pack = made
    missed = 0
    for t in _of(trajectories, "miss") + _of(trajectories, "partial"):
        tools = build_tools(pack, ["search", "lookup"])  # a fresh run's tools, the same actions in order
        for step in t.trace.steps:
            if step.action is not None:
                seen = tools.run(step.action)
                seen.stats.seconds = 0.0
                assert seen.to_dict() == step.observation.to_dict()
                missed += step.observation.text.startswith(f"Could not find [{step.action.input}]. Similar: [")
    assert missed >= COUNTS["miss"] + 2 * COUNTS["partial"]


def test_a_miss_is_recovered_by_a_title_from_its_list_or_an_honest_rewrite(made, request):
    trajectories, _, _ = made
    terse = Recipe.ALL[request.node.callspec.params["made"]].terse  # v7 names a pick as its gold thoughts do
    doubles = 0
    for t in _of(trajectories, "miss"):
        steps = t.trace.steps
        inserted = len(_misses(steps)) - len(_misses(_gold_of(trajectories, t).trace.steps))
        assert inserted in (1, 2)
        doubles += inserted == 2
        pages = {s.action.input for s in steps if s.action and s.action.tool == "search" and s.observation.evidence}
        inserted_queries = set(searched(steps)) - set(searched(_gold_of(trajectories, t).trace.steps))
        for i in _misses(steps):
            miss, after = steps[i], steps[i + 1]
            listed = miss.observation.similar_titles
            assert miss.action.input in miss.thought  # it searches what it thought
            if miss.action.input in inserted_queries:  # never naming another page of the question
                recovered = next(s.action.input for s in steps[i + 1 :] if s.observation and s.observation.evidence)
                named = [p for p in pages - {recovered} if gold.base_title(p) in miss.action.input]
                assert not named, (miss.action.input, named)
            assert after.action is not None and after.action.tool == "search"
            if after.action.input in listed:  # picked from the list, copied exactly
                assert after.action.input in after.thought
                assert (after.thought == gold.RECOVER_TERSE.format(title=after.action.input)) is terse
            else:
                assert after.thought.startswith(NOT_LISTED.format(query=miss.action.input))
        assert steps[_misses(steps)[-1] + 1].observation.evidence  # the hop ends on its page
        assert steps[-1].final_answer == t.trace.final_answer == _gold_of(trajectories, t).trace.final_answer
    assert doubles >= 1


def test_after_two_different_misses_it_answers_from_what_it_read(made):
    trajectories, _, _ = made
    for t in _of(trajectories, "partial"):
        steps, first = t.trace.steps, _gold_of(trajectories, t).trace.steps
        one, two, end = steps[-3:]
        assert _misses(steps)[-2:] == [len(steps) - 3, len(steps) - 2] and one.action.input != two.action.input
        wanted = first[len(steps) - 3].action.input  # the page the gold trajectory found there
        assert wanted not in one.observation.similar_titles + two.observation.similar_titles
        assert end.action is None and end.final_answer == t.trace.expected_answer.strip('"')
        quote = end.thought.split(ANSWERED, 1)[1].rsplit('". So the answer is', 1)[0]
        read = [s.observation.text for s in steps[:-3] if s.observation.evidence]
        assert any(quote in text for text in read)  # quoted from a page it read, never from the missing one
        assert f" {normalize_answer(t.trace.final_answer)} " in f" {normalize_answer(quote)} "
        assert t.trace.question == _gold_of(trajectories, t).trace.question


def test_no_trajectory_searches_the_same_query_twice(made):
    trajectories, _, _ = made
    for t in trajectories:
        searches = [s.action.input for s in t.trace.steps if s.action and s.action.tool == "search"]
        assert len(searches) == len(set(searches)), t.id


def test_every_trajectory_runs_in_the_real_loop_and_finishes_within_the_papers_budget(made):
    trajectories, _, pack = made
    preset = load_preset("tuned-react")
    for t in trajectories:
        tools = _tools_for(t)
        replies = [s.text for s in segments_for(t.trace, preset, tools) if s.kind == "reply"]
        # The real loop: the replies scripted, the knowledge source's real tools, the paper's 7 calls.
        config = RunConfig(
            provider=ScriptedProvider(replies),
            preset=preset,
            tools=build_tools(pack, tools),
            max_calls=PAPER_REACT_STEPS,
        )
        run = final_trace(Run(RunRequest(t.trace.question, config=config), UNKEPT))
        assert run.stop_reason == "finished" and run.final_answer == t.trace.final_answer, t.id
        assert len(run.steps) == len(t.trace.steps) <= PAPER_REACT_STEPS
        assert [s.observation.text for s in run.steps if s.observation] == [
            s.observation.text for s in t.trace.steps if s.observation
        ]


def test_a_miss_never_names_another_page_of_the_question(tmp_path):
    # "Scott Derrickson and Ed Wood" is a phrase of the question: searched for the first page, the thought that plans
    # both ("I need to search Scott Derrickson and Ed Wood and Ed Wood, then compare them.") would name one twice.
    from training_helpers import RECORDS, write_records

    from react_core.training.misses import write_miss
    from react_core.training.sources import gold_pack

    pack = PackSource(gold_pack([write_records(tmp_path)], tmp_path / "pack.sqlite"))
    record = next(r for r in RECORDS if r["id"] == "yesno")
    question = gold.GoldQuestion.from_record(record)
    trace = gold.write_react(question, build_tools(pack, ["search", "lookup"]))
    written = [write_miss(question, trace, lambda: build_tools(pack, ["search", "lookup"]), seed=n) for n in range(12)]
    pack.close()
    inserted = [s for t in written if t for s in t.steps if s.action and not s.observation.evidence]
    assert inserted and all(s.thought.count("Ed Wood") <= 1 for s in inserted)
    assert not any("Derrickson" in s.action.input and "Wood" in s.action.input for s in inserted)


def _gold_of(trajectories: list[Trajectory], t: Trajectory) -> Trajectory:
    return next(g for g in _of(trajectories, "gold") if g.id == t.id.split("-", 1)[1])


def _trajectory(question: str, *, repeat: bool = False) -> Trajectory:
    steps = [
        Step(1, "I need to search A.", Action("search", "A"), Observation("Could not find [A]. Similar: [].")),
        Step(2, "I need to search A again.", Action("search", "A" if repeat else "B"), Observation("B is a page.")),
        Step(3, "So the answer is B.", final_answer="B"),
    ]
    trace = Trace(question, {"strategy": "react"}, steps, "B", "finished", expected_answer="B")
    return Trajectory("x", "teacher:model", "react", trace)


def test_a_held_out_question_or_a_repeated_query_from_any_source_is_left_out(tmp_path):
    dev = json.loads((shared_data_dir() / DEV_QUESTIONS[0]).read_text(encoding="utf-8"))[0]["question"]
    extra = [_trajectory(dev.upper() + "  "), _trajectory("Which one?", repeat=True), _trajectory("Which one?")]
    recipe = Recipe.ALL["v2"].updated(gold=(), arithmetic=0)
    events: list[dict] = []
    path = write_trajectory_file(FinetunePlan(recipe=recipe, out=tmp_path, extra=extra), events.append)
    kept = read_trajectories(path)
    assert [t.trace.question for t in kept] == ["Which one?"] and not repeats_a_query(kept[0].trace.steps)
    assert events[-1]["held_out"] == 1 and events[-1]["skipped"] == 1
    v1 = write_trajectory_file(
        FinetunePlan(recipe=Recipe.ALL["v1"].updated(gold=(), arithmetic=0), extra=extra, out=tmp_path), events.append
    )
    assert len(read_trajectories(v1)) == 3  # v1's rules, as the shipped adapter was made


def test_the_recipe_is_chosen_on_the_command_line_and_its_options_change_it():
    from react_core.cli.finetune import plan_from_args
    from react_core.cli.main import build_parser

    def recipe(*argv):
        return plan_from_args(build_parser().parse_args(["finetune", *argv])).recipe

    assert recipe() == Recipe.ALL["v1"] and recipe("--recipe", "v2") == Recipe.ALL["v2"]
    assert recipe("--recipe", "v2", "--epochs", "1", "--gold") == Recipe.ALL["v2"].updated(epochs=1, gold=())
    assert Recipe.ALL["v2"].epochs == 3 and Recipe.ALL["v2"].digest != Recipe.ALL["v1"].digest
    assert Recipe.ALL["v2"].__class__.from_dict(Recipe.ALL["v2"].to_dict()) == Recipe.ALL["v2"]
    since_v2 = {"misses", "partial", "held_out", "repeats"}
    assert set(Recipe.ALL["v1"].to_dict()) == set(Recipe.ALL["v2"].to_dict()) - since_v2


def test_queries_miss_the_ways_the_models_own_searches_missed():
    record = {
        "id": "q",
        "question": "What is the fight song of the university whose main campus is in Lawrence, Kansas?",
        "answer": "Kansas Song",
        "type": "bridge",
        "supporting_facts": [["University of Kansas", 0], ["Kansas Song", 0]],
        "context": [
            ["University of Kansas", ["The University of Kansas is a public research university in Lawrence."]],
            ["Kaiser Ventures", ["Kaiser Ventures is an American corporation based in Ontario, California."]],
        ],
    }
    question = gold.GoldQuestion.from_record(record)

    def made(title, style):
        return queries.candidates(question, title, style)

    assert made("University of Kansas", "phrase") == ["Lawrence, Kansas"]  # a name the question holds
    read = "Pamela Veasey (born 1962) is an American writer. She worked with Gang of Four. It was fun."
    after = queries.candidates(question, "Kansas Song", "phrase", read, "Pam Veasey")  # and the page just read
    assert after == [
        "Lawrence, Kansas",
        "American",
        "Gang of Four",
    ]  # not the page's own name, not "She", not "Four. It"
    assert made("Kaiser Ventures", "long") == [
        "Kaiser Ventures corporation",  # what its first sentence says it is
        "Kaiser Ventures (corporation)",
        "Kaiser Ventures, Ontario",  # where it is
    ]
    assert made("University of Kansas", "short") == ["University", "Kansas"]  # never "University of"
    misspelt = made("Kaiser Ventures", "misspelt")
    assert misspelt == ["Kaiser Venntures", "Kaiser Vantures", "Kaiser Venture"]  # one letter wrong each
    assert made("Love and Theft (duo)", "case") == ["Love And Theft (Duo)"] and made("Winner (band)", "case") == [
        "Winner (Band)",
        "WINNER",
    ]
    assert queries.parts("Kirton End, California") == ["Kirton End", "Kirton", "California"]
    every = [
        q for style, _ in queries.STYLES for t in ("University of Kansas", "Kaiser Ventures") for q in made(t, style)
    ]
    assert "University of Kansas" not in every and "Kaiser Ventures" not in every  # never the title itself
