"""A real browser (Debian's Chromium, driven by Playwright), the classroom's journeys with the scripted provider.

Fork compare (local mode): a run, a fork of it whose Observation is edited by hand while every action stays the same,
and History's Compare marking the edit where it happened. The class board (signed in, against the local OpenID
Connect provider of tests/oidc_helpers.py): a teacher keeps a question set, evaluates it for reference runs and hands
it out with them; two students open the link, run their versions on it from Evaluate and submit; the teacher's board
lists each one's best version (EM, grounded answers, the checks against the reference) and opens a student's runs; a
student sees only their own results, no board, and cannot open another's runs. Screenshots go to docs/screenshots/
(docs/history.md, docs/evaluate.md's class section).
"""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import (
    WAIT_MS,
    ask,
    chromium,
    nav,
    needs_chromium,
    open_page,
    scroll_to,
    settled,
    shot,
    streamlit,
    uploaded,
)
from oidc_helpers import sign_in, signed_in_app
from test_browser_versions import _keep_set, _pick, _select

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.timeout(900)]  # a long journey on a loaded machine

CALC = [
    "Thought 1: Multiply first.\nAction 1: Calculator[6 * 7]",
    "Thought 2: It is 42.\nAction 2: Finish[42]",
    "Thought 2: It is 42.\nAction 2: Finish[42]",  # the fork's model, after the edited observation: the same action
]
RIGHT = [
    "Thought 1: Compute.\nAction 1: Calculator[6 * 7]",
    "Thought 2: Done.\nAction 2: Finish[42]",
    "Thought 1: Compute.\nAction 1: Calculator[2 + 2]",
    "Thought 2: Done.\nAction 2: Finish[4]",
]
WRONG = ["Thought 1: Guess.\nAction 1: Finish[41]", "Thought 1: Guess.\nAction 1: Finish[5]"]


def _failed(page, tmp_path, name: str) -> None:
    page.screenshot(path=str(tmp_path / f"{name}-failed.png"))  # what the page showed, for a person
    (tmp_path / f"{name}-failed.txt").write_text(page.inner_text("body"))


def test_compare_marks_a_forks_edited_observation_where_it_was_made(tmp_path):
    with streamlit(tmp_path, CALC) as server, chromium() as browser:
        context, page = open_page(browser, server["url"], height=1100)
        try:
            ask(page, "What is 6 * 7?")
            page.get_by_role("link", name="Saved to History as run #1").wait_for()
            nav(page, "History")
            settled(page)
            page.locator(".st-key-open-1 button").click()
            page.get_by_role("heading", name="Fork").wait_for()
            page.get_by_test_id("stRadio").get_by_text("Observation", exact=True).click()  # edit the Observation
            box = page.get_by_role("textbox", name="New observation")
            box.fill("6 * 7 = 42, checked by the teacher")
            box.press("Control+Enter")
            settled(page)
            page.get_by_role("button", name="Re-run from step 1").click()
            page.get_by_role("link", name="Saved to History as run #2").wait_for()
            nav(page, "History")
            page.get_by_role("tab", name="Compare").click()
            page.get_by_text("First difference: step 1, where #2's observation was edited by hand in a fork").wait_for()
            page.get_by_text("✎ Observation edited by hand in a fork").wait_for()
            assert page.get_by_text("Every column took the same actions.").count() == 0
            scroll_to(page.get_by_text("First difference: step 1", exact=False))
            shot(page, "compare-fork.png")
        except Exception:
            _failed(page, tmp_path, "fork")
            raise
        finally:
            context.close()


@pytest.fixture(scope="module")
def class_app(tmp_path_factory):
    home = tmp_path_factory.mktemp("class")
    with signed_in_app(home, RIGHT) as (server, browser):
        yield server, browser, home


def _rows(page, column: str) -> list[dict[str, str]]:
    """The rows of the dataframe with a column named ``column``, by column name: what its table for screen readers
    holds (glide-data-grid draws the cells on a canvas and puts that table inside it), the columns in view."""
    hidden = {"include_hidden": True}  # a canvas's content is not drawn: to Playwright, hidden
    header = page.get_by_role("columnheader", name=column, exact=True, **hidden)
    frame = page.get_by_test_id("stDataFrame").filter(has=header)
    frame.get_by_role("gridcell", **hidden).first.wait_for(state="attached")
    names = frame.get_by_role("columnheader", **hidden).all_text_contents()
    rows = [r.get_by_role("gridcell", **hidden).all_text_contents() for r in frame.get_by_role("row", **hidden).all()]
    return [dict(zip(names, row, strict=True)) for row in rows if row]


def _cells(rows: list[dict[str, str]], *columns: str) -> list[tuple[str, ...]]:
    return [tuple(row[c] for c in columns) for row in rows]


def _run_react_with_calculator(page) -> None:
    """On the Evaluate page, its dataset chosen: ReAct alone, with the Calculator, on the scripted model; until done."""
    from playwright.sync_api import expect

    page.get_by_test_id("stMultiSelect").filter(has_text="Strategies").get_by_label("Remove CoT", exact=True).click()
    page.get_by_text("Compare prompt versions").wait_for()  # drawn by the run that follows, once only ReAct is left
    settled(page)
    _pick(page, "Tools (Act, ReAct)", "Calculator")
    page.get_by_role("button", name="Run evaluation").click()
    page.get_by_role("heading", name="Intervals and trajectory checks").wait_for()
    expect(page.get_by_role("button", name="Run evaluation")).to_be_enabled()  # the evaluation is over


def _evaluate_and_submit(page) -> None:
    """From the Class page's joined assignment: Evaluate it (ReAct with the Calculator) and submit the results."""
    from playwright.sync_api import expect

    page.get_by_role("button", name="Evaluate it").click()
    page.get_by_role("heading", name="Evaluate").wait_for()
    dataset = page.get_by_test_id("stSelectbox").filter(has_text="Dataset").locator("input")
    expect(dataset).to_have_value("Assignment: Week 3")  # the select shows its choice in its input
    _run_react_with_calculator(page)
    page.get_by_text("Submit to the assignment Week 3").wait_for()
    page.get_by_role("button", name=re.compile(r"^Submit hotpotqa-react@1")).click()
    page.get_by_text("Submitted hotpotqa-react@1 to 'Week 3'", exact=False).wait_for()


def test_a_teacher_hands_out_a_set_and_the_board_shows_two_students(class_app):
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT_MS)
    server, browser, home = class_app
    (ct, teacher), (ca, ann), (cb, bob) = (sign_in(browser, server["url"], who) for who in ("teacher", "ann", "bob"))
    try:
        # The teacher keeps a question set, evaluates it for reference runs and hands it out with them.
        nav(teacher, "Evaluate")
        _keep_set(teacher, home)
        _run_react_with_calculator(teacher)
        nav(teacher, "Class")
        title = teacher.get_by_role("textbox", name="Assignment name")
        title.fill("Week 3")
        title.press("Enter")
        expect(title).to_have_value("Week 3")
        settled(teacher)
        _select(teacher, "Reference runs (optional)", re.compile(r"hotpotqa-react@1 · "))
        settled(teacher)
        teacher.get_by_role("button", name="Hand out").click()
        teacher.get_by_text("Handed out 'Week 3' (2 questions, with 2 reference runs)").wait_for()
        link = teacher.get_by_test_id("stCode").filter(has_text="/class?assignment=").inner_text().strip()

        # Ann opens the link: she lands on what she joined, evaluates her version and submits it.
        ann.goto(link)
        ann.get_by_text("You joined 'Week 3'", exact=False).wait_for()
        _evaluate_and_submit(ann)

        # Bob opens it, then uploads his own script (kept in his session) that answers wrong, without the Calculator.
        bob.goto(link)
        bob.get_by_text("You joined 'Week 3'", exact=False).wait_for()
        nav(bob, "Settings")
        (home / "wrong.json").write_text(json.dumps(WRONG))
        script_box = bob.get_by_test_id("stFileUploader").filter(has_text="Upload a script")
        script_box.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(home / "wrong.json"))
        uploaded(bob, "wrong.json")
        bob.get_by_text("In use: your uploaded script (2 outputs).").wait_for()
        nav(bob, "Class")  # a student who handed nothing out lands on what they joined
        _evaluate_and_submit(bob)

        # The teacher's board: each student's best version with EM, grounded answers and the checks, each openable.
        nav(teacher, "Class")
        board = _rows(teacher, "best version")
        assert _cells(board, "student", "best version", "EM %", "grounded %", "the reference's tools %") == [
            ("ann", "hotpotqa-react@1", "100", "100", "100"),
            ("bob", "hotpotqa-react@1", "0", "0", "0"),  # Bob guessed, without the Calculator the reference used
        ]
        teacher.get_by_role("button", name=re.compile(r"^Open ann's runs")).wait_for()
        teacher.get_by_role("button", name=re.compile(r"^Open bob's runs")).wait_for()
        scroll_to(teacher.get_by_test_id("stDataFrame").first)
        shot(teacher, "class-board.png")
        teacher.get_by_role("button", name=re.compile(r"^Open bob's runs")).click()
        teacher.wait_for_url(re.compile(r"submission=\d+"))
        bobs = teacher.url
        assert _cells(_rows(teacher, "prediction"), "id", "prediction", "EM") == [("a", "41", "0"), ("b", "5", "0")]
        _select(teacher, "Open a question's run", re.compile(r"^a · What is 6 \* 7\?"))
        teacher.get_by_text("Step 1 · Finish[41]").wait_for()

        # Ann sees her own submission only, cannot see the board, and Bob's runs do not open for her.
        nav(ann, "Class")
        ann.get_by_role("button", name="Evaluate it").wait_for()
        assert _cells(_rows(ann, "best version"), "best version", "EM %") == [("hotpotqa-react@1", "100")]
        settled(ann)  # the whole page drawn: what is not on it now is not coming
        assert ann.get_by_text("bob", exact=False).count() == 0
        ann.get_by_role("tab", name="Assignments you handed out").click()
        ann.get_by_text("None yet.", exact=True).wait_for()  # no board of Week 3: she did not hand it out
        settled(ann)
        assert ann.get_by_role("button", name=re.compile(r"^Open .*'s runs")).count() == 0
        ann.goto(bobs)
        ann.get_by_text("This submission is not one you can open.").wait_for()
        settled(ann)
        assert ann.get_by_text("Finish[41]").count() == 0
    except Exception:
        for who, page in (("teacher", teacher), ("ann", ann), ("bob", bob)):
            _failed(page, home, who)
        raise
    finally:
        for c in (ct, ca, cb):
            c.close()
