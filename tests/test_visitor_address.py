"""Who a visitor is, on a real Streamlit server: ``ui.shared.identity.visitor`` reads the address Streamlit gives a
browser session, which behind a proxy on this machine is the one the proxy forwards in X-Forwarded-For (uvicorn trusts
127.0.0.1 and ::1 by default), the same for every connection from that visitor, and "this machine" for a connection
that forwards none. docs/deployment.md tells operators exactly this; a Streamlit that changed it fails here.

Each session is a WebSocket connection to the server's stream, as a browser's tab is, asking for one script run."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import websockets
from app_helpers import ROOT
from browser_helpers import _wait_healthy, free_port
from streamlit.proto.BackMsg_pb2 import BackMsg

PROBE = """
import sys
sys.path.insert(0, {root!r})
from ui.shared import identity
with open({out!r}, "a") as f:
    f.write(identity.visitor() + "\\n")
"""


async def _session(port: int, forwarded: str) -> None:
    """One browser session: connect, ask for a script run, read what the server sends until it falls quiet."""
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    async with websockets.connect(url, additional_headers=headers, subprotocols=["streamlit"]) as ws:
        run = BackMsg()
        run.rerun_script.query_string = ""
        await ws.send(run.SerializeToString())
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 2)
        except (TimeoutError, websockets.ConnectionClosed):
            pass


def test_a_visitor_is_the_address_a_proxy_here_forwards_and_this_machine_without_one(tmp_path):
    seen = tmp_path / "visitors.txt"
    (tmp_path / "probe.py").write_text(PROBE.format(root=str(ROOT), out=str(seen)))
    port, log = free_port(), tmp_path / "streamlit.log"
    env = {k: v for k, v in os.environ.items() if k != "FORWARDED_ALLOW_IPS"}  # uvicorn's default trust
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "probe.py", "--server.address", "127.0.0.1"]
            + ["--server.port", str(port), "--server.headless", "1"],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_healthy(f"http://127.0.0.1:{port}", proc, log)
        for forwarded in ("203.0.113.7", "203.0.113.7", "198.51.100.1, 203.0.113.9", "2001:db8:7:1::5", ""):
            asyncio.run(_session(port, forwarded))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert seen.read_text().splitlines() == [
        "address:203.0.113.7",
        "address:203.0.113.7",  # a reload: another session, the same visitor
        "address:203.0.113.9",  # the address the proxy here saw, not the one the visitor claimed before it
        "network:2001:db8:7:1::/64",
        "address:this machine",
    ]
