"""The files docs/architecture.md and the README say a chat question passes through are the files that run: a scripted
question (a Calculator step, then Finish) is asked in AppTest with a profiler on every thread, and each file the table
lists must have run (a file moved or renamed without the docs following fails here)."""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path

from app_helpers import new_session, use_app, wait_idle

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"
NUMBERS = {"fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20}


def _listed() -> list[str]:
    section = ARCHITECTURE.read_text(encoding="utf-8").split("## A chat question, file by file")[1].split("\n## ")[0]
    return re.findall(r"^\| \d+ \| `([^`]+)` \|", section, flags=re.M)


def _ran(monkeypatch, tmp_path) -> set[str]:
    use_app(monkeypatch, tmp_path, [" I compute.\nAction 1: Calculator[6 * 7]", " It is 42.\nAction 2: Finish[42]"])
    at = new_session()
    seen: set[str] = set()

    def profile(frame, event, _arg):
        if event == "call":
            seen.add(frame.f_code.co_filename)

    sys.setprofile(profile)
    threading.setprofile(profile)  # the script runs and the job run on threads of their own
    try:
        at.chat_input[0].set_value("What is 6 * 7?").run()
        at = wait_idle(at)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    assert any("42" in str(h.value) for h in at.subheader), "the question was not answered"
    return {Path(f).resolve().relative_to(ROOT).as_posix() for f in seen if Path(f).resolve().is_relative_to(ROOT)}


def test_every_file_the_docs_list_for_a_chat_question_runs_on_one(monkeypatch, tmp_path):
    listed = _listed()
    assert len(listed) >= 10, "the table of docs/architecture.md was not found"
    ran = _ran(monkeypatch, tmp_path)
    assert [f for f in listed if f not in ran] == []


def test_the_docs_and_the_readme_give_the_same_count_and_the_same_files():
    listed = _listed()
    doc = ARCHITECTURE.read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for text in (doc, readme):
        word = re.search(r"A (?:chat )?question(?: typed in Chat)? passes through (\w+) files", text).group(1)
        assert NUMBERS[word] == len(listed)
    said = " ".join(readme.split("## How it is built")[1].split("\n## ")[0].split())
    assert [f for f in listed if f"`{f}`" not in said] == []
