"""What the real-browser tests share: ``streamlit run app.py`` in its own process group on a free port (stopped with
its whole group), Debian's Chromium driven by Playwright (never a downloaded browser), and small page helpers."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from app_helpers import ROOT, offline_pack, write_script

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 20_000  # generous waits for a loaded machine; never a speed assertion
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's Chromium: apt-get install -y chromium"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"streamlit did not become healthy:\n{log.read_text()[-3000:]}")


@contextlib.contextmanager
def streamlit(
    home: Path, script: list, *, env: dict[str, str] | None = None, args: list[str] = (), port: int | None = None
) -> Iterator[dict]:
    """The app on 127.0.0.1 with the scripted provider, the offline pack and its own history in ``home``."""
    port = port or free_port()
    environment = {
        **os.environ,
        "REACT_PROVIDER": "scripted",
        "REACT_SCRIPT": str(write_script(home / "script.json", script)),
        "REACT_KNOWLEDGE": f"pack:{offline_pack()}",
        "REACT_HISTORY_DB": str(home / "history.sqlite"),
        "REACT_PRESETS_DIR": str(home / "presets"),
        "REACT_SECRETS_PATH": "",
        **(env or {}),
    }
    log = home / "streamlit.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), *args],
            cwd=ROOT,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log)
        yield {"url": url, "home": home, "log": log, "pid": proc.pid}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)


@contextlib.contextmanager
def chromium() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        # launch() gives every run a fresh temporary profile (its own --user-data-dir).
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def open_page(browser, url: str, height: int = 900, *, wait_for_chat: bool = True):
    context = browser.new_context(viewport={"width": 1280, "height": height}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    if wait_for_chat:
        page.get_by_test_id("stChatInput").locator("textarea").wait_for()
    return context, page


def ask(page, question: str) -> None:
    box = page.get_by_test_id("stChatInput").locator("textarea")
    box.fill(question)
    box.press("Enter")


def nav(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()
    page.get_by_role("heading", name=title).wait_for()


def shot(page, name: str, top: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if top:  # Streamlit scrolls its main area, not the window
        page.evaluate("for (const el of document.querySelectorAll('*')) { if (el.scrollTop > 0) el.scrollTop = 0 }")
    page.wait_for_timeout(300)  # let the last rerun settle so the picture is not mid-paint
    page.screenshot(path=str(SHOTS / name), full_page=False)
