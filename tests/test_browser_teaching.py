"""The teaching bench in a real browser on the on-device model, with the offline pack as knowledge: Step mode pauses
before a Search, the person edits it and runs it, regenerates the next step and picks the second alternative, and the
run goes on to its end with every decision under its step; the Arena's Figure 1 runs four columns to their footers on
the paper's budget (whatever Settings say), scored against the gold answer the page fills in; a run is presented in quiz
mode, its Thought and Action hidden until Reveal. Screenshots go to docs/screenshots/.

The chat's runs are kept short (Max model calls in Settings) and every wait is on page text."""

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
    scroll_to,
    set_max_calls,
    settled,
    shot,
    streamlit,
)
from playwright.sync_api import expect

from react_core.history import open_history
from react_core.knowledge.pack import PackSource

# The on-device model takes seconds a call on an idle machine and minutes when other work shares its two cores: the
# waits (and the tests' timeouts) allow for the second, and nothing here measures speed.
pytestmark = [pytest.mark.browser, pytest.mark.model, needs_chromium, pytest.mark.timeout(1200)]
ENDED = re.compile(r"^(Answered|No answer: [^·]+|Failed|Stopped by you) · \d+ steps? ·")
MODEL_WAIT = 10 * WAIT_MS
ARENA_WAIT = 30 * WAIT_MS  # Figure 1: up to 16 model calls (Act and ReAct 7 each), the columns taking turns


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
        # The focused box grows a line for its input while its four chips fill the row: a click on the examples below
        # blurs it first, the page moves up under the pointer and the click misses. A person clicks away first too.
        page.get_by_role("heading", name="Chat").click()

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
    scroll_to(element)
    painted(element.page)
    element.screenshot(path=str(SHOTS / name))


def shot_at(element, name: str) -> None:
    """A screenshot with ``element`` scrolled to the top of the view."""
    element.evaluate("el => el.scrollIntoView({block: 'start'})")
    shot(element.page, name)


@pytest.mark.timeout(3000)
def test_arena_figure_one_on_device_then_present_in_quiz_mode(local_app):
    server, browser = local_app
    context, page = open_page(browser, server["url"], height=1400)
    try:
        set_max_calls(page, 1)  # the chat's budget: one call. Figure 1 runs on the paper's all the same
        nav(page, "Chat")
        question = page.get_by_role("button").filter(has_text="?").first.inner_text().splitlines()[-1].strip()
        expected = PackSource(offline_pack()).question_for(question)

        nav(page, "Arena")
        page.get_by_role("button", name=re.compile(r"Figure 1$")).click()
        page.get_by_text("Column 4", exact=True).wait_for()
        for n in (2, 3):  # Act's and ReAct's budget: the paper's 7 model calls, not the chat's 1
            expect(page.locator(f".st-key-arena-max_calls-{n} input")).to_have_value("7", timeout=WAIT_MS)
        page.get_by_role("textbox", name="Question").fill(question)
        page.get_by_role("textbox", name="Question").press("Tab")
        # The question is one of HotpotQA's: its gold answer comes with it, nobody types it.
        gold = page.get_by_role("textbox", name="Gold answer (optional)")
        expect(gold).to_have_value(expected.answer, timeout=WAIT_MS)
        settled(page)
        page.get_by_role("button", name=re.compile(r"Run$")).click()
        page.locator(".st-key-arena-clear button").wait_for(timeout=ARENA_WAIT)  # every column has ended
        footers = page.get_by_text(re.compile(r"^Saved to History as run #\d+"))
        assert footers.count() == 4, page.locator("section.main, [data-testid='stMain']").first.inner_text()[-3000:]
        assert page.get_by_text(re.compile(r"EM [01] · F1 \d\.\d\d · \d+ steps? · ")).count() == 4
        for label, budget in (
            ("1. Standard", "one model call"),
            ("2. CoT", "one model call"),
            ("3. Act", "at most 7 model calls"),
            ("4. ReAct", "at most 7 model calls"),
        ):
            page.get_by_text(re.compile(rf"^{re.escape(label)} · .* · {budget}$")).first.wait_for()
        shot_at(page.get_by_role("heading", name="Arena", exact=True), "arena-figure-1.png")

        # Present a run that thought aloud (Standard and Act write no Thought to hide), in quiz mode.
        history = open_history(url="", path=server["home"] / "history.sqlite")
        traces = {i: history.get(i).trace for i in range(1, 5)}
        # The second step, where the room has an observation to reason from (the first if the run took one).
        shown = {i: t.steps[min(2, len(t.steps)) - 1] for i, t in traces.items() if t.steps}
        run_id = next(i for i, step in shown.items() if step.thought)
        trace, step = traces[run_id], shown[run_id]
        nav(page, "History")
        runs = page.get_by_role("tabpanel", name="Runs")
        runs.locator(f".st-key-open-{run_id} button").click()
        page.get_by_role("heading", name=re.compile(rf"^Run #{run_id}")).wait_for()
        page.locator(".st-key-present-run button").first.click()  # a rerun may briefly draw it twice
        page.get_by_text(re.compile(r"^Slide 1 of \d+")).wait_for()
        page.get_by_text("Quiz", exact=True).click()
        position = step.index
        for n in range(position):
            page.locator(".st-key-present-next button").click()
            page.get_by_text(re.compile(rf"^Slide {n + 2} of ")).wait_for()
        page.get_by_text(f"Step {position} of {len(trace.steps)}").wait_for()
        slide = page.locator(".st-key-present-slide")
        slide.get_by_text("What will it think and do next?", exact=False).wait_for()
        assert "Thought" not in slide.inner_text().split("\n") and step.thought not in slide.inner_text()
        shot(page, "present-quiz.png", top=True)
        page.locator(".st-key-present-reveal button").click()
        slide.get_by_text("Thought", exact=True).wait_for()
        assert step.thought in slide.inner_text()
        assert "What will it think and do next?" not in slide.inner_text()
    finally:
        page.screenshot(path=str(server["home"] / "arena-present-last.png"))  # what the page showed, should it fail
        context.close()
