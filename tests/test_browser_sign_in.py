"""Sign-in in a real browser against a local OpenID Connect provider (oidc-provider-mock, started by the test): two
people sign in, each sees only their own runs; a crafted link to the other's run shows nothing; signing out hides
everything. The app reads its ``[auth]`` settings from a secrets file given to ``streamlit run`` (oidc_helpers)."""

from __future__ import annotations

import pytest
from browser_helpers import ask, nav, needs_chromium, open_page, shot
from oidc_helpers import sign_in, signed_in_app

pytestmark = [pytest.mark.browser, needs_chromium]

ANSWER = "Thought 1: I know this one.\nAction 1: Finish[{}]"


@pytest.fixture(scope="module")
def signed_in(tmp_path_factory):
    script = [ANSWER.format(n) for n in ("Ann's answer", "Bob's answer")] * 2
    with signed_in_app(tmp_path_factory.mktemp("sign-in"), script) as (server, browser):
        yield server, browser


def test_each_person_sees_only_their_own_runs_and_sign_out_hides_them(signed_in):
    server, browser = signed_in
    context, page = open_page(browser, server["url"], wait_for_chat=False)
    page.get_by_role("button", name="Sign in").wait_for()
    assert page.get_by_test_id("stChatInput").count() == 0  # nothing before signing in
    shot(page, "sign-in.png")
    context.close()

    (ca, ann), (cb, bob) = sign_in(browser, server["url"], "ann"), sign_in(browser, server["url"], "bob")
    try:
        ann.get_by_text("Signed in as ann", exact=False).wait_for()
        ask(ann, "Ann asks about owls")
        ann.get_by_text("Ann's answer", exact=False).first.wait_for()
        ask(bob, "Bob asks about bats")
        bob.get_by_text("Ann's answer", exact=False).first.wait_for()  # his own session replays the same script
        ann_link = ann.get_by_role("link", name="Saved to History as run #")
        ann_run = ann_link.inner_text().rsplit("#", 1)[1]

        nav(ann, "History")
        ann.get_by_text("Ann asks about owls").first.wait_for()  # in Runs and in Conversations
        assert ann.get_by_text("Bob asks about bats").count() == 0
        nav(bob, "History")
        bob.get_by_text("Bob asks about bats").first.wait_for()
        assert bob.get_by_text("Ann asks about owls").count() == 0

        # Bob crafts a link to Ann's run: his History opens, without it.
        bob.goto(f"{server['url']}/history?run={ann_run}")
        bob.get_by_text("Bob asks about bats").first.wait_for()
        assert bob.get_by_text("Ann asks about owls").count() == 0 and bob.get_by_text("owls").count() == 0

        ann.get_by_role("button", name="Sign out").click()
        # Streamlit ends the session at the provider too (RP-initiated logout); the provider asks to confirm.
        ann.get_by_role("button", name="End session").click()
        ann.get_by_role("button", name="Sign in").wait_for()
        assert ann.get_by_text("Ann asks about owls").count() == 0 and ann.get_by_test_id("stChatInput").count() == 0
    finally:
        ca.close()
        cb.close()
