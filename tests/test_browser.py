"""A real browser (Debian's Chromium, driven by Playwright) against ``streamlit run app.py`` on 127.0.0.1.

The journey: ask, watch the live status, open a step panel, check a source link, change temperature and the
prompt in Settings, ask again, see both runs in History, export them. Screenshots go to docs/screenshots/ for
the README and docs/. A second test runs two browser sessions at once. Needs /usr/bin/chromium (``apt-get install -y
chromium``) and the playwright package; installs nothing itself (never ``playwright install``).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from app_helpers import NATIONALITY_Q, NATIONALITY_SCRIPT
from browser_helpers import (
    WAIT_MS,
    ask,
    chromium,
    nav,
    needs_chromium,
    open_page,
    scroll_to,
    set_max_calls,
    set_slider,
    shot,
    streamlit,
)

LIVE = re.compile(r"Getting ready…|Thinking… step \d+ of \d+")
# Our own fixtures, named so that they never meet pytest-playwright's (``browser``, ``page``) if it is installed.
GATE = "gate"  # the first step of a conversation waits until the test creates this file in the server's folder


def _script(home: Path) -> list:
    """Each session replays this from its start. Its first step waits at a gate, so the live status can be seen
    for as long as the test wants (each opening of the gate lets one step through)."""
    first, *rest = NATIONALITY_SCRIPT
    return [
        {"text": first, "gate": str(home / GATE)},
        *rest,
        "Thought 1: I can compute this.\nAction 1: Calculator[17 * 23 + 4]",
        "Thought 2: The result is 395.\nAction 2: Finish[395]",
    ]


def _open_gate(server: dict) -> None:
    """Let one waiting step through, and wait until it has gone through."""
    gate = server["home"] / GATE
    gate.touch()
    deadline = time.monotonic() + WAIT_MS / 1000
    while gate.exists():
        assert time.monotonic() < deadline, "no step took the gate"
        time.sleep(0.02)


pytestmark = [pytest.mark.browser, needs_chromium]


def _streamlit(home: Path):
    return streamlit(home, _script(home))


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory):
    with _streamlit(tmp_path_factory.mktemp("browser")) as server:
        yield server


@pytest.fixture(scope="module")
def chromium_browser():
    with chromium() as browser:
        yield browser


def test_journey_ask_inspect_change_settings_ask_again_history_export(app_server, chromium_browser):
    context, page = open_page(chromium_browser, app_server["url"], height=1500)  # tall: whole turns in the shots
    try:
        ask(page, NATIONALITY_Q)
        page.get_by_text(LIVE).first.wait_for()  # the live status while it runs
        _open_gate(app_server)
        page.get_by_text("Answered · 4 steps", exact=False).wait_for()

        panel = page.get_by_test_id("stExpander").filter(has_text="Step 2 · Search[Scott Derrickson]")
        panel.get_by_text("Step 2 · Search[Scott Derrickson]").click()
        panel.get_by_text("Scott Derrickson (born July 16, 1966)", exact=False).wait_for()
        link = panel.get_by_role("link", name="Scott Derrickson")
        assert link.get_attribute("href") == "https://en.wikipedia.org/wiki/Scott_Derrickson"
        assert link.get_attribute("target") == "_blank"
        page.get_by_text("Occurs in step 2's Search result").wait_for()
        shot(page, "chat.png", top=True)

        # The model call behind step 2: what was new in it, and the request as sent, found by the browser's find.
        panel.get_by_text("What is new in this call").wait_for()
        panel.get_by_text("Observation 1: Could not find [Scott Derickson film]", exact=False).first.wait_for()
        panel.get_by_text("Request as the API received it", exact=False).click()
        panel.get_by_text('"$ref": "system"', exact=False).first.wait_for()
        scroll_to(panel.get_by_text("Model call"))
        shot(page, "model-call.png")

        set_slider(page, "Temperature", 14, "0.70")  # 0.00 -> 0.70 in steps of 0.05
        instructions = page.get_by_role("textbox", name="Instructions")
        instructions.fill("Answer briefly.\n" + instructions.input_value())
        instructions.press("Control+Enter")
        page.get_by_text("Your edited prompt is in use.").wait_for()
        shot(page, "settings.png", top=True)

        nav(page, "Chat")
        ask(page, "What is 17 * 23 + 4?")
        page.get_by_text("Answered · 2 steps", exact=False).wait_for()
        page.get_by_text("Step 1 · Calculator[17 * 23 + 4]").wait_for()

        nav(page, "History")
        runs = page.get_by_role("tabpanel", name="Runs")
        runs.get_by_text(NATIONALITY_Q).wait_for()
        runs.get_by_text("What is 17 * 23 + 4?").wait_for()
        shot(page, "history.png")

        # The calculator run, #2, by its button's key (the prompt-version filter's dropdown is a button named Open too).
        runs.locator(".st-key-open-2 button").click()
        with page.expect_download() as download:
            page.get_by_role("button", name="Export JSON").click()
        exported = json.loads(Path(download.value.path()).read_text())
        assert exported["final_answer"] == "395"
        assert exported["settings"]["temperature"] == 0.7
        assert exported["settings"]["preset"] == "paper (edited)"
        with page.expect_download() as download:
            page.get_by_role("button", name="Export Markdown").click()
        markdown = Path(download.value.path()).read_text()
        assert markdown.startswith("# What is 17 \\* 23 + 4?") and "Calculator[17 * 23 + 4]" in markdown

        page.get_by_role("tab", name="Compare").click()
        page.get_by_text("temperature", exact=True).first.wait_for()  # the settings that differ
        shot(page, "compare.png")
    finally:
        context.close()


def test_two_browser_sessions_at_once_keep_their_own_conversation_and_settings(app_server, chromium_browser):
    (ca, alice), (cb, bob) = (
        open_page(chromium_browser, app_server["url"]),
        open_page(chromium_browser, app_server["url"]),
    )
    try:
        set_max_calls(alice, 7)
        nav(alice, "Chat")

        ask(alice, "Alice: " + NATIONALITY_Q)
        ask(bob, "Bob: " + NATIONALITY_Q)
        alice.get_by_text("of 7", exact=False).first.wait_for()  # Alice's budget …
        bob.get_by_text("of 8", exact=False).first.wait_for()  # … is not Bob's
        _open_gate(app_server)
        _open_gate(app_server)
        alice.get_by_text("Answered · 4 steps", exact=False).wait_for()
        bob.get_by_text("Answered · 4 steps", exact=False).wait_for()
        assert alice.get_by_text("Bob: ").count() == 0 and bob.get_by_text("Alice: ").count() == 0
        assert alice.get_by_test_id("stChatMessage").count() == 2 == bob.get_by_test_id("stChatMessage").count()
    finally:
        ca.close()
        cb.close()


def test_stop_cancels_a_running_turn_in_the_browser(app_server, chromium_browser):
    context, page = open_page(chromium_browser, app_server["url"])
    try:
        ask(page, "Stop me: " + NATIONALITY_Q)
        page.get_by_text(LIVE).first.wait_for()
        # The app's Stop, not Streamlit's own, which its header shows while any script runs.
        stop = page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop")
        stop.click()
        # Stopped before the model wrote a word: the chat says so, and History gets no empty run.
        page.get_by_text(re.compile(r"^Stopped by you · 0 steps")).wait_for()
        stop.wait_for(state="detached")  # the turn is over: the page redraws without it
        assert page.get_by_text("Saved to History as run #", exact=False).count() == 0
    finally:
        context.close()


def test_a_fresh_servers_first_request_may_be_a_page_url(tmp_path, chromium_browser):
    # Before app.py has run once, Streamlit still reads pages/ as a legacy multipage folder; a page opened straight
    # by its URL must still get the app's session and navigation.
    with _streamlit(tmp_path) as server:
        context, page = open_page(chromium_browser, server["url"] + "/history")
        try:
            nav = page.get_by_test_id("stSidebarNav")
            for title in ("Chat", "Settings", "History", "Evaluate"):
                nav.get_by_text(title, exact=True).wait_for()
            assert nav.get_by_text("app", exact=True).count() == 0  # not the legacy folder's own navigation
            assert page.get_by_test_id("stException").count() == 0
        finally:
            context.close()
        context, page = open_page(chromium_browser, server["url"], height=700)
        try:
            page.goto(server["url"] + "/history")
            page.get_by_role("heading", name="History").wait_for()
            assert page.get_by_test_id("stException").count() == 0
        finally:
            context.close()


def test_the_evaluate_page_runs_a_strategy_and_shows_its_results(app_server, chromium_browser):
    context, page = open_page(chromium_browser, app_server["url"], height=1500)
    try:
        nav(page, "Evaluate")
        page.get_by_text("How they run").wait_for()
        questions = page.get_by_role("spinbutton", name="Questions", exact=True)  # not "Questions at once"
        questions.fill("2")
        questions.press("Enter")
        strategies = page.get_by_test_id("stMultiSelect").filter(has_text="Strategies")
        for chip in ("ReAct", "CoT"):  # leave Standard alone: one answer per question, quick
            strategies.get_by_label(f"Remove {chip}", exact=True).click()
        strategies.click()
        page.get_by_role("option", name="Standard", exact=True).click()
        page.keyboard.press("Escape")
        page.get_by_role("button", name="Run evaluation").click()
        progress = page.get_by_text("of 2 questions", exact=False)
        progress.wait_for()  # the progress label while it runs …
        _open_gate(app_server)  # (the script's first output waits at the gate in every session)
        progress.wait_for(state="detached")  # … gone once it is done
        page.get_by_role("heading", name="Results").wait_for()
        page.get_by_role("heading", name="Past evaluations").wait_for()
        shot(page, "evaluate.png", top=True)
    finally:
        context.close()
