"""The deployment topology of docs/deployment.md ("Serving a team or a classroom"), in a real browser: two app replicas
(``streamlit run app.py`` processes) share one model server (our ``llama_server`` with the on-device Gemma, reached
through the ``openai`` provider) and one PostgreSQL history, instead of each loading llama.cpp.

A question asked on each replica streams (its first step's text is on the page while the model server's answer is
held part-way by a pass-through, as a load balancer would sit in front of it) and lands in the one shared history,
which either replica's History page reads (local mode: everyone shares one history; settings remembered on one
replica are the next session's on the other). Neither app process maps llama.cpp; the model server does. Every
process is started by this test and stopped by its own PID (or process group).
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from browser_helpers import ask, chromium, nav, needs_chromium, open_page, streamlit
from provider_helpers import LlamaServer, StreamHold, wait_for

from react_core.history import open_history
from react_core.providers.local import default_model_path

pytestmark = [pytest.mark.model, pytest.mark.model_server, pytest.mark.browser, needs_chromium]

# Two questions the demo model's greedy first step ends early on (at its Observation, some thirty tokens in): on
# others it writes its whole 400-token budget, a minute of the one-core model server's time that checks nothing more.
QUESTIONS = (
    "Were Scott Derrickson and Ed Wood of the same nationality?",
    "Are the Laleli Mosque and Esma Sultan Mansion located in the same neighborhood?",
)
TURN_MS = 240_000  # a whole turn of the on-device model on a loaded 2-core machine; never a speed assertion
LIBLLAMA = "libllama"


def process_tree(pid: int) -> list[int]:
    """The process and all its descendants (read from /proc)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                todo += [int(child) for child in task.read_text().split()]
    return found


def maps_llama(pid: int) -> bool:
    return any(LIBLLAMA in Path(f"/proc/{p}/maps").read_text() for p in process_tree(pid))


def _ask_and_watch_it_stream(page, hold: StreamHold, question: str, max_calls: int) -> str:
    """Ask, see the first step's text on the page while the model server's answer is held part-way, let it go on,
    and wait for the finished turn to be saved. Returns the partial text the browser showed."""
    hold.hold_next()
    ask(page, question)
    assert hold.holding.wait(timeout=TURN_MS / 1000), "the model server never streamed an answer"
    live = page.get_by_test_id("stExpander").filter(has_text="writing…").get_by_test_id("stText")
    live.filter(has_text=re.compile(r"\w")).wait_for(timeout=TURN_MS)
    partial = live.inner_text()
    # Still running: the rest of the model's answer has not left the pass-through yet.
    status = page.get_by_text(re.compile(r"Thinking… step \d+ of \d+"))
    status.wait_for()
    assert status.inner_text() == f"Thinking… step 1 of {max_calls}"
    # The app's Stop (Streamlit's header shows a Stop of its own while a script runs).
    assert page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop").count() == 1
    hold.release()
    page.get_by_role("link", name="Saved to History as run #").wait_for(timeout=TURN_MS)
    assert page.get_by_test_id("stException").count() == 0
    assert page.get_by_role("button", name="Retry").count() == 0  # no provider failure
    return partial


def _remembered_calls(postgres_url: str) -> int | None:
    return (open_history("", url=postgres_url).last_settings() or {}).get("max_calls")


@pytest.fixture(scope="module")
def model_server():
    server = LlamaServer(default_model_path(None))
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.timeout(900)  # two turns of the on-device model, up to 400 tokens a call, on a shared 2-core machine
def test_two_replicas_share_one_model_server_and_one_postgres_history(model_server, postgres_url, tmp_path):
    hold = StreamHold(model_server.base_url.removesuffix("/v1"))
    env = {
        "REACT_PROVIDER": "openai",
        "REACT_BASE_URL": hold.base_url,
        "REACT_MODEL": "gemma-3-270m",  # any name: the server serves one model (and not a reasoning model's rules)
        "REACT_HISTORY_URL": postgres_url,
    }
    with contextlib.ExitStack() as stack:
        stack.callback(hold.stop)
        homes = [tmp_path / "replica-a", tmp_path / "replica-b"]
        for home in homes:
            home.mkdir()
        replicas = [stack.enter_context(streamlit(home, [], env=env)) for home in homes]
        browser = stack.enter_context(chromium())
        (ca, a) = open_page(browser, replicas[0]["url"])
        stack.callback(ca.close)

        # A smaller budget, set on replica A, is remembered in the shared history: B's new session starts with it.
        # One call a turn also keeps the test short: each call reads a ~1,700-token prompt on a shared 2-core box.
        nav(a, "Settings")
        slider = a.get_by_role("slider", name="Max model calls")
        slider.focus()
        # One key, one change: several quick ones would each start a script run, and Streamlit's fast reruns let an
        # older run's widget value land after a newer one's on a loaded machine.
        slider.press("Home")  # 8 -> 1, the slider's minimum
        a.get_by_role("group", name="Max model calls").get_by_test_id("stSliderThumbValue").filter(
            has_text="1"
        ).wait_for()
        # The value reaches the server in a script run of its own: leaving the page first could drop it.
        assert wait_for(lambda: _remembered_calls(postgres_url) == 1, timeout=60), "the budget was not remembered"
        nav(a, "Chat")
        partial_a = _ask_and_watch_it_stream(a, hold, QUESTIONS[0], max_calls=1)

        assert _remembered_calls(postgres_url) == 1
        (cb, b) = open_page(browser, replicas[1]["url"])
        stack.callback(cb.close)
        partial_b = _ask_and_watch_it_stream(b, hold, QUESTIONS[1], max_calls=1)
        assert partial_a.strip() and partial_b.strip()

        # One history: each replica's History page lists both runs.
        for page in (a, b):
            nav(page, "History")
            runs = page.get_by_role("tabpanel", name="Runs")
            for question in QUESTIONS:
                runs.get_by_text(question).wait_for()
        store = open_history("", url=postgres_url)
        records = [store.get(r.id) for r in store.list()]
        assert sorted(r.question for r in records) == sorted(QUESTIONS)
        for record in records:
            assert record.provider == "openai" and record.trace.steps and record.trace.settings["max_calls"] == 1
            assert record.model == "gemma-3-270m"
        assert hold.streams >= sum(r.steps for r in records)  # every model call went to the one model server

        # The model lives in the model server only.
        assert maps_llama(model_server.proc.pid)
        for replica in replicas:
            assert not maps_llama(replica["pid"]), "an app replica loaded llama.cpp"
