"""App start-up: importing the app and drawing its first page, against a bare Streamlit hello page.

Three figures per app, medians over fresh interpreters/servers (nothing is warm between runs):

* process: a fresh Python imports Streamlit's test runner and draws the first page (``AppTest.run``), wall time;
* first run: the first ``AppTest.run`` alone (the app's own imports and rendering; Streamlit already imported);
* browser: a fresh ``streamlit run`` server, then Chromium opens the page until its first widget shows
  (skipped without /usr/bin/chromium).

The target is the process ratio ≤ 1.3× the hello page: SDKs and llama.cpp are imported only when a turn uses them
(the figures also list which heavy modules the first render loaded: none is expected). Writes the ``app`` section
of docs/benchmarks.md. Run: ``.venv/bin/python bench/bench_app.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, median, table, write_section

HELLO = 'import streamlit as st\n\nst.title("Hello")\nst.chat_input("Say something")\n'
HEAVY = ("openai", "google.genai", "llama_cpp", "httpx2")
PROBE = """
import json, sys, time
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=120)
t1 = time.perf_counter()
at.run()
t2 = time.perf_counter()
assert not at.exception, at.exception
heavy = [m for m in HEAVY if m in sys.modules]
print(json.dumps({"first_run": t2 - t1, "heavy": heavy}))
""".replace("HEAVY", repr(HEAVY))
CHROMIUM = Path("/usr/bin/chromium")


def _env(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "REACT_PROVIDER": "local",  # the default for a person without keys; must not load the model to render
        "REACT_HISTORY_DB": str(home / "history.sqlite"),
        "REACT_PRESETS_DIR": str(home / "presets"),
        "REACT_SECRETS_PATH": "",
    }


def process_run(script: Path, env: dict[str, str]) -> tuple[float, float, list[str]]:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(script)], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - started
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return wall, data["first_run"], data["heavy"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def browser_run(script: Path, env: dict[str, str], browser) -> float:
    """Seconds from opening the page on a fresh server to its chat input being visible."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.1)
        page = browser.new_page()
        started = time.perf_counter()
        page.goto(url)
        page.get_by_test_id("stChatInput").wait_for(timeout=120_000)
        seconds = time.perf_counter() - started
        page.close()
        return seconds
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per app (default 7)")
    parser.add_argument("--browser-runs", type=int, default=5, help="fresh servers per app (default 5; 0 skips)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        hello = home / "hello.py"
        hello.write_text(HELLO)
        env = _env(home)
        apps = {"hello page": hello, "ReAct Lab": ROOT / "app.py"}
        results: dict[str, dict[str, list[float]]] = {name: {} for name in apps}
        heavy_seen: set[str] = set()
        for script in apps.values():
            process_run(script, env)  # one untimed run each: the OS file cache is warm for both apps alike
        # Interleaved, so a machine getting busier or quieter during the benchmark affects both apps alike.
        for _ in range(args.runs):
            for name, script in apps.items():
                wall, first, heavy = process_run(script, env)
                results[name].setdefault("process", []).append(wall)
                results[name].setdefault("first_run", []).append(first)
                if script != hello:
                    heavy_seen.update(heavy)

        if args.browser_runs and CHROMIUM.exists():
            from playwright.sync_api import sync_playwright

            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
                )
                for _ in range(args.browser_runs):
                    for name, script in apps.items():
                        results[name].setdefault("browser", []).append(browser_run(script, env, browser))
                browser.close()

    base = {k: median(v) for k, v in results["hello page"].items()}
    app = {k: median(v) for k, v in results["ReAct Lab"].items()}
    rows = []
    for key, label in (
        ("process", "import + first render (fresh process)"),
        ("first_run", "first script run only"),
        ("browser", "browser: open page → first widget (fresh server)"),
    ):
        if key in app:
            rows.append(
                [label, f"{base[key] * 1000:,.0f} ms", f"{app[key] * 1000:,.0f} ms", f"{app[key] / base[key]:.2f}×"]
            )
    ratio = app["process"] / base["process"]
    body = table(["measure (median)", "hello page", "ReAct Lab", "ratio"], rows)
    body += (
        f"\n\nTarget: import + first render ≤ 1.3× the hello page — **{ratio:.2f}×, "
        f"{'met' if ratio <= 1.3 else 'NOT met'}**. {args.runs} fresh processes"
        + (f" and {args.browser_runs} fresh servers" if "browser" in app else "")
        + " per app. Heavy modules loaded by the first render: "
        + (", ".join(sorted(heavy_seen)) if heavy_seen else "none (openai, google.genai, llama_cpp, httpx2 all absent)")
        + ". The first script run pays for importing the engine (prompts, formats, tools) and reading presets."
    )
    write_section("app", "App start-up (app.py vs a bare Streamlit page)", body)


if __name__ == "__main__":
    main()
