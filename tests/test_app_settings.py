"""The Settings page in AppTest: changes take effect on the next turn and are remembered (never the key); the
prompt editor validates with the real parser, keeps the last valid prompt in use, resets and saves presets."""

from __future__ import annotations

import threading
from pathlib import Path

from app_helpers import (
    ask,
    go,
    last_trace,
    new_session,
    provider,
    run_headers,
    unescape,
    use_app,
)

from react_core import PresetStore
from react_core.base.paths import BUILTIN_PRESETS_DIR as BUILTIN_DIR
from react_core.history import HistoryStore
from react_core.presets.preset import list_presets, load_preset

FINISH = "Thought 1: Easy.\nAction 1: Finish[done]"


def test_settings_take_effect_on_the_next_turn_and_are_remembered(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH, FINISH])
    at = ask(new_session(), "Before")
    assert last_trace(at)["settings"]["temperature"] == 0.0

    go(at, "settings")
    at.slider(key="set-temperature").set_value(0.7).run()
    at.slider(key="set-max_calls").set_value(3).run()
    at.checkbox(key="set-tool-lookup").uncheck().run()
    go(at, "chat")
    at = ask(at, "After")

    trace = last_trace(at)
    assert trace["settings"]["temperature"] == 0.7
    assert trace["settings"]["max_calls"] == 3
    assert trace["settings"]["tools"] == ["search", "calculator"]
    assert provider(at).requests[-1].temperature == 0.7
    assert load_preset("paper").tools["lookup"] not in provider(at).requests[-1].system
    assert run_headers(at)[-1].label.startswith("Answered · 1 step · ")

    remembered = HistoryStore().last_settings()
    assert remembered["temperature"] == 0.7 and remembered["max_calls"] == 3
    other = new_session()  # the next browser session starts from the remembered settings
    assert other.session_state.settings["temperature"] == 0.7


def test_widgets_show_the_settings_again_after_leaving_the_page(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    at = go(new_session(), "settings")
    at.slider(key="set-temperature").set_value(1.2).run()
    go(at, "history")
    go(at, "settings")
    assert at.slider(key="set-temperature").value == 1.2


def test_the_api_key_stays_in_the_session_and_never_in_settings_history_or_traces(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    at = go(new_session(), "settings")
    at.selectbox(key="set-provider").set_value("openai").run()
    at.text_input(key="set-api-key").input("sk-test-secret-123").run()
    assert at.session_state.api_key == "sk-test-secret-123"
    assert "sk-test-secret-123" not in repr(at.session_state.settings)
    store = HistoryStore()
    assert "sk-test" not in repr(store.last_settings())
    assert Path(store.path).read_bytes().find(b"sk-test") == -1


def test_an_invalid_prompt_is_shown_with_the_failing_line_and_not_applied(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH, FINISH])
    at = go(new_session(), "settings")
    broken = (
        "Question: Who wrote it?\nThought 1: Search the book.\nAction 1: Search[The Book]\n"
        "Observation 1: The Book is by Ann.\nThought 2: Found it.\nAction 2: I will look him up\n"
    )
    at.text_area(key="edit-examples").input(broken).run()

    errors = [unescape(e.value) for e in at.error]
    assert errors[0].startswith("Not applied")
    # The broken line is the Action (line 6), not the Thought above it.
    assert any(e.startswith("examples line 6: ") and "I will look him up" in e for e in errors), errors
    assert at.session_state.prompt is None  # the last valid prompt stays in use
    assert at.button(key="save-preset").disabled

    go(at, "chat")
    at = ask(at, "Which prompt?")
    assert "I will look him up" not in provider(at).requests[-1].system

    go(at, "settings")  # the draft survived leaving the page
    assert "I will look him up" in at.text_area(key="edit-examples").value
    at.text_area(key="edit-question").input("Q: no placeholder here\n").run()
    assert any("question: must contain the {question} placeholder" in unescape(e.value) for e in at.error)


def test_an_example_with_an_unknown_tool_or_without_brackets_is_refused_with_its_line(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    at = go(new_session(), "settings")
    at.checkbox(key="set-tool-calculator").uncheck().run()
    examples = at.text_area(key="edit-examples").value
    lines = examples.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("Action 1: "))
    for action, problem in (
        ("Fly[Pierrepont Noyes]", "Fly is not a tool: an example may call Search, Lookup or Finish"),
        ("Search Pierrepont Noyes", "write the action as the paper dialect writes it: Search[Pierrepont Noyes]"),
        ("Calculator[2 + 2]", "Calculator is not enabled: an example may call Search, Lookup or Finish"),
    ):
        edited = [*lines[:first], f"Action 1: {action}", *lines[first + 1 :]]
        at.text_area(key="edit-examples").input("\n".join(edited)).run()
        errors = [unescape(e.value) for e in at.error]
        assert errors[0].startswith("Not applied"), errors
        assert errors[1:] == [f"examples line {first + 1}: {problem} — `Action 1: {action}`"]
        assert at.session_state.prompt is None and at.button(key="save-preset").disabled


def test_an_edited_question_template_keeps_its_line_break(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    at = go(new_session(), "settings")
    at.text_area(key="edit-question").input("Q: {question}\n").run()
    assert not at.error and at.session_state.prompt.question == "Q: {question}\n"
    go(at, "chat")
    at = ask(at, "Who wrote it?")
    assert provider(at).requests[-1].text.endswith("Q: Who wrote it?\nThought 1:")  # not "…it?Thought 1:"
    go(at, "settings")
    at.text_area(key="edit-question").input("Q: {question}").run()  # a line break removed on purpose
    assert any("question: must end with a line break" in unescape(e.value) for e in at.error)
    assert at.session_state.prompt.question == "Q: {question}\n"  # the last valid template stays in use


def test_a_valid_edit_applies_to_the_next_turn_and_reset_restores_the_preset(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH, FINISH])
    at = go(new_session(), "settings")
    original = at.text_area(key="edit-instructions").value
    at.text_area(key="edit-instructions").input("Answer briefly.\n" + original).run()
    assert at.session_state.prompt is not None
    assert any("edited prompt is in use" in s.value for s in at.success)
    assert any("tokens of instructions and examples" in c.value for c in at.caption)

    go(at, "chat")
    at = ask(at, "Edited?")
    assert provider(at).requests[-1].system.startswith("Answer briefly.\n")
    assert last_trace(at)["settings"]["preset"] == "paper (edited)"

    go(at, "settings")
    at.button(key="reset-prompt").click().run()
    assert at.text_area(key="edit-instructions").value == original
    assert at.session_state.prompt is None


def test_save_as_new_preset_starts_a_line_of_versions_and_never_touches_a_shipped_preset(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    shipped = {p.name: p.read_bytes() for p in BUILTIN_DIR.glob("*.toml")}
    at = go(new_session(), "settings")
    at.text_area(key="edit-instructions").input("Be careful.\n{tools}\n").run()

    at.text_input(key="save-name").input("paper").run()
    at.button(key="save-preset").click().run()
    assert any("shipped preset" in unescape(e.value) for e in at.error)

    at.text_input(key="save-name").input("careful").run()
    at.button(key="save-preset").click().run()
    assert at.session_state.settings["preset"] == "careful" and at.session_state.prompt is None
    saved = PresetStore().load("careful")  # version 1 of a new line, in the history store
    assert saved.ref == "careful@1" and saved.instructions == "Be careful.\n{tools}\n"
    assert {p.name: p.read_bytes() for p in BUILTIN_DIR.glob("*.toml")} == shipped
    assert at.selectbox(key="set-preset").value == "careful"


def test_the_preset_chooser_offers_every_preset_a_chat_can_run_and_switches_the_dialect(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    at = go(new_session(), "settings")
    chooser = at.selectbox(key="set-preset")
    names = [o.split(" — ")[0] for o in chooser.options]
    assert names == list_presets(mode="react")
    assert {"paper", "gemini-xml", "langchain-json", "pause", "function-call"} <= set(names)
    # The direct-answer prompts (Answer: …) can never finish a ReAct run: they belong to the Evaluate page.
    assert "hotpotqa-standard" not in names and "hotpotqa-cot" not in names
    other = "gemini-xml"
    chooser.set_value(other).run()
    assert at.session_state.settings["preset"] == other
    assert at.text_area(key="edit-instructions").value == load_preset(other).instructions
    sidebar = unescape("\n".join(m.value for m in at.sidebar.markdown))
    assert f"Preset:** {other}" in sidebar and "Dialect:** Gemini notebook" in sidebar


def test_where_a_new_session_s_settings_come_from():
    from react_core.loop.settings import RunSettings

    def initial_settings(env, remembered=None):
        return RunSettings.starting(remembered, env).to_dict()

    assert initial_settings(env={})["provider"] == "local"  # no key anywhere: the on-device model
    assert initial_settings(env={"GEMINI_API_KEY": "k"})["provider"] == "gemini"
    remembered = {"provider": "openai", "temperature": 0.4, "api_key": "sk-x", "unknown": 1}
    s = initial_settings(env={}, remembered=remembered)
    assert (s["provider"], s["temperature"]) == ("openai", 0.4) and "api_key" not in s and "unknown" not in s
    pinned = initial_settings(env={"REACT_PROVIDER": "scripted", "REACT_MODEL": "m"}, remembered=remembered)
    assert (pinned["provider"], pinned["model"], pinned["temperature"]) == ("scripted", "m", 0.4)
    broken = initial_settings(env={}, remembered={"max_calls": 99, "temperature": 0.4})
    assert broken["max_calls"] == 8 and broken["temperature"] == 0.0  # remembered values that no longer validate


def test_a_remembered_direct_answer_preset_falls_back_to_a_chat_preset(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, ["Thought 1: Easy.\nAction 1: Finish[4]"])
    monkeypatch.setenv("REACT_PRESET", "hotpotqa-standard")
    at = new_session()
    assert any("direct-answer prompt" in w.value for w in at.warning)
    ask(at, "What is 2 + 2?")
    assert last_trace(at)["settings"]["preset"] == "paper" and last_trace(at)["final_answer"] == "4"


def test_the_tools_preset_is_offered_only_to_a_provider_that_calls_tools(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    at = go(new_session(), "settings")
    assert any(o.startswith("tools — ") for o in at.selectbox(key="set-preset").options)  # scripted: it can
    at.selectbox(key="set-provider").set_value("local").run()
    assert not any(o.startswith("tools — ") for o in at.selectbox(key="set-preset").options)
    assert any("Not offered: tools" in unescape(c.value) for c in at.caption)


class _GatedStore:
    """A history store whose first write of settings waits until the test lets it go (a slow database)."""

    def __init__(self):
        self.remembered: list[int] = []
        self.first_writing, self.release = threading.Event(), threading.Event()

    def remember_settings(self, settings):
        if not self.first_writing.is_set():
            self.first_writing.set()
            assert self.release.wait(timeout=60)
        self.remembered.append(settings["max_calls"])


class _WatchedLock:
    """The session's settings lock, reporting when a second thread asks for it."""

    def __init__(self, arrived: threading.Event, second: threading.Thread):
        self._lock, self._arrived, self._second = threading.RLock(), arrived, second

    def __enter__(self):
        if threading.current_thread() is self._second:
            self._arrived.set()
        return self._lock.__enter__()

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)


def test_a_setting_changed_while_the_previous_change_is_still_being_saved_is_the_one_remembered(monkeypatch):
    """Streamlit's fast reruns: a slider moved 2 -> 1 starts a new script thread while the previous run's thread is
    still writing 2 to the history store. The session, and the next session, must end with 1."""
    import streamlit as st

    from ui.shared import bind, state

    store = _GatedStore()
    monkeypatch.setattr(state, "history_store", lambda: store)
    ss = st.session_state
    ss.settings, ss["set-max_calls"] = {"max_calls": 8}, 2
    second_arrived = threading.Event()  # the second thread finished, or waits for the first one's write
    first = threading.Thread(target=bind._commit, args=("max_calls", "set-max_calls", int))
    second = threading.Thread(target=lambda: (bind._commit("max_calls", "set-max_calls", int), second_arrived.set()))
    ss["settings_lock"] = _WatchedLock(second_arrived, second)
    try:
        first.start()
        assert store.first_writing.wait(timeout=60)
        ss["set-max_calls"] = 1  # the newer run's widget value
        second.start()
        assert second_arrived.wait(timeout=60)
        store.release.set()
        first.join(timeout=60)
        second.join(timeout=60)
        assert ss.settings["max_calls"] == 1
        assert store.remembered[-1] == 1
    finally:
        store.release.set()
        for key in ("settings", "set-max_calls", "settings_lock"):
            ss.pop(key, None)


def test_new_chat_pressed_on_settings_says_so_and_links_to_the_chat(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    at = ask(new_session(), "Before")
    before = at.session_state.chat["id"]
    go(at, "settings")
    at.button(key="new-chat").click().run()
    assert not at.exception, at.exception
    assert at.session_state.chat["id"] != before and not at.session_state.chat["turns"]
    assert [t.value for t in at.toast] == ["Started a new chat."]
    links = at.get("page_link")
    assert [link.proto.label for link in links] == ["Go to the new chat"]
    at.run()  # the next render: the notice was for that moment only
    assert not at.toast and not at.get("page_link")


def test_presets_that_share_a_dialect_read_apart_and_the_sidebar_says_temperature_and_budget(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    at = go(new_session(), "settings")
    shown = {o.split(" — ")[0]: o for o in at.selectbox(key="set-preset").options}
    # Before: "paper — ReAct paper (Search[entity])" and "hotpotqa-react — ReAct paper (Search[entity])".
    assert shown["paper"].startswith("paper — ReAct paper (HotpotQA style) · ")
    assert shown["hotpotqa-react"].startswith("hotpotqa-react — Paper: HotpotQA ReAct (6-shot) · ")
    at.slider(key="set-temperature").set_value(0.7).run()
    at.slider(key="set-max_calls").set_value(5).run()
    sidebar = unescape("\n".join(m.value for m in at.sidebar.markdown))
    assert "Temperature:** 0.7 · **at most** 5 model calls" in sidebar


def test_asking_once_more_for_an_answer_is_a_setting_the_next_turn_runs_under(monkeypatch, tmp_path):
    """Settings' "When the steps end without an answer": a turn that loops is asked once more, and its header says
    it answered only when asked."""
    looping = [f"Thought {i}: again\nAction {i}: Calculator[1+1]" for i in (1, 2, 3)]
    use_app(monkeypatch, tmp_path, [*looping, "Thought 4: so 2.\nAction 4: Finish[2]"])
    at = new_session()
    go(at, "settings")
    chooser = at.selectbox(key="set-early_stopping")
    assert chooser.value == "force" and chooser.options == [
        "Stop without an answer (the paper's)",
        "Ask the model once more for its final answer",
    ]
    chooser.set_value("generate").run()
    go(at, "chat")
    at = ask(at, "What is 1+1?")
    trace = last_trace(at)
    assert trace["settings"]["early_stopping"] == "generate" and trace["final_answer"] == "2"
    assert run_headers(at)[-1].label.startswith(
        "Answered when asked: its own steps had ended without an answer · 4 steps"
    )
    assert HistoryStore().last_settings()["early_stopping"] == "generate"


def test_the_adapters_on_this_machine_are_offered_as_your_own_and_follow_a_typed_path(monkeypatch, tmp_path):
    # Local mode: "your own file" lists the adapters found here besides the default (the other shipped ones and those
    # fine-tuning wrote), each by its title; picking one is the setting and fills in the path; a typed path that is
    # none of them leaves the list unchosen. Nothing is loaded: the page only sets the next turn's adapter.
    from react_core import Adapter

    use_app(monkeypatch, tmp_path)
    made = tmp_path / "data" / "finetune" / "react-abc" / "adapter.gguf"
    made.parent.mkdir(parents=True)
    made.write_bytes(b"GGUF")  # made elsewhere: no manifest, named by its file
    at = go(new_session(), "settings")
    at.selectbox(key="set-provider").set_value("local").run()
    assert at.radio(key="set-adapter-kind").value == ""  # the shipped one, the default
    at.radio(key="set-adapter-kind").set_value("own").run()
    found = at.selectbox(key="set-adapter-found")
    others = [a for a in Adapter.found() if not a.is_default]
    assert found.options == [f"{a.title} · {a.path.parent.name}" for a in others]
    assert found.value is None and "adapter.gguf · react-abc" in found.options  # no manifest: by its file
    assert "ReAct on HotpotQA (v1) · react-hotpotqa-v1" in found.options  # by its manifest's title
    assert any(a.is_default for a in Adapter.found()) and "ReAct on HotpotQA · react-hotpotqa" not in found.options
    v1 = next(a for a in others if a.path.parent.name == "react-hotpotqa-v1")
    found.set_value(str(v1.path)).run()
    assert not at.exception, at.exception
    assert at.session_state.settings["adapter"] == str(v1.path) == at.text_input(key="set-adapter-path").value
    at.text_input(key="set-adapter-path").set_value(str(tmp_path / "elsewhere.gguf")).run()
    assert at.session_state.settings["adapter"] == str(tmp_path / "elsewhere.gguf")
    assert at.selectbox(key="set-adapter-found").value is None
    at.text_input(key="set-adapter-path").set_value(str(made)).run()
    assert at.selectbox(key="set-adapter-found").value == str(made)
