"""A fork, a "Similar title" re-ask and a Retry go on from an earlier run's steps with that run's own settings (its
dialect above all), whatever is selected in Settings today; the session's settings are a deliberate choice on the form,
refused when their dialect would retitle the run's steps. A fork opens a conversation of its own."""

from __future__ import annotations

from app_helpers import ask, go, new_session, open_panels, provider, reload, unescape, use_app, wait_idle

from react_core.history import HistoryStore

CALC = [
    "Thought 1: Multiply first.\nAction 1: Calculator[6 * 7]",
    "Thought 2: It is 42.\nAction 2: Finish[42]",
]


def _open_run(at, run_id: int):
    """History with one run open (the link under a chat turn does this)."""
    at.query_params["run"] = str(run_id)
    return go(at, "history")


def _choose(at, preset: str):
    go(at, "settings").selectbox(key="set-preset").set_value(preset).run()
    assert not at.exception, at.exception
    return at


def test_a_fork_of_a_paper_run_while_mrkl_is_selected_stays_paper_in_a_new_conversation(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [*CALC, "Thought 1: Other.\nAction 1: Finish[x]", "Thought 2: spelled out.\nAction 2: Finish[forty-two]"],
    )
    at = ask(new_session(), "What is 6 * 7?")  # run #1, paper
    first_chat = at.session_state.chat["id"]
    at = ask(at, "Something else?")  # run #2: the chat that is open when the fork starts
    _choose(at, "mrkl")
    _open_run(at, 1)
    form = [unescape(m.value) for m in at.markdown]
    assert "It runs with **this run's own settings**:" in form
    assert any("| Dialect | ReAct paper (Search[entity]) |" in m for m in form)
    at.selectbox(key="fork-step-1").set_value(2).run()
    at.text_area(key="fork-text-1-2-thought").input("I should spell the number out").run()
    at.button(key="fork-run").click().run()
    wait_idle(at)

    chat = at.session_state.chat
    assert chat["id"] != first_chat and [t.label for t in chat["turns"]] == [
        "Fork of run #1 from step 2 (thought edited)"
    ]  # its own conversation, not appended below "Something else?"
    trace = chat["turns"][0].trace.to_dict()
    assert (trace["settings"]["dialect"], trace["settings"]["preset"]) == ("paper", "paper")
    assert trace["final_answer"] == "forty-two"
    prompt = provider(at).requests[-1].prompt
    assert "Action 1: Calculator[6 * 7]\nObservation 1: 6 * 7 = 42" in prompt  # its steps in its own dialect
    assert prompt.endswith("Thought 2: I should spell the number out")
    record = HistoryStore().get(chat["turns"][0].history_id)
    assert (record.conversation, record.parent_id, record.dialect) == (chat["id"], 1, "paper")
    assert at.session_state.settings["preset"] == "mrkl"  # the person's own settings are left as they were
    assert at.query_params["chat"] == chat["id"]  # a reload comes back to the fork's conversation, label and all
    assert [t.label for t in reload(at).session_state.chat["turns"]] == [chat["turns"][0].label]


def test_current_settings_on_the_fork_form_are_shown_and_another_dialect_is_refused(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [*CALC, "Thought 2: Again.\nAction 2: Finish[42]"])
    at = _choose(ask(new_session(), "What is 6 * 7?"), "mrkl")
    _open_run(at, 1)
    at.checkbox(key="fork-current-1").check().run()
    assert any("Going on from them in another dialect would retitle them" in unescape(e.value) for e in at.error)
    assert at.button(key="fork-run").disabled

    _choose(at, "paper")
    go(at, "settings").slider(key="set-temperature").set_value(0.7).run()
    _open_run(at, 1)
    at.checkbox(key="fork-current-1").check().run()
    assert any("(✎: not the run's own): Temperature." in unescape(m.value) for m in at.markdown)
    assert not at.error and not at.button(key="fork-run").disabled
    at.button(key="fork-run").click().run()
    wait_idle(at)
    assert at.session_state.chat["turns"][0].trace.settings["temperature"] == 0.7  # chosen on the form


def test_an_edited_prompt_is_reused_while_in_use_and_otherwise_the_form_says_it_is_gone(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [*CALC, "Thought 2: Again.\nAction 2: Finish[42]"])
    at = go(new_session(), "settings")
    instructions = at.text_area(key="edit-instructions")
    instructions.input("Answer briefly.\n" + instructions.value).run()
    at = ask(go(at, "chat"), "What is 6 * 7?")
    assert at.session_state.chat["turns"][0].trace.settings["preset"] == "paper (edited)"

    _open_run(at, 1)
    # The prompt in use renders exactly what the run sent: it is the run's own, and nothing says it was changed.
    assert not [w for w in at.warning if "edited and not saved" in unescape(w.value)]
    assert any("| Preset | paper \\(edited\\) |" in m.value for m in at.markdown)

    go(at, "settings").button(key="reset-prompt").click().run()
    _open_run(at, 1)
    assert any("“paper (edited)” was edited and not saved" in unescape(w.value) for w in at.warning)
    at.button(key="fork-run").click().run()
    wait_idle(at)
    assert at.session_state.chat["turns"][0].trace.settings["preset"] == "paper"  # the stand-in, as said


def test_retry_and_similar_go_on_in_their_runs_dialect_and_retry_may_take_current_settings(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [
            "Thought 1: Compute first.\nAction 1: Calculator[6 * 7]",
            {"error": "The service is busy (503); try again in a minute."},
            "Thought 2: It is 42.\nAction 2: Finish[42]",
        ],
    )
    at = _choose(ask(new_session(), "What is 6 * 7?"), "mrkl")
    go(at, "chat")
    assert at.button(key="retry-current-1").disabled  # the current dialect would retitle its step
    at.button(key="retry-1").click().run()
    wait_idle(at)
    trace = at.session_state.chat["turns"][0].trace.to_dict()
    assert trace["settings"]["dialect"] == "paper" and trace["final_answer"] == "42"
    assert "Action 1: Calculator[6 * 7]\nObservation 1: 6 * 7 = 42" in provider(at).requests[-1].prompt


def test_a_similar_title_re_ask_keeps_its_runs_dialect(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [
            "Thought 1: I need to search Scott Derrickson first.\nAction 1: Search[Scott Derickson film]",
            "Thought 2: Enough.\nAction 2: Finish[unknown]",
            "Thought 2: He is American.\nAction 2: Finish[American]",
        ],
    )
    at = _choose(ask(new_session(), "What nationality is Scott Derrickson?"), "mrkl")
    open_panels(go(at, "chat"))
    similar = [b for b in at.button if unescape(b.label) == "Scott Derrickson"]
    similar[0].click().run()
    wait_idle(at)
    trace = at.session_state.chat["turns"][-1].trace.to_dict()
    assert trace["settings"]["dialect"] == "paper" and trace["final_answer"] == "American"
    assert "Action 1: Search[Scott Derrickson]\nObservation 1: Scott Derrickson" in provider(at).requests[-1].prompt
    restored = reload(at).session_state.chat["turns"]
    assert [t.label for t in restored] == ["", "Searched 'Scott Derrickson' instead at step 1"]


def test_retry_with_current_settings_goes_on_with_them(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [
            "Thought 1: Compute first.\nAction 1: Calculator[6 * 7]",
            {"error": "The service is busy (503); try again in a minute."},
            "Thought 2: It is 42.\nAction 2: Finish[42]",
        ],
    )
    at = ask(new_session(), "What is 6 * 7?")
    assert "retry-current-1" not in [b.key for b in at.button]  # nothing differs: one Retry
    go(at, "settings").slider(key="set-max_calls").set_value(5).run()
    go(at, "chat").button(key="retry-current-1").click().run()
    wait_idle(at)
    assert at.session_state.chat["turns"][0].trace.settings["max_calls"] == 5
