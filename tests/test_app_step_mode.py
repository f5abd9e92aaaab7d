"""Step mode on the Chat page in AppTest: the switch, a run paused before a Search, an edit refused and one taken,
regenerate and pick the second alternative, Run to the answer, all of it recorded; and a paused run resumed from
History."""

from __future__ import annotations

from app_helpers import (
    NATIONALITY_Q,
    expander_labels,
    go,
    new_session,
    open_panels,
    run_headers,
    unescape,
    use_app,
    wait_idle,
)

from react_core.base.trace import Trace
from react_core.history import HistoryStore
from react_core.report.exports import to_markdown

SCRIPT = [
    "Thought 1: I need to search Scott Derrickson first.\nAction 1: Search[Scott Derickson film]",
    "Thought 2: He is American. Now Ed Wood.\nAction 2: Search[Ed Wodd]",
    "Thought 2: Now Ed.\nAction 2: Search[Edward]",
    "Thought 2: Now Ed Wood the director.\nAction 2: Search[Ed Wood]",
    "Thought 3: Both are American.\nAction 3: Finish[American]",
]


def paused_turn(at):
    turn = at.session_state.chat["turns"][-1]
    assert turn.trace.stop_reason == "paused", turn.trace.stop_reason
    return turn


def click(at, key: str):
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return wait_idle(at)


def test_step_mode_is_off_by_default_and_the_switch_turns_on_every_breakpoint(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, SCRIPT)
    at = new_session()
    assert at.toggle(key="chat-step-mode").value is False and at.session_state.settings["pause_before"] == []
    at.toggle(key="chat-step-mode").set_value(True).run()
    assert at.session_state.settings["pause_before"] == ["tool", "error", "finish", "destructive", "input"]
    at.multiselect(key="chat-breakpoints").set_value(["tool"]).run()
    assert at.session_state.settings["pause_before"] == ["tool"]
    at.toggle(key="chat-step-mode").set_value(False).run()
    assert at.session_state.settings["pause_before"] == []


def test_pause_edit_run_regenerate_pick_the_second_and_finish(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, SCRIPT)
    at = new_session()
    at.toggle(key="chat-step-mode").set_value(True).run()
    at.chat_input[0].set_value(NATIONALITY_Q).run()
    wait_idle(at)

    turn = paused_turn(at)
    key = f"t{turn.id}-s1"
    assert run_headers(at)[0].label.startswith("Paused: waiting for you · 1 step")
    assert expander_labels(at) == ["Step 1 · Search[Scott Derickson film]"]
    codes = [c.value for c in at.code]
    assert SCRIPT[0] in codes and "search('Scott Derickson film')" in codes  # raw reply; the tool call that would run
    assert HistoryStore().list()[0].stop_reason == "paused"  # saved as paused at once

    # An edit that does not parse is refused with the prompt editor's kind of message; nothing is lost.
    at.text_input(key=f"{key}-edit-text").set_value("Search Scott Derrickson")
    at = click(at, f"{key}-edit-go")
    assert any("The edited action was not taken: action line 1:" in unescape(e.value) for e in at.error)
    turn = paused_turn(at)
    assert at.text_input(key=f"{key}-edit-text").value == "Search Scott Derrickson"  # what was typed is kept
    at.text_input(key=f"{key}-edit-text").set_value("Search[Scott Derrickson]")
    at = click(at, f"{key}-edit-go")

    turn = paused_turn(at)  # now before step 2's Search
    first = turn.trace.steps[0]
    assert first.observation.text.startswith("Scott Derrickson (born July 16, 1966) is an American director")
    assert [(n.kind, n.before, n.after) for n in first.interventions] == [
        ("edit", "Search[Scott Derickson film]", "Search[Scott Derrickson]")
    ]
    key = f"t{turn.id}-s2"
    at.number_input(key=f"{key}-k").set_value(2)
    at.slider(key=f"{key}-temperature").set_value(0.7)
    at = click(at, f"{key}-regenerate-go")

    turn = paused_turn(at)
    key = f"t{turn.id}-s2"
    assert [a.action.input for a in turn.trace.steps[1].offered] == ["Edward", "Ed Wood"]
    shown = [c.value for c in at.code]
    assert "Search[Edward]" in shown and "Search[Ed Wood]" in shown  # side by side
    assert sum(m.value == "**Model call**" for m in at.markdown) >= 3  # the step's own and one per alternative
    at = click(at, f"{key}-pick-2")

    turn = paused_turn(at)  # before Finish
    assert turn.trace.steps[1].observation.text.startswith("Edward Davis Wood Jr.")
    at = click(at, f"t{turn.id}-s3-run")

    trace = at.session_state.chat["turns"][-1].trace
    assert trace.stop_reason == "finished" and trace.final_answer == "American"
    assert [s.value for s in at.subheader] == ["American"]
    # The decisions show under their steps, each alternative with its own Model call section.
    open_panels(at)
    labels = [unescape(p.proto.popover.label) for p in at.get("popover")]
    assert "Alternative 2 (picked) at temperature 0.7: Search[Ed Wood]" in labels
    assert "Alternative 1 (not taken) at temperature 0.7: Search[Edward]" in labels
    records = HistoryStore().list()
    assert len(records) == 1 and records[0].stop_reason == "finished"  # resuming updated the one run
    saved = HistoryStore().get(records[0].id).trace
    assert saved.to_dict() == trace.to_dict()
    picked = saved.steps[1].interventions[0]
    assert (picked.kind, picked.picked, len(picked.alternatives)) == ("pick", 2, 2)
    assert "Alternative 2 (picked) at temperature 0.7: `Search[Ed Wood]`" in to_markdown(saved)


def test_a_paused_run_is_resumed_from_history_in_a_new_session(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, SCRIPT)
    at = new_session()
    at.toggle(key="chat-step-mode").set_value(True).run()
    at.chat_input[0].set_value(NATIONALITY_Q).run()
    wait_idle(at)
    run_id = HistoryStore().list()[0].id

    other = go(new_session(), "history")  # another browser session: only History knows the run
    assert any("Paused: waiting for you" in unescape(c.value) for c in other.caption)
    other.button(key=f"resume-{run_id}").click().run()
    assert not other.exception, other.exception
    turn = other.session_state.chat["turns"][-1]
    assert turn.history_id == run_id and turn.trace.stop_reason == "paused"
    assert other.button(key=f"t{turn.id}-s1-stop") is not None
    other = click(other, f"t{turn.id}-s1-stop")
    assert HistoryStore().get(run_id).stop_reason == "cancelled"


def _old_alternative(thought: str, title: str) -> dict:
    """An alternative as History has always stored it (flat fields; a run saved before calls were recorded)."""
    raw = f"Thought 2: {thought}\nAction 2: Search[{title}]"
    action = {"tool": "search", "input": title}
    return {"raw_output": raw, "thought": thought, "action": action, "final_answer": None, "error": "", "call": None}


def test_a_paused_run_saved_with_alternatives_in_the_old_shape_is_drawn_from_history(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, SCRIPT)
    first = {"index": 1, "thought": "Go.", "action": {"tool": "search", "input": "Scott Derrickson"}}
    first["observation"] = {"text": "Scott Derrickson is an American director."}
    passed_over = {
        "kind": "regenerate",
        "at": "tool",
        "alternatives": [{**_old_alternative("Hm.", "Ed"), "temperature": 0.5}],
    }
    offered = [{**_old_alternative("Now Ed.", "Edward"), "temperature": 0.7}, _old_alternative("Ed Wood.", "Ed Wood")]
    paused = {"index": 2, "thought": "Ed.", "action": {"tool": "search", "input": "Ed Wodd"}, "pending": "tool"}
    paused.update(offered=offered, interventions=[passed_over])
    record = {"question": NATIONALITY_Q, "settings": {"provider": "scripted", "dialect": "paper"}}
    run_id = HistoryStore().save(Trace.from_dict({**record, "steps": [first, paused], "stop_reason": "paused"}))

    at = go(new_session(), "history")
    at.button(key=f"resume-{run_id}").click().run()
    assert not at.exception, at.exception
    turn = paused_turn(open_panels(go(at, "chat")))  # Resume went to the Chat page
    codes = [c.value for c in at.code]
    assert "Search[Edward]" in codes and "Search[Ed Wood]" in codes  # the alternatives offered, side by side
    assert at.button(key=f"t{turn.id}-s2-pick-2") is not None
    labels = [unescape(p.proto.popover.label) for p in at.get("popover")]
    assert "Alternative 1 (not taken) at temperature 0.5: Search[Ed]" in labels
    # Each alternative's Model call section is the step's own, drawn from the run as if it had been picked.
    unrecorded = [c for c in at.caption if "does not record its model call" in c.value]
    assert len(unrecorded) == 2 + 3  # the two steps' own, and the three alternatives'


def test_a_decision_on_a_pause_another_tab_already_took_is_refused_and_says_so(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, SCRIPT)
    first = new_session()
    first.toggle(key="chat-step-mode").set_value(True).run()
    first.chat_input[0].set_value(NATIONALITY_Q).run()
    wait_idle(first)
    run_id = HistoryStore().list()[0].id
    second = go(new_session(), "history")
    second.button(key=f"resume-{run_id}").click().run()
    late = second.session_state.chat["turns"][-1]

    turn = paused_turn(first)
    first = click(first, f"t{turn.id}-s1-stop")  # the first tab decides
    assert HistoryStore().get(run_id).stop_reason == "cancelled"

    second = click(second, f"t{late.id}-s1-run")  # the second tab, still showing the pause, comes second
    assert any("was resumed somewhere else" in unescape(e.value) for e in second.error)
    assert paused_turn(second).history_id == run_id  # its page is as it was; nothing ran
    rec = HistoryStore().get(run_id)
    assert rec.stop_reason == "cancelled" and [n.kind for n in rec.trace.steps[0].interventions] == ["stop"]


def test_a_paused_run_whose_provider_is_not_configured_says_so_and_stays_paused(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, SCRIPT)
    at = new_session()
    at.toggle(key="chat-step-mode").set_value(True).run()
    at.chat_input[0].set_value(NATIONALITY_Q).run()
    wait_idle(at)
    store = HistoryStore()
    rec = store.get(store.list()[0].id)
    moved = rec.trace
    moved.settings["provider"], moved.settings["model"] = "openai", "gpt-4o-mini"  # no OpenAI key on this machine
    run_id = store.save(moved, conversation="")

    other = go(new_session(), "history")
    other.button(key=f"resume-{run_id}").click().run()
    turn = paused_turn(other)
    other = click(other, f"t{turn.id}-s1-run")
    message = " ".join(unescape(e.value) for e in other.error)
    assert "This paused run cannot go on here with its own settings (provider 'openai'" in message
    assert "Nothing is lost: it stays paused" in message
    assert paused_turn(other).history_id == run_id
    again = HistoryStore().get(run_id)
    assert again.stop_reason == "paused" and again.revision == 0 and again.trace.to_dict() == moved.to_dict()


def test_regenerating_that_fails_keeps_the_run_paused_with_what_was_drawn_and_says_so(monkeypatch, tmp_path):
    script = [SCRIPT[0], SCRIPT[1].replace("2", "1"), {"error": "HTTP 429: Too Many Requests"}, SCRIPT[4]]
    use_app(monkeypatch, tmp_path, script)
    at = new_session()
    at.toggle(key="chat-step-mode").set_value(True).run()
    at.chat_input[0].set_value(NATIONALITY_Q).run()
    wait_idle(at)
    key = f"t{paused_turn(at).id}-s1"
    at.number_input(key=f"{key}-k").set_value(3)
    at = click(at, f"{key}-regenerate-go")

    turn = paused_turn(at)  # still paused, still resumable from here
    assert [a.action.input for a in turn.trace.steps[0].offered] == ["Ed Wodd"]  # the one drawn before the 429
    said = " ".join(unescape(e.value) for e in at.error)
    assert "Regenerating failed with 1 of 3 alternatives drawn (offered below): HTTP 429" in said
    assert "The run stays paused here." in said and "damaged" not in said
    rec = HistoryStore().get(turn.history_id)
    assert not rec.damaged and rec.stop_reason == "paused" and rec.trace.to_dict() == turn.trace.to_dict()
    assert at.button(key=f"{key}-pick-1") is not None
