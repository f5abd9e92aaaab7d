"""The live turn: the thought streams into the step being written, finished steps appear as they finish, and a
step whose model output could not be read shows its error in its own panel."""

from __future__ import annotations

import threading

from app_helpers import (
    ask,
    expander_labels,
    new_session,
    open_panels,
    run_headers,
    step_expanders,
    texts,
    use_app,
    wait_idle,
)

from react_core.base.trace import Usage
from react_core.providers.base import Chunk, Provider
from ui.chat.job import provider_signature


class GatedProvider(Provider):
    """Streams each output word by word, pausing after the first word of each step until the test opens the gate."""

    name = "scripted"
    model = "gated"

    def __init__(self, outputs: list[str]) -> None:
        self.outputs = list(outputs)
        self.paused = threading.Event()
        self.gate = threading.Event()

    def stream(self, request):
        words = self.outputs.pop(0).split(" ")
        yield Chunk(text=words[0] + " ")
        self.paused.set()
        self.gate.wait(30)
        self.gate.clear()
        for w in words[1:]:
            yield Chunk(text=w + " ")
        yield Chunk(usage=Usage(10, len(words)))


def _install(at, provider: Provider) -> None:
    """Make this session reuse our provider, as it reuses its own across turns."""
    at.session_state.provider_slot = {
        "signature": provider_signature(at.session_state.settings, ""),
        "provider": provider,
    }


def test_the_thought_streams_in_while_the_model_writes_it(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    at = new_session()
    gated = GatedProvider(
        ["Thought 1: I should compute it.\nAction 1: Calculator[2 + 2]", "Thought 2: Four.\nAction 2: Finish[4]"]
    )
    _install(at, gated)
    at.chat_input[0].set_value("What is 2 + 2?").run()
    assert gated.paused.wait(30)
    at.run()
    assert expander_labels(at) == ["Step 1 · writing…"]
    assert "Thought" in texts(at)[-1] and "compute" not in texts(at)[-1]  # only the first word so far
    assert run_headers(at)[0].label == "Thinking… step 1 of 8"

    gated.paused.clear()
    gated.gate.set()
    assert gated.paused.wait(30)  # step 2 has begun: step 1 is finished and shown as such
    at.run()
    assert expander_labels(at) == ["Step 1 · Calculator[2 + 2]", "Step 2 · writing…"]
    assert run_headers(at)[0].label == "Thinking… step 2 of 8"

    gated.gate.set()
    wait_idle(at)
    assert expander_labels(at) == ["Step 1 · Calculator[2 + 2]", "Step 2 · Finish[4]"]


def test_a_step_the_model_got_wrong_shows_its_error_in_its_panel(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, ["I am not sure what to do here.", "Thought 2: Fine.\nAction 2: Finish[ok]"])
    at = ask(new_session(), "Anything?")
    assert expander_labels(at)[0] == "Step 1 · (no action)"
    assert any(m.value == ":red[**Observation — error**]" for m in at.markdown)
    assert any(t.startswith("No action found") for t in texts(at))
    assert step_expanders(at)[0].proto.expanded  # error panels open by themselves
    assert at.session_state.chat["turns"][0].trace.final_answer == "ok"  # the run went on


def test_an_observation_note_and_its_sources_show_in_an_imported_run(monkeypatch, tmp_path):
    from react_core.base.trace import Action, Observation, ObservationStats, Source, Step, Trace
    from react_core.history import HistoryStore

    use_app(monkeypatch, tmp_path, [])
    trace = Trace(
        question="Where?",
        settings={"dialect": "paper", "knowledge": "wikipedia"},
        steps=[
            Step(
                1,
                thought="Look.",
                action=Action("search", "Paris"),
                observation=Observation(
                    "Paris is a city.",
                    sources=[Source("Paris", "https://en.wikipedia.org/wiki/Paris")],
                    note="Wikipedia could not be reached; answered from the offline pack",
                    stats=ObservationStats(http_requests=1),
                ),
            )
        ],
        stop_reason="max_calls",
    )
    run_id = HistoryStore().save(trace, origin="import")
    at = new_session()
    at.session_state.history_open = run_id
    at.switch_page("pages/history.py").run()
    open_panels(at)
    assert any("Wikipedia could not be reached" in i.value for i in at.info)
    assert any("(https://en.wikipedia.org/wiki/Paris)" in m.value for m in at.markdown)
    # The offline pack answered, so its licence line (its paragraphs are Wikipedia's, from the HotpotQA corpus).
    assert any("from the HotpotQA corpus — CC BY-SA 4.0" in c.value for c in at.caption)
    assert run_headers(at)[0].label.startswith("No answer: it used all its model calls")
    assert any(c.value.endswith(" s · 1 HTTP request") for c in at.caption)  # one request, not "1 HTTP requests"


class HeldTurn:
    """A running turn held still, as the live fragment reads it: ``steps`` done, the next one being written."""

    done = cancelling = pausing = preparing = False
    max_index = 8

    def __init__(self, steps: int) -> None:
        from react_core.base.trace import Action, Observation, Step

        self.steps = [
            Step(i, thought="Add.", action=Action("calculator", "2 + 2"), observation=Observation("4"))
            for i in range(1, steps + 1)
        ]

    def model_status(self):
        return None

    def view(self):
        from react_core.base.events import Writing
        from react_core.base.trace import Trace
        from ui.chat.job import Turn

        trace = Trace("What is 2 + 2?", settings={"dialect": "paper"}, steps=list(self.steps))
        return Turn(1, trace, writing=Writing(len(self.steps) + 1, "Thought: Four."), running=True)


def _live_fragment():
    """The live fragment's body as a timer runs it; the page drew ``drawn`` finished steps (all of them, once a full
    rerun has come)."""
    import streamlit as st

    from ui.chat.live import live_turn

    ss = st.session_state
    ss.runs += 1
    live_turn(st.container(), ss.drawn if ss.runs == 1 else len(ss.job.steps))


def _held(steps: int, drawn: int):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_live_fragment, default_timeout=30)
    at.session_state.job, at.session_state.drawn, at.session_state.runs = HeldTurn(steps), drawn, 0
    return at.run()


def test_the_live_fragment_redraws_the_step_being_written_and_not_the_finished_ones():
    at = _held(steps=2, drawn=2)
    assert at.session_state.runs == 1  # no full rerun: nothing new to draw once
    assert expander_labels(at) == ["Step 3 · writing…"]  # steps 1 and 2 are the page's, drawn once
    assert run_headers(at)[0].label == "Thinking… step 3 of 8"


def test_a_step_finished_since_the_page_was_drawn_gets_a_full_rerun_to_draw_it_once():
    at = _held(steps=2, drawn=1)
    assert at.session_state.runs == 2  # st.rerun(): the page draws step 2 (no doubled step, none missing)
    assert expander_labels(at) == ["Step 3 · writing…"]
