"""The knowledge layer from the command line: ``pack build``, ``wiki-server``, ``ask --knowledge …``, and the
default pack built on first need."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from wiki_helpers import closed_port, hotpot_pack, hotpotqa_files

from react_core.base.paths import pack_file
from react_core.knowledge.default_pack import ensure_default_pack
from react_core.knowledge.server import start_wiki_server

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = [
    "Thought 1: I need to search Scott Derrickson.\nAction 1: Search[Scott Derrickson]",
    "Thought 2: Find his nationality.\nAction 2: Lookup[American]",
    "Thought 3: He is American.\nAction 3: Finish[American]",
]


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "react_core", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def script(tmp_path) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(SCRIPT))
    return str(path)


def observations(stdout: str) -> list[dict]:
    return [s["observation"] for s in json.loads(stdout)["steps"] if s["observation"]]


def test_pack_build_prints_counts(tmp_path):
    out = cli("pack", "build", "--hotpotqa", *map(str, hotpotqa_files()), "--out", str(tmp_path / "p.sqlite"))
    assert out.returncode == 0, out.stderr
    assert "1,963 articles" in out.stdout and "200 questions in 2 file(s)" in out.stdout
    assert (tmp_path / "p.sqlite").is_file()


def test_pack_build_bad_input_exits_2_with_one_line(tmp_path):
    out = cli("pack", "build", "--hotpotqa", str(tmp_path / "missing.json"), "--out", str(tmp_path / "p.sqlite"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Cannot read" in out.stderr
    assert cli("pack", "build", "--out", "x.sqlite").returncode == 2


def test_wiki_server_rejects_bad_arguments():
    assert "not found" in cli("wiki-server", "--pack", "/nonexistent/pack.sqlite").stderr
    bad_port = cli("wiki-server", "--pack", str(hotpot_pack()), "--port", "70000")
    assert bad_port.returncode == 2 and "--port" in bad_port.stderr


def test_wiki_server_serves_until_interrupted():
    proc = subprocess.Popen(
        [sys.executable, "-m", "react_core", "wiki-server", "--pack", str(hotpot_pack()), "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            assert sel.select(timeout=30), "the server printed nothing"
        line = proc.stdout.readline()
        assert "1,963 articles" in line
        url = line.split(" at ", 1)[1].split(";", 1)[0]
        params = {"action": "query", "format": "json", "formatversion": "2", "titles": "Ed Wood", "prop": "info"}
        assert httpx2.get(url, params=params, timeout=10).json()["query"]["pages"][0]["title"] == "Ed Wood"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=60)  # a bound for a loaded machine, not a speed check
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"the server did not stop on Ctrl-C: {proc.communicate()[1][-2000:]}") from None
    assert code == 0


def test_ask_with_the_pack_records_sources_and_zero_requests(script):
    out = cli(
        "ask", "Nationality?", "--provider", "scripted", "--script", script, "--knowledge", f"pack:{hotpot_pack()}"
    )
    assert out.returncode == 0, out.stderr
    assert "source: Scott Derrickson <https://en.wikipedia.org/wiki/Scott_Derrickson>" in out.stdout
    out = cli(
        "ask", "Q?", "--provider", "scripted", "--script", script, "--knowledge", f"pack:{hotpot_pack()}", "--json"
    )
    search, lookup = observations(out.stdout)
    assert search["sources"][0]["title"] == "Scott Derrickson" and search["stats"]["http_requests"] == 0
    assert lookup["text"].startswith("(Result 1 / 1) Scott Derrickson (born July 16, 1966) is an American")


def test_ask_with_wikipedia_at_the_local_server_counts_requests(script, tmp_path):
    with start_wiki_server(hotpot_pack()) as srv:
        out = cli(
            "ask",
            "Q?",
            *("--provider", "scripted", "--script", script, "--json"),
            *("--knowledge", "wikipedia", "--wiki-url", srv.url),
            env={"REACT_PACK": str(tmp_path / "unused.sqlite")},
        )
        assert out.returncode == 0, out.stderr
        assert srv.requests == 1
    search, lookup = observations(out.stdout)
    assert search["stats"]["http_requests"] == 1 and lookup["stats"]["http_requests"] == 0
    assert (
        search["sources"]
        == [{"title": "Scott Derrickson", "url": "https://en.wikipedia.org/wiki/Scott_Derrickson", "revision": 100002}]
        or search["sources"][0]["revision"] is not None
    )
    assert json.loads(out.stdout)["totals"]["http_requests"] == 1


def test_ask_offline_falls_back_to_the_default_pack_and_says_so(script, tmp_path):
    out = cli(
        "ask",
        "Q?",
        *("--provider", "scripted", "--script", script, "--json"),
        *("--knowledge", "wikipedia", "--wiki-url", f"http://127.0.0.1:{closed_port()}/w/api.php"),
        env={"REACT_PACK": str(tmp_path / "default.sqlite")},
    )
    assert out.returncode == 0, out.stderr
    search, lookup = observations(out.stdout)
    assert search["note"].startswith("Wikipedia could not be reached; answered from the offline pack")
    assert search["text"].startswith("Scott Derrickson (born July 16, 1966)") and not search["is_error"]
    assert lookup["note"] == search["note"]
    assert (tmp_path / "default.sqlite").is_file()


def test_default_pack_location_and_building(tmp_path, monkeypatch):
    shared = hotpotqa_files()[0].parent.parent
    monkeypatch.setenv("REACT_PACK", str(tmp_path / "cache" / "pack.sqlite"))
    monkeypatch.setenv("REACT_SHARED_DATA", str(tmp_path / "no-shared-data"))
    assert ensure_default_pack() is None
    monkeypatch.setenv("REACT_SHARED_DATA", str(shared))
    built = ensure_default_pack()
    assert built == tmp_path / "cache" / "pack.sqlite" and built.is_file()
    stamp = built.stat().st_mtime_ns
    assert ensure_default_pack() == built and built.stat().st_mtime_ns == stamp  # reused, not rebuilt
    built.write_bytes(b"not a pack")
    assert ensure_default_pack() == built and built.stat().st_size > 1000  # a broken file is rebuilt
    assert pack_file() == built
