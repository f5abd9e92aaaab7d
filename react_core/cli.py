"""The command line: ``python -m react_core parse | ask | pack | wiki-server | eval``.

A stable interface: other work and checks rely on it. Bad arguments and unreadable files exit 2 with a one-line
reason; a run that ends (any stop reason) exits 0. Subcommands owned by other parts of the engine register
themselves through a ``register(subparsers)`` function in their own module.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from react_core.errors import ConfigError, ReactLabError
from react_core.export import summary_line
from react_core.formats import FORMATS, get_format
from react_core.trace import Trace

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, as scripts expect; argparse prints usage + message
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class UsageError(Exception):
    """A bad argument found after parsing (an unreadable file, an invalid value)."""


# -- parse ----------------------------------------------------------------------------------------------


def _cmd_parse(args: argparse.Namespace) -> int:
    text = sys.stdin.read()
    print(json.dumps(get_format(args.format).parse(text).to_dict(), ensure_ascii=False))
    return 0


# -- ask ------------------------------------------------------------------------------------------------


def add_run_options(p: argparse.ArgumentParser) -> None:
    """Options shared by everything that runs the agent (ask, eval)."""
    from react_core.providers import PROVIDERS

    p.add_argument(
        "--provider",
        choices=PROVIDERS,
        default=None,
        help="model provider (default: REACT_PROVIDER, else gemini/openai when a key is set, else local)",
    )
    p.add_argument("--model", help="model name (provider default when omitted)")
    p.add_argument("--model-path", help="a GGUF file for the local provider")
    p.add_argument("--base-url", help="API base URL (OpenAI-compatible servers, or a Gemini endpoint)")
    p.add_argument("--script", help="JSON array of model outputs for --provider scripted")
    p.add_argument("--delay", type=float, default=0.0, help="seconds the scripted provider waits per call")
    p.add_argument("--format", choices=list(FORMATS), help="action format; picks that format's shipped preset")
    p.add_argument("--preset", help="preset name or .toml path (overrides --format)")
    p.add_argument("--max-calls", type=int, default=None, help="model calls before stopping (default 8)")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument(
        "--knowledge", default=None, help="'wikipedia' or 'pack:PATH' (default: REACT_KNOWLEDGE, else wikipedia)"
    )
    p.add_argument("--wiki-url", help="MediaWiki Action API endpoint (default English Wikipedia)")
    p.add_argument("--wiki-language", help="Wikipedia language code, e.g. de (default en; ignored with --wiki-url)")
    p.add_argument("--sentences", type=int, default=5, help="sentences a Search returns (the paper: 5)")
    p.add_argument("--tools", default=None, help="comma-separated tools to enable (default: search,lookup,calculator)")


def settings_from_args(args: argparse.Namespace, **defaults: Any) -> Any:
    """RunSettings: the environment's, then the run options given on the command line, else ``defaults``."""
    from react_core.settings import RunSettings

    overrides = {
        "provider": args.provider,
        "model": args.model,
        "model_path": args.model_path,
        "base_url": args.base_url,
        "script": args.script,
        "delay": args.delay or None,
        "format": args.format,
        "preset": args.preset,
        "max_calls": args.max_calls,
        "temperature": args.temperature,
        "knowledge": args.knowledge,
        "wiki_url": args.wiki_url,
        "wiki_language": args.wiki_language,
        "sentences": args.sentences,
        "tools": _tool_list(args.tools),
    }
    given = {k: v for k, v in overrides.items() if v is not None}
    return RunSettings.from_env().updated(**{**defaults, **given})


def build_config(args: argparse.Namespace) -> Any:
    """A RunConfig from parsed run options; ConfigError when a setting is wrong."""
    from react_core.settings import build_run_config

    return build_run_config(settings_from_args(args))


def _tool_list(value: str | None) -> list[str] | None:
    return None if value is None else [t.strip().lower() for t in value.split(",") if t.strip()]


def format_transcript(trace: Trace) -> str:
    fmt = get_format(trace.settings.get("format", "paper"))
    lines = [f"Question: {trace.question}"]
    for s in trace.steps:
        lines.append(f"Thought {s.index}: {s.thought}")
        if s.action or s.final_answer is not None:
            lines.append(f"Action {s.index}: {fmt.render_action(s.action, s.final_answer)}")
        if s.observation:
            tag = " (error)" if s.observation.is_error else ""
            lines.append(f"Observation {s.index}{tag}: {s.observation.text}")
            if s.observation.note:
                lines.append(f"  note: {s.observation.note}")
            for src in s.observation.sources:
                lines.append(f"  source: {src.title} <{src.url}>")
    if trace.final_answer is not None:
        lines.append(f"Final Answer: {trace.final_answer}")
    if trace.error:
        lines.append(f"Error: {trace.error}")
    lines.append(f"({summary_line(trace)}; stop reason: {trace.stop_reason})")
    return "\n".join(lines)


def _cmd_ask(args: argparse.Namespace) -> int:
    from react_core.agent import Agent

    if not args.question.strip():
        raise UsageError("the question is empty")
    config = build_config(args)
    if config.provider.is_demo:  # on stderr, so --json output stays clean
        print(config.provider.demo_notice, file=sys.stderr)
    trace = Agent(config).run(args.question)
    print(json.dumps(trace.to_dict(), ensure_ascii=False, indent=2) if args.json else format_transcript(trace))
    return 0


# -- entry point ----------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m react_core", description="ReAct Lab engine: run, parse and evaluate.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("parse", help="parse model text from stdin and print JSON")
    p.add_argument("--format", choices=list(FORMATS), default="paper")
    p.set_defaults(func=_cmd_parse)

    p = sub.add_parser("ask", help="run the agent on one question")
    p.add_argument("question")
    add_run_options(p)
    p.add_argument("--json", action="store_true", help="print the Trace as JSON")
    p.set_defaults(func=_cmd_ask)

    for module in ("react_core.knowledge.cli", "react_core.evaluation.cli"):
        try:
            register = __import__(module, fromlist=["register"]).register
        except ModuleNotFoundError:
            continue
        register(sub, add_run_options, build_config)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (UsageError, ConfigError, ReactLabError) as e:
        print(f"{parser.prog} {args.command}: error: {_one_line(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os._exit(0)


def _one_line(text: str) -> str:
    return " ".join(text.split())


if __name__ == "__main__":
    sys.exit(main())
