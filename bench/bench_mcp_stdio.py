"""One large result from a stdio MCP server, measured: the process's peak memory (ru_maxrss) and the seconds the call
took, for an image and a text of each size, each in a fresh process (``--worker``) so one peak does not hide another.

The server is the tests' own (``tests/mcp_server.py stdio``, its ``big`` tool). Prints one line a case; nothing is
written. Run: ``.venv/bin/python bench/bench_mcp_stdio.py [--sizes 20000000,50000000]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def worker(size: int, image: bool) -> None:
    sys.path.insert(0, str(ROOT))
    from react_core.base.trace import Action
    from react_core.tools.mcp import mcp_tools
    from react_core.tools.mcp_client import POOL
    from react_core.tools.mcp_config import server_config
    from react_core.tools.registry import ToolRegistry

    config = server_config(
        "big", {"command": sys.executable, "args": [str(ROOT / "tests" / "mcp_server.py"), "stdio"], "timeout": 120}
    )
    tools = ToolRegistry(mcp_tools(["big_big"], [config]))  # connected: the server is up before the figures start
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    observation = tools.run(Action("big_big", json.dumps({"size": size, "image": image})))  # as a run calls it
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    POOL.close_all()
    outcome = f"{'an error' if observation.is_error else 'a result'}: {observation.text[:120]}"
    print(
        json.dumps(
            {"before_mb": before // 1024, "peak_mb": peak // 1024, "seconds": round(seconds, 2), "outcome": outcome}
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20000000,50000000")
    parser.add_argument("--worker", nargs=2, metavar=("SIZE", "KIND"))
    args = parser.parse_args()
    if args.worker:
        worker(int(args.worker[0]), args.worker[1] == "image")
        return
    for size in (int(s) for s in args.sizes.split(",")):
        for kind in ("image", "text"):
            out = subprocess.run(
                [sys.executable, __file__, "--worker", str(size), kind], capture_output=True, text=True, check=False
            )
            line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr.strip()[-300:]
            print(f"{kind} of {size:,} bytes: {line}")


if __name__ == "__main__":
    main()
