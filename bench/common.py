"""Shared by the benchmarks: the machine description and writing one section of docs/benchmarks.md.

Each benchmark owns one section, delimited by ``<!-- bench:NAME -->`` / ``<!-- /bench:NAME -->``, and rewrites only
that section, so benchmarks can be rerun one at a time or all together (``make bench``).
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
HEADER = """# Benchmarks

Figures written by the scripts in `bench/` (`make bench` reruns all of them). Each section says when and on what
machine it ran. Tests never assert on these numbers; they are here to be read and compared.
"""


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split("\n")[0].split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}, {platform.system()}"


def git_revision() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def add_before(parser) -> None:
    """``--before DIR`` and ``--label``: another checkout to run in the same run, for a before/after table."""
    parser.add_argument("--before", type=Path, help="a checkout of other code to compare with, in the same run")
    parser.add_argument("--label", default="main", help="what --before is, for the table (default main)")


def checkouts(args) -> dict[str, Path]:
    """The checkouts a bench runs, by their name in its table: ``--before``'s first, then this one."""
    found = {f"this branch (`{git_revision()}`)": ROOT}
    return {args.label: args.before.resolve(), **found} if args.before else found


def stamp() -> str:
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"_Ran {now} at commit `{git_revision()}` on {machine()}._"


def write_section(name: str, title: str, body: str, doc: Path = DOC) -> None:
    """Replace (or append) this benchmark's section of ``doc`` (docs/benchmarks.md) and print it."""
    section = f"<!-- bench:{name} -->\n## {title}\n\n{stamp()}\n\n{body.strip()}\n<!-- /bench:{name} -->"
    text = doc.read_text(encoding="utf-8") if doc.exists() else HEADER
    pattern = re.compile(rf"<!-- bench:{re.escape(name)} -->.*?<!-- /bench:{re.escape(name)} -->", re.DOTALL)
    text = pattern.sub(lambda _m: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    print(section)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(headers: list[str], rows: list[list[object]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)
