"""Load: one app server on this machine with 1, 5 and 20 browser sessions asking questions at once, in a loop.

The sessions are Playwright contexts in one Debian Chromium (never a downloaded browser); ``load_sessions`` drives
them and takes the times the page sees. Four configurations, each row on a fresh server:

* ``scripted``: the scripted provider, two model calls a turn with a fixed delay each (``--delay``), so the model is
  not the bottleneck and the figures are the app's own (Streamlit, the background turn, the history store);
* ``on-device``: the in-process llama.cpp model (Gemma 3 270M), one model shared by all sessions behind a lock;
* ``on-device-1-thread``: the same with ``REACT_LLAMA_THREADS=1``, leaving a core to the server and the browsers;
* ``postgres``: the scripted provider again, with the history in PostgreSQL (a real server from Debian's package,
  started as the tests start it) instead of SQLite.

Besides the browser's times: the server's memory (RSS of the server process and its children, idle and peak, sampled
every 0.2 s), the CPU used by the server and by the load driver (this script, Playwright and Chromium, on the same
cores), the engine's own time per turn and the model calls made (both read back from the history the server wrote),
and errors (must be 0). Writes the ``load`` section of docs/benchmarks.md. Run: ``.venv/bin/python
bench/bench_load.py [--seconds 60] [--sessions 1,5,20] [--configs scripted,on-device,on-device-1-thread,postgres]
[--delay 0.5]`` (about 20 minutes with the defaults).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the PostgreSQL server the history tests use

from bench.common import table, write_section  # noqa: E402
from bench.load_sessions import CHROMIUM, Load  # noqa: E402
from react_core.base.paths import shared_data_dir  # noqa: E402
from react_core.history import open_history  # noqa: E402

HOTPOTQA = "dev_distractor_first100.json"
TURN = [  # the scripted provider's turn: one Search, then the answer
    "Thought 1: I need to search Scott Derrickson.\nAction 1: Search[Scott Derrickson]",
    "Thought 2: Scott Derrickson is American.\nAction 2: Finish[American]",
]
TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Figures:
    """What one row of the table reports, besides the browser's own figures (``Load``)."""

    config: str
    load: Load
    engine: list[float] = field(default_factory=list)  # each finished turn's seconds, as the engine timed it
    calls: int = 0  # model calls the saved runs made during the load (stopped turns' included)
    rss_idle_mb: float = 0.0
    rss_peak_mb: float = 0.0
    server_cpu: float = 0.0  # share of one core, from the start of the load to its end
    driver_cpu: float = 0.0
    elapsed: float = 0.0  # from the start of the load until every session had finished
    load_average: float = 0.0  # the machine's 1-minute load average at the end (others' work included)


# -- processes ----------------------------------------------------------------------------------------------------


def tree(pid: int) -> list[int]:
    """A process and its descendants, from /proc."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for children in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                todo += [int(c) for c in children.read_text().split()]
            except OSError:
                pass
    return found


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            # utime, stime, and those of its children that have exited (a browser's closed pages)
            total += sum(int(f) for f in fields[11:15])
        except (OSError, IndexError, ValueError):
            pass
    return total / TICK


class Sampler:
    """The peak RSS of a process tree, sampled on a thread."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak = pid, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, rss_mb(tree(self.pid)))

    def reset(self) -> None:
        self.peak = rss_mb(tree(self.pid))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def app_server(env: dict[str, str], home: Path) -> Iterator[tuple[str, int]]:
    """``streamlit run app.py`` in its own process group; stopped by that group when done."""
    port = _free_port()
    log = (home / "streamlit.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited: {(home / 'streamlit.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.1)
        yield url, proc.pid
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        log.close()


def measure(config: str, env: dict[str, str], home: Path, sessions: int, args, questions: list[str]) -> Figures:
    with app_server(env, home) as (url, pid):
        load = Load(url, sessions, args.seconds, args.grace, args.turn_timeout, questions)
        figures = Figures(config, load)
        sampler = Sampler(pid)
        cpu: dict[str, float] = {}

        def driver() -> list[int]:
            others = {p for root in (pid, *args.other_servers) for p in tree(root)}
            return [p for p in tree(os.getpid()) if p not in others]

        def on_start() -> None:
            figures.rss_idle_mb = rss_mb(tree(pid))
            sampler.reset()
            cpu.update(server=cpu_seconds(tree(pid)), driver=cpu_seconds(driver()), at=time.monotonic())

        def on_end() -> None:
            figures.elapsed = time.monotonic() - cpu["at"]
            figures.server_cpu = (cpu_seconds(tree(pid)) - cpu["server"]) / figures.elapsed
            figures.driver_cpu = (cpu_seconds(driver()) - cpu["driver"]) / figures.elapsed
            figures.load_average = os.getloadavg()[0]

        try:
            load.run(on_start, on_end)
        finally:
            sampler.stop()
        figures.rss_peak_mb = sampler.peak
    # From the history the server wrote (newest first; the last is the warm-up turn).
    store = open_history("", url=env.get("REACT_HISTORY_URL", ""), path=env["REACT_HISTORY_DB"])
    runs = store.list(limit=100_000)[:-1]
    figures.engine = [r.seconds for r in runs if r.stop_reason != "cancelled"]
    figures.calls = sum(r.steps for r in runs)
    return figures


# -- configurations and the report ------------------------------------------------------------------------------


def quantile(values: list[float], q: float) -> float:
    """Nearest-rank quantile; infinite values (a turn stopped before it showed anything) sort last."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def seconds(value: float) -> str:
    return "∞" if math.isinf(value) else "—" if math.isnan(value) else f"{value:.1f}"


def spread(values: list[float]) -> str:
    return f"{seconds(quantile(values, 0.5))} / {seconds(quantile(values, 0.95))}"


def _env(home: Path, pack: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REACT_") and not k.endswith("_API_KEY")}
    env.pop("OPENAI_BASE_URL", None)
    return {
        **env,
        "REACT_KNOWLEDGE": f"pack:{pack}",
        "REACT_DATA_DIR": str(home / "data"),
        "REACT_HISTORY_DB": str(home / "history.sqlite"),
        "REACT_PRESETS_DIR": str(home / "presets"),
        "REACT_SECRETS_PATH": "",
        **extra,
    }


HEADERS = [
    "configuration", "sessions", "turns (stopped at the end)", "turns / min", "model calls / min",
    "first step text, s (median / p95)", "answer, s (median / p95)", "engine's turn, s (median)",
    "server RSS, MB (idle → peak)", "server CPU", "browser + driver CPU", "load average", "errors",
]  # fmt: skip


def row(f: Figures) -> list[object]:
    load = f.load
    done = [t for t in load.turns if t.answer is not None]
    stopped = len(load.turns) - len(done)
    window = max([load.stop_at, *(t.end for t in done)]) - load.began
    firsts = [math.inf if t.first is None else t.first for t in load.turns]
    return [
        f.config,
        load.sessions,
        f"{len(done)} ({stopped})",
        f"{len(done) / window * 60:.1f}",
        f"{f.calls / f.elapsed * 60:.0f}",
        spread(firsts),
        spread([t.answer for t in done]),
        seconds(quantile(f.engine, 0.5)),
        f"{f.rss_idle_mb:.0f} → {f.rss_peak_mb:.0f}",
        f"{f.server_cpu * 100:.0f} %",
        f"{f.driver_cpu * 100:.0f} %",
        f"{f.load_average:.1f}",
        len(load.errors),
    ]


def report(results: list[Figures], args) -> str:
    body = table(HEADERS, [row(f) for f in results])
    errors = sorted({e for f in results for e in f.load.errors})
    if errors:
        body += "\n\n**Errors seen:** " + "; ".join(errors[:8])
    body += "\n\n" + HOW.format(
        seconds=args.seconds, grace=args.grace, delay=args.delay, floor=2 * args.delay, cores=os.cpu_count()
    )
    return body


HOW = """\
**How it was measured.** Each row is a fresh `streamlit run app.py` on this machine and one Chromium with N browser
sessions (Playwright contexts), after one untimed warm-up turn. Each session asks a HotpotQA question, waits for the
turn to be saved, presses New chat and asks the next, for {seconds:.0f} s; a turn asked before the end has {grace:.0f} s
more to finish, after which it is stopped (Stop) and counted in brackets, not as an error. Times run from the Enter key
to the first step text on the page (the thought streaming in) and to the saved turn, as the page sees them (a
MutationObserver in each page); ∞ means more than that share of turns were stopped before they showed any text.
Turns per minute count finished turns over the time to the last of them; model calls per minute count every call the
saved runs made (stopped ones' too). The engine's turn is the trace's own time, from the history. CPU is a share of one
core ({cores} cores in all, 100 % = one core busy), from the start of the load to its end; the browser and this driver
run on the same cores as the server. The load average includes whatever else the machine was running.
`scripted`: two model calls a turn, {delay} s each (a turn's floor is about {floor:.1f} s plus two Searches of the
offline pack). `on-device`: the in-process Gemma 3 270M with the default settings (paper preset, up to 8 calls,
every core); `on-device-1-thread`: the same with `REACT_LLAMA_THREADS=1`.
`postgres`: `scripted` with `REACT_HISTORY_URL` on a local PostgreSQL server (the tests' own, from Debian's package).
Errors count any exception, error or warning message on the page, failed turn or timeout.

Command: `.venv/bin/python bench/bench_load.py [--seconds 60] [--sessions 1,5,20]
[--configs scripted,on-device,on-device-1-thread,postgres] [--delay 0.5] [--grace 30]` (about 20 minutes)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="load window per row (default 60)")
    parser.add_argument("--sessions", default="1,5,20", help="concurrent browser sessions (default 1,5,20)")
    parser.add_argument("--configs", default="scripted,on-device,on-device-1-thread,postgres")
    parser.add_argument("--delay", type=float, default=0.5, help="scripted provider's seconds per call (default 0.5)")
    parser.add_argument("--grace", type=float, default=30, help="seconds a turn asked in time has to finish")
    parser.add_argument("--turn-timeout", type=float, default=600, help="a turn longer than this is an error")
    parser.add_argument("--no-doc", action="store_true", help="print the figures without writing the document")
    args = parser.parse_args()
    args.other_servers = []  # processes that are neither the app server nor the load driver
    if not CHROMIUM.exists():
        sys.exit("bench_load needs Debian's Chromium: apt-get install -y chromium")

    from react_core.knowledge.pack_build import build_pack

    source = shared_data_dir() / "hotpotqa" / HOTPOTQA
    questions = [row["question"] for row in json.loads(source.read_text(encoding="utf-8"))]
    results: list[Figures] = []
    with tempfile.TemporaryDirectory(prefix="react-load-") as tmp:
        folder = Path(tmp)
        pack = folder / "pack.sqlite"
        build_pack([source], pack)
        script = folder / "script.json"
        script.write_text(json.dumps([{"text": t, "delay": args.delay} for t in TURN] * 1000), encoding="utf-8")
        postgres = None
        try:
            for config in args.configs.split(","):
                for sessions in [int(n) for n in args.sessions.split(",")]:
                    home = Path(tempfile.mkdtemp(dir=folder, prefix=f"{config}-{sessions}-"))
                    if config == "on-device":
                        env = _env(home, pack, REACT_PROVIDER="local")
                    elif config == "on-device-1-thread":
                        env = _env(home, pack, REACT_PROVIDER="local", REACT_LLAMA_THREADS="1")
                    elif config == "scripted":
                        env = _env(home, pack, REACT_PROVIDER="scripted", REACT_SCRIPT=str(script))
                    elif config == "postgres":
                        if postgres is None:
                            postgres = _postgres()
                            args.other_servers = [postgres.proc.pid]
                        schema = f"load{sessions}"
                        postgres.execute(f"CREATE SCHEMA {schema}")
                        env = _env(home, pack, REACT_PROVIDER="scripted", REACT_SCRIPT=str(script),
                                   REACT_HISTORY_URL=postgres.url(schema))  # fmt: skip
                    else:
                        sys.exit(f"unknown configuration {config!r}: see --configs")
                    print(f"== {config}, {sessions} sessions", flush=True)
                    figures = measure(config, env, home, sessions, args, questions)
                    print(" | ".join(str(c) for c in row(figures)), figures.load.errors[:3], flush=True)
                    results.append(figures)
        finally:
            if postgres is not None:
                postgres.stop()
    body = report(results, args)
    if args.no_doc:
        print(body)
    else:
        write_section("load", "Load: concurrent browser sessions on one app server", body)


def _postgres():
    from pg_helpers import PostgresServer, initdb_path

    initdb = initdb_path()
    if initdb is None:
        sys.exit("the postgres configuration needs Debian's postgresql package: apt-get install postgresql")
    server = PostgresServer(initdb.parent)
    server.start()
    return server


if __name__ == "__main__":
    main()
