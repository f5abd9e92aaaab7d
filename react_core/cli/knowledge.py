"""The knowledge layer's subcommands: ``pack build`` (an offline pack from HotpotQA files) and ``wiki-server``.

Registered by ``react_core.cli.main`` through ``register(sub)``. Bad arguments and
unreadable files raise ConfigError, which the CLI prints on one line and exits 2. The pack builder and the server
are imported only when their command runs.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

from react_core.base.errors import ConfigError

DEFAULT_PORT = 8765


def register(sub: Any) -> None:
    p = sub.add_parser("pack", help="build an offline knowledge pack")
    actions = p.add_subparsers(dest="pack_command", required=True, parser_class=type(p))
    b = actions.add_parser("build", help="build a pack (SQLite FTS5) from HotpotQA distractor-format files")
    b.add_argument("--hotpotqa", nargs="+", required=True, metavar="FILE", help="distractor-format JSON files")
    b.add_argument("--out", required=True, metavar="PACK.sqlite", help="the pack file to write (replaced if present)")
    b.add_argument("--description", help="what the pack holds, as observations name it (default: HotpotQA …)")
    b.set_defaults(func=_cmd_pack_build)

    s = sub.add_parser("wiki-server", help="serve a pack as a MediaWiki api.php on this machine (Ctrl-C stops)")
    s.add_argument("--pack", required=True, metavar="PACK.sqlite")
    s.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT}; 0: any)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--delay-ms", type=float, default=0.0, help="milliseconds added to every answer (latency tests)")
    s.add_argument("--verbose", action="store_true", help="log every request")
    s.set_defaults(func=_cmd_wiki_server)


def _cmd_pack_build(args: argparse.Namespace) -> int:
    from react_core.knowledge.pack_build import HOTPOTQA_DESCRIPTION, build_pack

    stats = build_pack(args.hotpotqa, args.out, description=args.description or HOTPOTQA_DESCRIPTION)
    print(stats.summary())
    return 0


def _cmd_wiki_server(args: argparse.Namespace) -> int:
    from react_core.knowledge.server import WikiServer

    if not 0 <= args.port <= 65535:
        raise ConfigError(f"--port must be between 0 and 65535 (got {args.port}).")
    if args.delay_ms < 0:
        raise ConfigError(f"--delay-ms cannot be negative (got {args.delay_ms}).")
    try:
        server = WikiServer(args.pack, host=args.host, port=args.port, delay_ms=args.delay_ms)
    except OSError as e:
        reason = e.strerror or e
        raise ConfigError(f"Cannot listen on {args.host}:{args.port}: {reason}. Choose another --port.") from None
    server.verbose = args.verbose
    print(
        f"Serving {server.pack.path} ({server.pack.articles:,} articles) at {server.url}; "
        f"use --knowledge wikipedia --wiki-url {server.url}. Ctrl-C stops.",
        flush=True,
    )
    # Ctrl-C stops it even when it was started where SIGINT is ignored (a background job of a script: Python then
    # installs no handler of its own), and so does a plain kill (SIGTERM).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
    finally:
        server.stop()
    return 0
