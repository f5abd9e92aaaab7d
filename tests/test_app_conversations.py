"""History lists past conversations (first question, turns, last answer, when); Open brings one back into Chat, where a
follow-up continues it (same conversation, earlier turns as context). Each person sees only their own."""

from __future__ import annotations

from app_helpers import APP, APP_TIMEOUT, ask, go, new_session, provider, reload, unescape, use_app, wait_idle
from streamlit.testing.v1 import AppTest

from react_core.history import HistoryStore

SCRIPT = [
    "Thought 1: Multiply.\nAction 1: Finish[42]",
    "Thought 1: Add.\nAction 1: Finish[43]",
    "Thought 1: Square.\nAction 1: Finish[81]",
    "Thought 1: The first answer was 42.\nAction 1: Finish[42 again]",
]


def _open_keys(at) -> list[str]:
    return [b.key for b in at.button if b.key and b.key.startswith("chat-open-")]


def test_a_past_conversation_is_listed_reopened_in_chat_and_continued(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, SCRIPT)
    at = ask(ask(new_session(), "What is 6 * 7?"), "And plus one?")
    first = at.session_state.chat["id"]
    at.button(key="new-chat").click().run()
    at = ask(at, "What is 9 squared?")
    second = at.session_state.chat["id"]

    go(at, "history")
    assert _open_keys(at) == [f"chat-open-{second}", f"chat-open-{first}"]  # the one continued last first
    captions = [unescape(c.value) for c in at.caption]
    assert "2 turns" in captions and "1 turn · open in Chat" in captions
    assert any(c.startswith("Last answer: 43 · ") for c in captions)

    at.button(key=f"chat-open-{first}").click().run()
    assert not at.exception, at.exception
    chat = at.session_state.chat
    assert chat["id"] == first and [t.question for t in chat["turns"]] == ["What is 6 * 7?", "And plus one?"]
    assert at.query_params["chat"] == first  # and a reload keeps it
    assert at.header[0].value == "Chat" and len(at.chat_message) == 4  # the Chat page, with its two turns

    at = ask(at, "What was the first answer?")
    prompt = provider(at).requests[-1].prompt
    assert "Q: What is 6 * 7?\nA: 42\nQ: And plus one?\nA: 43" in prompt  # earlier turns are its context
    records = HistoryStore().conversation(first)
    assert [r.question for r in records][-1] == "What was the first answer?"
    assert len(records) == 3 and len(HistoryStore().conversation(second)) == 1


def test_another_conversation_opens_only_once_the_running_turn_is_done(monkeypatch, tmp_path):
    gate = tmp_path / "gate"
    use_app(monkeypatch, tmp_path, [SCRIPT[0], {"text": SCRIPT[1], "gate": str(gate)}])
    at = ask(new_session(), "What is 6 * 7?")
    first = at.session_state.chat["id"]
    at.button(key="new-chat").click().run()
    at.chat_input[0].set_value("And 6 + 7?").run()  # waits at the gate
    go(at, "history")
    assert at.button(key=f"chat-open-{first}").disabled
    gate.touch()
    wait_idle(at)
    assert not at.button(key=f"chat-open-{first}").disabled


def test_each_visitor_sees_only_their_own_conversations(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, SCRIPT)
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")  # each browser session is its own owner
    ask(new_session(), "What is 6 * 7?")
    stranger = go(new_session(), "history")
    assert _open_keys(stranger) == []
    assert any("No conversations yet" in i.value for i in stranger.info)


def test_a_reload_says_the_conversation_is_being_restored_until_it_is_drawn(monkeypatch, tmp_path):
    from ui.shared import state

    use_app(monkeypatch, tmp_path, SCRIPT)
    at = ask(new_session(), "What is 6 * 7?")
    assert not [i for i in at.info if i.value == state.RESTORING]  # a session that has its chat restores nothing
    again = reload(at)
    assert len(again.chat_message) == 2 and not [b for b in again.button if (b.key or "").startswith("example-")]
    assert not [i for i in again.info if i.value == state.RESTORING]  # gone once the conversation is drawn
    fresh = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()  # nothing to restore: nothing said
    assert not [i for i in fresh.info if i.value == state.RESTORING] and not fresh.exception

    # While the conversation is read (here it never finishes), the page says so rather than showing nothing.
    def stuck() -> None:
        raise RuntimeError("still reading")

    monkeypatch.setattr(state, "init_state", stuck)
    stalled = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
    stalled.query_params["chat"] = at.session_state.chat["id"]
    stalled.run()
    assert [i.value for i in stalled.info] == [state.RESTORING]
