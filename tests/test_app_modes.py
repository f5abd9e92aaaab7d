"""The app's three modes: local (one history for the one person), public demo (each browser session keeps its runs to
itself, visitors bring their own key, a limit on model calls a minute), and signed in (tested in a real browser in
test_browser_sign_in.py). The page always says which mode it is in."""

from __future__ import annotations

from app_helpers import NATIONALITY_Q, NATIONALITY_SCRIPT, ask, go, new_session, unescape, use_app
from provider_helpers import FakeGemini

from react_core.history import open_history

FINISH = "Thought 1: Done.\nAction 1: Finish[ok]"


def _sidebar_text(at) -> str:
    return unescape(" ".join(c.value for c in at.sidebar.caption))


def test_local_mode_says_so_and_keeps_one_history(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH, FINISH])
    alice, bob = new_session(), new_session()
    assert "Local mode" in _sidebar_text(alice)
    ask(alice, "Alice asks")
    ask(bob, "Bob asks")
    assert sorted(r.question for r in open_history().list()) == ["Alice asks", "Bob asks"]


def test_public_demo_sessions_keep_their_runs_to_themselves(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH, FINISH])
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    alice, bob = new_session(), new_session()
    assert "Public demo: your runs stay in this browser session only" in _sidebar_text(alice)
    ask(alice, "Alice asks")
    ask(bob, "Bob asks")
    for at, own, other in ((alice, "Alice asks", "Bob asks"), (bob, "Bob asks", "Alice asks")):
        go(at, "history")
        shown = " ".join(m.value for m in at.markdown)
        assert own in shown and other not in shown
    assert open_history().list() == []  # nothing in the local person's history either
    alice_run = alice.session_state.chat["turns"][0]["history_id"]
    bob.session_state.history_open = alice_run  # a crafted request for another visitor's run
    go(bob, "history")
    assert not [h for h in bob.subheader if "Alice" in h.value]


def test_public_demo_visitors_bring_their_own_key(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv("GEMINI_API_KEY", "server-key-never-lent")
    with FakeGemini([FINISH]) as server:
        monkeypatch.setenv("REACT_PROVIDER", "gemini")
        monkeypatch.setenv("REACT_BASE_URL", server.root)
        at = ask(new_session(), "Without a key?")
        trace = at.session_state.chat["turns"][-1]["trace"]
        assert trace["stop_reason"] == "error" and "does not lend the server's keys" in trace["error"]
        assert server.requests == []  # the server's key never left the server
        go(at, "settings").text_input(key="set-api-key").input("visitor-key-123").run()
        go(at, "chat")
        at = ask(at, "With my key?")
        assert at.session_state.chat["turns"][-1]["trace"]["final_answer"] == "ok"
        assert [r.headers.get("x-goog-api-key") for r in server.requests] == ["visitor-key-123"]


def test_public_demo_limits_model_calls_a_minute_per_visitor(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, NATIONALITY_SCRIPT)
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv("REACT_DEMO_CALLS_PER_MINUTE", "2")
    at = ask(new_session(), NATIONALITY_Q)
    trace = at.session_state.chat["turns"][-1]["trace"]
    assert trace["stop_reason"] == "error" and len(trace["steps"]) == 2
    assert "allows 2 model calls a minute per visitor" in trace["error"]
    other = ask(new_session(), NATIONALITY_Q)  # another visitor has their own allowance
    assert len(other.session_state.chat["turns"][-1]["trace"]["steps"]) == 2


def test_saved_presets_belong_to_the_person_who_saved_them(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")  # as when signed in: presets live in each person's history
    alice, bob = go(new_session(), "settings"), go(new_session(), "settings")
    alice.text_area(key="edit-question").input("Q: {question}\n").run()
    alice.text_input(key="save-name").input("alices-prompt").run()
    alice.button(key="save-preset").click().run()
    assert "alices-prompt" in alice.selectbox(key="set-preset").options[-1]
    assert alice.session_state.settings["preset"] == "alices-prompt"
    bob.run()
    assert not [o for o in bob.selectbox(key="set-preset").options if "alices-prompt" in o]
    assert not (tmp_path / "presets").exists()  # no file in the shared presets folder either
