"""The Arena page's Figure 1 on the on-device model, as a person runs it in the browser, against the same columns with
nobody watching. Writes the ``arena-page`` section of docs/benchmarks.md.

Each round starts ``streamlit run app.py`` on the on-device model and the offline pack with a scratch model cache (no
saved prefix states: each column reads its prompt), opens Debian's Chromium, fills Figure 1 with Act's and ReAct's
Max model calls set to 1 (one call a column) and a question of the pack, waits for the warm-up, clicks Run and times:

* *watched*: Run → the fourth column saved to History while the page redraws the running arena on its timer, and
  Run → every column's footer on the screen;
* *unwatched*: Run → the fourth column saved to History, the browser having left the page right after the click (the
  columns run on in the server, and nothing redraws them).

Both ways are compared at the save (as the chat's bench does): the difference is what drawing the run costs the
model, which computes on the same cores. The time to the screen adds the page timer's next look and the full rerun
that draws the end, which an unwatched run has no equivalent of. With ``--before DIR`` (a checkout of other code,
e.g. ``git archive main | tar -x -C DIR``) its rounds run too, interleaved with this one's.

Run: ``.venv/bin/python bench/bench_arena_page.py [--before DIR] [--rounds N]`` (needs Debian's chromium).
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_first_click import ARGS, CHROMIUM, WAIT_MS, WARMING, running_app  # noqa: E402
from bench.common import add_before, checkouts, median, table, write_section  # noqa: E402

QUESTION = "Were Scott Derrickson and Ed Wood of the same nationality?"


def _saved_runs(history: Path) -> int:
    try:
        with sqlite3.connect(history) as db:
            return db.execute("SELECT count(*) FROM runs").fetchone()[0]
    except sqlite3.Error:  # not created yet
        return 0


def saved_then_shown(page, history: Path, runs: int, began: float, shown) -> dict:
    """Seconds from ``began`` to ``runs`` runs saved in ``history`` (``saved``), then, unless the page was left, to
    ``shown`` (a locator) on the screen (``shown``); the page's context is closed after."""
    while _saved_runs(history) < runs:
        time.sleep(0.05)
    saved = time.perf_counter() - began
    watched = page.url != "about:blank"
    if watched:
        shown.wait_for()
    took = {"saved": saved, "shown": time.perf_counter() - began if watched else None}
    page.context.close()
    return took


def one_round(browser, home: Path, cache: Path, pack: Path, root: Path = ROOT, *, watched: bool) -> dict:
    """Run → the fourth column saved to History (``saved``), and watched, → the ended arena on the screen (``shown``:
    the next look of the page's timer, then the full rerun that draws it)."""
    with running_app(home, cache, pack, root) as (url, _):
        page = browser.new_context(viewport={"width": 1280, "height": 1400}).new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(url)
        page.get_by_test_id("stSidebarNav").get_by_text("Arena", exact=True).click()
        page.get_by_role("button", name=re.compile(r"Figure 1$")).click()
        page.get_by_text("Column 4", exact=True).wait_for()
        for n in (2, 3):  # Act's and ReAct's budget: one call, not the paper's 7
            box = page.locator(f".st-key-arena-max_calls-{n} input")
            box.fill("1")
            box.press("Tab")
            page.wait_for_function(
                f"() => document.querySelector('.st-key-arena-max_calls-{n} input')?.value === '1'", polling=100
            )
        page.wait_for_timeout(1000)  # the last value reaches the server
        page.get_by_role("textbox", name="Question").fill(QUESTION)
        page.get_by_role("textbox", name="Question").press("Tab")
        page.wait_for_function(f"() => !document.body.innerText.includes({WARMING!r})", polling=100)
        page.wait_for_timeout(1000)
        began = time.perf_counter()
        page.get_by_role("button", name=re.compile(r"Run$")).click()
        if not watched:
            page.wait_for_timeout(500)  # the click's script run has started the columns
            page.goto("about:blank")
        ended = page.locator(".st-key-arena-clear button")  # drawn once every column has ended
        return saved_then_shown(page, home / "history.sqlite", 4, began, ended)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds per situation (default 2)")
    add_before(parser)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from bench.bench_local import build_pack
    from bench.bench_warm import _cache

    codes = checkouts(args)
    found: dict[tuple[str, bool], list[dict]] = {(c, w): [] for c in codes for w in (True, False)}
    load = Path("/proc/loadavg").read_text().split()[:3]
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        pack = build_pack(Path(tmp))
        for n in range(args.rounds):
            for i, (code, root) in enumerate(codes.items()):
                for watched in (True, False):
                    folder = Path(tmp) / f"{i}{'w' if watched else 'u'}{n}"
                    r = one_round(browser, folder / "home", _cache(folder), pack, root, watched=watched)
                    found[code, watched].append(r)
                    print(code, "watched" if watched else "unwatched", r, flush=True)
        browser.close()
    rows = []
    for code in codes:
        unwatched = median([r["saved"] for r in found[code, False]])
        for w, label in ((True, "watched: the page draws the running arena"), (False, "unwatched: the page left")):
            saved = [r["saved"] for r in found[code, w]]
            shown = [r["shown"] for r in found[code, w] if r["shown"] is not None]
            rows.append(
                [
                    code,
                    label,
                    len(saved),
                    f"{median(saved):.1f} s",
                    f"{min(saved):.1f}–{max(saved):.1f} s",
                    f"{median(saved) / unwatched:.2f}x",
                    f"{median(shown):.1f} s ({median(shown) / unwatched:.2f}x)" if shown else "—",
                ]
            )
    body = (
        "The Arena page's Figure 1 (Standard, CoT, Act, ReAct with the paper's HotpotQA prompts) on the on-device "
        "model, one model call a column, a question of the offline pack, in a freshly started app and Debian's "
        "Chromium; each round with no saved prefix state. Run → the fourth column saved to History, medians (goal: "
        "watched within 1.1x of unwatched); watched, also Run → the ended arena on the screen (the next look of the "
        "page's timer, then the full rerun that draws it). "
        f"Load average when it started: {' / '.join(load)} (1 / 5 / 15 min).\n\n"
    )
    body += table(["code", "situation", "rounds", "median", "range", "vs unwatched", "on the screen"], rows)
    body += (
        "\n\nThe columns take turns at the one model; the difference between the rows is what redrawing the running "
        "arena costs the model, which computes on the same cores. The page's fragment redraws the steps being "
        "written once a second while a column runs on the on-device model (three times a second otherwise), and the "
        "rest (each row of finished steps, a column's footer) is drawn once, by a full rerun when it changes. Since "
        "90c49c1 a closed step panel or column header is drawn only once opened (lazy panels) and a running arena "
        "draws no column editors, which halved what a full rerun costs (bench_rerun_cpu.py). Until 5fe9932 the "
        "fragment redrew every column whole, and until eeeb3b7 three times a second (the watched round took about "
        "26 s on this machine). Until 5058c1b this bench timed a watched arena to the screen and an unwatched one to "
        "the save; both are now compared at the save."
    )
    write_section("arena-page", "Arena page: Figure 1 on the on-device model, watched and unwatched", body)


if __name__ == "__main__":
    main()
