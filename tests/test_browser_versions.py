"""A real browser (Debian's Chromium, driven by Playwright): a prompt version, its diff, and an evaluation of both
versions against a baseline, with the scripted provider.

The journey: in Settings, edit the paper preset's instructions and save them as version 2; the Versions panel's diff
shows the instructions changed from paper@1 to paper@2. On Evaluate, upload a CSV of two arithmetic questions, run
ReAct with the Calculator on paper@1 and paper@2, choose paper@1's results as the baseline: paper@2 newly fails one
question, whose two traces open side by side. That screenshot goes to docs/screenshots/ (docs/evaluate.md); the diff's
stays beside the server's files for a person to look at.
"""

from __future__ import annotations

import re

import pytest
from browser_helpers import (
    WAIT_MS,
    chromium,
    nav,
    needs_chromium,
    open_page,
    reveal,
    scroll_to,
    settled,
    shot,
    streamlit,
    uploaded,
)

pytestmark = [pytest.mark.browser, needs_chromium]

QUESTIONS = "id,question,answer\na,What is 6 * 7?,42\nb,What is 2 + 2?,4\n"
# The evaluation builds its own scripted provider, which replays from the start: paper@1 answers both right, then
# paper@2 answers "a" wrong.
SCRIPT = [
    "Thought 1: Compute.\nAction 1: Calculator[6 * 7]",
    "Thought 2: Done.\nAction 2: Finish[42]",
    "Thought 1: Compute.\nAction 1: Calculator[2 + 2]",
    "Thought 2: Done.\nAction 2: Finish[4]",
    "Thought 1: Guess.\nAction 1: Finish[41]",
    "Thought 1: Guess.\nAction 1: Finish[4]",
]
ADDED = "Answer with a number when the question asks for one."


def _open_and_click(page, box, item) -> None:
    """Open a select or multiselect and click an option of it (a rerun, which each choice makes, may close the list)."""
    field = box.locator("input")
    reveal(page, item, lambda: field.get_attribute("aria-expanded") == "true", field.click)
    item.click()


def _expand(page, title: str, inside: str) -> None:
    """Open an expander and wait for ``inside`` in it (a rerun under way may draw it closed again)."""
    expander = page.get_by_test_id("stExpander").filter(has_text=title)
    details = expander.locator("xpath=descendant-or-self::details").first
    summary = expander.locator("summary").first
    reveal(page, page.get_by_text(inside, exact=True), lambda: details.get_attribute("open") is not None, summary.click)


def _pick(page, label: str, *options: str) -> None:
    """Choose options of a multiselect by their text."""
    box = page.get_by_test_id("stMultiSelect").filter(has_text=label)
    for option in options:
        # A rerun under way on a loaded machine may redraw the list and lose the click: once it settles, choose again.
        chip = box.get_by_label(f"Remove {option}", exact=True)
        item = page.get_by_role("option", name=option, exact=True)
        reveal(page, chip, chip.is_visible, lambda item=item: _open_and_click(page, box, item))
        page.keyboard.press("Escape")


def _select(page, label: str, option: str | re.Pattern) -> None:
    box = page.get_by_test_id("stSelectbox").filter(has_text=label)
    _open_and_click(page, box, page.get_by_role("option", name=option, exact=isinstance(option, str)))


def _keep_set(page, folder) -> None:
    """On the Evaluate page: upload QUESTIONS as a CSV and keep it as the set 'arith' (then the chosen dataset)."""
    from playwright.sync_api import expect

    _expand(page, "Your own questions", "Keep this set")
    (folder / "arith.csv").write_text(QUESTIONS)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(folder / "arith.csv"))
    uploaded(page, "arith.csv")  # kept before it reached the app, the page would ask for a file
    name = page.get_by_role("textbox", name="Name", exact=True)
    name.fill("arith")
    name.press("Enter")
    expect(name).to_have_value("arith")
    settled(page)
    page.get_by_role("button", name="Keep this set").click()
    page.get_by_text("Kept 2 questions as 'arith'").wait_for()


def test_save_a_version_diff_it_and_evaluate_it_against_version_one(tmp_path):
    from playwright.sync_api import expect  # as browser_helpers does: only where a browser test runs

    expect.set_options(timeout=WAIT_MS)
    with streamlit(tmp_path, SCRIPT) as server, chromium() as browser:
        context, page = open_page(browser, server["url"], height=1300)
        try:
            # Settings: an edit of paper's instructions saved as paper@2, then diffed against paper@1.
            nav(page, "Settings")
            instructions = page.get_by_role("textbox", name="Instructions", exact=True)
            shipped = re.compile(r"^Solve a question answering task[\s\S]*\{tools\}")
            expect(instructions).to_have_value(shipped)  # drawn with paper's text: read it only then
            instructions.fill(instructions.input_value().rstrip("\n") + f"\n{ADDED}\n")
            instructions.press("Control+Enter")
            page.get_by_text("Your edited prompt is in use.").wait_for()
            expect(instructions).to_have_value(re.compile(shipped.pattern + rf"[\s\S]*{ADDED}"))
            page.get_by_role("button", name="Save as new version of paper").click()
            page.get_by_text("Saved as paper@2; it is now in use.").wait_for()
            _expand(page, "Versions of paper", "Diff two versions")
            page.get_by_text(
                re.compile(r"From paper@.?1 to paper@.?2: 0 examples differ")
            ).wait_for()  # @, a zero-width space
            scroll_to(page.get_by_text("Field instructions:"))
            page.get_by_text(ADDED).last.wait_for()
            page.screenshot(path=str(tmp_path / "settings-diff.png"))

            # Evaluate: the two versions on an uploaded set, with the Calculator.
            nav(page, "Evaluate")
            _keep_set(page, tmp_path)
            strategies = page.get_by_test_id("stMultiSelect").filter(has_text="Strategies")
            strategies.get_by_label("Remove CoT", exact=True).click()
            page.get_by_text("Compare prompt versions").wait_for()  # offered once only ReAct is left
            _pick(page, "Tools (Act, ReAct)", "Calculator")
            _pick(page, "Compare prompt versions", "paper@1", "paper@2")
            page.get_by_role("button", name="Run evaluation").click()
            page.get_by_role("heading", name="Intervals and trajectory checks").wait_for()
            expect(page.get_by_role("button", name="Run evaluation")).to_be_enabled()  # both versions done
            expect(page.get_by_text("questions done", exact=False)).to_have_count(0)

            # Against a baseline: paper@1's results; paper@2 newly fails "a", whose traces open side by side.
            _select(page, "Compare with a baseline", re.compile(r"ReAct · paper@1 · .*\/react@paper@1$"))
            page.get_by_text("0 newly pass, 1 newly fail (1 pass in both, 0 fail in both)").wait_for()
            _select(page, "Open both traces", "a")
            page.get_by_text("Step 1 · Finish[41]").wait_for()
            page.get_by_text("Step 2 · Finish[42]").wait_for()
            assert page.get_by_test_id("stException").count() == 0
            scroll_to(page.get_by_text("newly fail (1 pass in both", exact=False))
            shot(page, "evaluate-baseline.png")
        except Exception:
            page.screenshot(path=str(tmp_path / "failed.png"))  # what the page showed, for a person
            (tmp_path / "failed.txt").write_text(page.inner_text("body"))
            raise
        finally:
            context.close()
