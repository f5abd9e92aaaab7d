"""Helpers for the knowledge-layer tests: packs (the shared HotpotQA one, a small hand-made one), the gold titles of
the 200 shared questions, a free-but-closed port, and a Wikipedia source wired for fast, recorded retries.

Plain functions (not fixtures) so any test module can use them; the HotpotQA pack is built once per process.
"""

from __future__ import annotations

import atexit
import html
import json
import os
import shutil
import socket
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

import pytest

from react_core.knowledge.pack_build import PackWriter, build_pack
from react_core.knowledge.wikipedia import WikipediaSource

ROOT = Path(__file__).resolve().parent.parent
_cache: dict[str, Path] = {}


def shared_data_dir() -> Path:
    path = Path(os.environ.get("REACT_SHARED_DATA") or ROOT.parent / "shared" / "data")
    if not (path / "hotpotqa").is_dir():
        pytest.fail(f"shared data not found at {path}: set REACT_SHARED_DATA or place ../shared beside the project")
    return path


def hotpotqa_files() -> list[Path]:
    return sorted((shared_data_dir() / "hotpotqa").glob("dev_distractor_*.json"))


def _scratch() -> Path:
    if "scratch" not in _cache:
        path = Path(tempfile.mkdtemp(prefix="react-wiki-tests-"))
        atexit.register(shutil.rmtree, path, ignore_errors=True)
        _cache["scratch"] = path
    return _cache["scratch"]


def hotpot_pack() -> Path:
    """The pack of all 1,963 shared HotpotQA articles, built once per test process."""
    if "hotpot" not in _cache:
        _cache["hotpot"] = build_pack(hotpotqa_files(), _scratch() / "hotpot.sqlite").path
    return _cache["hotpot"]


def gold_articles() -> dict[str, list[str]]:
    """Every supporting-fact title of the 200 shared questions -> that article's HotpotQA sentences. Titles are
    unescaped, as Wikipedia names the pages (HotpotQA writes ``X&amp;Y`` for ``X&Y``)."""
    gold: dict[str, list[str]] = {}
    for f in hotpotqa_files():
        for record in json.loads(f.read_text(encoding="utf-8")):
            context = dict(zip(record["context"]["title"], record["context"]["sentences"], strict=True))
            for title in record["supporting_facts"]["title"]:
                gold.setdefault(html.unescape(title), context[title])
    return gold


HTML_PAGE_TEXT = (
    'The <b>Widget</b> &amp; Gadget Company<ref name="a">cite me</ref> is a maker of widgets.[3] '
    "It was founded by Dr. J. R. Smith in 1901 in St. Louis.[12][a]\n"
    "Its widgets weigh 3.5 kg each. &lt;script&gt;alert(1)&lt;/script&gt;Nobody knows why.\n"
    "== History ==\n"
    "The company moved to Boston in 1950. The company was sold in 1999.\n"
    "=== Later years ===\n"
    "It makes gadgets now.\n"
    "== References ==\n"
    "Smith, J. (1990). The company history. Widget Press.\n"
    "== External links ==\n"
    "Official website.\n"
)


def small_pack(path: Path) -> Path:
    """Hand-made pages for the cases HotpotQA lacks: markup and sections, disambiguation, redirects, unicode."""
    with PackWriter(path, description="test pages") as w:
        w.add_page("Widget Company", text=HTML_PAGE_TEXT, revision=4242)
        w.add_page(
            "Mercury",
            ["Mercury may refer to:"],
            disambiguation=True,
            links=["Freddie Mercury", "Mercury (planet)", "Mercury (element)"],
        )
        w.add_page("Mercury (planet)", ["Mercury is the smallest planet.", " It is closest to the Sun."])
        w.add_page("Mercury (element)", ["Mercury is a chemical element.", " Its symbol is Hg."])
        w.add_page("Freddie Mercury", ["Freddie Mercury was a British singer."])
        w.add_page("Zürich", ["Zürich is the largest city in Switzerland.", " It lies on Lake Zürich."])
        w.add_page("東京", ["東京は日本の首都です。"])
        w.add_page("C Sharp (programming language)", ["C# is a programming language.", " It runs on .NET."])
        # Sentences 3, 6, 9 hold "Alpha"; the rest "Beta" (HotpotQA style: a leading space separates sentences).
        long = ["Sentence zero."] + [f" {'Alpha' if i % 3 == 0 else 'Beta'} sentence number {i}." for i in range(1, 12)]
        w.add_page("Long Page", long)
    # No pack the project builds has redirects (HotpotQA's paragraphs hold none): these rows are written into the
    # pack format's table as another tool's pack could hold them, for the reader and the local server to follow.
    with closing(sqlite3.connect(path)) as db, db:
        db.executemany(
            "INSERT INTO redirects(source, target) VALUES (?, ?)",
            [("Quicksilver (planet)", "Mercury (planet)"), ("Zurich", "Zürich")],
        )
    return path


def close_shared_sources() -> None:
    """Forget and close the process-wide Wikipedia sources (``WikipediaSource.create``), so that no test's client
    outlives its server or is handed to the next test."""
    with WikipediaSource._shared_lock:
        sources, WikipediaSource._shared = list(WikipediaSource._shared.values()), {}
    for source in sources:
        source.shutdown()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RecordedSleep:
    """Stands in for time.sleep: records the waits a client asked for, returns at once."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def live_source(url: str, **options) -> WikipediaSource:
    """A private (unshared) Wikipedia source for one test: short timeouts, no fallback, recorded sleeps."""
    options.setdefault("fallback_pack", None)
    options.setdefault("connect_timeout", 2.0)
    options.setdefault("read_timeout", 5.0)
    options.setdefault("sleep", RecordedSleep())
    return WikipediaSource(url, **options)
