"""The Arena page in AppTest: Figure 1 fills four columns on the paper's budget, a known question fills its gold answer,
a run with the scripted model streams every column to its footer and saves one arena, Stop ends one column while
another finishes, an arena reopens from History, and History's Compare draws 2 to 4 picked runs in the arena's view."""

from __future__ import annotations

import re

from app_helpers import ask, expander_labels, go, new_session, unescape, use_app

from react_core.history import HistoryStore

KNOWN_Q = "Were Scott Derrickson and Ed Wood of the same nationality?"  # the offline pack's, HotpotQA dev's first
CALC = [
    "Thought 1: Multiply first.\nAction 1: Calculator[6 * 7]",
    "Thought 2: It is 42.\nAction 2: Finish[42]",
]


def wait_arena(at, timeout: float = 30.0):
    """Rerun until the arena's job is done and drawn (the live fragment does the same on a timer)."""
    job = at.session_state.arena_job
    assert job is not None and job.wait(timeout), "the arena did not finish"
    at.run()
    assert not at.exception, at.exception
    return at


def start(at, question: str = "What is 6 * 7?", gold: str = ""):
    at.text_area(key="arena-question").input(question)
    at.text_input(key="arena-gold").input(gold)
    at.button(key="arena-run").click().run()
    assert not at.exception, at.exception
    return at


def markdown_texts(at) -> list[str]:
    return [unescape(m.value) for m in at.markdown]


def test_figure_one_fills_four_columns_with_the_papers_methods(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, CALC)
    at = go(new_session(), "arena")
    assert [at.selectbox(key=f"arena-strategy-{i}").value for i in range(2)] == ["react", "react"]
    at.button(key="arena-figure-one").click().run()
    assert at.session_state["arena-n"] == 4
    assert [at.selectbox(key=f"arena-strategy-{i}").value for i in range(4)] == ["standard", "cot", "act", "react"]
    assert [at.selectbox(key=f"arena-preset-{i}").value for i in range(4)] == [
        "hotpotqa-standard",
        "hotpotqa-cot",
        "hotpotqa-act",
        "hotpotqa-react",
    ]
    assert {at.selectbox(key=f"arena-provider-{i}").value for i in range(4)} == {"scripted"}


def test_base_vs_fine_tuned_fills_react_on_the_on_device_model_without_and_with_its_adapter(monkeypatch, tmp_path):
    from react_core.evaluation.strategies import role_presets

    use_app(monkeypatch, tmp_path, CALC)
    at = go(new_session(), "arena")
    at.button(key="arena-base-tuned").click().run()
    columns = [{f: at.session_state[f"arena-{f}-{i}"] for f in ("strategy", "preset", "adapter")} for i in range(2)]
    assert at.session_state["arena-n"] == 2 and columns == [
        {"strategy": "react", "preset": "hotpotqa-react", "adapter": "none"},
        {"strategy": "react", "preset": role_presets({"provider": "local", "adapter": ""})["react"], "adapter": ""},
    ]
    for i in range(2):
        assert at.session_state[f"arena-provider-{i}"] == "local" and at.session_state[f"arena-model-{i}"] == ""
        assert (at.session_state[f"arena-temperature-{i}"], at.session_state[f"arena-max_calls-{i}"]) == (0.0, 7)


def test_an_on_device_column_offers_the_adapters_on_this_machine_and_runs_with_the_one_chosen(monkeypatch, tmp_path):
    # A class compares the first adapter with today's: each on-device column offers the shipped one, none, and the
    # other adapters found here by title (the shipped v1 and v3, one fine-tuning wrote); the one chosen is the
    # column's setting when Run starts it (the job is stood in for: no model is loaded).
    from react_core import Adapter
    from ui.arena import verbs

    use_app(monkeypatch, tmp_path, CALC)
    made = tmp_path / "data" / "finetune" / "react-abc" / "adapter.gguf"
    made.parent.mkdir(parents=True)
    made.write_bytes(b"GGUF")
    started = []

    class Job:
        def __init__(self, question, specs, *args, **kwargs):
            started.append(specs)

        def start(self):
            return None

    monkeypatch.setattr(verbs, "ArenaJob", Job)
    at = go(new_session(), "arena")
    at.button(key="arena-base-tuned").click().run()
    v1 = next(a for a in Adapter.found() if a.path.parent.name == "react-hotpotqa-v1")
    offered = at.selectbox(key="arena-adapter-0").options
    assert offered[:2] == [Adapter.setting_label(""), Adapter.setting_label("none")]
    assert {v1.title, "adapter.gguf"} <= set(offered) and len(offered) == len(set(offered))
    at.selectbox(key="arena-adapter-0").set_value(str(v1.path)).run()
    start(at, KNOWN_Q)
    (specs,) = started
    assert [spec.settings["adapter"] for spec in specs] == [str(v1.path), ""]


def test_figure_one_on_a_model_with_an_adapter_fills_the_prompt_it_learned(monkeypatch, tmp_path):
    from react_core.providers.scripted import ScriptedProvider

    use_app(monkeypatch, tmp_path, CALC)
    monkeypatch.setattr(ScriptedProvider, "preset_for", classmethod(lambda cls, settings: "tuned-react"))
    at = go(new_session(), "arena")
    at.button(key="arena-figure-one").click().run()
    assert [at.selectbox(key=f"arena-preset-{i}").value for i in range(4)] == [
        "hotpotqa-standard",
        "hotpotqa-cot",
        "hotpotqa-act",
        "tuned-react",
    ]


def test_a_run_streams_every_column_to_its_footer_and_saves_one_arena(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, CALC)
    at = go(new_session(), "arena")
    at.selectbox(key="arena-strategy-0").set_value("standard").run()
    assert at.selectbox(key="arena-preset-0").value == "hotpotqa-standard"  # the strategy's prompt comes with it
    wait_arena(start(at, gold="42"))

    results = at.session_state.arena_job.arena.results
    assert [r.trace.settings["strategy"] for r in results] == ["standard", "react"]
    assert results[1].trace.final_answer == "42" and results[1].em == 1.0
    # Standard answered with the script's first line: its only step differs from ReAct's Calculator at step 1.
    assert any("First difference: step 1" in m for m in markdown_texts(at))
    assert expander_labels(at) == [
        "Columns",
        "Step 1 · Finish[Thought 1: Multiply first.]",
        "Step 1 · Calculator[6 * 7]",
        "Step 2 · Finish[42]",
    ]
    captions = [unescape(c.value) for c in at.caption]
    assert any("EM 1 · F1 1.00 · 2 steps" in c for c in captions)
    assert any("EM 0 · F1 0.00 · 1 step" in c for c in captions)
    # Side by side, an answer is bold text (a heading would fill a column) and its checks are whole lines that wrap.
    assert [unescape(s.value) for s in at.subheader] == ["What is 6 * 7?"]
    assert any(":green[Expected answer: «42» · exact match" in m for m in markdown_texts(at))
    found = HistoryStore().arenas()
    assert len(found) == 1 and [r.id for r in found[0].runs] == [r.history_id for r in results]


def test_a_known_question_fills_its_gold_answer_and_history_shows_the_columns_expected_answer(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, ["Thought 1: Both are American.\nAction 1: Finish[yes]"])
    at = go(new_session(), "arena")
    at.text_area(key="arena-question").input(KNOWN_Q).run()
    assert at.text_input(key="arena-gold").value == "yes"  # HotpotQA's answer, as the chat finds it
    at.text_area(key="arena-question").input("What is 6 * 7?").run()
    assert at.text_input(key="arena-gold").value == ""  # filled in for the question before: gone with it
    at.text_input(key="arena-gold").input("Yes, both").run()
    at.text_area(key="arena-question").input(KNOWN_Q).run()
    assert at.text_input(key="arena-gold").value == "Yes, both"  # the person's own stays
    at.text_input(key="arena-gold").input("").run()
    at.text_area(key="arena-question").input(KNOWN_Q + " ").run()
    assert at.text_input(key="arena-gold").value == "yes"
    at.button(key="arena-run").click().run()
    wait_arena(at)
    assert [(r.em, r.f1) for r in at.session_state.arena_job.arena.results] == [(1.0, 1.0)] * 2
    assert sum("EM 1 · F1 1.00 · 1 step" in unescape(c.value) for c in at.caption) == 2
    go(at, "history")
    run_id = at.session_state.arena_job.arena.results[0].history_id
    at.button(key=f"open-{run_id}").click().run()
    assert any("Expected answer: «yes» · exact match" in m for m in markdown_texts(at)), markdown_texts(at)


def test_figure_one_runs_on_the_papers_budget_whatever_the_chats_and_each_column_shows_its_own(monkeypatch, tmp_path):
    steps = [f"Thought {n}: Step {n}.\nAction {n}: Calculator[{n} + 1]" for n in (1, 2)]
    use_app(monkeypatch, tmp_path, [*steps, "Thought 3: Done.\nAction 3: Finish[42]"])
    at = new_session()
    go(at, "settings").slider(key="set-max_calls").set_value(1).run()  # the chat's budget: one model call
    at = go(at, "arena")
    assert [at.number_input(key=f"arena-max_calls-{i}").value for i in range(2)] == [1, 1]  # a new column: Settings'
    at.button(key="arena-figure-one").click().run()
    assert [at.number_input(key=f"arena-max_calls-{i}").value for i in (2, 3)] == [7, 7]
    assert not any(n.key in ("arena-max_calls-0", "arena-max_calls-1") for n in at.number_input)  # Standard, CoT
    assert sum("One model call: this strategy answers at once." in c.value for c in at.caption) == 2
    at.number_input(key="arena-max_calls-2").set_value(2)  # the person changes Act's there
    wait_arena(start(at))
    results = at.session_state.arena_job.arena.results
    assert [r.trace.settings["max_calls"] for r in results[2:]] == [2, 7]
    assert [(r.steps, r.trace.stop_reason) for r in results[2:]] == [(2, "max_calls"), (3, "finished")]
    headers = [m for m in markdown_texts(at) if re.match(r"\*\*\d\. ", m)]
    assert [h.rstrip("*").rsplit(" · ", 1)[1] for h in headers] == [
        "one model call",
        "one model call",
        "at most 2 model calls",
        "at most 7 model calls",
    ]


def test_stop_ends_one_column_while_the_other_finishes(monkeypatch, tmp_path):
    gate = tmp_path / "gate"
    use_app(monkeypatch, tmp_path, [{"gate": str(gate), "text": "Thought 1: Done.\nAction 1: Finish[42]"}])
    at = start(go(new_session(), "arena"))
    job = at.session_state.arena_job
    assert not job.done
    at.button(key="arena-stop-0").click().run()
    for _ in range(600):  # the stopped column ends while its model still waits
        if job.arena.results[0] is not None:
            break
        job.wait(0.05)
    assert job.arena.results[0] is not None, "the stopped column did not end"
    gate.touch()  # the other column's model answers
    wait_arena(at)
    assert [r.trace.stop_reason for r in job.arena.results] == ["cancelled", "finished"]
    assert job.arena.results[1].trace.final_answer == "42"


def test_an_arena_reopens_from_history_as_columns(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, CALC)
    at = wait_arena(start(go(new_session(), "arena")))
    arena_id = at.session_state.arena_job.arena.id
    at.button(key="arena-clear").click().run()
    go(at, "history")
    assert sum("· arena" in unescape(c.value) for c in at.caption) == 2  # each column is also an ordinary run
    at.button(key=f"arena-open-{arena_id}").click().run()
    assert not at.exception, at.exception
    assert at.session_state.arena_open == arena_id
    assert [unescape(s.value) for s in at.subheader][0] == "What is 6 * 7?"
    assert expander_labels(at) == [
        "Step 1 · Calculator[6 * 7]",
        "Step 1 · Calculator[6 * 7]",
        "Step 2 · Finish[42]",
        "Step 2 · Finish[42]",
    ]
    assert any("Every column took the same actions" in unescape(c.value) for c in at.caption)
    go(at, "arena")  # (AppTest draws its own page again on the next run, where a browser stays on the Arena)
    at.button(key="arena-close").click().run()
    assert at.session_state.arena_open is None and at.text_area(key="arena-question").value == "What is 6 * 7?"


def test_compare_draws_two_to_four_picked_runs_in_the_arenas_view(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [*CALC, "Thought 1: Square it.\nAction 1: Calculator[9 ** 2]", "Thought 2: Done.\nAction 2: Finish[81]", *CALC],
    )
    at = ask(ask(ask(new_session(), "What is 6 * 7?"), "What is 9 squared?"), "What is 6 * 7 again?")
    go(at, "history")
    assert at.multiselect(key="cmp-runs").value == [2, 3]
    at.multiselect(key="cmp-runs").set_value([1, 2, 3]).run()
    assert expander_labels(at) == [
        "Step 1 · Calculator[6 * 7]",
        "Step 1 · Calculator[9 ** 2]",
        "Step 1 · Calculator[6 * 7]",
        "Step 2 · Finish[42]",
        "Step 2 · Finish[81]",
        "Step 2 · Finish[42]",
    ]
    assert any("First difference: step 1" in m for m in markdown_texts(at))


def test_the_key_typed_in_settings_goes_only_to_columns_of_that_provider(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, CALC)
    at = go(new_session(), "arena")
    at.session_state.api_key = "sk-typed-for-scripted"
    at.selectbox(key="arena-provider-1").set_value("openai").run()
    wait_arena(start(at))
    job = at.session_state.arena_job
    assert [c.api_key for c in job.columns] == ["sk-typed-for-scripted", ""]
    failed = job.arena.results[1].trace
    assert failed.stop_reason == "error" and "sk-typed" not in (failed.error or "")
    assert job.arena.results[0].trace.final_answer == "42"
    assert len(HistoryStore().arenas()[0].runs) == 1  # a column that failed before its first step is not kept


def test_a_column_runs_a_saved_prompt_version_and_its_header_names_it(monkeypatch, tmp_path):
    from dataclasses import replace

    from react_core.presets.preset import load_preset
    from react_core.presets.store import PresetStore

    use_app(monkeypatch, tmp_path, CALC)
    paper = load_preset("paper")
    assert PresetStore().save_version(replace(paper, instructions=paper.instructions + "\nBe brief.\n"), "paper") == (
        "paper@2"
    )
    at = go(new_session(), "arena")
    options = at.selectbox(key="arena-preset-0").options
    assert {"paper", "paper@1", "paper@2"} <= set(options)
    at.selectbox(key="arena-preset-0").set_value("paper@1")
    at.selectbox(key="arena-preset-1").set_value("paper").run()  # the newest: run and recorded as paper@2
    wait_arena(start(at))
    results = at.session_state.arena_job.arena.results
    assert [r.trace.settings["prompt_version"] for r in results] == ["paper@1", "paper@2"]
    headers = [m for m in markdown_texts(at) if m.startswith("**1.") or m.startswith("**2.")]
    assert [("paper@1" in h, "paper@2" in h) for h in headers] == [(True, False), (False, True)]
    saved = HistoryStore().arenas()[0].runs
    assert [r.prompt_version for r in saved] == ["paper@1", "paper@2"]  # History filters by it


def test_an_arena_downloads_as_one_html_file_when_finished_listed_and_reopened(monkeypatch, tmp_path):
    from streamlit.runtime.media_file_manager import MediaFileManager

    from react_core.evaluation.arena_html import SideBySide

    offered = []  # (file name, mime type, the callable that builds the file when the person clicks)
    add = MediaFileManager.add_deferred

    def add_deferred(self, data, mimetype, coordinates, file_name=None, **options):
        offered.append((file_name, mimetype, data))
        return add(self, data, mimetype, coordinates, file_name, **options)

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    use_app(monkeypatch, tmp_path, CALC)
    at = wait_arena(start(go(new_session(), "arena"), gold="42"))
    arena_id = at.session_state.arena_job.arena.id
    assert [d.label for d in at.get("download_button")] == ["Download HTML"]  # a finished arena, on its page
    at.button(key="arena-clear").click().run()
    go(at, "history")
    labels = [d.label for d in at.get("download_button")]
    assert labels.count("Download HTML") == 2  # the arena in the Arenas list, and Compare's two runs
    at.button(key=f"arena-open-{arena_id}").click().run()
    assert not at.exception, at.exception
    offered.clear()
    go(at, "arena")  # the reopened arena (AppTest draws its own page again on the next run: see above)
    assert at.session_state.arena_open == arena_id
    assert [d.label for d in at.get("download_button")] == ["Download HTML"]
    ((name, mimetype, build),) = offered
    assert name.startswith(f"react-arena-{arena_id}-what-is-6-7") and name.endswith(".html")
    assert mimetype == "text/html"
    saved = HistoryStore().arena(arena_id)
    page = build()
    assert page == SideBySide.saved(saved.runs, arena_id=arena_id, saved_at=saved.saved_at).to_html()
    assert f"Arena {arena_id} · 2 columns" in page and page.count("EM 1 · F1 1.00") == 2
    assert page.count('class="step"') == 4 and "What is 6 * 7?" in page


def test_a_running_arena_redraws_less_often_when_a_column_computes_on_this_machine():
    # Each redraw of the columns takes CPU the on-device model needs (Figure 1 in Chromium: about 26 s redrawn three
    # times a second, 13 s once a second, 10 s unwatched: bench_arena_page.py); a hosted model computes elsewhere.
    from ui.arena.job import ColumnSpec
    from ui.arena.verbs import refresh_seconds
    from ui.shared.live_refresh import LIVE_REFRESH_SECONDS, ON_DEVICE_REFRESH_SECONDS

    class Job:
        def __init__(self, *providers: str) -> None:
            self.columns = [ColumnSpec("react", {"provider": p}) for p in providers]

    assert refresh_seconds(Job("scripted", "openai")) == LIVE_REFRESH_SECONDS
    assert refresh_seconds(Job("gemini", "local")) == ON_DEVICE_REFRESH_SECONDS > LIVE_REFRESH_SECONDS


def test_a_running_chat_turn_redraws_quickly_until_its_first_text_then_less_often_when_it_computes_here():
    # The Chat page's turn takes the same interval as the Arena's columns (one home: ui/shared/live_refresh.py), and
    # before its first text it looks more often whatever computes it (the wait for the first thought is noticed).
    from ui.chat.live import refresh_seconds
    from ui.shared.live_refresh import FIRST_TEXT_REFRESH_SECONDS, LIVE_REFRESH_SECONDS, ON_DEVICE_REFRESH_SECONDS

    class Request:
        def __init__(self, provider: str) -> None:
            self.settings = {"provider": provider}

    class Job:
        def __init__(self, provider: str) -> None:
            self.request = Request(provider)

    assert refresh_seconds(Job("local"), True) == refresh_seconds(Job("openai"), True) == FIRST_TEXT_REFRESH_SECONDS
    assert refresh_seconds(Job("openai"), False) == LIVE_REFRESH_SECONDS
    assert refresh_seconds(Job("local"), False) == ON_DEVICE_REFRESH_SECONDS > LIVE_REFRESH_SECONDS


class HeldArena:
    """A running arena held still, as the live fragment reads it: two columns, each with step 1 done and step 2 being
    written."""

    question = "What is 6 * 7?"

    def __init__(self) -> None:
        from ui.arena.job import ColumnSpec

        self.columns = [ColumnSpec(s, {"provider": "scripted", "dialect": "paper"}) for s in ("act", "react")]

    def view(self):
        from react_core.base.events import LiveRun, Writing
        from react_core.base.trace import Action, Observation, Step
        from ui.arena.job import ArenaView

        done = Step(1, thought="Multiply.", action=Action("calculator", "6 * 7"), observation=Observation("42"))
        live = [LiveRun(steps=[done], writing=Writing(2, "Thought 2: It is")) for _ in self.columns]
        return ArenaView(live=live, results=[None, None], stopping=[False, False], done=False)


def _live_columns():
    """The arena's live fragment as a timer runs it; the page drew ``seen`` (what it now holds, once a full rerun has
    come)."""
    import streamlit as st

    from ui.arena.live import drawn, live_arena

    ss = st.session_state
    ss.runs += 1
    live_arena(ss.seen if ss.runs == 1 else drawn(ss.arena_job.view()))


def _held_arena(seen):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_live_columns, default_timeout=30)
    at.session_state.arena_job, at.session_state.runs = HeldArena(), 0
    at.session_state.seen = seen if seen is not None else drawn_now()
    return at.run()


def drawn_now():
    from ui.arena.live import drawn

    return drawn(HeldArena().view())


def test_the_running_arenas_fragment_redraws_the_steps_being_written_and_not_the_finished_ones():
    # Redrawing every column's finished steps on the timer took the on-device model's cores: bench_arena_page.py.
    at = _held_arena(seen=None)
    assert at.session_state.runs == 1  # no full rerun: nothing new to draw once
    assert expander_labels(at) == ["Step 2 · writing…", "Step 2 · writing…"]  # step 1's panels are the page's


def test_a_step_finished_since_the_arena_was_drawn_gets_a_full_rerun_to_draw_it_once():
    at = _held_arena(seen=((0, 0), (False, False), (False, False)))
    assert at.session_state.runs == 2
    assert expander_labels(at) == ["Step 2 · writing…", "Step 2 · writing…"]


def test_a_running_arena_draws_no_column_editors_and_they_come_back_with_their_values(monkeypatch, tmp_path):
    gate = tmp_path / "gate"
    use_app(monkeypatch, tmp_path, [{"gate": str(gate), "text": "Thought 1: Done.\nAction 1: Finish[42]"}])
    at = go(new_session(), "arena")
    at.button(key="arena-figure-one").click().run()
    at.number_input(key="arena-max_calls-2").set_value(3)  # a value the person set, not Figure 1's
    at = start(at)
    assert not at.session_state.arena_job.done
    at.run()  # a rerun while the columns run (a step done, a column ended) draws no editor
    assert not [w for w in (*at.selectbox, *at.number_input) if w.key and w.key.startswith("arena-")]
    assert any("can be changed when the arena has ended" in c.value for c in at.caption)
    job = at.session_state.arena_job
    while not job.done:  # each column's model waits at the gate once
        gate.touch()
        job.wait(0.05)
    wait_arena(at)
    assert [at.selectbox(key=f"arena-strategy-{i}").value for i in range(4)] == ["standard", "cot", "act", "react"]
    assert at.number_input(key="arena-max_calls-2").value == 3
    assert [r.trace.settings["max_calls"] for r in at.session_state.arena_job.arena.results[2:]] == [3, 7]


def test_figure_ones_four_columns_are_kept_while_another_page_is_shown(monkeypatch, tmp_path):
    # Columns 3 and 4 got a value before their widgets were first drawn; Streamlit handed that one back (ReAct) once a
    # page without them had run.
    use_app(monkeypatch, tmp_path, CALC)
    at = go(new_session(), "arena")
    at.button(key="arena-figure-one").click().run()
    at.text_input(key="arena-model-3").input("mine").run()
    go(go(go(at, "chat"), "history"), "arena")
    assert [at.selectbox(key=f"arena-strategy-{i}").value for i in range(4)] == ["standard", "cot", "act", "react"]
    assert at.text_input(key="arena-model-3").value == "mine"
    assert at.number_input(key="arena-max_calls-3").value == 7
