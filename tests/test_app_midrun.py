"""What a person does mid-run on the Chat page, in AppTest (issue 33 items 7-9): Stop keeps the step the model was
writing and a run stopped before any text is not saved; Pause here leaves the run paused at the step being written;
while a run waits for a decision, text typed in the chat box starts nothing by itself: it is offered as the step's
observation, as its action, or as a new question."""

from __future__ import annotations

import time

from app_helpers import (
    NATIONALITY_Q,
    expander_labels,
    new_session,
    run_headers,
    texts,
    unescape,
    use_app,
    wait_idle,
)

from react_core import Step, Trace
from react_core.history import HistoryStore
from ui.chat.job import Turn

COMPUTE = "Thought 1: I need to multiply six by seven first.\nAction 1: Calculator[6 * 7]"
FINISH = "Thought 2: It is 42.\nAction 2: Finish[42]"
SCRIPT = [
    "Thought 1: I need to search Scott Derrickson first.\nAction 1: Search[Scott Derickson film]",
    "Thought 2: He is American. Now Ed Wood.\nAction 2: Search[Ed Wodd]",
    "Thought 3: Both are American.\nAction 3: Finish[American]",
]


def writing(at, words: str):
    """Wait until the live turn shows ``words`` of the step being written (the model then waits at its gate)."""
    deadline = time.monotonic() + 30
    while True:
        view = at.session_state.job.view()
        if view.writing is not None and words in view.writing.text:
            return at.run()
        assert time.monotonic() < deadline, "the model never wrote " + words
        at.session_state.job.wait(0.02)


def click(at, key: str):
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return wait_idle(at)


# -- Stop ------------------------------------------------------------------------------------------------------


def test_stop_while_the_model_writes_keeps_its_thought_so_far_and_the_run_in_history(monkeypatch, tmp_path):
    gate = tmp_path / "gate"
    use_app(monkeypatch, tmp_path, [{"text": COMPUTE, "gate": str(gate), "gate_after": 6}])
    at = new_session()
    at.chat_input[0].set_value("What is 6 * 7?").run()
    at = writing(at, "I need to multiply")
    assert at.button(key="stop").proto.help.startswith("End the run for good")  # Stop says it is final
    at = click(at, "stop")

    header = run_headers(at)[0].label
    assert header.startswith("Stopped by you · 1 step · ") and not header.endswith(" 0 tokens")
    assert expander_labels(at) == ["Step 1 · (stopped while writing)"]
    assert "I need to multiply" in texts(at)  # the thought as far as it was written
    assert any("Stopped by you while the model was writing this step" in c.value for c in at.caption)
    [record] = HistoryStore().list()
    assert record.stop_reason == "cancelled" and HistoryStore().get(record.id).trace.steps[0].stopped
    assert any(link.label == f"Saved to History as run #{record.id}" for link in at.get("page_link"))


def test_stop_before_the_model_writes_anything_leaves_history_as_it_was(monkeypatch, tmp_path):
    gate = tmp_path / "never-opened"
    use_app(monkeypatch, tmp_path, [{"text": COMPUTE, "gate": str(gate)}])
    at = new_session()
    at.chat_input[0].set_value("What is 6 * 7?").run()
    at = click(at, "stop")
    assert run_headers(at)[0].label.startswith("Stopped by you · 0 steps")  # the chat says what happened
    assert HistoryStore().count() == 0 and not at.get("page_link")  # History is not cluttered with an empty run


# -- Pause here ----------------------------------------------------------------------------------------------------


def test_pause_here_pauses_at_the_step_being_written_and_run_goes_on(monkeypatch, tmp_path):
    gate = tmp_path / "gate"
    use_app(monkeypatch, tmp_path, [{"text": COMPUTE, "gate": str(gate), "gate_after": 6}, FINISH])
    at = new_session()
    at.chat_input[0].set_value("What is 6 * 7?").run()
    at = writing(at, "I need to multiply")
    at.button(key="pause-here").click().run()
    assert run_headers(at)[0].label == "Pausing once step 1 is written…" and at.button(key="pause-here").disabled
    gate.touch()  # the model writes the rest of its step
    at = wait_idle(at)

    turn = at.session_state.chat["turns"][-1]
    assert turn.trace.stop_reason == "paused" and turn.trace.steps[0].pending == "tool"
    assert run_headers(at)[0].label.startswith("Paused: waiting for you · 1 step")
    assert "Paused where you asked: waiting for you." in [unescape(w.value) for w in at.warning]
    assert "calculator('6 * 7')" in [c.value for c in at.code]  # the call that would run
    assert HistoryStore().list()[0].stop_reason == "paused"  # resumable from History too
    at = click(at, f"{turn.key}-s1-run")
    done = at.session_state.chat["turns"][-1].trace
    assert done.stop_reason == "finished" and done.final_answer == "42" and HistoryStore().count() == 1


def test_pause_here_is_not_offered_in_the_tools_dialect(monkeypatch, tmp_path):
    gate = tmp_path / "never-opened"
    use_app(monkeypatch, tmp_path, [{"text": COMPUTE, "gate": str(gate)}])
    monkeypatch.setenv("REACT_PRESET", "tools")
    at = new_session()
    at.chat_input[0].set_value("What is 6 * 7?").run()
    pause = at.button(key="pause-here")
    assert pause.disabled and "text dialects" in pause.proto.help
    click(at, "stop")


# -- the chat box while a run waits ------------------------------------------------------------------------------


def paused_session(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, SCRIPT)
    at = new_session()
    at.toggle(key="chat-step-mode").set_value(True).run()
    at.chat_input[0].set_value(NATIONALITY_Q).run()
    return wait_idle(at)


def test_text_typed_while_a_run_waits_starts_nothing_and_is_offered_for_the_step(monkeypatch, tmp_path):
    at = paused_session(monkeypatch, tmp_path)
    at.chat_input[0].set_value("Scott Derrickson is an American film director.").run()
    assert at.session_state.job is None and len(at.session_state.chat["turns"]) == 1  # no new question started
    assert at.chat_input[0].placeholder.startswith("The run above is paused at step 1")  # the box says so
    assert at.session_state.chat["turns"][0].trace.stop_reason == "paused"
    assert "Scott Derrickson is an American film director." in texts(at)  # shown with the choices
    assert {b.key for b in at.button} >= {"held-observe", "held-edit", "held-ask", "held-back"}

    at = click(at, "held-observe")  # the step gets it as its observation, and the run goes on to the next pause
    turn = at.session_state.chat["turns"][-1]
    first = turn.trace.steps[0]
    assert first.observation.text == "Scott Derrickson is an American film director." and first.observation.written_by
    assert turn.trace.steps[-1].index == 2 and turn.trace.stop_reason == "paused"
    assert not [b for b in at.button if b.key and b.key.startswith("held-")]  # used: the offer is gone

    at.chat_input[0].set_value("Search[Ed Wood]").run()
    at = click(at, "held-edit")  # the step's action, edited: it runs, and the run pauses before Finish
    turn = at.session_state.chat["turns"][-1]
    assert turn.trace.steps[1].action.input == "Ed Wood" and turn.trace.steps[-1].pending == "finish"

    at.chat_input[0].set_value("Some note").run()
    assert at.button(key="held-observe").disabled  # a Finish step has no observation
    at.button(key="held-back").click().run()
    assert at.chat_input[0].proto.value == "Some note"  # given back to the box, nothing lost
    assert not [b for b in at.button if b.key and b.key.startswith("held-")]


def test_a_refused_action_from_the_box_comes_back_in_the_steps_edit_field(monkeypatch, tmp_path):
    at = paused_session(monkeypatch, tmp_path)
    at.chat_input[0].set_value("Search Scott Derrickson").run()
    at = click(at, "held-edit")
    assert any("The edited action was not taken" in unescape(e.value) for e in at.error)
    turn = at.session_state.chat["turns"][-1]
    assert turn.trace.stop_reason == "paused" and turn.trace.steps[-1].index == 1
    assert at.text_input(key=f"{turn.key}-s1-edit-text").value == "Search Scott Derrickson"


def test_a_new_question_from_the_box_leaves_the_paused_run_paused(monkeypatch, tmp_path):
    at = paused_session(monkeypatch, tmp_path)
    at.chat_input[0].set_value("What is 2 + 2?").run()
    at = click(at, "held-ask")
    first, second = at.session_state.chat["turns"]
    assert first.trace.stop_reason == "paused" and second.question == "What is 2 + 2?"
    assert HistoryStore().get(first.history_id).stop_reason == "paused"  # to resume from History later


def test_the_box_is_off_while_an_mcp_servers_question_waits(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, SCRIPT)
    at = new_session()
    step = Step(1, "Ask the server.", pending="input")
    trace = Trace("Book it", settings={"provider": "scripted", "pause_before": ["input"]}, steps=[step])
    trace.stop_reason = "paused"
    at.session_state.chat["turns"].append(Turn(99, trace))
    at.run()
    box = at.chat_input[0]
    assert box.disabled and "waits for your answer to its MCP server's question" in box.placeholder
