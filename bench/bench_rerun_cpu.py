"""What one full rerun of a finished page costs the machine's cores: Chromium's CPU and the Streamlit server's. While
the on-device model computes, each full rerun (one per finished step, one per ended column) takes this CPU from it.
Writes the ``rerun-cpu`` section of docs/benchmarks.md.

Each round starts ``streamlit run app.py`` with the scripted provider (3-step runs with the paper's 6-shot prompt) and
the offline pack, opens Debian's Chromium and draws:

* *chat*: a conversation of three finished turns;
* *arena*: Figure 1 (Standard, CoT, Act, ReAct with the paper's prompts) after every column ended;

then forces six full reruns with Streamlit's ``r`` key and reads, from /proc, the CPU Chromium's processes and the
server's process group used, less Chromium's idle use over the same time. With ``--before DIR`` (a checkout of
other code, e.g. ``git archive <rev> | tar -x -C DIR``) its rounds run too, interleaved with this one's. CPU time,
unlike wall time, hardly depends on what else the machine runs.

Run: ``.venv/bin/python bench/bench_rerun_cpu.py [--before DIR] [--rounds N]`` (needs Debian's chromium).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_first_click import ARGS, CHROMIUM, _start  # noqa: E402
from bench.common import add_before, checkouts, median, table, write_section  # noqa: E402

STEPS = [
    "Thought 1: I need to search Scott Derrickson and Ed Wood.\nAction 1: Search[Scott Derrickson]",
    "Thought 2: Scott Derrickson is American. Now Ed Wood.\nAction 2: Search[Ed Wood]",
    "Thought 3: Both are American.\nAction 3: Finish[yes]",
]
QUESTION = "Were Scott Derrickson and Ed Wood of the same nationality?"
RERUNS = 6
SETTLE_MS = 1500  # after a rerun has ended: the browser's drawing of it
TICK = os.sysconf("SC_CLK_TCK")


def _cpu(keep) -> float:
    """CPU seconds (user + system) of the processes ``keep(comm, stat fields)`` selects."""
    total = 0.0
    for path in glob.glob("/proc/[0-9]*/stat"):
        try:
            stat = Path(path).read_text()
        except OSError:
            continue
        comm, fields = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        if keep(comm, fields):
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def chromium_cpu() -> float:
    return _cpu(lambda comm, _: "chrom" in comm or "headless" in comm)


def group_cpu(pgid: int) -> float:
    return _cpu(lambda _, fields: int(fields[2]) == pgid)


@contextlib.contextmanager
def scripted_app(home: Path, pack: Path, root: Path) -> Iterator[tuple[str, int]]:
    """The app of ``root`` on the scripted model (its URL and its process group), stopped with that group."""
    home.mkdir(parents=True, exist_ok=True)
    script = home / "script.json"
    script.write_text(json.dumps(STEPS * 20), encoding="utf-8")
    proc, url, _ = _start(home, home / "cache", pack, root, {"REACT_PROVIDER": "scripted", "REACT_SCRIPT": str(script)})
    try:
        yield url, proc.pid
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def _settled(page) -> None:
    page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(state="attached")


def _draw(page, which: str) -> None:
    if which == "chat":
        box = page.get_by_test_id("stChatInput").locator("textarea")
        for n, question in enumerate((QUESTION, "And who was older?", "Where were they born?"), 1):
            box.fill(question)
            box.press("Enter")
            page.get_by_text(f"Saved to History as run #{n}").wait_for()
    else:
        page.get_by_test_id("stSidebarNav").get_by_text("Arena", exact=True).click()
        page.get_by_role("button", name="Figure 1").click()
        _settled(page)
        page.locator(".st-key-arena-question textarea").fill(QUESTION)
        page.locator(".st-key-arena-question textarea").press("Tab")
        _settled(page)
        page.locator(".st-key-arena-run button").click()
        page.locator(".st-key-arena-clear button").wait_for()
    page.wait_for_timeout(2000)
    _settled(page)


def one_round(browser, home: Path, pack: Path, root: Path, which: str) -> tuple[float, float]:
    """Chromium's and the server's CPU seconds for one full rerun of the finished page (medians of RERUNS)."""
    with scripted_app(home, pack, root) as (url, pgid):
        context = browser.new_context(viewport={"width": 1280, "height": 1400})
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(url)
        page.get_by_test_id("stChatInput").wait_for()
        _draw(page, which)
        page.wait_for_timeout(3000)
        idle_began, idle = chromium_cpu(), time.perf_counter()
        page.wait_for_timeout(3000)
        idle_rate = (chromium_cpu() - idle_began) / (time.perf_counter() - idle)
        browser_cpu, server_cpu = [], []
        for _ in range(RERUNS):
            c, s, t = chromium_cpu(), group_cpu(pgid), time.perf_counter()
            page.evaluate("document.activeElement && document.activeElement.blur()")  # the key is not typed
            page.keyboard.press("r")
            page.wait_for_timeout(300)
            _settled(page)
            page.wait_for_timeout(SETTLE_MS)
            browser_cpu.append(chromium_cpu() - c - idle_rate * (time.perf_counter() - t))
            server_cpu.append(group_cpu(pgid) - s)
        context.close()
        return median(browser_cpu), median(server_cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1, help="rounds per page and code (default 1)")
    add_before(parser)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from bench.bench_local import build_pack

    codes = checkouts(args)
    found: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        pack = build_pack(Path(tmp))
        for n in range(args.rounds):
            for i, (code, root) in enumerate(codes.items()):
                for which in ("chat", "arena"):
                    took = one_round(browser, Path(tmp) / f"{i}{which}{n}", pack, root, which)
                    found.setdefault((code, which), []).append(took)
                    print(code, which, f"Chromium {took[0]:.3f} CPU-s, server {took[1]:.3f} CPU-s", flush=True)
        browser.close()
    rows = [
        [
            code,
            which,
            f"{median([b for b, _ in found[code, which]]):.3f}",
            f"{median([s for _, s in found[code, which]]):.3f}",
        ]
        for code in codes
        for which in ("chat", "arena")
    ]
    body = (
        f"One full rerun of a finished page, CPU seconds, medians of {RERUNS} reruns a round ({args.rounds} round(s)): "
        "*chat*, three finished 3-step turns with the paper's 6-shot prompt (scripted model, offline pack); *arena*, "
        "Figure 1 after every column ended. Chromium's CPU is less its idle use over the same time.\n\n"
    )
    body += table(["code", "page", "Chromium CPU-s a rerun", "server CPU-s a rerun"], rows)
    body += (
        "\n\nA running turn or arena gets one full rerun per finished step (and per ended column), on the cores the "
        "on-device model computes on. Since 90c49c1 a closed step panel or run header draws nothing until it is "
        "opened (each step's panel held its whole model call, the prompt four times over), and a running arena "
        "draws no column editors."
    )
    write_section("rerun-cpu", "Chat and Arena pages: the CPU of one full rerun", body)


if __name__ == "__main__":
    main()
