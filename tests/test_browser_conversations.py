"""A real browser (Debian's Chromium, driven by Playwright) on the conversation's address, past conversations and forks.

The journey: Chat → Settings → Chat, ask, reload: the conversation is still there (the sidebar's page change drops the
address's query, so every page puts ``?chat=`` back). New chat; History's Conversations tab reopens the first
conversation and a follow-up continues it. With the MRKL dialect selected, a fork of the paper run from History stays
paper, in a conversation of its own, and survives a reload too. Screenshots go to docs/screenshots/.
"""

from __future__ import annotations

import re

import pytest
from browser_helpers import WAIT_MS, ask, chromium, nav, needs_chromium, open_page, scroll_to, settled, shot, streamlit

pytestmark = [pytest.mark.browser, needs_chromium]

Q1 = "What is 6 * 7?"
FOLLOW_UP = "Can you check that again?"
# The scripted model replays from its start in each browser session (a reload is a new one): the first question and
# the follow-up (asked after a reload) both take the first two outputs; the fork, in that second session, the third.
SCRIPT = [
    "Thought 1: I need to multiply 6 by 7.\nAction 1: Calculator[6 * 7]",
    "Thought 2: 6 * 7 is 42.\nAction 2: Finish[42]",
    "Thought 2: so, spelled out, the answer is forty-two.\nAction 2: Finish[forty-two]",
]
ANSWERED = re.compile(r"^Answered · \d+ steps?")


def _answered(page, count: int) -> None:
    """Wait until ``count`` turns of the page show their outcome."""
    page.get_by_text(ANSWERED).nth(count - 1).wait_for()


def _chat_url(page) -> str:
    match = re.search(r"[?&]chat=([0-9a-f]{32})", page.url)
    assert match, page.url
    return match.group(1)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with streamlit(tmp_path_factory.mktemp("conversations"), SCRIPT) as server, chromium() as browser:
        yield server, browser


def test_reload_reopen_continue_and_fork_in_the_runs_own_dialect(served):
    from playwright.sync_api import expect  # as browser_helpers does: only where a browser test runs

    expect.set_options(timeout=WAIT_MS)
    server, browser = served
    context, page = open_page(browser, server["url"], height=1300)
    try:
        # Chat -> Settings -> Chat -> ask -> reload: still the same conversation.
        nav(page, "Settings")
        nav(page, "Chat")
        ask(page, Q1)
        _answered(page, 1)
        first = _chat_url(page)
        page.reload()
        page.get_by_text(Q1, exact=True).wait_for()
        _answered(page, 1)
        assert _chat_url(page) == first
        nav(page, "Settings")
        assert _chat_url(page) == first  # every page keeps the conversation in its address

        # A new chat; History's Conversations tab reopens the first one, and a follow-up continues it.
        page.get_by_role("button", name="New chat").click()
        nav(page, "Chat")
        page.get_by_text("Ask a question.", exact=False).wait_for()
        assert _chat_url(page) != first
        nav(page, "History")
        page.get_by_role("tab", name="Conversations").click()
        chats = page.get_by_role("tabpanel", name="Conversations")
        chats.get_by_text(Q1, exact=True).wait_for()
        chats.get_by_text("1 turn", exact=True).wait_for()
        shot(page, "history-conversations.png", top=True)
        chats.get_by_role("button", name="Open").first.click()
        page.get_by_role("heading", name="Chat").wait_for()
        page.get_by_text(Q1, exact=True).wait_for()
        assert _chat_url(page) == first
        ask(page, FOLLOW_UP)
        _answered(page, 2)
        page.get_by_text("Saved to History as run #2").wait_for()
        shot(page, "conversation-continued.png", top=True)

        # With MRKL selected, a fork of the paper run stays paper, in its own conversation.
        nav(page, "Settings")
        page.get_by_test_id("stSelectbox").filter(has_text="Preset (dialect)").click()
        page.get_by_role("option", name=re.compile(r"^mrkl — ")).click()
        page.get_by_test_id("stSidebar").get_by_text("LangChain MRKL", exact=False).wait_for()
        nav(page, "History")
        runs = page.get_by_role("tabpanel", name="Runs")
        runs.locator(".st-key-open-1 button").click()  # run #1, by its button's key (the version filter has an Open)
        page.get_by_role("heading", name=re.compile(r"^Run #1")).wait_for()
        page.get_by_text("this run's own settings", exact=False).wait_for()
        page.get_by_role("cell", name="ReAct paper (Search[entity])").wait_for()
        page.get_by_test_id("stSelectbox").filter(has_text="Step").click()
        page.get_by_role("option", name="Step 2 · Finish[42]").click()
        thought = page.get_by_role("textbox", name="New thought")
        expect(thought).to_have_value("6 * 7 is 42.")  # step 2's thought: the form has redrawn for it
        thought.fill("so, spelled out, the answer is")
        thought.press("Control+Enter")
        expect(thought).to_have_value("so, spelled out, the answer is")
        scroll_to(page.get_by_role("button", name="Re-run from step 2"))
        shot(page, "fork-form.png")
        mine = page.get_by_text("Use my current settings instead")
        mine.click()  # MRKL is selected: going on from paper steps in it is refused, and the form says why
        page.get_by_text("would retitle them, so it is refused", exact=False).wait_for()
        expect(page.get_by_role("button", name="Re-run from step 2")).to_be_disabled()
        scroll_to(page.get_by_role("button", name="Re-run from step 2"))
        shot(page, "fork-current-refused.png")
        mine.click()
        expect(page.get_by_role("button", name="Re-run from step 2")).to_be_enabled()
        page.get_by_role("button", name="Re-run from step 2").click()

        page.get_by_role("heading", name="Chat").wait_for()
        page.get_by_text("Fork of run #1 from step 2 (thought edited)").wait_for()
        _answered(page, 1)
        page.get_by_text("Step 1 · Calculator[6 * 7]").wait_for()  # its earlier step, still in its own dialect
        page.get_by_text("Step 2 · Finish[forty-two]").wait_for()
        assert page.get_by_text(FOLLOW_UP).count() == 0  # not appended below the conversation that was open
        fork = _chat_url(page)
        assert fork != first
        shot(page, "fork-chat.png", top=True)
        page.reload()
        page.get_by_text("Step 2 · Finish[forty-two]").wait_for()
        page.get_by_text("Fork of run #1 from step 2 (thought edited)").wait_for()
        assert _chat_url(page) == fork
    finally:
        context.close()


# Records, from the page's very first node, whether the restoring notice and the empty chat's examples ever showed.
WATCH = """window.__shown = [];
new MutationObserver(() => {
  const text = document.body ? document.body.textContent : '';
  for (const [name, words] of [['restoring', 'Restoring your conversation'], ['empty chat', 'Ask a question.']]) {
    if (text.includes(words) && !window.__shown.includes(name)) window.__shown.push(name);
  }
}).observe(document, {subtree: true, childList: true, characterData: true});"""


def test_a_reload_says_it_restores_the_conversation_and_a_restarted_server_keeps_it(served, tmp_path):
    _, browser = served  # its browser (one Playwright per process), with servers of this test's own
    with streamlit(tmp_path, SCRIPT) as server:
        context, page = open_page(browser, server["url"])
        try:
            ask(page, Q1)
            _answered(page, 1)
            address = page.url
            page.add_init_script(WATCH)
            page.reload()
            _answered(page, 1)
            # Until it is drawn the page never shows an empty chat in its place. (Whether the restoring notice reaches
            # the screen depends on how long the drawing takes, here a moment: tests/test_app_conversations.py holds
            # the reading to show that the page says so meanwhile.)
            assert "empty chat" not in page.evaluate("window.__shown")
            # The notice is emptied once the run that draws the conversation ends, a moment after the answer shows.
            settled(page)
            assert page.get_by_text("Restoring your conversation").count() == 0
        finally:
            context.close()
    # A fresh server's first request starts again from app.py: the address's ?chat= goes with it.
    with streamlit(tmp_path, SCRIPT) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(WATCH)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        try:
            page.goto(server["url"] + "/?" + address.split("?", 1)[1])
            page.get_by_text(Q1, exact=True).wait_for()
            _answered(page, 1)
            assert "empty chat" not in page.evaluate("window.__shown")
            assert _chat_url(page) in address
        finally:
            context.close()
