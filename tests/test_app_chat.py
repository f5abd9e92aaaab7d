"""The Chat page in AppTest: a turn over the offline pack (panels, sources, answer, grounding), follow-ups,
"Similar" titles, Stop, Retry after a provider failure, and refusing bad input."""

from __future__ import annotations

from app_helpers import (
    NATIONALITY_Q,
    NATIONALITY_SCRIPT,
    ask,
    expander_labels,
    last_trace,
    markdowns,
    new_session,
    open_panels,
    provider,
    run_headers,
    step_expanders,
    texts,
    unescape,
    use_app,
    wait_idle,
)

from react_core.history import HistoryStore


def test_a_turn_shows_a_panel_per_step_the_answer_its_sources_and_is_saved(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, NATIONALITY_SCRIPT)
    at = ask(new_session(), NATIONALITY_Q)

    assert expander_labels(at) == [
        "Step 1 · Search[Scott Derickson film]",
        "Step 2 · Search[Scott Derrickson]",
        "Step 3 · Search[Ed Wood]",
        "Step 4 · Finish[American]",
    ]
    assert run_headers(at)[0].label.startswith("Answered · 4 steps · ")
    assert run_headers(at)[0].label.endswith(" tokens")
    shown = texts(open_panels(at))
    assert "I need to search Scott Derrickson first." in shown  # a Thought, as plain text
    assert any(t.startswith("Scott Derrickson (born July 16, 1966) is an American director") for t in shown)
    md = "\n".join(markdowns(at))
    assert [s.value for s in at.subheader] == ["American"]  # the final answer is the chat message
    assert "(https://en.wikipedia.org/wiki/Scott_Derrickson)" in md  # sources link to Wikipedia
    assert "(https://en.wikipedia.org/wiki/Ed_Wood)" in md
    # The evidence check's badge, literal and neutral: it says where the answer occurs, not that it is right.
    assert ":gray-badge[:material/format_quote: Occurs in step 2's Search result\\: «Scott Derrickson \\(born" in md
    assert any("HotpotQA" in c.value and "CC BY-SA" in c.value for c in at.caption)

    records = HistoryStore().list()
    assert [r.question for r in records] == [NATIONALITY_Q]
    assert records[0].trace is None and HistoryStore().get(records[0].id).trace.final_answer == "American"


def test_similar_titles_of_a_missed_search_are_buttons_that_search_that_title(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [
            NATIONALITY_SCRIPT[0],
            "Thought 2: Enough.\nAction 2: Finish[unknown]",
            NATIONALITY_SCRIPT[2],
            NATIONALITY_SCRIPT[3],
        ],
    )
    at = open_panels(ask(new_session(), NATIONALITY_Q))
    similar = [b for b in at.button if unescape(b.label) == "Scott Derrickson"]
    assert similar, [b.label for b in at.button]

    similar[0].click().run()
    wait_idle(at)
    turn = at.session_state.chat["turns"][-1]
    assert turn.origin == "similar"
    steps = turn.trace.to_dict()["steps"]
    assert steps[0]["action"] == {"tool": "search", "input": "Scott Derrickson"}
    assert steps[0]["observation"]["text"].startswith("Scott Derrickson (born July 16, 1966)")
    assert turn.trace.final_answer == "American"
    assert HistoryStore().get(turn.history_id).parent_id == at.session_state.chat["turns"][0].history_id


def test_a_follow_up_question_continues_the_conversation_and_past_panels_stay(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [
            "Thought 1: Compute.\nAction 1: Calculator[17 * 23 + 4]",
            "Thought 2: Done.\nAction 2: Finish[395]",
            "Thought 1: Double the earlier answer.\nAction 1: Calculator[395 * 2]",
            "Thought 2: Done.\nAction 2: Finish[790]",
        ],
    )
    at = ask(new_session(), "What is 17 * 23 + 4?")
    at = ask(at, "And twice that?")

    prompt = provider(at).requests[-1].prompt
    assert "Earlier in this conversation:\nQ: What is 17 * 23 + 4?\nA: 395" in prompt
    assert expander_labels(at) == [
        "Step 1 · Calculator[17 * 23 + 4]",
        "Step 2 · Finish[395]",
        "Step 1 · Calculator[395 * 2]",
        "Step 2 · Finish[790]",
    ]
    assert len(at.chat_message) == 4 and len(run_headers(at)) == 2
    at.run()  # another rerun: nothing already shown is lost
    assert len(expander_labels(at)) == 4


def test_model_and_wikipedia_text_is_never_interpreted(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [
            "Thought 1: <b>bold</b> **stars** [x](http://example.com)\nAction 1: Search[<i>Ed</i> **Wood**]",
            "Thought 2: ok\nAction 2: Finish[**not bold** <script>x</script>]",
        ],
    )
    at = open_panels(ask(new_session(), "Escaping?"))
    assert "<b>bold</b> **stars** [x](http://example.com)" in texts(at)
    assert expander_labels(at)[0] == "Step 1 · Search[<i>Ed</i> **Wood**]"
    assert step_expanders(at)[0].label.startswith("Step 1 · Search\\[\\<i\\>Ed")  # escaped for Markdown
    answer = at.subheader[0].value
    assert unescape(answer) == "**not bold** <script>x</script>" and "\\*\\*not bold" in answer


def test_empty_and_overlong_messages_are_handled(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, ["Thought 1: x\nAction 1: Finish[y]"])
    at = new_session()
    at.chat_input[0].set_value("   ").run()
    assert at.session_state.job is None and not at.session_state.chat["turns"] and not at.error

    at.chat_input[0].set_value("x" * 10_001).run()
    assert at.session_state.job is None
    assert "10,001 characters" in at.error[0].value and "10,000" in at.error[0].value
    assert at.chat_input[0].proto.value == "x" * 10_001  # given back to the input, so it can be shortened


def test_a_second_question_while_one_runs_is_refused_and_stop_cancels(monkeypatch, tmp_path):
    gate = tmp_path / "never-opened"
    use_app(monkeypatch, tmp_path, [{"text": "Thought 1: slow\nAction 1: Finish[late]", "gate": str(gate)}])
    at = new_session()
    at.chat_input[0].set_value("First question").run()
    job = at.session_state.job
    assert job is not None
    while job.preparing:
        job.wait(0.01)
    at.run()
    assert run_headers(at)[0].label == "Thinking… step 1 of 8"

    at.chat_input[0].set_value("Second question").run()
    assert any("Still working on the last question" in w.value for w in at.warning)
    assert at.chat_input[0].proto.value == "Second question"  # kept for when the first one is done

    at.button(key="stop").click().run()
    wait_idle(at)
    turns = at.session_state.chat["turns"]
    assert [t.question for t in turns] == ["First question"]
    assert turns[0].trace.stop_reason == "cancelled"
    assert run_headers(at)[0].label.startswith("Stopped by you")


def test_a_provider_failure_shows_in_the_chat_and_retry_goes_on_from_there(monkeypatch, tmp_path):
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
    assert "The service is busy (503)" in unescape(at.error[0].value)
    assert run_headers(at)[0].label.startswith("Failed")
    assert expander_labels(at) == ["Step 1 · Calculator[6 * 7]"]

    at.button(key="retry-1").click().run()
    wait_idle(at)
    turns = at.session_state.chat["turns"]
    assert len(turns) == 1  # the retry took the failed turn's place, keeping its step
    assert expander_labels(at) == ["Step 1 · Calculator[6 * 7]", "Step 2 · Finish[42]"]
    assert last_trace(at)["final_answer"] == "42" and not at.error
    assert [r.stop_reason for r in HistoryStore().list()] == ["finished", "error"]


def test_a_missing_key_is_a_message_not_a_crash(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    at = new_session()
    at.session_state.settings = {**at.session_state.settings, "provider": "openai"}
    at = ask(at, "Anything?")
    message = unescape(at.error[0].value)
    assert "OPENAI_API_KEY" in message or "key" in message.lower()
    assert at.button(key="retry-1")  # once a key is added in Settings, Retry runs it
    assert HistoryStore().count() == 0  # nothing ran, nothing to keep


def test_a_lone_surrogate_from_the_model_neither_breaks_the_page_nor_loses_the_run(monkeypatch, tmp_path):
    # A JSON "\ud800" escape in a model's reply decodes to a lone surrogate, which cannot be encoded as UTF-8.
    use_app(monkeypatch, tmp_path, ["Thought 1: odd \ud800 text\nAction 1: Finish[caf\udce9]"])
    at = ask(new_session(), "Anything odd?")
    turn = at.session_state.chat["turns"][-1]
    assert turn.trace.final_answer == "caf\ufffd" and turn.history_id is not None
    at.run()  # and again: every rerun draws it
    assert not at.exception
    assert HistoryStore().get(turn.history_id).trace.final_answer == "caf\ufffd"


def test_a_closed_panel_draws_its_content_only_once_opened_and_a_failed_step_opens_by_itself(monkeypatch, tmp_path):
    # A finished step's panel holds its whole model call; drawn closed on every rerun, the panels of a few turns cost
    # the browser and the server more than the rest of the page (ui/shared/render.py lazy_panel).
    use_app(
        monkeypatch,
        tmp_path,
        ["Thought 1: Try a tool.\nAction 1: Nonsense[x]", "Thought 2: Search now.\nAction 2: Finish[American]"],
    )
    at = ask(new_session(), NATIONALITY_Q)
    header, failed, last = run_headers(at)[0], *step_expanders(at)
    assert not header.children and not last.children  # closed: nothing drawn in them
    assert failed.proto.expanded and "Try a tool." in [t.value for t in failed.text]  # an error opens with its content
    turn = at.session_state.chat["turns"][-1]
    at.session_state[f"{turn.key}-s2-panel"] = True  # a person opens step 2
    at.run()
    last = step_expanders(at)[1]
    assert last.proto.expanded and "Search now." in [t.value for t in last.text]
    assert any("Request as the API received it" in h.proto.body for h in last.get("html"))  # its model call
    at.run()  # and it stays open, drawn, over the reruns that follow
    assert "Search now." in [t.value for t in step_expanders(at)[1].text]
    assert "Search now." in texts(at) and not run_headers(at)[0].children
