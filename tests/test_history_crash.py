"""A process killed mid-run (SIGKILL: no cleanup at all) leaves every earlier history entry intact.

Two processes are killed: one saving large runs in a tight loop (so the kill lands inside a write), and the app
itself (through AppTest) while a turn is running after two finished ones. The store is then reopened.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from app_helpers import ROOT, offline_pack

from react_core.history import HistoryStore

WRITER = """
import sys
from react_core.history import HistoryStore
from react_core.base.trace import Observation, Step, Trace
store = HistoryStore(sys.argv[1])
big = "x" * 400_000
i = 0
while True:
    store.save(Trace(question=f"q{i}", steps=[Step(1, thought="t", observation=Observation(big))], final_answer=str(i),
                     stop_reason="finished"))
    i += 1
    if i == 5:
        print("ready", flush=True)
"""

APP_SESSION = """
import os, sys, time
sys.path.insert(0, "tests")
import apptest_shim
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=30).run()
for q in ("first", "second", "third"):
    at.chat_input[0].set_value(q).run()
    while q != "third" and at.session_state.job is not None:
        at.session_state.job.wait(0.05)
        at.run()
print("running", flush=True)
time.sleep(60)
"""


def _start(code: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


def _kill_after(proc: subprocess.Popen, line: str) -> None:
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == line
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def _intact(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_killing_a_writer_mid_save_keeps_every_committed_run(tmp_path):
    db = tmp_path / "h.sqlite"
    proc = _start(WRITER, str(db))
    _kill_after(proc, "ready")
    _intact(db)
    store = HistoryStore(db)
    records = store.list(limit=10_000)
    assert len(records) >= 5
    assert {f"q{i}" for i in range(5)} <= {r.question for r in records}
    for r in records:  # every row that is there is whole
        assert store.get(r.id).trace.steps[0].observation.text == "x" * 400_000


def test_killing_the_app_mid_turn_keeps_the_finished_turns(tmp_path):
    db = tmp_path / "h.sqlite"
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                "Thought 1: a\nAction 1: Finish[one]",
                "Thought 1: b\nAction 1: Finish[two]",
                {"text": "Thought 1: slow\nAction 1: Finish[never]", "delay": 60},
            ]
        )
    )
    env = {
        **os.environ,
        "REACT_PROVIDER": "scripted",
        "REACT_SCRIPT": str(script),
        "REACT_KNOWLEDGE": f"pack:{offline_pack()}",
        "REACT_HISTORY_DB": str(db),
        "REACT_PRESETS_DIR": str(tmp_path / "presets"),
        "REACT_SECRETS_PATH": "",
    }
    proc = _start(APP_SESSION, str(ROOT / "app.py"), env=env)
    _kill_after(proc, "running")
    _intact(db)
    store = HistoryStore(db)
    assert [(r.question, r.final_answer) for r in store.list()] == [("second", "two"), ("first", "one")]
