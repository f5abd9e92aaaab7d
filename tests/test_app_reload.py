"""A reload keeps the conversation: the page's URL names the chat, finished turns come back from history and a turn
still running is found again; nobody else's chat can be opened that way."""

from __future__ import annotations

from app_helpers import (
    NATIONALITY_Q,
    NATIONALITY_SCRIPT,
    expander_labels,
    nav,
    new_session,
    reload,
    run_headers,
    use_app,
    wait_idle,
)
from streamlit.testing.v1 import AppTest


def _questions(at: AppTest) -> list[str]:
    return [t.question for t in at.session_state.chat["turns"]]


def test_a_reload_during_a_run_finds_the_running_turn_and_its_answer(monkeypatch, tmp_path):
    gate = tmp_path / "gate"
    first, *rest = NATIONALITY_SCRIPT
    use_app(monkeypatch, tmp_path, [{"text": first, "gate": str(gate)}, *rest])
    at = new_session()
    at.chat_input[0].set_value(NATIONALITY_Q).run()
    chat_id = at.query_params["chat"]
    assert chat_id == at.session_state.chat["id"]

    reloaded = reload(at)
    assert reloaded.session_state.chat["id"] == chat_id
    assert reloaded.session_state.job is at.session_state.job and not reloaded.session_state.job.done
    assert [h.label for h in run_headers(reloaded)] == ["Thinking… step 1 of 8"]
    gate.touch()
    wait_idle(reloaded)
    assert _questions(reloaded) == [NATIONALITY_Q]
    assert reloaded.session_state.chat["turns"][0].trace.final_answer == "American"


def test_a_reload_after_the_run_brings_the_conversation_back_from_history(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [*NATIONALITY_SCRIPT, "Thought 1: Sum.\nAction 1: Finish[4]"])
    at = new_session()
    at.chat_input[0].set_value(NATIONALITY_Q).run()
    wait_idle(at)
    at.chat_input[0].set_value("And 2 + 2?").run()
    wait_idle(at)
    reloaded = reload(at)
    assert _questions(reloaded) == [NATIONALITY_Q, "And 2 + 2?"]
    assert expander_labels(reloaded)[:1] == ["Step 1 · Search[Scott Derickson film]"]
    # The restored turns are context for the next question, as they were before the reload.
    assert reloaded.session_state.chat["turns"][1].trace.to_dict()["context"][0]["answer"] == "American"


def test_a_chat_id_of_someone_else_opens_nothing(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, NATIONALITY_SCRIPT)
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")  # each browser session is its own owner
    at = new_session()
    at.chat_input[0].set_value(NATIONALITY_Q).run()
    wait_idle(at)
    stranger = reload(at)  # another visitor who got hold of the URL: same chat id, another session
    assert stranger.session_state.chat["turns"] == []
    assert stranger.session_state.chat["id"] != at.session_state.chat["id"]


def test_the_conversation_survives_page_changes_and_a_reload_on_any_page(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, NATIONALITY_SCRIPT)
    at = new_session()
    chat_id = at.session_state.chat["id"]
    nav(nav(at, "settings"), "chat")  # the sidebar drops ?chat= from the address on every page change
    assert at.query_params["chat"] == chat_id
    at.chat_input[0].set_value(NATIONALITY_Q).run()
    wait_idle(at)
    assert _questions(reload(at)) == [NATIONALITY_Q]
    nav(at, "settings")
    on_settings = reload(at)  # a reload while on another page keeps it too
    assert on_settings.session_state.chat["id"] == chat_id and _questions(on_settings) == [NATIONALITY_Q]


def test_a_retry_of_a_turn_that_failed_before_its_first_step_comes_back_beside_the_earlier_turns(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [
            "Thought 1: Easy.\nAction 1: Finish[4]",
            {"error": "The service is busy (503); try again in a minute."},  # nothing to keep: not saved
            "Thought 1: Also easy.\nAction 1: Finish[6]",
        ],
    )
    at = new_session()
    for question in ("What is 2 + 2?", "And 3 + 3?"):
        at.chat_input[0].set_value(question).run()
        wait_idle(at)
    at.button(key="retry-2").click().run()
    wait_idle(at)
    assert _questions(reload(at)) == ["What is 2 + 2?", "And 3 + 3?"]  # the retry took no earlier turn's place
