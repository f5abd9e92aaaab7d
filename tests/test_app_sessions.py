"""Several browser sessions at once keep their own conversation, settings and provider; only the history file is
shared (and it is a transactional store)."""

from __future__ import annotations

from app_helpers import (
    go,
    new_session,
    provider,
    use_app,
    wait_idle,
)
from provider_helpers import wait_for

from react_core.history import HistoryStore


def test_two_sessions_running_at_once_keep_their_own_conversation_and_settings(monkeypatch, tmp_path):
    gate = tmp_path / "gate"
    use_app(
        monkeypatch,
        tmp_path,
        [
            {"text": "Thought 1: Working.\nAction 1: Calculator[2 + 2]", "gate": str(gate)},
            "Thought 2: Done.\nAction 2: Finish[4]",
        ],
    )
    alice, bob = new_session(), new_session()
    go(alice, "settings").slider(key="set-temperature").set_value(0.3).run()
    go(bob, "settings").slider(key="set-temperature").set_value(1.1).run()
    go(alice, "chat").chat_input[0].set_value("Alice asks").run()
    go(bob, "chat").chat_input[0].set_value("Bob asks").run()
    # Both turns wait at the gate: both are running at once. Each opening lets one of them through.
    assert not alice.session_state.job.done and not bob.session_state.job.done
    for _ in range(2):
        gate.touch()
        assert wait_for(lambda: not gate.exists())
    wait_idle(alice)
    wait_idle(bob)

    for at, question, temperature in ((alice, "Alice asks", 0.3), (bob, "Bob asks", 1.1)):
        turns = at.session_state.chat["turns"]
        assert [t.question for t in turns] == [question]
        assert turns[0].trace.settings["temperature"] == temperature
        assert turns[0].trace.final_answer == "4"
        assert [t.value for t in at.chat_message[0].text] == [question]
    assert provider(alice) is not provider(bob)
    assert alice.session_state.chat["id"] != bob.session_state.chat["id"]
    assert sorted(r.question for r in HistoryStore().list()) == ["Alice asks", "Bob asks"]


def test_new_chat_clears_only_this_session(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, ["Thought 1: a\nAction 1: Finish[a]", "Thought 1: b\nAction 1: Finish[b]"])
    alice, bob = new_session(), new_session()
    for at in (alice, bob):
        at.chat_input[0].set_value("Hello").run()
        wait_idle(at)
    alice.button(key="new-chat").click().run()
    assert alice.session_state.chat["turns"] == []
    bob.run()
    assert len(bob.session_state.chat["turns"]) == 1
