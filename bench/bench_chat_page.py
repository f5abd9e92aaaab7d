"""A chat turn on the on-device model as a person asks it in the browser, watched and with nobody watching, for this
checkout and, with ``--before``, another one (e.g. main) in the same run. Writes the ``chat-page`` section of
docs/benchmarks.md.

Each round starts ``streamlit run app.py`` of one checkout on the on-device model and the offline pack with a scratch
model cache (no saved prefix state), opens Debian's Chromium, waits for the warm-up, asks ``QUESTION`` (a question of
the pack the model answers in 3 steps: Search, Search, Finish) and times Enter → the turn saved to History (its row in
the history store, looked for every 50 ms):

* *watched*: the page stays open and draws the turn as it runs;
* *unwatched*: the browser leaves the page once the turn has started (its Stop button drawn); the turn runs on in
  the server and nothing draws it.

The difference is what drawing the turn costs the model, which computes on the same cores. The engine's own time for
the turn (the sum of its steps' times) and the number of steps are read from the saved run.

Run: ``.venv/bin/python bench/bench_chat_page.py [--before DIR] [--rounds N]`` (needs Debian's chromium; DIR is a
checkout of the code to compare with, e.g. ``git archive main | tar -x -C DIR``).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_arena_page import saved_then_shown  # noqa: E402
from bench.bench_first_click import ARGS, CHROMIUM, WAIT_MS, WARMING, running_app  # noqa: E402
from bench.common import add_before, checkouts, median, table, write_section  # noqa: E402

QUESTION = "Who was born earlier, Emma Bull or Virginia Woolf?"


def _saved_turn(history: Path) -> tuple[int, float]:
    """The saved turn's steps and the engine's time for them."""
    with sqlite3.connect(history) as db:
        steps = json.loads(db.execute("SELECT trace_json FROM runs ORDER BY id LIMIT 1").fetchone()[0])["steps"]
    return len(steps), sum(s.get("seconds", 0.0) for s in steps)


def one_round(browser, home: Path, cache: Path, pack: Path, root: Path, *, watched: bool) -> dict:
    with running_app(home, cache, pack, root) as (url, _):
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(url)
        page.locator(".st-key-example-0 button").wait_for()  # the page is drawn
        page.wait_for_function(f"() => !document.body.innerText.includes({json.dumps(WARMING)})", polling=100)
        page.wait_for_timeout(1000)
        box = page.get_by_test_id("stChatInputTextArea")
        box.fill(QUESTION)
        began = time.perf_counter()
        box.press("Enter")
        if not watched:
            page.locator(".st-key-stop button").first.wait_for()  # the turn's job has started
            page.goto("about:blank")
        history = home / "history.sqlite"
        took = saved_then_shown(page, history, 1, began, page.get_by_text("Saved to History"))
    steps, engine = _saved_turn(history)
    return {**took, "steps": steps, "engine": engine}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_before(parser)
    parser.add_argument("--rounds", type=int, default=3, help="rounds per situation (default 3)")
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
        for n in range(args.rounds):  # interleaved, so a change in the machine's load falls on every situation
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
        for watched in (True, False):
            r = found[code, watched]
            saved = [x["saved"] for x in r]
            rows.append(
                [
                    code,
                    "watched: the page draws the turn" if watched else "unwatched: the page left",
                    len(r),
                    "/".join(sorted({str(x["steps"]) for x in r})),
                    f"{median(saved):.2f} s",
                    f"{min(saved):.2f}–{max(saved):.2f} s",
                    f"{median([x['engine'] for x in r]):.2f} s",
                    f"{median(saved) / unwatched:.2f}x",
                ]
            )
    body = (
        "The Chat page on the on-device model (the shipped adapter, the offline pack), in a freshly started app and "
        f"Debian's Chromium, asked *{QUESTION}* (the pack's), each round with no saved prefix state; the two "
        "checkouts' rounds interleaved in the same run. Enter → the turn saved to History, medians (goal: watched "
        f"within 1.15x of unwatched). Load average when it started: {' / '.join(load)} (1 / 5 / 15 min).\n\n"
    )
    body += table(
        ["code", "situation", "rounds", "steps", "median", "range", "engine's time for the steps", "vs unwatched"],
        rows,
    )
    shown = [x["shown"] - x["saved"] for c in codes for x in found[c, True]]
    body += (
        "\n\nThe model computes on the same cores as the server and the browser, so what drawing the turn costs shows "
        "as a slower model (the engine's time). Watched, the answer is on the screen a median "
        f"{median(shown):.2f} s after the save (the next look of the page's timer and the full rerun that draws it). "
        "Today the page draws each finished step once (a full rerun when one finishes) and the live fragment "
        "redraws only the turn's header and the step being written: ten times a second until the first text, then "
        "once a second while the on-device model computes (ui/shared/live_refresh.py); the header wears a still "
        "hourglass. Until 60de34c it was st.status's spinner, a CSS animation the browser redrew at its frame rate "
        "for the whole turn (test_browser_live_still.py holds the page to no endless animation). Until 5fe9932 the "
        "fragment redrew the whole turn, every finished step's panel, 3 times a second; until c0b9537 it redrew the "
        "step being written 3 times a second whatever computed it."
    )
    write_section("chat-page", "Chat page: an on-device turn, watched and unwatched", body)


if __name__ == "__main__":
    main()
