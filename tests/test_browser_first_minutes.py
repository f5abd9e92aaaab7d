"""A newcomer's first minutes, as ``make run`` gives them: the on-device model, no key, no internet (Wikipedia cannot
be reached, so the offline pack stands in), in a real browser. The page says once what the pack covers and offers
questions it can answer; an answer shows the expected answer beside it (green only for an exact match) and an evidence
badge that says where its words occur, never that it is right; a reload keeps the conversation."""

from __future__ import annotations

import re

import pytest
from browser_helpers import WAIT_MS, chromium, open_page, shot, streamlit
from wiki_helpers import closed_port

from react_core.base.answers import exact_match
from react_core.history import open_history
from react_core.knowledge.pack import PackSource

pytestmark = [pytest.mark.browser, pytest.mark.model]
ENDED = re.compile(r"(Answered|No answer: [^·]+|Failed|Stopped by you) · \d+ steps? ·")


@pytest.fixture(scope="module")
def offline_app(tmp_path_factory):
    home = tmp_path_factory.mktemp("first-minutes")
    env = {
        "REACT_PROVIDER": "local",
        "REACT_KNOWLEDGE": "wikipedia",
        "REACT_WIKI_URL": f"http://127.0.0.1:{closed_port()}/w/api.php",  # offline: Wikipedia cannot be reached
        "REACT_PACK": str(home / "pack.sqlite"),  # the default pack, built on first need from the shared data
    }
    with streamlit(home, [], env=env) as server, chromium() as browser:
        yield server, browser


def test_offline_examples_answer_with_evidence_and_survive_a_reload(offline_app):
    server, browser = offline_app
    context, page = open_page(browser, server["url"], height=1400)
    try:
        note = page.get_by_text("Wikipedia cannot be reached from here", exact=False)
        note.wait_for()
        assert note.count() == 1 and "Colorado orogeny" not in page.content()
        examples = page.get_by_role("button").filter(has_text="?")
        first = examples.first.inner_text().splitlines()[-1].strip()  # the question, after the icon's ligature name
        assert first.endswith("?") and "lightbulb" not in first
        shot(page, "offline-examples.png", top=True)

        examples.first.click()
        try:
            page.get_by_text(ENDED).first.wait_for(timeout=6 * WAIT_MS)  # the on-device model: seconds a step
            page.get_by_text("Saved to History as run #").wait_for()  # the turn's last line: the page is drawn
        finally:
            shot(page, "first-answer.png", top=True)
        # The example is one of the pack's HotpotQA questions: its expected answer stands beside the model's, and
        # only an exact match with it is green. The evidence badge says where the answer occurs, never "found".
        expected = PackSource(server["home"] / "pack.sqlite").question_for(first)
        assert expected is not None
        verdict = page.get_by_text(f"Expected answer: «{expected.answer}» · ", exact=False).first
        verdict.wait_for()
        answer = open_history(url="", path=server["home"] / "history.sqlite").list()[0].final_answer
        matched = exact_match(answer, expected.answer) == 1.0
        assert verdict.inner_text().strip().endswith("· exact match") == matched, (answer, verdict.inner_text())
        assert page.get_by_text(re.compile(r"^Found in step")).count() == 0
        for badge in page.get_by_text(re.compile(r"^Occurs in step \d+")).all():
            step = re.match(r"Occurs in step (\d+)'s (\w+) result: «", badge.inner_text()).group(1)
            panel = page.get_by_test_id("stExpander").filter(has_text=f"Step {step} · ").first
            assert "Could not find" not in panel.inner_text()  # evidence only: never a missed Search
        page.reload()
        page.get_by_text(first).first.wait_for()  # the conversation came back
        page.get_by_text(ENDED).first.wait_for()
    finally:
        context.close()
