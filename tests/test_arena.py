"""The arena's engine with scripted models: every column runs and ends, one column stopped while the others finish, the
first differing step, gold scoring, saving with one arena id, and the on-device model's lock serving columns in turn
while a hosted column streams."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest

from react_core.base.errors import ConfigError
from react_core.base.events import RunDone, StepDone, TextDelta
from react_core.base.trace import Action, Step, Trace
from react_core.base.trace_schema import parse_trace_json
from react_core.evaluation.arena import Arena, Variant, first_difference
from react_core.evaluation.strategies import PAPER_REACT_STEPS, run_strategy
from react_core.history import HistoryStore, open_history
from react_core.loop.settings import RunSettings
from react_core.providers.base import Chunk, CompletionRequest
from react_core.providers.scripted import ScriptedProvider
from react_core.report.exports import to_json

SETTINGS = RunSettings(provider="scripted", tools=["calculator"], max_calls=3)
Q = "What is 6 * 7?"
KNOWN_Q = "Were Scott Derrickson and Ed Wood of the same nationality?"  # HotpotQA dev's first question: yes
FIGURE_ONE_SCRIPTS = [
    [" 42\nQuestion: invented"],  # Standard
    [" Six sevens.\nAnswer: 42\n"],  # CoT
    [" Calculator[6 * 7]", " Finish[42]"],  # Act
    [" Multiply.\nAction 1: Calculator[6 * 7]", " It is 42.\nAction 2: Finish[41]"],  # ReAct (a wrong answer)
]


def figure_one_arena(**options) -> Arena:
    variants = Variant.figure_one(SETTINGS)
    for v, script in zip(variants, FIGURE_ONE_SCRIPTS, strict=True):
        v.provider = ScriptedProvider(script)
    return Arena(Q, variants, **options)


def test_every_column_runs_to_its_end_and_its_events_are_tagged_with_it(tmp_path):
    arena = figure_one_arena(gold="42")
    seen: dict[int, list] = {n: [] for n in range(4)}
    for item in arena.stream():
        seen[item.column].append(item.event)
    for n in range(4):
        assert isinstance(seen[n][-1], RunDone) and sum(isinstance(e, RunDone) for e in seen[n]) == 1
        assert [e.step.index for e in seen[n] if isinstance(e, StepDone)] == [s.index for s in seen[n][-1].trace.steps]
    # Every column streams like the chat, the direct answers too: the text so far, then the finished step.
    assert all(any(isinstance(e, TextDelta) for e in seen[n]) for n in range(4))
    assert [e.text for e in seen[1] if isinstance(e, TextDelta)][-1] == FIGURE_ONE_SCRIPTS[1][0]
    results = arena.results
    assert [r.trace.settings["strategy"] for r in results] == ["standard", "cot", "act", "react"]
    assert [r.trace.final_answer for r in results] == ["42", "42", "42", "41"]
    assert [r.trace.stop_reason for r in results] == ["finished"] * 4
    assert [r.steps for r in results] == [1, 1, 2, 2]
    assert all(r.tokens > 0 and r.seconds >= 0 for r in results)


def test_step_mode_of_the_chat_never_pauses_an_arena_column():
    # The arena takes the person's settings, step mode included; nobody can decide a column's step, so a column that
    # paused would be saved as a paused run nobody can take on.
    variants = Variant.figure_one(replace(SETTINGS, pause_before=["tool", "finish"]))
    for v, script in zip(variants, FIGURE_ONE_SCRIPTS, strict=True):
        v.provider = ScriptedProvider(script)
    results = Arena(Q, variants).run()
    assert [r.trace.stop_reason for r in results] == ["finished"] * 4
    assert all("pause_before" not in r.trace.settings for r in results)


def test_a_direct_column_is_the_trace_evaluate_would_make():
    arena = figure_one_arena()
    arena.run()
    from react_core.evaluation.strategies import EvalContext

    ctx = EvalContext(settings=SETTINGS, provider=ScriptedProvider(FIGURE_ONE_SCRIPTS[1]))
    alone = run_strategy("cot", Q, ctx).trace
    column = arena.results[1].trace
    assert [s.thought for s in column.steps] == [s.thought for s in alone.steps]
    assert column.final_answer == alone.final_answer and column.settings["preset"] == alone.settings["preset"]
    assert arena.variants[1].provider.requests[0].prompt == ctx.provider.requests[0].prompt


def test_gold_answer_gives_exact_match_f1_and_the_grounding_check():
    results = figure_one_arena(gold="42").run()
    assert [(r.em, r.f1) for r in results] == [(1.0, 1.0), (1.0, 1.0), (1.0, 1.0), (0.0, 0.0)]
    assert all(r.trace.expected_answer == "42" for r in results)
    assert results[2].grounding.kind == "grounded"  # the Calculator said 42
    assert results[0].grounding.kind != "grounded"  # Standard looked nothing up
    unscored = figure_one_arena().run()
    assert all(r.em is None and r.f1 is None and r.trace.expected_answer is None for r in unscored)


def answering(answers: tuple[str, str, str, str]) -> list[list[str]]:
    """Figure 1's four columns' scripts, each answering at once: Standard, CoT, Act, ReAct."""
    standard, cot, act, react = answers
    return [
        [f" {standard}"],
        [f" Both American.\nAnswer: {cot}"],
        [f" Finish[{act}]"],
        [f" So.\nAction 1: Finish[{react}]"],
    ]


def scripted(variants: list[Variant], scripts: list[list[str]]) -> list[Variant]:
    for v, script in zip(variants, scripts, strict=True):
        v.provider = ScriptedProvider(script)
    return variants


def test_a_known_hotpotqa_question_is_scored_and_kept_with_its_answer_without_a_gold_one(tmp_path):
    # No gold answer given: the columns' expected answer is the one a chat run of the question gets (the dev set's).
    store = HistoryStore(tmp_path / "history.sqlite")
    variants = scripted(Variant.figure_one(SETTINGS), answering(("yes", "no", "yes", "yes")))
    results = Arena(KNOWN_Q, variants, store=store).run()
    assert [r.trace.final_answer for r in results] == ["yes", "no", "yes", "yes"]
    assert [(r.em, r.f1) for r in results] == [(1.0, 1.0), (0.0, 0.0), (1.0, 1.0), (1.0, 1.0)]
    assert [store.get(r.history_id).trace.expected_answer for r in results] == ["yes"] * 4
    assert results[0].figures().startswith("EM 1 · F1 1.00 · 1 step · ")
    # A gold answer given is the one used.
    given = scripted(Variant.figure_one(SETTINGS), answering(("yes",) * 4))
    assert {r.trace.expected_answer for r in Arena(KNOWN_Q, given, gold="no").run()} == {"no"}


def test_figure_one_on_a_model_with_an_adapter_runs_the_prompt_it_learned_as_the_arena_page_does(monkeypatch):
    # A model whose adapter learned ``tuned-react`` (as the on-device model's shipped one did): Figure 1's ReAct column
    # runs that, the paper's prompts the roles it learned none for (the Arena page's Figure 1 always did; a script's
    # ran the paper's 6-shot prompt on the fine-tuned model).
    learned = classmethod(lambda cls, settings: "" if settings.get("adapter") == "none" else "tuned-react")
    monkeypatch.setattr(ScriptedProvider, "preset_for", learned)
    tuned = Variant.figure_one(SETTINGS)
    assert [v.settings.preset for v in tuned] == ["hotpotqa-standard", "hotpotqa-cot", "hotpotqa-act", "tuned-react"]
    base = Variant.figure_one(replace(SETTINGS, adapter="none"))
    assert [v.preset_name() for v in base] == [Variant(s).preset_name() for s in Arena.STRATEGIES]
    assert base[-1].preset_name() == "hotpotqa-react"


def test_figure_one_runs_act_and_react_on_the_papers_budget_and_each_column_says_its_budget():
    chat = replace(SETTINGS, max_calls=1, temperature=0.7)  # the chat's budget: one model call
    variants = Variant.figure_one(chat)
    assert [v.settings.max_calls for v in variants] == [PAPER_REACT_STEPS] * 4 == [7] * 4
    assert {v.settings.temperature for v in variants} == {0.0}
    own = Variant.figure_one(chat, max_calls=2)  # a person's own, when asked
    assert [v.settings.max_calls for v in own] == [2] * 4
    assert [v.budget() for v in own] == ["one model call"] * 2 + ["at most 2 model calls"] * 2
    act = [f" Calculator[{n} + 1]" for n in range(1, 4)] + [" Finish[42]"]
    react = [f" Step {n}.\nAction {n}: Calculator[{n} + 1]" for n in range(1, 4)] + [" So.\nAction 4: Finish[42]"]
    results = Arena(Q, scripted(variants, [[" 42"], [" Six sevens.\nAnswer: 42"], act, react])).run()
    # Act and ReAct take four steps and finish: on the chat's budget they would have stopped after one.
    assert [(r.steps, r.trace.stop_reason) for r in results] == [(1, "finished")] * 2 + [(4, "finished")] * 2
    labels = [Variant.label(r.trace.settings) for r in results]
    assert [label.rsplit(" · ", 1)[1] for label in labels] == ["one model call"] * 2 + ["at most 7 model calls"] * 2
    assert Variant.label({"strategy": "react", "provider": "scripted", "max_calls": 1}).endswith("at most 1 model call")
    assert " · at most" not in Variant.label({"strategy": "react", "provider": "scripted"})  # a trace from elsewhere


def test_one_column_stopped_while_the_others_finish(tmp_path):
    gate = tmp_path / "never-opened"
    variants = [Variant("react", SETTINGS, provider=ScriptedProvider([{"gate": str(gate), "text": " x"}]))]
    variants += [
        Variant("react", SETTINGS, provider=ScriptedProvider([" Done.\nAction 1: Finish[42]"])) for _ in range(2)
    ]
    arena = Arena(Q, variants)
    finished = set()
    for item in arena.stream():
        if isinstance(item.event, RunDone):
            finished.add(item.column)
            if finished == {1, 2}:
                arena.stop(0)  # the first column still waits for its model: Stop reaches the wait
    assert [r.trace.stop_reason for r in arena.results] == ["cancelled", "finished", "finished"]
    assert [r.trace.final_answer for r in arena.results] == [None, "42", "42"]


def test_lining_up_steps_finds_the_first_row_where_the_actions_differ():
    def step(i, tool=None, arg="", answer=None):
        return Step(i, action=Action(tool, arg) if tool else None, final_answer=answer)

    a = [step(1, "search", "Scott Derrickson"), step(2, "search", "Ed Wood"), step(3, answer="American")]
    b = [step(1, "search", "scott  derrickson"), step(2, "lookup", "nationality"), step(3, answer="American")]
    c = [step(1, "search", "Scott Derrickson")]
    assert first_difference([a, a]) is None
    assert first_difference([a, b]) == 1  # case and spacing aside, step 1 is the same search
    assert first_difference([a, c]) == 1  # a column that has ended differs from one that goes on
    assert first_difference([a]) is None
    rows = Arena.line_up([a, c])
    assert len(rows) == 3 and rows[1] == [a[1], None]
    direct = [step(1, answer="the American")]
    assert first_difference([direct, [step(1, answer="American")]]) is None  # answers compare normalised
    assert first_difference([direct, a]) == 0


def test_each_column_is_saved_as_a_run_tagged_with_one_arena_id(tmp_path):
    store = HistoryStore(tmp_path / "history.sqlite")
    store.save(Trace("a chat question", settings={"provider": "scripted"}, stop_reason="finished"))
    arena = figure_one_arena(gold="42", store=store)
    results = arena.run()
    assert all(r.history_id is not None and r.save_error is None for r in results)
    found = store.arenas()
    assert len(found) == 1 and found[0].id == arena.id and found[0].question == Q
    assert [r.id for r in found[0].runs] == [r.history_id for r in results]
    assert [r.trace.settings["arena_column"] for r in found[0].runs] == [1, 2, 3, 4]
    assert {r.origin for r in found[0].runs} == {"arena"} and all(r.from_arena for r in found[0].runs)
    assert [r.from_arena for r in store.list()][-1] is False  # the chat question
    assert store.arena(arena.id).runs == found[0].runs and store.arena("nope") is None
    assert store.arena("%") is None and store.arenas(limit=0) == []
    newer = figure_one_arena(store=store)
    newer.run()
    assert [a.id for a in store.arenas()] == [newer.id, arena.id]
    assert [a.id for a in store.arenas(limit=1)] == [newer.id]
    assert store.arena(arena.id).runs == found[0].runs  # found however many arenas came after it
    # A column is an ordinary run: exported and imported like any other, and listed with the others.
    column = store.get(results[3].history_id).trace
    assert parse_trace_json(to_json(column)).settings["arena"] == arena.id
    assert store.count() == 9
    old = json.loads(to_json(column))  # a trace from before the arena reads as it always did
    del old["settings"]["arena"], old["settings"]["arena_column"]
    assert "arena" not in parse_trace_json(json.dumps(old)).settings


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_arenas_are_found_on_either_database_and_only_by_their_owner(backend, request, tmp_path):
    def store(owner: str):
        if backend == "sqlite":
            return open_history(owner, url="", path=tmp_path / "h.sqlite")
        return open_history(owner, url=request.getfixturevalue("postgres_url"))

    mine = figure_one_arena(gold="42", store=store("ada"))
    mine.run()
    found = store("ada").arenas()
    assert [a.id for a in found] == [mine.id] and len(found[0].runs) == 4
    assert store("ada").arena(mine.id).question == Q
    assert store("bob").arenas() == [] and store("bob").arena(mine.id) is None


def test_a_column_that_cannot_run_says_why_and_the_others_go_on():
    variants = Variant.figure_one(SETTINGS)[2:]
    variants[0].provider = ScriptedProvider([" Finish[1]"])
    variants[1] = Variant("cot", replace(SETTINGS, preset="hotpotqa-react"), provider=ScriptedProvider([]))
    results = Arena(Q, variants).run()
    assert results[0].trace.final_answer == "1"
    assert results[1].trace.stop_reason == "error" and "needs a cot one" in results[1].trace.error
    with pytest.raises(ConfigError, match="2 to 4 columns"):
        Arena(Q, variants[:1])
    with pytest.raises(ConfigError, match="Unknown arena strategy"):
        Arena(Q, [Variant("cot-sc"), Variant("react")])


class OnDevice(ScriptedProvider):
    """Like the on-device model: every call holds the one model's lock (shared by every provider object of it)."""

    def __init__(self, outputs, lock: threading.Lock, inside: list[int], hosted_done: threading.Event) -> None:
        super().__init__(outputs)
        self.lock, self.inside, self.hosted_done = lock, inside, hosted_done

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        with self.lock:
            self.inside.append(1)
            try:
                assert len(self.inside) == 1, "two columns inside the on-device model at once"
                # The hosted column streams while this one holds the model: were the columns run one after
                # another, it could not finish before this call does.
                assert self.hosted_done.wait(30), "the hosted column did not run meanwhile"
                yield from super().stream(request)
            finally:
                self.inside.pop()


class Hosted(ScriptedProvider):
    def __init__(self, outputs, done: threading.Event) -> None:
        super().__init__(outputs)
        self.done = done

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        yield from super().stream(request)
        if len(self.requests) == len(self.outputs):
            self.done.set()


def test_on_device_columns_take_turns_through_its_lock_while_a_hosted_column_streams():
    lock, inside, hosted_done = threading.Lock(), [], threading.Event()
    script = [" Multiply.\nAction 1: Calculator[6 * 7]", " So.\nAction 2: Finish[42]"]
    on_device = [OnDevice(list(script), lock, inside, hosted_done) for _ in range(2)]
    variants = [Variant("react", SETTINGS, provider=p) for p in on_device]
    variants.append(Variant("react", SETTINGS, provider=Hosted(list(script), hosted_done)))
    results = Arena(Q, variants).run()
    assert [r.trace.stop_reason for r in results] == ["finished"] * 3, [r.trace.error for r in results]
    assert [r.trace.final_answer for r in results] == ["42"] * 3
