"""The ``mcp`` subcommands: ``mcp list`` shows the operator's MCP servers (``REACT_MCP_SERVERS``), each with its state
(connected, or failed and why) and its tools with their descriptions and input schemas, as Settings shows them, and
the resources it offers (read with its ``{server}_read_resource`` tool); ``mcp login NAME`` signs the operator in to an
OAuth server (``react_core.cli.mcp_login``) and ``mcp logout NAME`` forgets its tokens.

A tool listed here is enabled for a run by its name-spaced name: ``ask "…" --tools git_git_status``. Registered by
``react_core.cli.main`` through ``register(sub)``; an unreadable ``REACT_MCP_SERVERS`` is a ConfigError (one line,
exit 2).
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("mcp", help="MCP servers: list them and their tools (from REACT_MCP_SERVERS)")
    actions = p.add_subparsers(dest="mcp_command", required=True, parser_class=type(p))
    a = actions.add_parser("list", help="each server's state, its tools with their input schemas, its resources")
    a.add_argument("--json", action="store_true", help="print the servers and tools as JSON")
    a.set_defaults(func=_cmd_list)
    a = actions.add_parser("login", help="sign in to one of the operator's OAuth servers, for every run's use")
    a.add_argument("name", help="the server's name in REACT_MCP_SERVERS")
    a.set_defaults(func=_cmd_login)
    a = actions.add_parser("logout", help="forget the OAuth tokens kept for one of the operator's servers")
    a.add_argument("name", help="the server's name in REACT_MCP_SERVERS")
    a.set_defaults(func=_cmd_logout)


def _cmd_list(args: argparse.Namespace) -> int:
    """0 when every server answered, 1 when one failed (it is listed with why), 2 when the list cannot be read."""
    from react_core.tools.mcp import server_statuses
    from react_core.tools.mcp_client import POOL
    from react_core.tools.mcp_config import SERVERS_VARIABLE, operator_servers

    try:
        statuses = server_statuses(operator_servers())
    finally:
        POOL.close_all()  # ends the stdio servers it started
    if args.json:
        print(json.dumps([_as_dict(s) for s in statuses], ensure_ascii=False, indent=2))
    elif not statuses:
        print(f"No MCP servers configured: list them in {SERVERS_VARIABLE} (see docs/tools.md).")
    for status in statuses if not args.json else ():
        print(f"{status.name}: {'connected' if status.connected else 'failed'} ({status.transport}, {status.where})")
        if status.connected:
            print(f"  {status.speaks}")
        if not status.connected:
            print(f"  {status.error}")
        for tool in status.tools:
            notes = " [destructive]" if tool.destructive else (" [read-only]" if tool.read_only else "")
            notes += " [needs tasks: not offered]" if tool.needs_tasks else ""
            print(f"  {tool.name}{notes}: {' '.join((tool.description or '').split())}")
            print(f"    input schema: {json.dumps(tool.schema, ensure_ascii=False)}")
        if status.resources:
            print(f"  resources ({len(status.resources)}):")
        for item in status.resources:
            kind = f" ({item['mime_type']})" if item["mime_type"] else ""
            about = f": {' '.join(item['description'].split())}" if item["description"] else ""
            print(f"    {item['uri']} — {item['name']}{kind}{about}")
    return 0 if all(s.connected for s in statuses) else 1


def _as_dict(status: Any) -> dict[str, Any]:
    tools = [
        {
            "name": t.name,
            "tool": t.original,
            "description": t.description,
            "input_schema": t.schema,
            "read_only": t.read_only,
            "destructive": t.destructive,
            "needs_tasks": t.needs_tasks,
        }
        for t in status.tools
    ]
    state = {"connected": status.connected, "error": status.error}
    state |= {"protocol_version": status.protocol_version, "server": status.server_info}
    listed = {"tools": tools, "resources": status.resources}
    return {"name": status.name, "transport": status.transport, "where": status.where, **state, **listed}


def _cmd_login(args: argparse.Namespace) -> int:
    """0 once signed in (the server connected with the new tokens), 1 when it could not be."""
    from react_core.cli.mcp_login import login

    return login(args.name)


def _cmd_logout(args: argparse.Namespace) -> int:
    from react_core.tools.mcp_servers import McpServers

    McpServers().sign_out(args.name)
    print(f"The OAuth tokens kept for MCP server {args.name!r} are forgotten.")
    return 0
