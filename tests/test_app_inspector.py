"""The call inspector in the app: every step panel shows the model call behind it (what is new, the request as sent,
the response with its cut), the run lists its calls, and nothing in them is interpreted as HTML."""

from __future__ import annotations

from app_helpers import NATIONALITY_Q, NATIONALITY_SCRIPT, ask, go, new_session, open_panels, provider, use_app

from react_core.history import HistoryStore


def _htmls(at) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def test_each_step_shows_its_model_call_with_what_is_new(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, NATIONALITY_SCRIPT)
    at = open_panels(ask(new_session(), NATIONALITY_Q))
    bodies = _htmls(at)
    assert len(bodies) == 4  # one Model call section per step
    sent = provider(at).requests
    first, second = bodies[0], bodies[1]
    assert "The run&#x27;s first call: its whole prompt is new (" in first and "Question: What nationality" in first
    assert "Unchanged prefix" not in first and "of nothing" not in first
    # The second call adds the first step's action and observation and the new step's prefix, highlighted …
    assert "of step 1&#x27;s call" in second and "Observation 1: Could not find [Scott Derickson film]" in second
    # … and the request shows the texts the "API" received, verbatim (escaped for HTML, never interpreted).
    assert "&quot;$ref&quot;: &quot;prompt&quot;" in second
    assert sent[1].prompt.splitlines()[-1] in second
    assert "Cut at the stop sequence" not in first  # the script stopped at its action: nothing was cut
    captions = [c.value for c in at.caption]
    assert any("prompt tokens" in c and "first token" in c for c in captions)


def test_the_run_lists_its_calls_and_the_prompt_grows(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, NATIONALITY_SCRIPT)
    at = open_panels(ask(new_session(), NATIONALITY_Q))  # the run's header opened
    table = at.dataframe[0].value
    assert list(table["step"]) == [1, 2, 3, 4]
    assert list(table["prompt characters"]) == sorted(table["prompt characters"])  # it grows step by step


def test_model_text_in_the_inspector_is_never_html(monkeypatch, tmp_path):
    # The struck-out text after the cut is the piece of the stream that held the stop sequence: hostile too.
    evil = "Thought 1: <img src=x onerror=alert(1)><script>alert(2)</script>\nAction 1: Finish[ok]\nObservation<i>3 x"
    use_app(monkeypatch, tmp_path, [evil])
    at = open_panels(ask(new_session(), "<b>bold?</b>"))
    body = "".join(_htmls(at))
    assert "<img" not in body and "<script" not in body and "<b>" not in body
    assert "&lt;img src=x onerror=alert(1)&gt;" in body and "&lt;b&gt;bold?&lt;/b&gt;" in body
    assert "<del" in body and "Cut at the stop sequence" in body  # the invented Observation is struck out
    assert "<i>" not in body and "Observation&lt;i&gt;3" in body


def test_history_shows_the_calls_of_a_saved_run_and_says_when_an_old_one_has_none(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, NATIONALITY_SCRIPT)
    at = ask(new_session(), NATIONALITY_Q)
    run_id = at.session_state.chat["turns"][-1].history_id
    old = at.session_state.chat["turns"][-1].trace
    for step in old.steps:
        step.call = None
    old_id = HistoryStore().save(old, origin="import")
    for rid, expected in ((run_id, 4), (old_id, 0)):
        at.session_state.history_open = rid
        open_panels(go(at, "history"))
        runs_tab = at.tabs[0]
        assert len(runs_tab.get("html")) == expected
    assert any("does not record its model call" in c.value for c in at.caption)


def test_native_tool_calls_show_the_conversation_each_call_added(monkeypatch, tmp_path):
    both = {
        "text": "I will look both up.",
        "tool_calls": [
            {"name": "search", "arguments": {"query": "Scott Derrickson"}},
            {"name": "search", "arguments": {"query": "Ed Wood"}},
        ],
    }
    use_app(monkeypatch, tmp_path, [both, {"tool_calls": [{"name": "finish", "arguments": {"answer": "American"}}]}])
    monkeypatch.setenv("REACT_PRESET", "tools")
    at = ask(new_session(), NATIONALITY_Q)
    trace = at.session_state.chat["turns"][-1].trace.to_dict()
    assert trace["final_answer"] == "American" and len(trace["steps"]) == 3
    captions = [c.value for c in open_panels(at).caption]
    assert any("same reply as step 1" in c for c in captions)  # the second call of the first reply
    bodies = _htmls(at)
    assert len(bodies) == 2  # one Model call section per reply
    assert "new messages in the conversation" in bodies[1] and "Ed Wood" in bodies[1]
    table = at.dataframe[0].value
    assert list(table["step"]) == [1, 3]


def test_the_on_device_grammar_shows_as_the_grammar_text_in_its_own_block():
    from react_core.base.call_records import CallTexts
    from react_core.dialects import DIALECTS
    from ui.shared.inspector import _request

    grammar = DIALECTS["paper"].grammar(["search", "lookup"], 1)
    assert "\u3000" in grammar and "\u2028" in grammar  # character classes hold spaces a browser cannot show
    template = {"prompt": {"$ref": "prompt"}, "max_tokens": 400, "stream": True, "grammar": grammar}
    call = {"api": "llama.cpp", "endpoint": "", "omitted": [], "stop_local": ["\nObservation"]}
    shown = _request(call, template, CallTexts(system="", prompt="Question: Q?\nThought 1:", keep=0))
    body, block = shown.split("&quot;$ref&quot;: &quot;grammar&quot; (", 1)
    assert "&quot;grammar&quot;: {\n    &quot;$ref&quot;: &quot;grammar&quot;\n  }" in body  # not a JSON string
    assert "root ::=" not in body
    assert block.startswith(f"{len(grammar):,} characters)")
    # The grammar as its own text: its lines, its quotes, and GBNF's own escapes as written (not JSON's) …
    assert "root ::= &quot; &quot; thought ( &quot;\\nAction 1: Search[&quot; input0" in block
    assert "\nthought ::= thought-first thought-char{0,159}" in block
    # … with the characters that would draw as empty boxes written as the escapes GBNF reads the same.
    assert "\u3000" not in block and "\u2028" not in block and "\\u3000" in block and "\\u2028" in block
