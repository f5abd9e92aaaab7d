"""A real browser (Debian's Chromium) on a page whose run is live, Chat and Arena, with the scripted provider held by a
gate while the model writes: the page runs no endless animation. The browser redraws an endless animation (a running
spinner, a shimmer) at its frame rate for as long as the run lasts, on the cores the on-device model computes on:
st.status's spinner in the running turn's header made a watched turn slower (docs/benchmarks.md, chat page). What
shows that the run is live is its header's label, the step being written and Stop."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import ask, chromium, nav, needs_chromium, open_page, streamlit

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.timeout(600)]

HELD = "Thought 1: I need to multiply six by seven, and then check the result.\nAction 1: Calculator[6 * 7]"
# The endless animations running on the page: (its name, the test id of the element it moves or of its nearest
# ancestor that has one). A transition or a finite animation ends by itself.
ENDLESS = """() => document.getAnimations()
    .filter(a => a.playState === 'running' && a.effect.getComputedTiming().iterations === Infinity)
    .map(a => { let el = a.effect.target; while (el && !el.dataset?.testid) el = el.parentElement;
                return [a.animationName || a.constructor.name, el ? el.dataset.testid : '']; })"""


def endless_animations(page, looks: int = 12) -> set[tuple[str, str]]:
    """What runs endlessly, looked at every 0.25 s over three seconds: across the live fragment's redraws (0.3 s)."""
    found = set()
    for _ in range(looks):
        found |= {tuple(a) for a in page.evaluate(ENDLESS)}
        page.wait_for_timeout(250)
    return found


@contextlib.contextmanager
def held_page(tmp_path, then: str) -> Iterator[tuple[object, Path]]:
    """A page of an app whose scripted model writes ``HELD`` and waits at the gate (a file: touch it to let one call
    through), then answers ``then``."""
    gate = tmp_path / "gate"
    script = [{"text": HELD, "gate": str(gate), "gate_after": 11}, then]
    with streamlit(tmp_path, script) as server, chromium() as browser:
        context, page = open_page(browser, server["url"])
        try:
            yield page, gate
        finally:
            context.close()


def test_a_running_chat_turn_runs_no_endless_animation(tmp_path):
    with held_page(tmp_path, "Thought 2: Done.\nAction 2: Finish[42]") as (page, gate):
        ask(page, "What is 6 * 7?")
        page.get_by_text("I need to multiply six by seven, and").wait_for()  # the step being written
        page.get_by_text("Thinking… step 1 of").wait_for()  # the header says it runs
        assert endless_animations(page) == set()
        gate.touch()
        page.get_by_text("Saved to History").wait_for()


def test_a_running_arena_runs_no_endless_animation(tmp_path):
    with held_page(tmp_path, "Thought 1: Six sevens.\nAction 1: Finish[42]") as (page, gate):
        nav(page, "Arena")
        page.locator(".st-key-arena-question textarea").fill("What is 6 * 7?")
        page.locator(".st-key-arena-run button").click()
        page.get_by_text("I need to multiply six by seven, and").first.wait_for()  # a column's step being written
        assert endless_animations(page) == set()
        for _column in range(2):  # each column's model is held at the gate, which lets one through at a time
            gate.touch()
            while gate.exists():
                page.wait_for_timeout(50)
        page.locator(".st-key-arena-clear button").wait_for()  # every column has ended
