"""A real browser (Debian's Chromium, driven by Playwright) on a projector's screen, 1024×768, with the scripted
provider: History and Present with no control's text cut, Present's full screen, and the quiz's reset.

Every visible control of History's tabs (a run list with a paused run's Resume, an open run's exports and actions,
conversations, arenas, Compare) and of Present (the run picker, Previous, Next, Reveal, Play, the pace, Quiz, Full
screen) is measured in the page: a control whose text is wider than its box (``scrollWidth`` over ``clientWidth``, or
its text's bounding box outside the control's) is cut. The run picker lists plain text and stays once a run is shown.
Full screen hides the sidebar and the header. In quiz mode the controls follow the slide while it plays (Reveal is
enabled on the step the timer moved to), and Quiz switched off and on hides what playing revealed, with Reveal
enabled again. Screenshots go to docs/screenshots/ (docs/history.md).
"""

from __future__ import annotations

import re

import pytest
from app_helpers import NATIONALITY_Q, NATIONALITY_SCRIPT, offline_pack
from browser_helpers import WAIT_MS, ask, chromium, nav, needs_chromium, open_page, settled, shot, streamlit
from test_browser_html_export import FIGURE_ONE

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.timeout(900)]

ARITHMETIC_Q = "17 * 23 + 4? (#6, a copy)"  # Markdown's own characters, which a select must show as they are
SCRIPT = [
    *NATIONALITY_SCRIPT,
    "Thought 1: Compute it.\nAction 1: Calculator[17 * 23 + 4]",
    "Thought 2: It is 395.\nAction 2: Finish[395]",
    "Thought 1: Multiply.\nAction 1: Calculator[6 * 7]",  # paused before its tool call: History offers Resume
]
# The visible controls in ``root`` whose text does not fit their box, by their text: the control or a part of it
# scrolls its text (wider than its box), or a line of its text lies outside the control's box. A Streamlit button
# draws a hidden twin for measuring: only what is visible counts.
CUT = """root => {
  const seen = e => e.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const cut = [];
  const controls = 'button, [data-testid="stWidgetLabel"], [role="tab"]';
  for (const el of root.querySelectorAll(controls)) {
    if (!seen(el) || !el.innerText.trim()) continue;
    const box = el.getBoundingClientRect();
    const clipped = [el, ...el.querySelectorAll('*')].some(
      e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible');
    const texts = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let outside = false;
    for (let t = texts.nextNode(); t; t = texts.nextNode()) {
      if (!t.textContent.trim() || !seen(t.parentElement)) continue;
      const range = document.createRange();
      range.selectNodeContents(t);
      const r = range.getBoundingClientRect();
      outside ||= r.left < box.left - 1 || r.right > box.right + 1;
    }
    if (clipped || outside) cut.push(el.innerText.replace(/\\s+/g, ' '));
  }
  for (const select of root.querySelectorAll('input[role="combobox"]')) {  // a select shows its choice in an input
    if (seen(select) && select.scrollWidth > select.clientWidth + 1) cut.push(select.value);
  }
  return cut;
}"""


def _seed_arena(monkeypatch, home) -> None:
    """A Figure 1 arena in the history the app will read (runs #1 to #4), for History's Arenas tab."""
    import react_core
    from react_core.evaluation.arena import Arena, Variant
    from react_core.history import open_history
    from react_core.providers.scripted import ScriptedProvider

    monkeypatch.setenv("REACT_HISTORY_DB", str(home / "history.sqlite"))
    settings = react_core.RunSettings(
        provider="scripted", knowledge=f"pack:{offline_pack()}", tools=["search", "lookup"], max_calls=4
    )
    variants = Variant.figure_one(settings)
    for variant, script in zip(variants, FIGURE_ONE, strict=True):
        variant.provider = ScriptedProvider(script)
    Arena(NATIONALITY_Q, variants, gold="American", store=open_history()).run()


def _fits(page, where: str) -> None:
    settled(page)
    assert page.get_by_test_id("stMain").evaluate(CUT) == [], where


def _tab(page, name: str, ready) -> None:
    page.get_by_role("tab", name=name).click()
    ready.first.wait_for()
    _fits(page, f"History, {name}")


def _slide(page) -> int:
    shown = page.get_by_text(re.compile(r"^Slide \d+ of 6")).first.inner_text()
    return int(shown.split()[1])


def _button(page, name: str):
    return page.get_by_role("button", name=re.compile(rf"^{name}"))


def _hidden_step(page) -> None:
    """The slide is a step hidden by the quiz: what the model read is up, its Thought and Action are not, and Reveal
    is enabled."""
    from playwright.sync_api import expect

    page.get_by_text("Press Reveal (S)", exact=False).wait_for()
    expect(page.get_by_text("Thought", exact=True)).to_have_count(0)
    expect(_button(page, "Reveal")).to_be_enabled()


def _failed(page, tmp_path, name: str) -> None:
    page.screenshot(path=str(tmp_path / f"{name}-failed.png"))  # what the page showed, for a person
    (tmp_path / f"{name}-failed.txt").write_text(page.inner_text("body"))


def test_history_and_present_fit_a_projector_with_full_screen_and_the_quiz_reset(monkeypatch, tmp_path):
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT_MS)
    _seed_arena(monkeypatch, tmp_path)
    with streamlit(tmp_path, SCRIPT) as server, chromium() as browser:
        context, page = open_page(browser, server["url"], height=768, width=1024)
        try:
            ask(page, NATIONALITY_Q)
            page.get_by_role("link", name="Saved to History as run #5").wait_for()
            ask(page, ARITHMETIC_Q)
            page.get_by_role("link", name="Saved to History as run #6").wait_for()
            page.get_by_text("Step mode", exact=True).click()
            settled(page)
            ask(page, "What is 6 * 7?")
            page.get_by_text(re.compile(r"^Paused: waiting for you")).first.wait_for()
            page.get_by_text("Step mode", exact=True).click()
            settled(page)

            # History, beside the sidebar: every tab's controls whole.
            nav(page, "History")
            runs = page.get_by_role("tabpanel", name="Runs")
            runs.locator(".st-key-resume-7").get_by_role("button").wait_for()
            _fits(page, "History, the run list")
            _tab(page, "Conversations", page.get_by_role("tabpanel", name="Conversations").get_by_role("button"))
            _tab(page, "Arenas", page.get_by_role("tabpanel", name="Arenas").get_by_role("button", name="Download"))
            _tab(page, "Compare", page.locator(".st-key-cmp-download").get_by_role("button"))
            page.get_by_role("tab", name="Runs").click()
            runs.locator(".st-key-open-5 button").click()
            page.get_by_role("heading", name=re.compile(r"^Run #5")).wait_for()
            page.get_by_role("button", name=re.compile(r"^Use as example")).wait_for()
            _fits(page, "History, an open run")
            shot(page, "history-projector.png", top=True)

            # Present, from the open run: the picker shows the run, in plain text, and every control is whole.
            page.get_by_role("button", name=re.compile(r"^Present")).click()
            page.get_by_text("Slide 1 of 6").wait_for()
            picker = page.get_by_role("combobox", name="Run", exact=True)
            expect(picker).to_have_value(f"#5 · {NATIONALITY_Q}")
            picker.click()
            option = page.get_by_role("option", name=f"#6 · {ARITHMETIC_Q}", exact=True)
            option.wait_for()
            assert "\\" not in " ".join(page.get_by_role("option").all_inner_texts())
            page.keyboard.press("Escape")
            page.get_by_role("heading", name="Present").click()  # the picker let go, as a person leaves it
            _fits(page, "Present")
            shot(page, "present-projector.png", top=True)

            # Full screen: the slide alone, no sidebar, no header, no picker.
            _button(page, "Full screen").click()
            _button(page, "Leave full screen").wait_for()
            expect(page.get_by_test_id("stSidebar")).to_be_hidden()
            expect(page.get_by_test_id("stHeader")).to_be_hidden()
            expect(picker).to_have_count(0)
            _fits(page, "Present, full screen")

            # Quiz while playing: the controls follow the slide the timer shows.
            page.locator(".st-key-present-quiz label").click()
            settled(page)
            page.get_by_role("combobox", name="Automatic pace").click()
            page.get_by_role("option", name="12 s a slide").click()
            settled(page)
            _button(page, "Play").click()
            page.get_by_text("Slide 2 of 6 · playing").wait_for()
            _hidden_step(page)  # Reveal is enabled on the step the timer moved to
            _button(page, "Reveal").click()
            page.get_by_text("Search[Scott Derickson film]").wait_for()
            page.get_by_text("Slide 3 of 6 · playing").wait_for()
            page.get_by_text("Search[Scott Derrickson]").wait_for()  # the timer's beat revealed step 2
            _button(page, "Pause").click()
            _button(page, "Play").wait_for()

            # Quiz off and on: every step hidden again, Reveal enabled, and it reveals.
            page.locator(".st-key-present-quiz label").click()
            settled(page)
            page.locator(".st-key-present-quiz label").click()
            settled(page)
            _hidden_step(page)
            shot(page, "present-full-screen.png", top=True)  # a step hidden by the quiz, after what it had read
            while _slide(page) > 2:
                shown = _slide(page)
                _button(page, "Previous").click()
                page.get_by_text(f"Slide {shown - 1} of 6").wait_for()
            _hidden_step(page)
            expect(page.get_by_text("Search[Scott Derickson film]")).to_have_count(0)
            _button(page, "Reveal").click()
            page.get_by_text("Search[Scott Derickson film]").wait_for()
            expect(_button(page, "Reveal")).to_be_disabled()

            _button(page, "Leave full screen").click()
            expect(page.get_by_test_id("stSidebar")).to_be_visible()
            expect(picker).to_have_value(f"#5 · {NATIONALITY_Q}")
        except Exception:
            _failed(page, tmp_path, "projector")
            raise
        finally:
            context.close()
