"""What the real-browser tests share: ``streamlit run app.py`` in its own process group on a free port (stopped with
its whole group), Debian's Chromium driven by Playwright (never a downloaded browser), and small page helpers."""

from __future__ import annotations

import contextlib
import os
import re
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
# How long a journey waits for what it expects the page to show: a cap for a loaded machine (several test runs and a
# model's training at once), never a delay and never a speed assertion.
WAIT_MS = 60_000
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


def open_page(browser, url: str, height: int = 900, *, width: int = 1280, wait_for_chat: bool = True):
    context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
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


def settled(page) -> None:
    """Wait until the app's script run has ended, by Streamlit's own state on its root element: what the last action
    changed is drawn, and the next action is not lost in a rerun. (A run the last action has not started yet is not
    waited for: wait for what that action shows first.)"""
    page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(state="attached")


def painted(page) -> None:
    """Wait until the page is drawn as its last run left it, for a picture: the run has ended and what the page fetches
    after it (a table's rows, a code block's highlighter) has arrived."""
    settled(page)
    page.wait_for_load_state("networkidle")


def scroll_to(locator) -> None:
    """Scroll ``locator``'s element into view. A Streamlit rerun may replace the element between playwright finding it
    and scrolling to it ("Element is not attached to the DOM", which playwright does not retry): it is found again,
    for up to WAIT_MS."""
    from playwright.sync_api import Error

    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        try:
            locator.scroll_into_view_if_needed()
            return
        except Error as e:
            if "not attached" not in str(e) or time.monotonic() > deadline:
                raise


def reveal(page, target, is_open, open_it) -> None:
    """Wait for ``target``, drawn behind a control that a rerun may close again (an expander, a select's list): once no
    rerun is under way the control is opened when ``is_open()`` says it is closed (a click on an open one would close
    it), and looked at again each second until ``target`` shows, for at most WAIT_MS."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        settled(page)
        if not is_open():
            open_it()
        try:
            target.wait_for(timeout=1_000)
            return
        except PlaywrightTimeout:
            assert time.monotonic() < deadline, f"{target} never showed"


def uploaded(page, file_name: str) -> None:
    """Wait until a file chosen in a file uploader has reached the app: its chip shows, without the spinner of an
    upload under way, and the rerun that hands it to the app has ended."""
    chip = page.get_by_test_id("stFileChip").filter(has_text=file_name)
    chip.wait_for()
    chip.get_by_test_id("stFileChipIconSpinner").wait_for(state="detached")
    settled(page)


def set_slider(page, label: str, steps: int, shown: str) -> None:
    """A Settings slider moved by the keyboard to its minimum (Home) and ``steps`` steps up, where its thumb shows
    ``shown``, and kept: the slider sends its value after a debounce, and a page change before then loses it. So the
    page is left and opened again until the slider, drawn from the session, shows ``shown``."""
    box = page.get_by_test_id("stSlider").filter(has_text=label)
    thumb = box.get_by_test_id("stSliderThumbValue")
    for _ in range(3):
        nav(page, "Settings")
        settled(page)
        if thumb.inner_text().strip() == shown:
            return
        slider = box.get_by_role("slider")
        slider.focus()
        slider.press("Home")
        for _ in range(steps):
            slider.press("ArrowRight")
        thumb.filter(has_text=re.compile(rf"^{re.escape(shown)}$")).wait_for()
        settled(page)
        nav(page, "Chat")
    raise AssertionError(f"{label} did not keep {shown}")


def set_max_calls(page, n: int) -> None:
    set_slider(page, "Max model calls", n - 1, str(n))


def shot(page, name: str, top: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if top:  # Streamlit scrolls its main area, not the window
        page.evaluate("for (const el of document.querySelectorAll('*')) { if (el.scrollTop > 0) el.scrollTop = 0 }")
    painted(page)
    page.screenshot(path=str(SHOTS / name), full_page=False)
