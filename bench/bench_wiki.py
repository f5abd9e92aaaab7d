"""Knowledge-layer benchmark: HTTP requests and wall time per Search hit, miss, Lookup and repeated Search.

Runs, side by side against the same local MediaWiki server (50 ms added to every answer), our live client and the
request pattern of the old ``wikipedia`` package as the Gemini ReAct notebook uses it (``summary`` + ``page().url``
per Search, ``wikipedia.search`` on a miss, ``page().content`` per Lookup). Also times the offline pack (build and
Search), and the time and peak memory of one Search against hostile servers (a 50 MB answer, an answer sent one byte a
second) under the client's default limits. Writes the ``wiki`` section of docs/benchmarks.md.

The ``wikipedia`` package is a comparison only, never a dependency: when it is not importable, this script installs
``wikipedia==1.4.0`` and ``beautifulsoup4`` with pip into a folder of its own under the user cache
(``<user cache>/react-lab/bench-wikipedia``), not into the venv; ``--no-install`` skips the comparison instead.
Run: ``.venv/bin/python bench/bench_wiki.py [--n 20] [--delay-ms 50] [--no-install]``.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script
    sys.path.insert(0, str(ROOT))

from bench.common import table, write_section  # noqa: E402
from react_core.base.paths import shared_data_dir  # noqa: E402
from react_core.knowledge.api_client import MAX_BODY_BYTES, REQUEST_TIMEOUT  # noqa: E402
from react_core.knowledge.pack import PackSource  # noqa: E402
from react_core.knowledge.pack_build import build_pack  # noqa: E402
from react_core.knowledge.server import WikiServer, start_wiki_server  # noqa: E402
from react_core.knowledge.wikipedia import WikipediaSource  # noqa: E402
from react_core.tools.wiki import make_wiki_tools  # noqa: E402

OPERATIONS = ("Search hit", "Search miss", "Lookup", "repeated Search")


def old_wikipedia_package(install: bool) -> Any | None:
    """The ``wikipedia`` module, installed on demand into a private folder; None when unavailable."""
    try:
        return importlib.import_module("wikipedia")
    except ImportError:
        pass
    from platformdirs import user_cache_dir

    target = Path(user_cache_dir("react-lab", appauthor=False)) / "bench-wikipedia"
    if str(target) not in sys.path:
        sys.path.insert(0, str(target))
    try:
        return importlib.import_module("wikipedia")
    except ImportError:
        if not install:
            return None
    print(f"Installing wikipedia==1.4.0 (comparison only) into {target} …", file=sys.stderr)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target)]
    done = subprocess.run([*cmd, "wikipedia==1.4.0", "beautifulsoup4", "soupsieve"], check=False)
    if done.returncode != 0:
        return None
    importlib.invalidate_caches()
    try:
        return importlib.import_module("wikipedia")
    except ImportError:
        return None


def measure(server: WikiServer, calls: list[Callable[[], object]]) -> tuple[float, float]:
    """(requests per call, median milliseconds per call)."""
    before = server.requests
    times = []
    for call in calls:
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return (server.requests - before) / len(calls), statistics.median(times)


def run_ours(server: WikiServer, hits: list[str], misses: list[str], keywords: list[str]) -> dict[str, tuple]:
    source = WikipediaSource(server.url, fallback_pack=None)
    search, lookup = (t.function for t in make_wiki_tools(source))
    results = {}
    pairs = list(zip(hits, keywords, strict=True))
    results["Search hit"] = measure(server, [lambda t=t: search(t) for t in hits])
    results["Search miss"] = measure(server, [lambda t=t: search(t) for t in misses])
    # Lookup runs on the page of the Search before it; only the Lookup is timed and counted.
    lookups = []
    for title, keyword in pairs:
        search(title)
        lookups.append(measure(server, [lambda k=keyword: lookup(k)]))
    results["Lookup"] = (statistics.mean(r for r, _ in lookups), statistics.median(ms for _, ms in lookups))
    results["repeated Search"] = measure(server, [lambda t=t: search(t) for t in hits])
    source.shutdown()
    return results


def run_old(wikipedia: Any, server: WikiServer, hits: list[str], misses: list[str]) -> dict[str, tuple]:
    """The Gemini ReAct notebook's tools over the ``wikipedia`` package, pointed at the local server."""
    wikipedia.wikipedia.API_URL = server.url
    errors = (wikipedia.exceptions.PageError, wikipedia.exceptions.DisambiguationError)

    def search(query: str) -> str:
        try:
            text = wikipedia.summary(query, sentences=4, auto_suggest=False)
            url = wikipedia.page(query, auto_suggest=False).url
            return f"{text} ({url})"
        except errors:
            return f"Could not find [{query}]. Similar: {wikipedia.search(query)}."

    def lookup(query: str) -> str:
        return wikipedia.page(query, auto_suggest=False).content

    return {
        "Search hit": measure(server, [lambda t=t: search(t) for t in hits]),
        "Search miss": measure(server, [lambda t=t: search(t) for t in misses]),
        "Lookup": measure(server, [lambda t=t: lookup(t) for t in hits]),
        "repeated Search": measure(server, [lambda t=t: search(t) for t in hits]),
    }


def pack_figures(pack: PackSource, hits: list[str], misses: list[str]) -> tuple[float, float]:
    def median_ms(entities: list[str]) -> float:
        times = []
        for e in entities:
            started = time.perf_counter()
            pack.search(e)
            times.append((time.perf_counter() - started) * 1000)
        return statistics.median(times)

    return median_ms(hits), median_ms(misses)


HOSTILE = (
    ("a 50 MB answer (no Content-Length)", {"kind": "huge", "size": 50_000_000}),
    ("the answer one byte a second", {"kind": "trickle", "seconds": 1.0}),
)


def hostile_figures(pack_path: Path, title: str) -> list[list[object]]:
    """One Search per hostile server with the default limits: seconds, peak Python memory and what the model sees."""
    rows: list[list[object]] = []
    with start_wiki_server(pack_path) as server:
        for label, fault in HOSTILE:
            server.reset()
            server.inject(**fault)  # type: ignore[arg-type]
            source = WikipediaSource(server.url, fallback_pack=None)
            search = make_wiki_tools(source)[0].function
            tracemalloc.start()
            started = time.perf_counter()
            obs = search(title)
            seconds = time.perf_counter() - started
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            source.shutdown()
            shown = obs.text.split(" failed: ", 1)[-1].split(". Try again")[0]
            rows.append([label, f"{seconds:.2f}", f"{peak / 1e6:.1f}", shown])
        server.reset()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20, help="titles per operation (default 20)")
    parser.add_argument("--delay-ms", type=float, default=50.0, help="added to every server answer (default 50)")
    parser.add_argument("--no-install", action="store_true", help="skip the comparison if wikipedia is missing")
    args = parser.parse_args(argv)

    files = sorted((shared_data_dir() / "hotpotqa").glob("dev_distractor_*.json"))
    with tempfile.TemporaryDirectory() as tmp:
        stats = build_pack(files, Path(tmp) / "pack.sqlite")
        pack_mb = stats.size_bytes / 1e6
        pack = PackSource(stats.path)
        hits = [t for t in pack.titles() if len(pack.entry(t).sentences) >= 2][: args.n]
        misses = [f"{t} zzq" for t in hits]
        keywords = [pack.entry(t).sentences[1].split()[0] for t in hits]
        pack_hit_ms, pack_miss_ms = pack_figures(pack, hits, misses)
        hostile = hostile_figures(stats.path, hits[0])
        with start_wiki_server(stats.path, delay_ms=args.delay_ms) as server:
            ours = run_ours(server, hits, misses, keywords)
            wikipedia = old_wikipedia_package(install=not args.no_install)
            old = run_old(wikipedia, server, hits, misses) if wikipedia else None

    headers = ["operation", "ours: requests", "ours: ms (median)"]
    if old:
        headers += ["`wikipedia` pattern: requests", "`wikipedia` pattern: ms (median)"]
    rows = []
    for op in OPERATIONS:
        row: list[object] = [op, f"{ours[op][0]:.1f}", f"{ours[op][1]:.1f}"]
        if old:
            row += [f"{old[op][0]:.1f}", f"{old[op][1]:.1f}"]
        rows.append(row)
    body = (
        f"Local MediaWiki server (`wiki-server`) with {args.delay_ms:.0f} ms added to every answer; "
        f"{args.n} titles per operation (HotpotQA articles with at least two sentences; misses are the same "
        "titles plus ` zzq`). Requests are counted by the server. "
        + (
            "The `wikipedia` column is package 1.4.0 used as the Gemini ReAct notebook does: `summary(q, sentences=4)` "
            "+ `page(q).url` per Search, `search(q)` after a miss, `page(q).content` per Lookup."
            if old
            else "The `wikipedia` package was not available (run without --no-install to compare)."
        )
        + "\n\n"
        + table(headers, rows)
        + "\n\n"
        + f"Offline pack: built from {stats.questions} questions ({stats.articles:,} articles, "
        f"{pack_mb:.1f} MB) in {stats.seconds:.2f} s; Search without HTTP takes "
        f"{pack_hit_ms:.2f} ms per hit and {pack_miss_ms:.2f} ms per miss (median)."
        + "\n\n"
        + f"Hostile servers: one Search with the default limits (`request_timeout` {REQUEST_TIMEOUT:g} s, "
        f"`max_body_bytes` {MAX_BODY_BYTES / 1e6:g} MB). Peak memory is Python's (tracemalloc) during the Search; "
        "before these limits the 50 MB answer took 16.5 s and about 990 MB, and the trickle held the Search for 200 s."
        + "\n\n"
        + table(["server", "seconds", "peak MB", "error observation (why)"], hostile)
    )
    write_section("wiki", "Knowledge: requests and latency per Search and Lookup", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
