"""The command line: ``python -m react_core parse | ask | pack | wiki-server | eval``.

A stable interface: other work and checks rely on it. Bad arguments and unreadable files exit 2 with a one-line
reason; a run that ends (any stop reason) exits 0. The knowledge and evaluation commands live beside what they run,
each with a ``register(subparsers)`` function; what the commands share is in ``cli_options``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any

from react_core.base import environment
from react_core.base.errors import ConfigError, ReactLabError
from react_core.base.events import RunDone, StepDone, final_trace
from react_core.base.text import visible_controls
from react_core.base.trace import Step, Trace
from react_core.cli import bootstrap as bootstrap_cli
from react_core.cli import evaluation as evaluation_cli
from react_core.cli import knowledge as knowledge_cli
from react_core.cli.options import EXIT_USAGE, CliParser, UsageError, add_run_options, build_config
from react_core.dialects import DIALECTS, get_dialect
from react_core.report.exports import summary_line

_UNPRINTABLE = re.compile("[\x80-\x9f\ud800-\udfff]")


# -- parse ----------------------------------------------------------------------------------------------


def _cmd_parse(args: argparse.Namespace) -> int:
    text = sys.stdin.read()
    print(to_json(get_dialect(args.dialect).parse(text).to_dict(), indent=None))
    return 0


# -- ask ------------------------------------------------------------------------------------------------


def to_json(value: Any, indent: int | None = 2) -> str:
    """JSON for a terminal or a pipe: readable non-ASCII text, but C1 controls (which some terminals obey) and lone
    surrogates (which cannot be printed) written as \\u escapes, which JSON reads back the same."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def question_line(question: str) -> str:
    return visible_controls(f"Question: {question}")


def step_lines(step: Step, dialect: str) -> str:
    """One step of the transcript: its Thought, Action and Observation (with its note and sources)."""
    fmt = get_dialect(dialect)
    lines = [f"Thought {step.index}: {step.thought}"]
    if step.action or step.final_answer is not None:
        lines.append(f"Action {step.index}: {fmt.render_action(step.action, step.final_answer)}")
    if step.observation:
        tag = " (error)" if step.observation.is_error else ""
        lines.append(f"Observation {step.index}{tag}: {step.observation.text}")
        if step.observation.note:
            lines.append(f"  note: {step.observation.note}")
        for src in step.observation.sources:
            lines.append(f"  source: {src.title} <{src.url}>")
    # Text from a model, a wiki or a file may hold terminal escape sequences: shown as text, never obeyed.
    return visible_controls("\n".join(lines))


def ending_lines(trace: Trace) -> str:
    lines = []
    if trace.final_answer is not None:
        lines.append(f"Final Answer: {trace.final_answer}")
    if trace.error:
        lines.append(f"Error: {trace.error}")
    lines.append(f"({summary_line(trace)}; stop reason: {trace.stop_reason})")
    return visible_controls("\n".join(lines))


def format_transcript(trace: Trace) -> str:
    """The whole transcript of a finished run (``ask`` prints the same lines as the run goes)."""
    dialect = trace.settings.get("dialect", "paper")
    parts = [question_line(trace.question), *(step_lines(s, dialect) for s in trace.steps), ending_lines(trace)]
    return "\n".join(parts)


def _cmd_ask(args: argparse.Namespace) -> int:
    from react_core.loop.agent import Agent

    if not args.question.strip():
        raise UsageError("the question is empty")
    config = build_config(args)
    if config.provider.is_demo:  # on stderr, so --json output stays clean
        print(config.provider.demo_notice, file=sys.stderr)
    events = Agent(config).stream(args.question)
    if args.json:
        print(to_json(final_trace(events).to_dict()))
        return 0
    # Each step is printed as soon as it is done, so a slow model's progress shows as it happens.
    print(question_line(args.question), flush=True)
    for event in events:
        if isinstance(event, StepDone):
            print(step_lines(event.step, config.preset.dialect), flush=True)
        elif isinstance(event, RunDone):
            print(ending_lines(event.trace), flush=True)
    return 0


# -- request ------------------------------------------------------------------------------------------


def _cmd_request(args: argparse.Namespace) -> int:
    from pathlib import Path

    from react_core.base.call_records import request_of
    from react_core.history import parse_trace_json
    from react_core.providers import provider_class

    try:
        trace = parse_trace_json(Path(args.trace).read_bytes())
    except OSError as e:
        raise UsageError(f"cannot read {args.trace}: {e.strerror or e}") from None
    call = request_of(trace, args.step)
    if args.style == "json":
        print(to_json(call))
    else:
        print(provider_class(trace.settings.get("provider", "")).snippet(call, args.style))
    return 0


# -- entry point ----------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = CliParser(
        prog="python -m react_core",
        description="ReAct Lab engine: run, parse and evaluate.",
        epilog="environment variables:\n" + "\n".join(f"  {v.name:<28} {v.meaning}" for v in environment.VARIABLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=CliParser)

    p = sub.add_parser("parse", help="parse model text from stdin and print JSON")
    p.add_argument("--dialect", "--format", dest="dialect", choices=list(DIALECTS), default="paper")
    p.set_defaults(func=_cmd_parse)

    p = sub.add_parser("ask", help="run the agent on one question")
    p.add_argument("question")
    add_run_options(p)
    p.add_argument("--json", action="store_true", help="print the Trace as JSON")
    p.set_defaults(func=_cmd_ask)

    p = sub.add_parser("request", help="print the model call behind one step of a trace (JSON, cURL or Python)")
    p.add_argument("trace", help="a trace JSON file (an export, or the output of ask --json)")
    p.add_argument("--step", type=int, required=True, help="the step's number")
    p.add_argument("--as", dest="style", choices=("json", "curl", "python"), default="json")
    p.set_defaults(func=_cmd_request)

    for commands in (knowledge_cli, evaluation_cli, bootstrap_cli):
        commands.register(sub)
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
