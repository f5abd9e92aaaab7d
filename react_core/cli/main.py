"""The command line: ``python -m react_core parse | ask | request | export-html | export-otel | pack | wiki-server |
eval``.

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
from react_core.cli import figure3 as figure3_cli
from react_core.cli import finetune as finetune_cli
from react_core.cli import knowledge as knowledge_cli
from react_core.cli import mcp as mcp_cli
from react_core.cli.options import EXIT_USAGE, CliParser, UsageError, add_run_options
from react_core.dialects import DIALECTS, get_dialect
from react_core.report.expected import check_expected

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
    """The answer, the expected one with HotpotQA's scores when the question is known, an error, the summary."""
    lines = []
    if trace.final_answer is not None:
        lines.append(f"Final Answer: {trace.final_answer}")
    expected = check_expected(trace)
    if expected is not None:  # a paused run has not answered yet: nothing to score
        lines.append(expected.message if trace.stop_reason == "paused" else f"{expected.message} · {expected.scores}")
    if trace.error:
        lines.append(f"Error: {trace.error}")
    lines.append(f"({trace.summary()}; stop reason: {trace.stop_reason})")
    return visible_controls("\n".join(lines))


def _cmd_ask(args: argparse.Namespace) -> int:
    from react_core.cli.options import settings_from_args
    from react_core.loop.service import Run, RunRequest

    if not args.question.strip():
        raise UsageError("the question is empty")
    run = Run(RunRequest(args.question, settings_from_args(args)))
    run.prepare()  # a run that cannot start exits 2 with its reason
    assert run.config is not None
    if run.config.provider.is_demo:  # on stderr, so --json output stays clean
        print(run.config.provider.demo_notice, file=sys.stderr)
    if run.config.pause_before:
        return _ask_in_steps(args, run)
    if args.json:
        print(to_json(final_trace(run).to_dict()))
        return 0
    # Each step is printed as soon as it is done, so a slow model's progress shows as it happens.
    print(question_line(args.question), flush=True)
    for event in run:
        if isinstance(event, StepDone):
            print(step_lines(event.step, run.config.preset.dialect), flush=True)
        elif isinstance(event, RunDone):
            print(ending_lines(event.trace), flush=True)
    return 0


LIVE_EXPORT = "react_core.telemetry.live"


def _quiet_live_export() -> None:
    """The exporter's own log lines would repeat the one line ``_wait_for_live_export`` says."""
    import logging

    for name in ("opentelemetry", LIVE_EXPORT):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _wait_for_live_export() -> None:
    """The runs sent to the OTLP endpoint (each finished run is queued there as it ends: ``telemetry.live``), waited
    for a few seconds at most before the process exits; a failure is one line on stderr."""
    live = sys.modules.get(LIVE_EXPORT)  # not loaded: no run was sent
    if live is None or not live.LiveTarget().endpoint():
        return
    if not live.flush(timeout_seconds=5.0):
        print(f"The run was not sent to {live.LiveTarget().endpoint()} within 5 seconds.", file=sys.stderr)
    elif live.LiveTarget.problem():
        print(live.LiveTarget.problem(), file=sys.stderr)


def _ask_in_steps(args: argparse.Namespace, run) -> int:
    """Step mode: each pause is printed and a decision read from standard input (``cli.step_mode``)."""
    from react_core.cli import step_mode

    out = sys.stderr if args.json else sys.stdout  # --json keeps standard output for the trace
    print(question_line(args.question), file=out, flush=True)
    trace = step_mode.drive(run, read_line=sys.stdin.readline, out=out, step_lines=step_lines)
    print(to_json(trace.to_dict()) if args.json else ending_lines(trace), flush=True)
    return 0


# -- request ------------------------------------------------------------------------------------------


def _cmd_request(args: argparse.Namespace) -> int:
    from pathlib import Path

    from react_core.base.call_records import CallTexts
    from react_core.history import parse_trace_json
    from react_core.providers import PROVIDERS

    try:
        trace = parse_trace_json(Path(args.trace).read_bytes())
    except OSError as e:
        raise UsageError(f"cannot read {args.trace}: {e.strerror or e}") from None
    call = CallTexts.request(trace, args.step)
    if args.style == "json":
        print(to_json(call))
    else:
        print(PROVIDERS[trace.settings.get("provider", "")].snippet(call, args.style))
    return 0


# -- export-html, export-otel ----------------------------------------------------------------------------


def _write_output(output: str | None, text: str) -> None:
    """``text`` to the file ``output``, or to standard output when none (or ``-``) is given."""
    from pathlib import Path

    if output in (None, "-"):
        sys.stdout.write(text)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {output}: {e.strerror or e}") from None
    print(f"wrote {output}", file=sys.stderr)


def _read_trace(path: str):
    """A trace file: our JSON export (or ``ask --json``), or OTLP/JSON, checked as History's import checks it."""
    from pathlib import Path

    from react_core.telemetry.imports import read_trace_file

    try:
        return read_trace_file(Path(path).read_bytes()).trace
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None


def _cmd_export_html(args: argparse.Namespace) -> int:
    """One trace file: that run. Several (2 to 4), or ``--arena ID``: an arena, its columns side by side."""
    from react_core.evaluation.arena import Arena, ColumnResult
    from react_core.evaluation.arena_html import SideBySide
    from react_core.report.html import to_html

    if args.arena is not None and args.traces:
        raise UsageError("give trace files or --arena ID, not both")
    if args.arena is None and args.owner:
        raise UsageError("--owner goes with --arena")
    if args.arena is not None:
        _write_output(args.output, _saved_arena_html(args.arena, args.owner, args.gold))
        return 0
    if not args.traces:
        raise UsageError(
            f"give a trace file ({Arena.MIN_COLUMNS} to {Arena.MAX_COLUMNS} for an arena side by side) or --arena ID"
        )
    if len(args.traces) > Arena.MAX_COLUMNS:
        raise UsageError(
            f"an arena has {Arena.MIN_COLUMNS} to {Arena.MAX_COLUMNS} columns (got {len(args.traces)} trace files)"
        )
    traces = [_with_gold(_read_trace(path), args.gold) for path in args.traces]
    if len(traces) == 1:
        _write_output(args.output, to_html(traces[0]))
    else:
        _write_output(args.output, SideBySide([ColumnResult.of(t, i) for i, t in enumerate(traces)]).to_html())
    return 0


def _with_gold(trace: Trace, gold: str | None) -> Trace:
    """``--gold``: the trace's expected answer, which its EM and F1 and its expected-answer line are checked against."""
    if gold is not None:
        trace.expected_answer = gold.strip() or None
    return trace


def _saved_arena_html(arena_id: str, owner: str, gold: str | None) -> str:
    """An arena from the history the app keeps (REACT_HISTORY_URL, else the SQLite file), by its id."""
    from react_core.base.paths import history_db
    from react_core.evaluation.arena_html import SideBySide
    from react_core.history import open_history

    if not environment.environment_value("REACT_HISTORY_URL") and not history_db().is_file():
        raise UsageError(f"no history at {history_db()} (set REACT_HISTORY_DB or REACT_HISTORY_URL)")
    store = open_history(owner)
    found = store.arena(arena_id)
    if found is None:
        whose = f" of {owner!r}" if owner else ""
        raise UsageError(f"no arena {arena_id!r} in the history{whose} at {store.where}")
    for run in found.runs:
        _with_gold(run.trace, gold)
    return SideBySide.saved(found.runs, arena_id=found.id, saved_at=found.saved_at).to_html()


def _cmd_export_otel(args: argparse.Namespace) -> int:
    from react_core.telemetry.otlp_json import to_otlp_json

    _write_output(args.output, to_otlp_json(_read_trace(args.trace), include_content=args.include_content) + "\n")
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
    p.add_argument(
        "--pause-before",
        metavar="BREAKPOINTS",
        help="step mode: pause at tool, error, finish, destructive (comma-separated) and read each decision as a line "
        "on stdin (run, at destructive, approves the call)",
    )
    p.set_defaults(func=_cmd_ask)

    p = sub.add_parser("request", help="print the model call behind one step of a trace (JSON, cURL or Python)")
    p.add_argument("trace", help="a trace JSON file (an export, or the output of ask --json)")
    p.add_argument("--step", type=int, required=True, help="the step's number")
    p.add_argument("--as", dest="style", choices=("json", "curl", "python"), default="json")
    p.set_defaults(func=_cmd_request)

    p = sub.add_parser(
        "export-html", help="write a run, or an arena side by side, as one self-contained HTML file (opens offline)"
    )
    p.add_argument(
        "traces",
        nargs="*",
        metavar="TRACE",
        help="a trace JSON file (an export, or the output of ask --json); 2 to 4 of them: an arena, one column each",
    )
    p.add_argument("--arena", metavar="ID", help="an arena saved in the history (REACT_HISTORY_URL or _DB), by its id")
    p.add_argument("--owner", default="", help="whose history --arena reads in a signed-in deployment")
    p.add_argument("--gold", help="the gold answer: each column's EM and F1 (and expected-answer line) against it")
    p.add_argument("-o", "--output", help="the HTML file to write (default: standard output)")
    p.set_defaults(func=_cmd_export_html)

    p = sub.add_parser("export-otel", help="write a trace as OpenTelemetry spans in OTLP/JSON (Phoenix, Jaeger, …)")
    p.add_argument("trace", help="a trace JSON file (an export, or the output of ask --json)")
    p.add_argument(
        "--include-content",
        action="store_true",
        help="include the messages: question, prompts, replies, tool arguments and results (off by default)",
    )
    p.add_argument("-o", "--output", help="the file to write (default: standard output)")
    p.set_defaults(func=_cmd_export_otel)

    for commands in (knowledge_cli, evaluation_cli, figure3_cli, bootstrap_cli, finetune_cli, mcp_cli):
        commands.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _quiet_live_export()
    try:
        code = int(args.func(args) or 0)
        _wait_for_live_export()
        return code
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
