"""The teaching bench in a real browser on the on-device model, with the offline pack as knowledge: Step mode pauses
before a Search, the person edits it and runs it, regenerates the next step and picks the second alternative, and the
run goes on to its end with every decision under its step; the Arena's Figure 1 runs four columns to their footers; a
run is presented in quiz mode, its Thought and Action hidden until Reveal. Screenshots go to docs/screenshots/.

The runs are kept short (Max model calls in Settings) and every wait is on page text."""

from __future__ import annotations

import re

import pytest
from app_helpers import offline_pack
from browser_helpers import (
    SHOTS,
    WAIT_MS,
    chromium,
    nav,
    needs_chromium,
    open_page,
    painted,
    set_max_calls,
    shot,
    streamlit,
)

from react_core.history import open_history
from react_core.knowledge.pack import PackSource

# The on-device model takes seconds a call on an idle machine and minutes when other work shares its two cores: the
# waits (and the tests' timeouts) allow for the second, and nothing here measures speed.
pytestmark = [pytest.mark.browser, pytest.mark.model, needs_chromium, pytest.mark.timeout(1200)]
ENDED = re.compile(r"^(Answered|No answer: [^·]+|Failed|Stopped by you) · \d+ steps? ·")
MODEL_WAIT = 10 * WAIT_MS


@pytest.fixture(scope="module")
def local_app(tmp_path_factory):
    home = tmp_path_factory.mktemp("teaching")
    # These journeys were written against the base model's replies (the fine-tuned default has its own journey in
    # test_browser_first_minutes), so they run it without the adapter.
    with streamlit(home, [], env={"REACT_PROVIDER": "local", "REACT_ADAPTER": "none"}) as server, chromium() as browser:
        yield server, browser


def paused(page, steps: int):
    label = re.compile(rf"^Paused: waiting for you · {steps} steps?")
    page.get_by_text(label).first.wait_for(timeout=MODEL_WAIT)


def panel(page, n: int):
    """Step n's panel: the <details> whose own summary names it (the turn's status box holds the panels too)."""
    return page.locator(f"xpath=//details[summary[contains(., 'Step {n} · ')]]").first


def opened(page, n: int):
    found = panel(page, n)
    if found.get_attribute("open") is None:
        found.locator("xpath=./summary").click()
    return found


def test_step_mode_pause_edit_regenerate_pick_and_finish(local_app):
    server, browser = local_app
    context, page = open_page(browser, server["url"], height=1400)
    try:
        set_max_calls(page, 4)
        nav(page, "Chat")
        page.get_by_text("Step mode", exact=True).click()
        # Keep "before every tool call" and "before Finish": the second pause is then the model's next step
        # whether it searches again or answers.
        breakpoints = page.get_by_test_id("stMultiSelect").filter(has_text="Pause")
        breakpoints.get_by_role("button", name="Remove on an unreadable step").click()
        breakpoints.get_by_role("button", name="Remove on an unreadable step").wait_for(state="detached")

        examples = page.get_by_role("button").filter(has_text="?")
        question = examples.first.inner_text().splitlines()[-1].strip()
        expected = PackSource(offline_pack()).question_for(question)
        assert expected is not None, question
        examples.first.click()
        paused(page, 1)
        step1 = panel(page, 1)
        step1.get_by_text("The tool call that would run").wait_for()
        shot_of(step1, "step-mode-pause.png")

        # Edit the Search to one of the pages that support the answer (another one if the model chose that one).
        step1.get_by_role("tab", name="Edit action").click()
        box = step1.get_by_role("textbox", name="Action")
        before = box.input_value()
        target = next(t for t in expected.supporting_titles if f"Search[{t}]" != before)
        box.fill(f"Search[{target}]")
        step1.get_by_role("button", name="Run the edited action").click()
        paused(page, 2)
        step1 = panel(page, 1)
        assert f"Step 1 · Search[{target}]" in step1.inner_text()
        opened(page, 1).get_by_text("Decided by person (before every tool call): edit", exact=False).wait_for()

        # Regenerate the second step: two alternatives at 0.7, side by side; go on with the second.
        step2 = panel(page, 2)
        step2.get_by_role("tab", name="Regenerate").click()
        k = step2.get_by_role("spinbutton", name="Alternatives")
        k.fill("2")
        k.press("Tab")
        step2.get_by_role("button", name="Regenerate").last.click()
        page.get_by_text("Alternatives — pick the one to go on with").wait_for(timeout=MODEL_WAIT)
        page.get_by_text("Alternative 2 · temperature").wait_for()
        alternatives = page.get_by_test_id("stHorizontalBlock").filter(has_text="Alternative 2 · temperature").last
        alternatives.get_by_role("button", name=re.compile(r"Pick 2$")).wait_for()
        shot_of(alternatives, "step-mode-alternatives.png")
        panel(page, 2).get_by_role("button", name=re.compile(r"Pick 2$")).click()

        # Then step mode off and Run: the run goes on to its end without pausing.
        done = page.get_by_text(ENDED).or_(page.get_by_text(re.compile(r"^Paused: waiting for you · [3-9] steps?")))
        done.first.wait_for(timeout=MODEL_WAIT)
        if page.get_by_text(ENDED).count() == 0:
            page.get_by_text("Step mode", exact=True).click()
            page.get_by_role("button", name=re.compile(r"Run$")).first.click()
        page.get_by_text(ENDED).first.wait_for(timeout=MODEL_WAIT)
        page.get_by_text("Saved to History as run #").wait_for()

        store = open_history(url="", path=server["home"] / "history.sqlite")
        trace = store.get(store.list()[0].id).trace
        edit = trace.steps[0].interventions[0]
        assert (edit.kind, edit.at, edit.after) == ("edit", "tool", f"Search[{target}]")
        pick = next(n for n in trace.steps[1].interventions if n.kind == "pick")
        assert pick.picked == 2 and len(pick.alternatives) == 2
        # Every decision shows under its step in the finished run's panels.
        opened(page, 1).get_by_text("Decided by person (before every tool call): edit", exact=False).wait_for()
        opened(page, 2).get_by_text("Alternative 2 (picked) at temperature 0.7", exact=False).wait_for()
        opened(page, 2).get_by_text("Alternative 1 (not taken) at temperature 0.7", exact=False).wait_for()
        assert trace.stop_reason != "paused"
    finally:
        page.screenshot(path=str(server["home"] / "step-mode-last.png"))  # what the page showed, should it fail
        context.close()


def shot_of(element, name: str) -> None:
    """A picture of one element (the chat keeps its view at the bottom, so a scrolled page shot would not show it)."""
    element.page.add_style_tag(content="[data-testid='stHeader'] {display: none}")  # it would cover the top
    element.scroll_into_view_if_needed()
    painted(element.page)
    element.screenshot(path=str(SHOTS / name))


def shot_at(element, name: str) -> None:
    """A screenshot with ``element`` scrolled to the top of the view."""
    element.evaluate("el => el.scrollIntoView({block: 'start'})")
    shot(element.page, name)


def test_arena_figure_one_on_device_then_present_in_quiz_mode(local_app):
    server, browser = local_app
    context, page = open_page(browser, server["url"], height=1400)
    try:
        set_max_calls(page, 1)  # one call a column: Act and ReAct take one step and stop at the budget
        nav(page, "Chat")
        question = page.get_by_role("button").filter(has_text="?").first.inner_text().splitlines()[-1].strip()
        expected = PackSource(offline_pack()).question_for(question)

        nav(page, "Arena")
        page.get_by_role("button", name=re.compile(r"Figure 1$")).click()
        page.get_by_text("Column 4", exact=True).wait_for()
        page.get_by_role("textbox", name="Question").fill(question)
        page.get_by_role("textbox", name="Gold answer (optional)").fill(expected.answer)
        page.get_by_role("textbox", name="Gold answer (optional)").press("Enter")
        page.get_by_role("button", name=re.compile(r"Run$")).click()
        page.locator(".st-key-arena-clear button").wait_for(timeout=MODEL_WAIT)  # every column has ended
        footers = page.get_by_text(re.compile(r"^Saved to History as run #\d+"))
        assert footers.count() == 4, page.locator("section.main, [data-testid='stMain']").first.inner_text()[-3000:]
        assert page.get_by_text(re.compile(r"EM [01] · F1 \d\.\d\d · \d+ steps? · ")).count() == 4
        for label in ("1. Standard", "2. CoT", "3. Act", "4. ReAct"):
            page.get_by_text(label, exact=False).first.wait_for()
        shot_at(page.get_by_role("heading", name="Arena"), "arena-figure-1.png")

        # Present the first run in History, in quiz mode.
        nav(page, "History")
        runs = page.get_by_role("tabpanel", name="Runs")
        runs.locator(".st-key-open-1 button").click()
        page.get_by_role("heading", name=re.compile(r"^Run #1")).wait_for()
        page.locator(".st-key-present-run button").first.click()  # a rerun may briefly draw it twice
        page.get_by_text(re.compile(r"^Slide 1 of \d+")).wait_for()
        trace = open_history(url="", path=server["home"] / "history.sqlite").get(1).trace
        page.get_by_text("Quiz", exact=True).click()
        position = min(2, len(trace.steps))  # the second step, where the room has an observation to reason from
        for n in range(position):
            page.locator(".st-key-present-next button").click()
            page.get_by_text(re.compile(rf"^Slide {n + 2} of ")).wait_for()
        page.get_by_text(f"Step {position} of {len(trace.steps)}").wait_for()
        slide = page.locator(".st-key-present-slide")
        slide.get_by_text("What will it think and do next?", exact=False).wait_for()
        step = trace.steps[position - 1]
        assert "Thought" not in slide.inner_text().split("\n") and (step.thought or "") not in slide.inner_text()
        shot(page, "present-quiz.png", top=True)
        page.locator(".st-key-present-reveal button").click()
        slide.get_by_text("Thought", exact=True).wait_for()
        assert (step.thought or "(no thought)") in slide.inner_text()
        assert "What will it think and do next?" not in slide.inner_text()
    finally:
        page.screenshot(path=str(server["home"] / "arena-present-last.png"))  # what the page showed, should it fail
        context.close()
