"""The app's three modes: local (one history for the one person), public demo (each browser session keeps its runs and
evaluations to itself, visitors bring their own key, a limit on model calls a minute for every kind of job), and
signed in (tested in a real browser in test_browser_sign_in.py). The page always says which mode it is in. The
server's keys go only to the endpoints the operator configured, never to a Base URL a visitor typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import NATIONALITY_Q, NATIONALITY_SCRIPT, ask, go, last_trace, new_session, reload, unescape, use_app
from provider_helpers import FakeGemini, FakeOpenAI

from react_core.base.paths import evaluations_dir
from react_core.history import open_history
from react_core.providers.public_demo import PublicDemo
from ui.shared import identity

FINISH = "Thought 1: Done.\nAction 1: Finish[ok]"
OPERATOR_KEY = "sk-OPERATOR-5c2e9a7d41"


def evaluate(at, limit: int = 1):
    """Run the Standard strategy over the first ``limit`` questions on the Evaluate page; its job's last picture."""
    go(at, "evaluate")
    at.selectbox(key="eval-dataset").set_value("dev_distractor_first100.json")
    at.number_input(key="eval-limit").set_value(limit)
    at.multiselect(key="eval-strategies").set_value(["standard"]).run()
    at.button(key="eval-run").click().run()
    assert at.session_state.eval_job.wait(30), "the evaluation did not finish"
    at.run()
    assert not at.exception, at.exception
    return at.session_state.eval_job.snapshot()


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
    assert "Public demo: your runs and evaluations stay in this browser session only" in _sidebar_text(alice)
    ask(alice, "Alice asks")
    ask(bob, "Bob asks")
    for at, own, other in ((alice, "Alice asks", "Bob asks"), (bob, "Bob asks", "Alice asks")):
        go(at, "history")
        shown = " ".join(m.value for m in at.markdown)
        assert own in shown and other not in shown
    assert open_history().list() == []  # nothing in the local person's history either
    alice_run = alice.session_state.chat["turns"][0].history_id
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
        trace = at.session_state.chat["turns"][-1].trace.to_dict()
        assert trace["stop_reason"] == "error" and "does not lend the server's keys" in trace["error"]
        assert server.requests == []  # the server's key never left the server
        go(at, "settings").text_input(key="set-api-key").input("visitor-key-123").run()
        go(at, "chat")
        at = ask(at, "With my key?")
        assert at.session_state.chat["turns"][-1].trace.final_answer == "ok"
        assert [r.headers.get("x-goog-api-key") for r in server.requests] == ["visitor-key-123"]


def test_public_demo_limits_model_calls_a_minute_per_visitor(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, NATIONALITY_SCRIPT)
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv("REACT_DEMO_CALLS_PER_MINUTE", "2")
    at = ask(new_session(), NATIONALITY_Q)
    trace = at.session_state.chat["turns"][-1].trace.to_dict()
    assert trace["stop_reason"] == "error" and len(trace["steps"]) == 2
    assert "allows 2 model calls a minute per visitor" in trace["error"]
    connect_from(monkeypatch, "198.51.100.9")
    other = ask(new_session(), NATIONALITY_Q)  # another visitor has their own allowance
    assert len(other.session_state.chat["turns"][-1].trace.to_dict()["steps"]) == 2


def connect_from(monkeypatch, address: str | None) -> None:
    """The sessions started from now on connect from ``address`` (as Streamlit gives it: None for this machine)."""
    monkeypatch.setattr(identity, "client_address", lambda: address)


def test_the_call_limit_holds_per_visitor_across_reloads_and_tabs(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH] * 2)
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv("REACT_DEMO_CALLS_PER_MINUTE", "2")
    connect_from(monkeypatch, "203.0.113.7")
    at = ask(new_session(), "One")
    at = ask(reload(at), "Two")  # a reload is a new browser session of the same visitor
    assert last_trace(at)["final_answer"] == "ok"
    for again in (reload(at), new_session()):  # another reload, another tab: the visitor's limit still holds
        assert "allows 2 model calls a minute per visitor" in last_trace(ask(again, "Three"))["error"]
    connect_from(monkeypatch, "2001:db8:7:1::5")
    ask(new_session(), "From IPv6")
    connect_from(monkeypatch, "2001:db8:7:1:a11:b22:c33:d44")  # another address of the same /64: the same visitor
    ask(new_session(), "Again")
    at = ask(new_session(), "And again")
    assert "allows 2 model calls a minute per visitor" in last_trace(at)["error"]
    connect_from(monkeypatch, "198.51.100.9")  # another visitor
    assert last_trace(ask(new_session(), "Mine"))["final_answer"] == "ok"


def test_the_arena_counts_against_the_same_visitors_calls_after_a_reload(monkeypatch, tmp_path):
    from test_app_arena import start, wait_arena

    use_app(monkeypatch, tmp_path, [FINISH] * 2)
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv("REACT_DEMO_CALLS_PER_MINUTE", "2")
    connect_from(monkeypatch, "203.0.113.7")
    at = ask(new_session(), "One")
    results = wait_arena(start(go(reload(at), "arena"))).session_state.arena_job.arena.results
    errors = sorted(r.trace.error or "" for r in results)
    assert errors[0] == "" and "allows 2 model calls a minute per visitor" in errors[1]  # one call was left


def test_all_visitors_together_stop_at_the_servers_ceiling(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH] * 2)
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv("REACT_DEMO_CALLS_PER_MINUTE", "2")
    monkeypatch.setenv("REACT_DEMO_TOTAL_CALLS_PER_MINUTE", "3")
    connect_from(monkeypatch, "203.0.113.7")
    at = ask(ask(new_session(), "A1"), "A2")
    assert [t.trace.final_answer for t in at.session_state.chat["turns"]] == ["ok", "ok"]
    connect_from(monkeypatch, "198.51.100.9")
    at = ask(ask(new_session(), "B1"), "B2")
    assert last_trace(at)["error"].startswith(
        "This public demo allows 3 model calls a minute for all its visitors together; try again in "
    )
    assert at.session_state.chat["turns"][0].trace.final_answer == "ok"


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


def test_public_demo_evaluations_bring_their_own_key_and_count_against_the_visitors_calls(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    monkeypatch.setenv("REACT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv("REACT_DEMO_CALLS_PER_MINUTE", "1")
    monkeypatch.setenv("GEMINI_API_KEY", "server-key-never-lent")
    with FakeGemini([" yes"]) as server:
        monkeypatch.setenv("REACT_PROVIDER", "gemini")
        monkeypatch.setenv("REACT_BASE_URL", server.root)
        at = new_session()
        snap = evaluate(at)
        assert snap["error"] and "does not lend the server's keys" in snap["error"]
        assert server.requests == []  # the server's key never left the server
        go(at, "settings").text_input(key="set-api-key").input("visitor-key-123").run()
        assert evaluate(at)["error"] is None
        assert [r.headers.get("x-goog-api-key") for r in server.requests] == ["visitor-key-123"]
        # The evaluation's call took the visitor's one call this minute: the chat's next one is refused.
        at = ask(go(at, "chat"), "And now?")
        assert "allows 1 model calls a minute per visitor" in last_trace(at)["error"]
        assert len(server.requests) == 1


def test_a_base_url_typed_in_settings_never_gets_the_servers_key(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv("REACT_DEMO_SERVER_KEYS", "1")  # lent, as always when signed in: to the server's endpoints
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    answer = " Done.\nAction 1: Finish[ok]"
    with FakeOpenAI([answer]) as visitors:
        at = go(new_session(), "settings")
        at.selectbox(key="set-provider").set_value("openai").run()
        at.text_input(key="set-model").input("gpt-4.1-mini").run()
        at.text_input(key="set-base_url").input(visitors.root + "/v1").run()
        assert any("gets only the API key you typed above" in c.value for c in at.caption)
        at = ask(go(at, "chat"), "Whose key goes there?")
        assert visitors.requests == []  # the operator's key (or any) never reached the visitor's endpoint
        error = last_trace(at)["error"] or ""
        assert "Base URL you set" in error and "Paste your own key on the Settings page" in error
        go(at, "settings").text_input(key="set-api-key").input("visitor-key-123").run()
        at = ask(go(at, "chat"), "With my key?")
        assert last_trace(at)["final_answer"] == "ok"
        assert [r.headers.get("authorization") for r in visitors.requests] == ["Bearer visitor-key-123"]
    with FakeOpenAI([answer]) as operators:  # the model server the operator configured gets the operator's key
        monkeypatch.setenv("REACT_PROVIDER", "openai")
        monkeypatch.setenv("REACT_MODEL", "gpt-4.1-mini")
        monkeypatch.setenv("REACT_BASE_URL", operators.root + "/v1")
        at = ask(new_session(), "The server's model?")
        assert last_trace(at)["final_answer"] == "ok"
        assert [r.headers.get("authorization") for r in operators.requests] == [f"Bearer {OPERATOR_KEY}"]


def test_each_mode_decides_once_whose_keys_and_which_call_window(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    monkeypatch.setattr(identity, "owner", lambda: "someone")
    rules = {}
    for mode in (identity.LOCAL, identity.SIGNED_IN, identity.DEMO):
        monkeypatch.setattr(identity, "mode", lambda m=mode: m)
        a = identity.allowance()
        rules[mode] = (a.owner, a.server_keys, a.own_endpoints, a.window.per_minute if a.window else None)
    assert rules == {
        identity.LOCAL: ("someone", True, False, None),  # the person is the operator
        identity.SIGNED_IN: ("someone", True, True, None),  # the server's keys, to the server's endpoints only
        identity.DEMO: ("someone", False, True, PublicDemo.CALLS_PER_MINUTE),
    }


def test_public_demo_visitors_see_and_open_only_their_own_evaluations(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [" yes"])
    monkeypatch.setenv("REACT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    alice, bob = new_session(), new_session()
    assert evaluate(alice)["error"] is None
    alices = Path(alice.session_state.eval_job.plan.out_dir)
    assert list(go(alice, "evaluate").dataframe[-1].value["folder"]) == [alices.name]
    go(bob, "evaluate")
    assert not [d for d in bob.dataframe if "folder" in d.value.columns]  # no past evaluations to list
    bob.session_state.eval_open = str(alices)  # a crafted request for another visitor's evaluation
    bob.run()
    assert not [d for d in bob.dataframe if "EM" in d.value.columns]
    assert not [s for s in bob.subheader if s.value == "Results"]
    assert evaluations_dir() not in alices.parents  # not in the local person's folder either


def test_local_mode_keeps_its_evaluations_in_the_one_folder(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [" yes"])
    monkeypatch.setenv("REACT_DATA_DIR", str(tmp_path / "data"))
    at = new_session()
    assert evaluate(at)["error"] is None
    assert Path(at.session_state.eval_job.plan.out_dir).parent == evaluations_dir()


def test_a_signed_in_owner_id_is_never_shared(monkeypatch):
    def owner_of(iss: str, sub: str) -> str:
        monkeypatch.setattr(identity.st, "user", {"iss": iss, "sub": sub})
        return identity.owner()

    monkeypatch.setattr(identity, "mode", lambda: identity.SIGNED_IN)
    assert owner_of("https://id.example", "alice") == "oidc:https://id.example#alice"  # existing ids stay valid
    long_iss = "https://id.example/" + "x" * 190
    first, second = owner_of(long_iss, "alice-1"), owner_of(long_iss, "alice-2")
    assert first != second and len(first) <= 200 and first.startswith("oidc-sha256:")
    assert owner_of("https://a#b", "c") != owner_of("https://a", "b#c")  # a '#' cannot move between the two
    assert owner_of("https://a", "b#c") == "oidc:https://a#b#c"
    assert owner_of("https://a", "b\x00c").startswith("oidc-sha256:")  # what the store refuses is never the id


def test_a_saved_preset_kept_in_a_persons_history_runs_in_their_chat(monkeypatch, tmp_path):
    # Signed-in and public-demo presets live in the person's history, not in the presets folder: the chat's run must
    # find them there (it used to look in the folder only and fail with "Unknown preset").
    use_app(monkeypatch, tmp_path, ["Thought 1: Known.\nAction 1: Finish[ok]"])
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    at = go(new_session(), "settings")
    at.text_area(key="edit-question").input("Q: {question}\n").run()
    at.text_input(key="save-name").input("my-prompt").run()
    at.button(key="save-preset").click().run()
    trace = last_trace(ask(go(at, "chat"), "What?"))
    assert trace["stop_reason"] == "finished", trace["error"]
    assert trace["settings"]["preset"] == "my-prompt"
    first_call = at.session_state.chat["turns"][-1].trace.steps[0].call
    assert first_call.prompt_added.startswith("Q: What?\n")  # the person's own template was sent


@pytest.mark.parametrize(
    ("variable", "limit"),
    [
        *(("REACT_DEMO_CALLS_PER_MINUTE", v) for v in ("0", "abc", "-3", "2.5", "20 a minute", "٣")),
        *(("REACT_DEMO_TOTAL_CALLS_PER_MINUTE", v) for v in ("0", "lots")),
    ],
)
def test_a_call_limit_that_is_no_limit_is_refused_at_start(monkeypatch, tmp_path, caplog, variable, limit):
    use_app(monkeypatch, tmp_path, [FINISH])
    monkeypatch.setenv("REACT_PUBLIC_DEMO", "1")
    monkeypatch.setenv(variable, limit)
    at = new_session()
    assert [unescape(e.value) for e in at.error] == [
        f"ReAct Lab cannot start: {variable} must be a whole number of model calls a minute, at "
        f"least 1 (got {limit!r}). The operator must fix this first."
    ]
    assert not at.chat_input and not at.sidebar.caption  # nothing runs: no chat, no page but this one
    assert f"{variable} must be a whole number" in caplog.text  # and the server's log says so


def test_react_base_url_without_its_provider_is_refused_at_start(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    monkeypatch.delenv("REACT_PROVIDER")
    monkeypatch.setenv("REACT_BASE_URL", "http://127.0.0.1:9/v1")
    at = new_session()
    assert len(at.error) == 1 and "set REACT_PROVIDER to the provider it belongs to" in unescape(at.error[0].value)
    assert not at.chat_input
