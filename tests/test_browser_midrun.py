"""A real browser (Debian's Chromium, driven by Playwright), what a person does mid-run on the Chat page, with the
scripted provider (a gate file holds the model part-way through a step, so "while it writes" is an event, not a race).

Stop while the model writes: the step keeps its thought so far, marked as stopped, and the run is in History; a run
stopped before the model wrote anything is not. Step mode: text typed in the chat box while the run waits is offered as
the step's observation (or its action, or a new question) and used as the observation; Pause here while the model
writes leaves the run paused at that step, and Run takes it to its answer. Screenshots go to docs/screenshots/
(docs/chat.md)."""

from __future__ import annotations

import re

import pytest
from browser_helpers import WAIT_MS, ask, chromium, nav, needs_chromium, open_page, settled, shot, streamlit
from playwright.sync_api import expect

from react_core.history import open_history

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.timeout(600)]

MULTIPLY = "Thought 1: I need to multiply six by seven, and then check the result.\nAction 1: Calculator[6 * 7]"
SEARCH = "Thought 1: I need to search Scott Derrickson first.\nAction 1: Search[Scott Derickson film]"
ED_WOOD = "Thought 2: He is American. Now Ed Wood.\nAction 2: Search[Ed Wood]"
BOTH = "Thought 3: Both are American.\nAction 3: Finish[American]"
LOOK_UP = "Thought 1: I should look up Ed Wood, the director of Plan 9.\nAction 1: Search[Ed Wood]"
AMERICAN = "Thought 2: He was American.\nAction 2: Finish[American]"
OBSERVED = "Scott Derrickson (born July 16, 1966) is an American director."


def _run_button(page):
    """The paused step's Run, once it is the only one: a rerun that redraws the conversation may show the panel it
    replaces for a moment (a strict locator then finds two)."""
    run = page.get_by_role("button", name="Run", exact=True)
    expect(run).to_have_count(1, timeout=WAIT_MS)
    return run


def _store(server):
    return open_history(url="", path=server["home"] / "history.sqlite")


def _failed(page, server, name: str) -> None:
    page.screenshot(path=str(server["home"] / f"{name}-failed.png"))  # what the page showed, for a person
    (server["home"] / f"{name}-failed.txt").write_text(page.inner_text("body"))


def _shot_from(element, name: str) -> None:
    """A screenshot with ``element`` at the top of the view (the chat keeps its view at the bottom)."""
    element.page.add_style_tag(content="[data-testid='stHeader'] {display: none}")  # it would cover the top
    element.evaluate("el => el.scrollIntoView({block: 'start'})")
    shot(element.page, name)


def test_stop_keeps_the_step_being_written_and_an_empty_run_is_not_saved(tmp_path):
    gate, never = tmp_path / "gate", tmp_path / "never-opened"
    script = [
        {"text": MULTIPLY, "gate": str(gate), "gate_after": 11},  # written as far as "and then", then held
        {"text": "Thought 1: Add them.\nAction 1: Calculator[2 + 2]", "gate": str(never)},  # never writes a word
    ]
    with streamlit(tmp_path, script) as server, chromium() as browser:
        context, page = open_page(browser, server["url"], height=1000)
        try:
            ask(page, "What is 6 * 7?")
            page.get_by_text("I need to multiply six by seven, and").wait_for()  # the thought streams in
            page.get_by_role("button", name="Pause here").wait_for()  # offered beside Stop
            shot(page, "chat-stop-or-pause.png")
            page.get_by_role("button", name="Stop").click()
            page.get_by_text(re.compile(r"^Stopped by you · 1 step · .* tokens$")).wait_for()
            page.get_by_text("Step 1 · (stopped while writing)").wait_for()
            page.get_by_text("Stopped by you while the model was writing this step", exact=False).wait_for()
            page.get_by_text("I need to multiply six by seven, and then", exact=True).wait_for()  # its thought, kept
            page.get_by_role("link", name="Saved to History as run #1").wait_for()
            shot(page, "chat-stopped-step.png")

            ask(page, "What is 2 + 2?")
            page.get_by_text("Thinking… step 1 of").wait_for()
            page.get_by_role("button", name="Stop").click()
            page.get_by_text(re.compile(r"^Stopped by you · 0 steps")).wait_for()
            settled(page)
            assert page.get_by_role("link", name=re.compile("Saved to History")).count() == 1  # the first run's only

            nav(page, "History")
            page.get_by_text("What is 6 * 7?").first.wait_for()
            assert page.get_by_text("What is 2 + 2?").count() == 0  # History is not cluttered with an empty run
            [record] = _store(server).list()
            step = _store(server).get(record.id).trace.steps[0]
            assert record.stop_reason == "cancelled" and step.stopped and step.thought.startswith("I need to multiply")
        except Exception:
            _failed(page, server, "stop")
            raise
        finally:
            context.close()


def test_the_chat_box_while_a_run_waits_and_pause_here(tmp_path):
    gate = tmp_path / "gate"
    held = {"text": LOOK_UP, "gate": str(gate), "gate_after": 7}  # written as far as "look up Ed", then held
    with streamlit(tmp_path, [SEARCH, ED_WOOD, BOTH, held, AMERICAN]) as server, chromium() as browser:
        context, page = open_page(browser, server["url"], height=1100)
        try:
            page.get_by_text("Step mode", exact=True).click()
            page.get_by_label("Pause").wait_for()  # the breakpoints are shown: step mode is on
            settled(page)
            ask(page, "What nationality do Scott Derrickson and Ed Wood share?")
            page.get_by_text(re.compile(r"^Paused: waiting for you · 1 step")).wait_for()
            page.get_by_placeholder(re.compile(r"^The run above is paused at step 1")).wait_for()  # the box says so

            # Typed while it waits: nothing starts; the text is offered for the paused step.
            ask(page, OBSERVED)
            offer = page.get_by_test_id("stVerticalBlock").filter(has_text="Use what you typed:").last
            offer.get_by_role("button", name="As the observation").wait_for()
            assert page.get_by_text("Thinking…").count() == 0
            shot(page, "chat-paused-box.png")
            offer.get_by_role("button", name="As the observation").click()
            page.get_by_text(re.compile(r"^Paused: waiting for you · 2 steps")).wait_for()
            trace = _store(server).get(1).trace
            assert trace.steps[0].observation.text == OBSERVED and trace.steps[0].observation.written_by

            # Step mode off, Run: the run goes to its answer.
            page.get_by_text("Step mode", exact=True).click()
            settled(page)
            _run_button(page).click()
            page.get_by_text(re.compile(r"^Answered · 3 steps")).wait_for()

            # Pause here while the model writes: the run waits at that step, before its Search.
            ask(page, "Who was Ed Wood?")
            page.get_by_text("I should look up Ed").wait_for()
            page.get_by_role("button", name="Pause here").click()
            page.get_by_text("Pausing once step 1 is written…").wait_for()
            gate.touch()  # the model writes the rest of its step
            page.get_by_text("Paused where you asked: waiting for you.").wait_for()
            page.get_by_text("search('Ed Wood')").wait_for()  # the call that would run, not run yet
            _shot_from(page.get_by_text(re.compile(r"^Paused: waiting for you · 1 step")).last, "chat-pause-here.png")
            _run_button(page).click()
            page.get_by_text(re.compile(r"^Answered · 2 steps")).wait_for()
            assert [r.stop_reason for r in _store(server).list()] == ["finished", "finished"]
        except Exception:
            _failed(page, server, "box")
            raise
        finally:
            context.close()
