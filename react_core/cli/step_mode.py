"""``ask --pause-before tool,error,finish``: step mode on the command line, one decision a line on standard input.

At each pause the step is printed as the model wrote it (its raw reply, Thought, Action and the exact tool call that
would run), then a line is read: ``run``, ``edit ACTION``, ``observe TEXT``, ``regenerate [K] [TEMPERATURE]``,
``pick N``, ``stop``; when an MCP server asks something in the middle of a call (``--pause-before input``): ``answer``
and its fields as a JSON object, ``answer decline`` or ``answer cancel``. A line that cannot be taken (an edited
action that does not parse, a pick without alternatives) is answered with the reason and another line is read; the
end of the input stops the run. So a script or a test can drive a run with a pipe.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TextIO

from react_core.base.errors import ConfigError
from react_core.base.events import Paused, StepDone
from react_core.base.text import visible_controls
from react_core.base.trace import Alternative, Step, Trace
from react_core.loop.pause import parse_decision
from react_core.loop.service import Run, RunRequest

CHOICES = "run | edit ACTION | observe TEXT | regenerate [K] [TEMPERATURE] | pick N | stop"
# At the ``input`` breakpoint: the answer to an MCP server's questions (``tools.mcp_asks.answered``).
ANSWERS = 'answer {"FIELD": VALUE, …} | answer decline | answer cancel | stop'


def breakpoints(value: str) -> list[str]:
    """``tool,error,finish`` as a list; a ConfigError names a breakpoint that is not one."""
    chosen = [b.strip().lower() for b in value.split(",") if b.strip()]
    unknown = [b for b in chosen if b not in Step.BREAKPOINTS]
    if unknown or not chosen:
        raise ConfigError(f"--pause-before takes a comma-separated list of {', '.join(Step.BREAKPOINTS)}")
    return chosen


def pause_lines(step: Step, dialect: str) -> str:
    from react_core.dialects import get_dialect

    fmt = get_dialect(dialect)
    lines = [
        f"Paused {Step.BREAKPOINTS[step.pending]} (step {step.index}): waiting for you.",
        f"  Raw reply: {step.raw_output!r}",
    ]
    lines.append(f"  Thought {step.index}: {step.thought}")
    if step.action or step.final_answer is not None:
        lines.append(f"  Action {step.index}: {fmt.render_action(step.action, step.final_answer)}")
    if step.is_error and step.observation:
        lines.append(f"  Unreadable: {step.observation.text}")
    call = step.tool_call_text
    asks = step.asks if step.pending == "input" else None
    if asks:
        lines.append(f"  Tool call that asks: {call}")
        for question in (asks.get("questions") or {}).values():
            lines.append(f"  The MCP server asks: {question.get('message', '')}")
            lines.append(f"    fields: {json.dumps(question.get('schema') or {}, ensure_ascii=False)}")
        lines.append(f"Answer: {ANSWERS}")
        return visible_controls("\n".join(lines))
    if call:
        lines.append(f"  Tool call that would run: {call}")
    for n, alt in enumerate(step.offered, 1):
        lines.append(f"  Alternative {n} (temperature {alt.temperature:g}): {_alternative(alt, fmt)}")
    lines.append(f"Decide: {CHOICES}")
    return visible_controls("\n".join(lines))


def _alternative(alt: Alternative, fmt) -> str:
    if alt.error:
        return f"unreadable ({alt.error})"
    return fmt.render_action(alt.action, alt.final_answer)


def drive(run: Run, *, read_line: Callable[[], str], out: TextIO, step_lines: Callable[[Step, str], str]) -> Trace:
    """Read the run's events to its end, printing each step and each pause and reading a decision at each pause (each
    decision a run of its own, on the same config: the run service keeps each, and sends the last)."""
    assert run.config is not None
    dialect = run.config.preset.dialect
    while True:
        for event in run:
            if isinstance(event, StepDone):
                print(step_lines(event.step, dialect), file=out, flush=True)
            elif isinstance(event, Paused):
                print(pause_lines(event.step, dialect), file=out, flush=True)
        trace = run.trace
        assert trace is not None
        if trace.stop_reason != "paused":
            return trace
        if trace.error:  # regenerating cut short: the run is still paused, and the person reads why
            print(visible_controls(trace.error), file=out, flush=True)
        run = _decided(run, trace, read_line, out)


def _decided(run: Run, trace: Trace, read_line: Callable[[], str], out: TextIO) -> Run:
    while True:
        line = read_line()
        if not line:
            print("(end of input: stop)", file=out, flush=True)
            line = "stop"
        if not line.strip():
            continue
        try:
            request = RunRequest(
                trace.question, run.settings, config=run.config, decision=parse_decision(line), paused=trace
            )
            decided = Run(request, run.keeping)
            decided.prepare()
            return decided
        except ConfigError as e:
            print(visible_controls(str(e)), file=out, flush=True)
