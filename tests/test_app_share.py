"""Read-only share links in a signed-in deployment (AppTest with an ``[auth]`` secret and a signed-in ``st.user``): the
owner makes a link from History and revokes it; whoever opens ``?share=TOKEN`` sees that run only, read-only, without
signing in; a revoked link and a deleted run's link get one clear message; without a link the sign-in gate stands."""

from __future__ import annotations

import re

from app_helpers import (
    APP,
    APP_TIMEOUT,
    NATIONALITY_Q,
    NATIONALITY_SCRIPT,
    expander_labels,
    go,
    open_panels,
    unescape,
    use_app,
    wait_idle,
)
from streamlit.testing.v1 import AppTest

from react_core.history import open_history
from ui.shared import identity
from ui.shared.share_view import DEAD_LINK

AUTH = {
    "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
    "cookie_secret": "not-a-real-secret",
    "client_id": "react-lab",
    "client_secret": "not-a-real-secret",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}
ANN = {"is_logged_in": True, "iss": "https://id.example.org", "sub": "ann", "email": "ann@example.org"}
FINISH = "Thought 1: Done.\nAction 1: Finish[ok]"


def session(user: dict | None, share: str | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
    at.secrets["auth"] = AUTH
    at.user = user if user is not None else {"is_logged_in": False}
    if share is not None:
        at.query_params["share"] = share
    at.run()
    assert not at.exception, at.exception
    return at


def _ask(at: AppTest, question: str) -> int:
    at.chat_input[0].set_value(question).run()
    wait_idle(at)
    return at.session_state.chat["turns"][-1].history_id


def _links(at: AppTest) -> list[str]:
    return [c.value for c in at.code if "?share=" in c.value]


def _shares(at: AppTest) -> list[str]:
    return [re.search(r"share=([A-Za-z0-9_-]+)", link).group(1) for link in _links(at)]


def test_a_link_shows_one_run_read_only_without_sign_in_until_revoked(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [*NATIONALITY_SCRIPT, FINISH])
    ann = session(ANN)
    shared_id = _ask(ann, NATIONALITY_Q)
    private_id = _ask(ann, "A private question")
    go(ann, "history")
    ann.button(key=f"open-{shared_id}").click().run()
    assert not _links(ann)
    ann.button(key="share-create").click().run()
    [token] = _shares(ann)

    stranger = session(None, share=token)
    assert [h.value for h in stranger.header] == ["Shared run"]
    assert any(NATIONALITY_Q in s.value.replace("\\", "") for s in stranger.subheader)
    assert expander_labels(stranger)[:2] == [
        "Step 1 · Search[Scott Derickson film]",
        "Step 2 · Search[Scott Derrickson]",
    ]
    assert not [b for b in stranger.button if b.key in ("sign-in", "share-create", "delete-run", "present-run")]
    assert "A private question" not in str(open_panels(stranger))  # nor in any panel
    assert stranger.get("download_button")[0].label == "Export HTML"
    # Without a link the gate still stands.
    gated = session(None)
    assert [b.key for b in gated.button] == ["sign-in"]

    ann.button(key=f"share-revoke-{token[:12]}").click().run()
    assert not _links(ann)
    again = session(None, share=token)
    assert [e.value for e in again.error] == [DEAD_LINK] and not again.expander

    # A deleted run's link goes with it.
    store = open_history(identity.oidc_owner(ANN["iss"], ANN["sub"]))
    doomed = store.create_share(private_id)
    assert session(None, share=doomed.token).expander
    store.delete(private_id)
    assert [e.value for e in session(None, share=doomed.token).error] == [DEAD_LINK]


def test_a_made_up_token_opens_nothing(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    for token in ("x" * 43, "<script>", "../../etc/passwd"):
        at = session(None, share=token)
        assert [e.value for e in at.error] == [DEAD_LINK] and not at.expander


def test_local_mode_offers_no_share_button(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
    at.run()
    run_id = _ask(at, "Local question")
    go(at, "history")
    at.button(key=f"open-{run_id}").click().run()
    assert at.button(key="present-run") and not [b for b in at.button if b.key == "share-create"]


EARLIER_Q = "Who signed the private memo about Project Zebulon?"
EARLIER_A = "Quentin Marsh"
FOLLOW_UP_Q = "And in which year was he born?"


def _seen(at: AppTest) -> str:
    """Everything the page draws, the inspector's HTML blocks included."""
    return str(at) + " ".join(str(e.proto) for e in at.get("html"))


def test_a_shared_follow_up_shows_its_own_question_and_steps_not_the_earlier_turns(monkeypatch, tmp_path):
    use_app(
        monkeypatch,
        tmp_path,
        [f"Thought 1: I know it.\nAction 1: Finish[{EARLIER_A}]", "Thought 1: Compute.\nAction 1: Finish[1961]"],
    )
    ann = session(ANN)
    _ask(ann, EARLIER_Q)
    follow_up = _ask(ann, FOLLOW_UP_Q)
    go(ann, "history")
    ann.button(key=f"open-{follow_up}").click().run()
    assert EARLIER_A in _seen(ann)  # the owner's own view keeps the whole prompt
    popover = " ".join(c.value for c in ann.caption)
    assert "earlier questions and answers" in popover
    ann.button(key="share-create").click().run()
    [token] = _shares(ann)

    stranger = session(None, share=token)
    seen = _seen(open_panels(stranger))
    assert [unescape(h.value) for h in stranger.subheader] == [FOLLOW_UP_Q, "1961"]
    assert "Zebulon" not in seen and EARLIER_A not in seen
    assert expander_labels(stranger) == ["Step 1 · Finish[1961]"]
    assert any("earlier questions and answers" in c.value for c in stranger.caption)


def test_a_shared_first_question_keeps_its_model_calls(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [FINISH])
    ann = session(ANN)
    run_id = _ask(ann, "A first question")
    token = open_history(identity.oidc_owner(ANN["iss"], ANN["sub"])).create_share(run_id).token
    stranger = session(None, share=token)
    assert "Request as the API received it" in _seen(open_panels(stranger))
