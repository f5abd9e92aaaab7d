"""The HTML export opened from disk in Debian's Chromium: the steps, sources and model calls render; a run full of
markup and script shows it as text, runs no script and makes no network request. The screenshot goes to
docs/screenshots/html-export.png."""

from __future__ import annotations

import pytest
from app_helpers import NATIONALITY_Q, NATIONALITY_SCRIPT, offline_pack, write_script
from browser_helpers import SHOTS, chromium, needs_chromium

import react_core
from react_core.report.html import to_html

pytestmark = [pytest.mark.browser, needs_chromium]

HOSTILE = "<script>window.pwned=1</script><img src=x onerror='window.pwned=2'>"


def _nationality_run(tmp_path):
    settings = react_core.RunSettings(
        provider="scripted",
        script=str(write_script(tmp_path / "script.json", NATIONALITY_SCRIPT)),
        knowledge=f"pack:{offline_pack()}",
        tools=["search", "lookup"],
    )
    trace = react_core.ask(NATIONALITY_Q, settings)
    trace.expected_answer = "American"
    return trace


def _open(browser, path):
    """The file in a fresh page, with every request and dialog it causes recorded."""
    context = browser.new_context(viewport={"width": 1100, "height": 1300})
    page = context.new_page()
    requests, dialogs, errors = [], [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return context, page, requests, dialogs, errors


def test_the_exported_file_renders_offline_and_runs_nothing(tmp_path):
    trace = _nationality_run(tmp_path)
    good = tmp_path / "run.html"
    good.write_text(to_html(trace, run_id=12), encoding="utf-8")

    hostile = _nationality_run(tmp_path)
    hostile.question = HOSTILE
    hostile.steps[0].thought = HOSTILE
    hostile.steps[0].observation.text = "</pre></style>" + HOSTILE
    hostile.steps[1].observation.sources[0].url = "javascript:window.pwned=3"
    bad = tmp_path / "hostile.html"
    bad.write_text(to_html(hostile), encoding="utf-8")

    with chromium() as browser:
        context, page, requests, dialogs, errors = _open(browser, good)
        steps = page.locator("section.step")
        assert steps.count() == len(trace.steps) == 4
        for step in trace.steps:
            assert step.thought in page.locator(f"#step-{step.index}").inner_text()
        assert page.locator("section.step h2").first.inner_text().startswith("Step 1 · Search[")
        assert "American" in page.locator("#answer").inner_text()
        assert "CC BY-SA" in page.locator("body").inner_text()
        # A Model call opens without any script: <details>.
        call = page.locator("#step-2 details").first
        call.locator("summary").first.click()
        assert "prompt tokens" in call.inner_text()
        assert requests == [good.as_uri()] and dialogs == [] and errors == []
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#step-2").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "html-export.png"), full_page=False)
        context.close()

        context, page, requests, dialogs, errors = _open(browser, bad)
        assert page.evaluate("window.pwned === undefined")
        assert page.locator("script, img, iframe").count() == 0
        assert HOSTILE in page.locator("h1").inner_text()
        assert HOSTILE in page.locator("#step-1").inner_text()
        link = page.locator("#step-2 a")
        assert link.count() == 0  # the javascript: address is not a link; its title is text
        assert requests == [bad.as_uri()] and dialogs == [] and errors == []
        context.close()
