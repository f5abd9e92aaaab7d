"""The Present page: a saved run played back slide by slide (question, each step, answer) with next and previous on
buttons and keys, a quiz that hides each Thought and Action until Reveal, an automatic pace that moves one beat each
time its fragment's timer reruns it, and the slide kept in session state and the address. A run that is not the
person's (or not there) gets one clear message."""

from __future__ import annotations

import streamlit
from app_helpers import NATIONALITY_Q, NATIONALITY_SCRIPT, ask, go, new_session, reload, texts, use_app

from react_core.history import open_history
from ui.present import presenter

SLIDES = len(NATIONALITY_SCRIPT) + 2
ARITHMETIC = ["Thought 1: Compute it.\nAction 1: Calculator[17 * 23 + 4]", "Thought 2: Done.\nAction 2: Finish[395]"]


def _presenting(monkeypatch, tmp_path, step: str | None = None):
    use_app(monkeypatch, tmp_path, NATIONALITY_SCRIPT)
    at = ask(new_session(), NATIONALITY_Q)
    run_id = at.session_state.chat["turns"][-1].history_id
    at.query_params["run"] = str(run_id)
    if step is not None:
        at.query_params["step"] = step
    return go(at, "present"), run_id


def _slide(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Slide "))


def _shown(at) -> str:
    return " ".join(texts(at)) + " " + " ".join(c.value for c in at.code)


def test_open_a_run_and_move_through_it_by_button_and_keyboard(monkeypatch, tmp_path):
    at, run_id = _presenting(monkeypatch, tmp_path)
    assert _slide(at) == f"Slide 1 of {SLIDES}"
    assert NATIONALITY_Q in texts(at)
    assert at.button(key="present-next").proto.shortcut and at.button(key="present-previous").proto.shortcut
    assert at.button(key="present-previous").disabled
    at.button(key="present-next").click().run()
    assert _slide(at) == f"Slide 2 of {SLIDES}"
    assert "I need to search Scott Derrickson first." in _shown(at)
    assert "Search[Scott Derickson film]" in _shown(at)
    assert at.query_params["step"] == "1" and at.query_params["run"] == str(run_id)
    at.button(key="present-next").click().run()
    at.button(key="present-previous").click().run()
    assert _slide(at) == f"Slide 2 of {SLIDES}"
    for _ in range(SLIDES - 2):
        at.button(key="present-next").click().run()
    assert _slide(at) == f"Slide {SLIDES} of {SLIDES}" and at.button(key="present-next").disabled
    assert any("American" in s.value for s in at.subheader)  # the answer slide
    assert not at.exception


def test_the_slide_survives_a_rerun_and_a_reload(monkeypatch, tmp_path):
    at, _ = _presenting(monkeypatch, tmp_path)
    at.button(key="present-next").click().run()
    at.button(key="present-next").click().run()
    at.run()
    assert _slide(at) == f"Slide 3 of {SLIDES}"
    again = go(reload(at), "present")  # the same address: the page and its query
    assert _slide(again) == f"Slide 3 of {SLIDES}"
    assert "Search[Scott Derrickson]" in _shown(again)


def test_quiz_hides_thought_and_action_until_reveal(monkeypatch, tmp_path):
    at, _ = _presenting(monkeypatch, tmp_path, step="1")
    at.toggle(key="present-quiz").set_value(True).run()
    shown = _shown(at)
    assert "I need to search Scott Derrickson first." not in shown and "Search[" not in shown
    assert any("Press Reveal" in i.value for i in at.info)
    assert not at.button(key="present-reveal").disabled
    at.button(key="present-reveal").click().run()
    assert "I need to search Scott Derrickson first." in _shown(at) and "Search[Scott Derickson film]" in _shown(at)
    assert at.button(key="present-reveal").disabled
    at.button(key="present-next").click().run()  # the next step is hidden again, after what it had just read
    assert "Search[Scott Derrickson]" not in _shown(at) and "The search missed" not in _shown(at)
    assert any(t.startswith("Could not find [Scott Derickson film].") for t in texts(at))
    at.toggle(key="present-quiz").set_value(False).run()
    assert "Search[Scott Derrickson]" in _shown(at)


def test_the_automatic_pace_moves_one_beat_each_time_its_fragment_reruns(monkeypatch, tmp_path):
    at, _ = _presenting(monkeypatch, tmp_path)
    every = []
    real = streamlit.fragment

    def spy(func=None, *, run_every=None, **kw):
        every.append(run_every)
        return real(func, run_every=run_every, **kw)

    monkeypatch.setattr(streamlit, "fragment", spy)
    at.selectbox(key="present-pace").set_value(3).run()
    assert every[-1] is None  # not playing: no timer
    at.button(key="present-play").click().run()
    assert every[-1] == 3 and _slide(at).endswith("playing")
    assert _slide(at).startswith("Slide 1 ")  # pressing Play does not itself move on
    # Each timed rerun of the fragment (its timer firing) is one beat.
    monkeypatch.setattr(presenter, "timer_rerun", lambda: True)
    at.run()
    assert _slide(at).startswith("Slide 2 ")
    # In quiz mode a beat first reveals the step, the next beat moves on.
    monkeypatch.setattr(presenter, "timer_rerun", lambda: False)  # the page's own reruns are no beats
    at.toggle(key="present-quiz").set_value(True).run()
    assert _slide(at).startswith("Slide 2 ") and "Search[Scott Derickson film]" not in _shown(at)
    monkeypatch.setattr(presenter, "timer_rerun", lambda: True)
    at.run()
    assert _slide(at).startswith("Slide 2 ") and "Search[Scott Derickson film]" in _shown(at)
    at.run()
    assert _slide(at).startswith("Slide 3 ") and "Search[Scott Derrickson]" not in _shown(at)
    at.run()
    assert _slide(at).startswith("Slide 3 ") and "Search[Scott Derrickson]" in _shown(at)
    at.toggle(key="present-quiz").set_value(False).run()
    for _ in range(SLIDES):
        at.run()
    assert _slide(at) == f"Slide {SLIDES} of {SLIDES}"  # it stopped at the end
    assert every[-1] is None and at.button(key="present-play").label == "Play"
    assert not at.exception


def test_a_missing_run_or_another_persons_run_gets_a_clear_message(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    others = open_history(owner="oidc:someone#else")
    from react_core.base.trace import Trace

    theirs = others.save(Trace(question="Not yours", final_answer="x", stop_reason="finished"))
    for run in (str(theirs), "999"):
        at = new_session()
        at.query_params["run"] = run
        go(at, "present")
        assert [e.value for e in at.error] == [f"Run #{run} is not in your history, so it cannot be presented."]
        assert "Not yours" not in " ".join(texts(at))
    at = go(new_session(), "present")
    assert any("No runs to present yet" in i.value for i in at.info)


def test_history_opens_a_run_on_the_present_page(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, NATIONALITY_SCRIPT)
    at = go(ask(new_session(), NATIONALITY_Q), "history")
    run_id = at.session_state.chat["turns"][-1].history_id
    at.button(key=f"open-{run_id}").click().run()
    at.button(key="present-run").click().run()
    assert not at.exception, at.exception
    assert _slide(at) == f"Slide 1 of {SLIDES}" and at.query_params["run"] == str(run_id)


def test_quiz_switched_off_and_on_hides_what_play_revealed(monkeypatch, tmp_path):
    at, _ = _presenting(monkeypatch, tmp_path, step="1")
    at.toggle(key="present-quiz").set_value(True).run()
    at.selectbox(key="present-pace").set_value(3).run()
    at.button(key="present-play").click().run()
    monkeypatch.setattr(presenter, "timer_rerun", lambda: True)
    at.run()  # a beat reveals step 1
    assert "Search[Scott Derickson film]" in _shown(at) and at.button(key="present-reveal").disabled
    monkeypatch.setattr(presenter, "timer_rerun", lambda: False)
    at.button(key="present-play").click().run()  # paused
    at.toggle(key="present-quiz").set_value(False).run()
    at.toggle(key="present-quiz").set_value(True).run()
    assert "Search[Scott Derickson film]" not in _shown(at)  # hidden again
    assert not at.button(key="present-reveal").disabled
    at.button(key="present-reveal").click().run()
    assert "Search[Scott Derickson film]" in _shown(at)


def test_a_press_while_playing_is_not_also_a_beat(monkeypatch, tmp_path):
    # The controls are in the pace's fragment, so a press reruns it as the timer does: only the timer moves a beat.
    at, _ = _presenting(monkeypatch, tmp_path)
    at.selectbox(key="present-pace").set_value(3).run()
    at.button(key="present-play").click().run()
    monkeypatch.setattr(presenter, "timer_rerun", lambda: True)
    at.button(key="present-next").click().run()
    assert _slide(at).startswith("Slide 2 ")
    at.toggle(key="present-quiz").set_value(True).run()
    assert _slide(at).startswith("Slide 2 ") and "Search[Scott Derickson film]" not in _shown(at)
    at.run()  # the timer: a beat reveals
    assert _slide(at).startswith("Slide 2 ") and "Search[Scott Derickson film]" in _shown(at)


def test_the_run_picker_lists_plain_text_and_stays_once_a_run_is_chosen(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [*NATIONALITY_SCRIPT, *ARITHMETIC])
    at = ask(ask(new_session(), NATIONALITY_Q), "#1: 17 * 23 + 4? (a copy)")
    at = go(at, "present")
    picker = at.selectbox(key="present-pick")
    assert picker.value is None and picker.options == ["#2 · #1: 17 * 23 + 4? (a copy)", f"#1 · {NATIONALITY_Q}"]
    picker.set_value(2).run()
    assert _slide(at) == "Slide 1 of 4" and at.query_params["run"] == "2" and at.query_params["step"] == "0"
    assert at.selectbox(key="present-pick").value == 2  # still there, on the run shown
    at.button(key="present-next").click().run()
    at.selectbox(key="present-pick").set_value(1).run()  # another run opens at its first slide
    assert _slide(at) == f"Slide 1 of {SLIDES}" and NATIONALITY_Q in texts(at)
    assert at.selectbox(key="present-pick").value == 1


def test_full_screen_hides_the_sidebar_header_and_picker_and_comes_back(monkeypatch, tmp_path):
    at, _ = _presenting(monkeypatch, tmp_path)
    assert at.selectbox(key="present-pick") and not _full_screen_style(at)
    assert at.button(key="present-full-screen").proto.shortcut
    at.button(key="present-full-screen").click().run()
    assert _full_screen_style(at) and at.button(key="present-full-screen").label == "Leave full screen"
    assert not [s for s in at.selectbox if s.key == "present-pick"]
    assert [h.value for h in at.header] == ["Question"]  # the slide's own, not the page's
    assert _slide(at) == f"Slide 1 of {SLIDES}"
    at.button(key="present-next").click().run()
    assert _full_screen_style(at) and _slide(at) == f"Slide 2 of {SLIDES}"  # kept from slide to slide
    at.button(key="present-full-screen").click().run()
    assert not _full_screen_style(at) and at.selectbox(key="present-pick").value is not None


def _full_screen_style(at) -> bool:
    return any(m.value == presenter.FULL_SCREEN_STYLE for m in at.markdown)
