"""How a test server script (run as ``python tests/X.py PORT …``) serves its ASGI app: on the listening socket the
test opened for it when there is one (``TEST_LISTEN_FD``), so no other process can take the port between the test
choosing it and the server binding it; else on ``PORT``."""

from __future__ import annotations

import os
import socket
from typing import Any

LISTEN_FD = "TEST_LISTEN_FD"


def serve(app: Any, port: int) -> None:
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    fd = os.environ.get(LISTEN_FD, "")
    server.run(sockets=[socket.socket(fileno=int(fd))] if fd else None)
