"""The browser side of bench_load: N sessions (Playwright contexts in one Chromium) asking questions in a loop.

Each session asks, waits for its turn to be saved ("Saved to History as run #"), presses New chat and asks the next
question, until the window closes. A turn asked before then has ``grace`` seconds more to finish; after that it is
stopped (Stop) and counted as unfinished, not as an error. Times come from the page itself: a MutationObserver
installed before each question notes the Enter key, the first step text in the answer and the saved turn.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    # Twenty pages side by side: none of them may be slowed down as a hidden tab would be.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]

STOP_PRESS_MS = 60_000
# Installed before each question. window.__turn.first resolves at the first step text in the answer,
# window.__turn.done when the turn is saved or fails; both with browser timestamps (ms) from the Enter key.
WATCH_JS = """
() => {
  const w = {t0: null, at: null};
  let seen, resolve;
  w.first = new Promise(r => { seen = r; });
  w.done = new Promise(r => { resolve = r; });
  window.__turn = w;
  const onKey = e => { if (e.key === 'Enter' && w.t0 === null) w.t0 = performance.now(); };
  document.addEventListener('keydown', onKey, true);
  let obs;
  const finish = error => {
    obs.disconnect();
    document.removeEventListener('keydown', onKey, true);
    resolve({t0: w.t0, first: w.at, end: performance.now(), error});
  };
  const check = () => {
    if (w.t0 === null) return;
    const exc = document.querySelector('[data-testid="stException"]');
    if (exc) return finish('exception: ' + exc.textContent.slice(0, 160));
    // Any error message, and any warning outside the sidebar (which always notes the on-device demo model).
    for (const alert of document.querySelectorAll(
        '[data-testid="stAlertContentError"], [data-testid="stAlertContentWarning"]')) {
      if (alert.dataset.testid.endsWith('Error') || !alert.closest('[data-testid="stSidebar"]')) {
        return finish('message: ' + alert.textContent.slice(0, 160));
      }
    }
    const msgs = document.querySelectorAll('[data-testid="stChatMessage"]');
    const last = msgs[msgs.length - 1];
    if (!last || !last.querySelector('[data-testid="stChatMessageAvatarAssistant"]')) return;
    if (w.at === null) {
      for (const el of last.querySelectorAll('[data-testid="stText"]')) {
        const t = el.textContent.trim();
        if (t && t !== '\\u2026') { w.at = performance.now(); seen(w.at - w.t0); break; }
      }
    }
    for (const a of last.querySelectorAll('a')) {
      if (a.textContent.includes('Saved to History as run #')) return finish(null);
    }
    for (const b of last.querySelectorAll('button')) {
      if (b.textContent.includes('Retry')) return finish('the turn failed (Retry shown)');
    }
  };
  obs = new MutationObserver(check);
  obs.observe(document.body, {subtree: true, childList: true, characterData: true});
}
"""


@dataclass
class Turn:
    first: float | None  # seconds from Enter to the first step text (None: none before it was stopped)
    answer: float | None  # seconds from Enter to the saved turn (None: unfinished, stopped at the end)
    end: float  # monotonic seconds (this process) when it was saved


@dataclass
class Load:
    """One load run against the app at ``url``: ``sessions`` browser sessions for ``seconds``."""

    url: str
    sessions: int
    seconds: float
    grace: float
    turn_timeout: float
    questions: list[str]
    turns: list[Turn] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    began: float = 0.0
    stop_at: float = float("inf")
    _ready: int = 0

    @property
    def cutoff(self) -> float:
        return self.stop_at + self.grace

    def run(self, on_start: Callable[[], None], on_end: Callable[[], None]) -> None:
        asyncio.run(self._run(on_start, on_end))

    async def _run(self, on_start, on_end) -> None:
        from playwright.async_api import async_playwright

        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            try:
                await self._warm_up(browser)
                started, contexts = asyncio.Event(), []
                n = self.sessions
                tasks = [
                    asyncio.create_task(self._session(browser, self.questions[i::n], started, contexts))
                    for i in range(n)
                ]
                while self._ready < n and not any(t.done() for t in tasks):
                    await asyncio.sleep(0.1)
                on_start()
                self.began = time.monotonic()
                self.stop_at = self.began + self.seconds
                started.set()
                for t in await asyncio.gather(*tasks, return_exceptions=True):
                    if isinstance(t, BaseException):
                        self.errors.append(f"{type(t).__name__}: {t}")
                on_end()  # before the pages close, so their CPU time is still counted
                for context in contexts:
                    await context.close()
            finally:
                await browser.close()

    async def _warm_up(self, browser) -> None:
        """Untimed: the first script run, the model's loading, the first database connection; stopped once the
        first step text shows (a whole turn of the on-device model is not needed for that)."""
        context, page = await self._open(browser)
        await self._ask(page, self.questions[-1])
        await asyncio.wait_for(page.evaluate("window.__turn.first"), self.turn_timeout)
        await self._stop(page)
        await context.close()

    async def _open(self, browser):
        context = await browser.new_context(viewport={"width": 1100, "height": 900})
        page = await context.new_page()
        page.set_default_timeout(120_000)
        await page.goto(self.url)
        await page.get_by_test_id("stChatInput").locator("textarea").wait_for()
        return context, page

    async def _ask(self, page, question: str) -> float:
        await page.evaluate(WATCH_JS)
        box = page.get_by_test_id("stChatInput").locator("textarea")
        await box.fill(question)
        sent = time.monotonic()
        await box.press("Enter")
        return sent

    async def _stop(self, page) -> dict:
        # The app's Stop, not Streamlit's own header button that stops a script run. Pressed as soon as the page
        # lets it be (with 20 sessions on two cores that took more than 5 s, and an unpressed Stop let the turn run
        # on for minutes), unless the turn ends first.
        stop = page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop")
        done = asyncio.ensure_future(page.evaluate("window.__turn.done"))
        press = asyncio.ensure_future(stop.click(timeout=STOP_PRESS_MS))
        await asyncio.wait({done, press}, return_when=asyncio.FIRST_COMPLETED)
        if done.done():
            if press.done():
                press.exception()  # a press that failed because the turn ended first is no error
            else:
                press.cancel()
        elif press.exception() is not None:
            done.cancel()
            raise TimeoutError("the app's Stop could not be pressed within a minute")
        return await asyncio.wait_for(done, 120)

    async def _session(self, browser, questions: list[str], started: asyncio.Event, contexts: list) -> None:
        context, page = await self._open(browser)
        self._ready += 1
        await started.wait()
        n = 0
        try:
            while time.monotonic() < self.stop_at:
                try:
                    if n:
                        await page.get_by_test_id("stSidebar").get_by_role("button", name="New chat").click()
                        await page.get_by_test_id("stChatMessage").first.wait_for(state="detached")
                    await self._turn(page, questions[n % len(questions)])
                except Exception as e:  # a timeout or a broken page: counted, then a fresh session goes on
                    self.errors.append(f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:160]}")
                    await context.close()
                    context, page = await self._open(browser)
                n += 1
        finally:
            contexts.append(context)

    async def _turn(self, page, question: str) -> None:
        sent = await self._ask(page, question)
        limit = min(sent + self.turn_timeout, self.cutoff)
        finished = True
        try:
            result = await asyncio.wait_for(page.evaluate("window.__turn.done"), max(0.1, limit - time.monotonic()))
        except TimeoutError:
            if limit < self.cutoff:
                raise TimeoutError(f"a turn took longer than {self.turn_timeout:.0f} s") from None
            result, finished = await self._stop(page), False
        if result["error"]:
            self.errors.append(result["error"])
            return
        first = (result["first"] - result["t0"]) / 1000 if result["first"] is not None else None
        if finished and first is None:
            self.errors.append("the turn ended without any step text")
            return
        answer = (result["end"] - result["t0"]) / 1000 if finished else None
        self.turns.append(Turn(first, answer, time.monotonic()))
