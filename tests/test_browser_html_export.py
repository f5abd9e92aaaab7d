"""The HTML export opened from disk in Debian's Chromium: the steps, sources and model calls render; a run full of
markup and script shows it as text, runs no script and makes no network request. The same for an arena's export (the
paper's Figure 1 with scripted models): its four columns side by side on a wide screen, one at a time scrolling
sideways on a phone. The screenshots go to docs/screenshots/html-export.png and arena-html-export.png."""

from __future__ import annotations

import pytest
from app_helpers import NATIONALITY_Q, NATIONALITY_SCRIPT, offline_pack, write_script
from browser_helpers import SHOTS, chromium, needs_chromium, scroll_to

import react_core
from react_core.evaluation.arena import Arena, Variant
from react_core.evaluation.arena_html import SideBySide
from react_core.providers.scripted import ScriptedProvider
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


def _open(browser, path, width: int = 1100, height: int = 1300):
    """The file in a fresh page, with every request and dialog it causes recorded."""
    context = browser.new_context(viewport={"width": width, "height": height})
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
        scroll_to(page.locator("#step-2"))
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


# The paper's Figure 1 on the nationality question, each method's model scripted (Standard and CoT answer at once).
FIGURE_ONE = [
    [" American\n"],
    [" Scott Derrickson is an American director. Ed Wood was an American filmmaker.\nAnswer: American\n"],
    [" Search[Scott Derrickson]", " Search[Ed Wood]", " Finish[American]"],
    [
        " I need the nationalities of Scott Derrickson and Ed Wood.\nAction 1: Search[Scott Derrickson]",
        " Scott Derrickson is an American director. Now Ed Wood.\nAction 2: Search[Ed Wood]",
        " Ed Wood was an American filmmaker. Both are American.\nAction 3: Finish[American]",
    ],
]


def _figure_one_arena():
    settings = react_core.RunSettings(
        provider="scripted", knowledge=f"pack:{offline_pack()}", tools=["search", "lookup"], max_calls=4
    )
    variants = Variant.figure_one(settings)
    for variant, script in zip(variants, FIGURE_ONE, strict=True):
        variant.provider = ScriptedProvider(script)
    arena = Arena(NATIONALITY_Q, variants, gold="American")
    return arena, arena.run()


def test_the_arena_export_shows_its_columns_side_by_side_offline_and_runs_nothing(tmp_path):
    arena, results = _figure_one_arena()
    good = tmp_path / "arena.html"
    good.write_text(SideBySide(results, arena_id=arena.id, saved_at="2026-11-27T01:10:00").to_html(), encoding="utf-8")
    for result in results:  # every field of every column
        result.trace.question = HOSTILE
        result.trace.settings["prompt_version"] = HOSTILE  # in the variant's label
        result.trace.final_answer = HOSTILE
        for step in result.trace.steps:
            step.thought = HOSTILE
    results[3].trace.steps[0].observation.sources[0].url = "javascript:window.pwned=3"
    bad = tmp_path / "hostile-arena.html"
    bad.write_text(SideBySide(results, arena_id=arena.id).to_html(), encoding="utf-8")

    with chromium() as browser:
        context, page, requests, dialogs, errors = _open(browser, good, width=1400, height=1000)
        heads = page.locator("section.column h2")
        assert [h.split(" · ")[0] for h in heads.all_inner_texts()] == ["1. Standard", "2. CoT", "3. Act", "4. ReAct"]
        tops = {round(b["y"]) for b in (h.bounding_box() for h in heads.all())}
        assert len(tops) == 1  # side by side, not one under another
        scroller = page.locator(".scroll")
        assert scroller.evaluate("el => el.scrollWidth <= el.clientWidth")  # four columns fit a wide screen
        assert "First difference: step 1" in page.locator("#first-difference").inner_text()
        assert page.locator(".first-difference").count() == 4
        assert page.locator("#c4-step-1").bounding_box()["y"] == page.locator("#c1-step-1").bounding_box()["y"]
        # Standard and CoT answer in one step: a gap in their cells of rows 2 and 3.
        assert page.locator(".gap").all_inner_texts() == ["Step 2: —", "Step 2: —", "Step 3: —", "Step 3: —"]
        assert page.get_by_text("EM 1 · F1 1.00", exact=False).count() == 4
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "arena-html-export.png"), full_page=False)
        call = page.locator("#c4-step-2 details").first
        call.locator("summary").first.click()
        assert "prompt tokens" in call.inner_text()
        assert requests == [good.as_uri()] and dialogs == [] and errors == []
        context.close()

        # A phone: one column fills the screen and the columns scroll sideways; the page itself does not.
        context, page, requests, dialogs, errors = _open(browser, good, width=420, height=900)
        assert page.locator(".scroll").evaluate("el => el.scrollWidth > 3 * el.clientWidth")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        context.close()

        context, page, requests, dialogs, errors = _open(browser, bad, width=1400, height=1000)
        assert page.evaluate("window.pwned === undefined")
        assert page.locator("script, img, iframe").count() == 0
        assert HOSTILE in page.locator("h1").inner_text()
        assert HOSTILE in page.locator("#column-1 h2").inner_text()  # the variant's label
        assert HOSTILE in page.locator("#c1-answer").inner_text()
        assert HOSTILE in page.locator("#c4-step-1").inner_text()
        assert page.locator("#c4-step-1 a").count() == 0  # the javascript: address is not a link
        assert requests == [bad.as_uri()] and dialogs == [] and errors == []
        context.close()
