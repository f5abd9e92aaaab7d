"""Helpers for the app's tests: an offline pack, scripts for the scripted provider, an AppTest per
browser session pointed at its own history file, and waiting for a background turn without timing assertions.
"""

from __future__ import annotations

import atexit
import functools
import json
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import apptest_shim  # noqa: F401 - AppTest sees pages/ as st.navigation does (see that module)
import pytest
import streamlit as st
from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest

from react_core.base.trace import STOP_REASONS
from react_core.providers.local import LocalProvider
from react_core.providers.quota import CallWindows
from react_core.report.signs import Verdict
from ui.chat import job_registry as registry
from ui.chat.live import RUNNING_ICON

# Every new AppTest scans the metadata of every installed package for Streamlit components (a tenth of a second each,
# a fifth of the app tests' time); the packages do not change while the tests run, so one scan a process serves all.
manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"
APP_TIMEOUT = 20  # seconds for one script run; generous for a loaded CI machine (never a speed assertion)

# A conversation over the offline pack: a missed Search (with Similar titles), two hits, a grounded answer.
NATIONALITY_Q = "What nationality do Scott Derrickson and Ed Wood share?"
NATIONALITY_SCRIPT = [
    "Thought 1: I need to search Scott Derrickson first.\nAction 1: Search[Scott Derickson film]",
    "Thought 2: The search missed; try the exact name.\nAction 2: Search[Scott Derrickson]",
    "Thought 3: Scott Derrickson is American. Now Ed Wood.\nAction 3: Search[Ed Wood]",
    "Thought 4: Both are American.\nAction 4: Finish[American]",
]


_packs: dict[str, Path] = {}


def offline_pack() -> Path:
    """An offline knowledge pack built (once per test process, about 0.3 s) from the first 100 HotpotQA questions."""
    if "hotpotqa" not in _packs:
        from react_core.base.paths import shared_data_dir
        from react_core.knowledge.pack_build import build_pack

        source = shared_data_dir() / "hotpotqa" / "dev_distractor_first100.json"
        if not source.is_file():
            pytest.fail(
                f"shared data not found at {source}: set REACT_SHARED_DATA or place ../shared beside the project"
            )
        folder = Path(tempfile.mkdtemp(prefix="react-app-pack-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        build_pack([source], folder / "hotpotqa.sqlite")
        _packs["hotpotqa"] = folder / "hotpotqa.sqlite"
    return _packs["hotpotqa"]


def write_script(path: Path, outputs: list[Any]) -> Path:
    path.write_text(json.dumps(outputs), encoding="utf-8")
    return path


def use_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, outputs: list[Any] = ()) -> Path:
    """Point the app at a script of model outputs, the offline pack, and this test's own history, presets and data
    (evaluations: another test's results never show in this one's lists).

    Keys and secrets from the machine are hidden, so no test can reach a hosted provider. Returns the script path.
    """
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "REACT_MODEL", "REACT_PRESET"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("REACT_SECRETS_PATH", "")
    monkeypatch.setenv("REACT_PROVIDER", "scripted")
    monkeypatch.setenv("REACT_KNOWLEDGE", f"pack:{offline_pack()}")
    monkeypatch.setenv("REACT_HISTORY_DB", str(tmp_path / "history.sqlite"))
    monkeypatch.setenv("REACT_PRESETS_DIR", str(tmp_path / "presets"))
    monkeypatch.setenv("REACT_DATA_DIR", str(tmp_path / "data"))
    script = write_script(tmp_path / "script.json", list(outputs))
    monkeypatch.setenv("REACT_SCRIPT", str(script))
    st.cache_data.clear()  # a fresh server: lists cached for an earlier test's history never show in this one
    # The public demo's call windows are the server process's: each test starts with none (every AppTest session
    # connects from "this machine", one visitor).
    monkeypatch.setattr(registry, "windows", CallWindows())
    # Choosing the on-device model in a page warms it up in the background: it would load Gemma and read a preset on
    # the cores the other tests share. The warm-up has tests of its own (test_app_warmup, test_provider_local_exact).
    monkeypatch.setattr(LocalProvider, "warm", lambda self, prefix, ahead="": None)
    return script


def new_session() -> AppTest:
    """A fresh browser session (its own session state) on the app, first page drawn."""
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    return at


def wait_idle(at: AppTest, timeout: float = 30.0) -> AppTest:
    """Rerun until the background turn is collected (a browser's live fragment does the same on a timer)."""
    deadline = time.monotonic() + timeout
    while at.session_state.job is not None:
        job = at.session_state.job
        job.wait(0.05)
        at.run()
        assert time.monotonic() < deadline, "the turn did not finish"
    assert not at.exception, at.exception
    return at


def ask(at: AppTest, question: str) -> AppTest:
    at.chat_input[0].set_value(question).run()
    assert not at.exception, at.exception
    return wait_idle(at)


def unescape(label: str) -> str:
    """A Markdown-escaped label as a person reads it."""
    return re.sub(r"\\(.)", r"\1", label).replace("\u200b", "")


def run_headers(at: AppTest) -> list:
    """Each turn's header, in page order: a running turn's (wearing RUNNING_ICON), a finished run's (wearing its
    sign)."""
    signs = {s.icon for s in Verdict.SIGNS.values()}
    found = []

    def walk(node) -> None:
        said = node.type == "expander" and node.label.startswith(tuple(f"{r} · " for r in STOP_REASONS.values()))
        if node.type == "expander" and (node.icon == RUNNING_ICON or (said and node.icon in signs)):
            found.append(node)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return found


def expander_labels(at: AppTest) -> list[str]:
    return [unescape(e.label) for e in step_expanders(at)]


def step_expanders(at: AppTest) -> list:
    """The expanders other than the runs' headers (compared by identity: elements compare equal by their fields)."""
    headers = {id(h) for h in run_headers(at)}
    return [e for e in at.expander if id(e) not in headers]


def open_panels(at: AppTest) -> AppTest:
    """Open every closed panel whose content is drawn only while open (``ui/shared/render.py lazy_panel``: a step's
    panel, a run's header), as a person clicks each one (each click reruns the page), until none is left closed."""
    for _ in range(10):
        closed = [e.proto.id.split("-", 2)[2] for e in at.expander if e.proto.id and not e.proto.expanded]
        if not closed:
            return at
        for key in closed:
            at.session_state[key] = True
        at.run()
        assert not at.exception, at.exception
    raise AssertionError("panels kept closing")


def texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text]


def markdowns(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def provider(at: AppTest):
    """This session's provider object (the scripted one records every request it was sent)."""
    return at.session_state.provider_slot["provider"]


def button(at: AppTest, key: str):
    return at.button(key=key)


def last_trace(at: AppTest) -> dict[str, Any]:
    return at.session_state.chat["turns"][-1].trace.to_dict()


def fork_thought(at: AppTest, run_id: int, step: int, thought: str) -> AppTest:
    """On History's open run: fork it from ``step`` with its Thought edited, and wait for the fork to finish."""
    at.selectbox(key=f"fork-step-{run_id}").set_value(step).run()
    at.text_area(key=f"fork-text-{run_id}-{step}-thought").input(thought).run()
    at.button(key="fork-run").click().run()
    return wait_idle(at)


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, at.exception
    return at


def nav(at: AppTest, page: str) -> AppTest:
    """A click on the page's name in the sidebar. Streamlit's frontend drops every query parameter not bound to a
    widget when st.navigation changes page (``go`` keeps them, as AppTest's switch_page does)."""
    at.query_params.clear()
    return go(at, page)


def reload(at: AppTest) -> AppTest:
    """The same browser tab loaded again: a new session with the same address."""
    again = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
    for name, value in at.query_params.items():
        again.query_params[name] = value
    again.run()
    assert not again.exception, again.exception
    return again


def run_evaluation_and_wait(at: AppTest, timeout: float = 30.0) -> AppTest:
    """Click the Evaluate page's Run, wait for its job to finish, and draw the page again."""
    at.button(key="eval-run").click().run()
    assert not at.exception, at.exception
    assert at.session_state.eval_job.wait(timeout), "the evaluation did not finish"
    at.run()
    assert not at.exception, at.exception
    return at
