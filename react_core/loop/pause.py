"""Step mode: a run paused at a breakpoint, and the person's decision that takes it on.

A run with ``pause_before`` (``Step.BREAKPOINTS``: before every tool call, on an unreadable step, before Finish)
stops where a step meets one: ``Agent.stream`` yields ``Paused`` and ends with stop reason ``paused``, the Trace's
last step pending (its raw reply, Thought, Action; nothing run yet). Like the OpenAI Agents SDK's ``RunState``, the
paused Trace is the whole state: saved to History, it can be resumed by another process after a restart.
``resume(agent, trace, decision)`` applies one ``Decision`` to the pending step and goes on, as events:

- **run** the step as it is (its tool call, its error observation, its Finish); at the ``destructive`` breakpoint
  this approves the one call (an edited or picked call to such a tool pauses there again first);
- **edit** its action: the text is read by the dialect's own parser and held to the prompt editor's rules
  (``presets.check.check_action``), refused with the same message when it does not pass; then it runs;
- **observe**: the person writes the observation instead of the tool (capped like every observation, marked
  ``written_by``);
- **regenerate** k alternatives at a temperature: each a full model call from the same prompt, with its own
  ``ModelCall``; the run stays paused with them ``offered``, and **pick** n (1 = the first) goes on with one;
- **stop**: the run ends as stopped by the person;
- **answer** what an MCP server asked in the middle of the step's call (the ``input`` breakpoint): its fields as a
  JSON object, or ``decline``, or ``cancel`` (``tools.mcp_asks.answered``); the call is sent again with it.

Each decision is recorded on the step (``Intervention``: who, what it was, what it became, the alternatives not
taken). A resumed run's budget is what its trace has not spent: every model call of the trace counts, alternatives
not. A run saved in History is taken on through the run service (``loop.service``): its row is claimed first (a
compare-and-set on its revision, so of two resumes at once one wins and the other is told) and updated with the
result.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from react_core.base import call_records, tool_specs
from react_core.base.cancel import Cancelled
from react_core.base.errors import ConfigError, ReactLabError
from react_core.base.events import Event, Paused, StepStarted
from react_core.base.trace import Alternative, Intervention, Observation, Step, Trace
from react_core.loop.agent import Agent
from react_core.loop.model_call import call_record
from react_core.loop.settings import check_temperature
from react_core.presets.check import check_action
from react_core.tools.mcp_asks import answered, summary
from react_core.tools.registry import MAX_OBSERVATION_CHARS, bounded

__all__ = [
    "DECISIONS",
    "Decision",
    "WRITTEN_NOTE",
    "calls_spent",
    "log",
    "parse_decision",
    "resume",
]

log = logging.getLogger(__name__)
DECISIONS = ("run", "edit", "observe", "regenerate", "pick", "stop", "answer")
WRITTEN_NOTE = "Written by a person in step mode, instead of running the tool."


@dataclass(frozen=True)
class Decision:
    """What a person decided at a paused step; ``by`` says who (the signed-in person, else "person")."""

    # Regenerate's defaults, and how many alternatives one decision may draw (each is a model call).
    DEFAULT_ALTERNATIVES: ClassVar[int] = 3
    MAX_ALTERNATIVES: ClassVar[int] = 5
    DEFAULT_TEMPERATURE: ClassVar[float] = 0.7

    kind: str
    text: str = ""  # edit: the new action as the dialect writes it; observe: the observation; answer: the answer
    k: int = DEFAULT_ALTERNATIVES  # regenerate: how many alternatives
    temperature: float = DEFAULT_TEMPERATURE  # regenerate: drawn at this temperature
    number: int = 0  # pick: which alternative (1 = the first)
    by: str = "person"

    def __post_init__(self) -> None:
        if self.kind not in DECISIONS:
            raise ConfigError(f"Unknown decision {self.kind!r}: choose one of {', '.join(DECISIONS)}.")


def parse_decision(line: str, by: str = "person") -> Decision:
    """A decision typed as one line: ``run``, ``edit Search[Foo]``, ``observe some text``, ``regenerate [k]
    [temperature]``, ``pick 2``, ``stop``. A ConfigError says what is wrong."""
    word, _, rest = line.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word == "regenerate":
        parts = rest.split()
        try:
            k = int(parts[0]) if parts else Decision.DEFAULT_ALTERNATIVES
            temperature = float(parts[1]) if len(parts) > 1 else Decision.DEFAULT_TEMPERATURE
        except ValueError:
            raise ConfigError("Write regenerate K TEMPERATURE, e.g. regenerate 3 0.7.") from None
        return Decision("regenerate", k=k, temperature=temperature, by=by)
    if word == "pick":
        if not rest.isdigit():
            raise ConfigError("Write pick N with the alternative's number, e.g. pick 2.")
        return Decision("pick", number=int(rest), by=by)
    if word in ("edit", "observe", "answer") and not rest:
        raise ConfigError(
            f"Write {word} followed by the text, e.g. "
            + {"edit": "edit Search[Foo].", "observe": "observe Foo is a city."}.get(word, 'answer {"name": "Ada"}.')
        )
    return Decision(word, text=rest, by=by)


def calls_spent(trace: Trace) -> int:
    return sum(1 for s in trace.steps if s.call is not None and s.call.same_reply_as is None)


def resume(
    agent: Agent,
    trace: Trace,
    decision: Decision,
    *,
    cancel: threading.Event | None = None,
    pause: threading.Event | None = None,
) -> Iterator[Event]:
    """The paused ``trace`` taken on with ``decision``, as events ending with ``RunDone`` (a new Trace: the paused one
    is left as it was). The decision is checked before anything happens: a ConfigError says why it cannot be taken.
    ``pause`` set: it pauses again at the next step written ("Pause here")."""
    pending = trace.pending_step()
    if agent.dialect.name != trace.settings.get("dialect", agent.dialect.name):
        raise ConfigError(
            f"This run is written in the {trace.settings.get('dialect')} dialect, not {agent.dialect.name}."
        )
    with tool_specs.known(agent.config.tools.specs):  # an edited action is read knowing the run's own tools
        check = _check(agent, pending, decision)
    trace = Trace.from_dict(trace.to_dict())
    if agent.config.pause_before:
        trace.settings["pause_before"] = list(agent.config.pause_before)
    else:
        trace.settings.pop("pause_before", None)
    return agent.drive(trace, _resumed(agent, trace, trace.steps[-1], decision, check), cancel, pause)


def _check(agent: Agent, step: Step, decision: Decision) -> Any:
    """What the decision needs, checked now: the edited action read by the dialect, the alternative picked, the
    answer to a server's questions."""
    if (decision.kind == "answer") != (step.pending == "input") and decision.kind != "stop":
        if decision.kind == "answer":
            raise ConfigError("There is no question to answer here: the run is paused for another reason.")
        raise ConfigError("The MCP server is waiting for your answer: answer it (or decline, or cancel), or stop.")
    if decision.kind == "answer":
        return answered(step.asks or {}, decision.text)
    if decision.kind == "edit":
        result, problem = check_action(agent.dialect, decision.text, agent.config.tools.names)
        if problem is not None:
            raise ConfigError(f"The edited action was not taken: {problem}")
        return result
    if decision.kind == "observe":
        if step.pending == "finish":
            raise ConfigError("A Finish step has no observation: edit its action to a tool call, or run it.")
        if not decision.text.strip():
            raise ConfigError("Write the observation the step should get.")
    if decision.kind == "pick":
        if not step.offered:
            raise ConfigError("There are no alternatives to pick from: regenerate the step first.")
        if not 1 <= decision.number <= len(step.offered):
            raise ConfigError(f"Pick an alternative from 1 to {len(step.offered)}.")
    if decision.kind == "regenerate":
        if not 1 <= decision.k <= Decision.MAX_ALTERNATIVES:
            raise ConfigError(f"Regenerate from 1 to {Decision.MAX_ALTERNATIVES} alternatives at a time.")
        check_temperature(decision.temperature, "The temperature")
    return None


def _resumed(agent: Agent, trace: Trace, step: Step, decision: Decision, checked: Any) -> Iterator[Event]:
    started = time.perf_counter()
    trace.stop_reason, trace.error = None, None  # a failure said at the pause is over once the person decides
    if decision.kind == "regenerate":
        drawn: list[Alternative] = []
        try:
            yield from _draw(agent, trace, step, decision, drawn)
        except Exception as e:  # Stop, a provider failure, a bug: the paused run survives whatever ends the draws
            trace.error = _draws_failed(e, len(drawn), decision.k)
        if drawn:
            _not_taken(step, decision.by)
            step.offered = drawn
        trace.stop_reason = "paused"
        yield Paused(step)
        return
    if decision.kind == "answer":
        yield from _answer(agent, trace, step, decision, checked, started)
        return
    if decision.kind != "pick":
        _not_taken(step, decision.by)
    before = _said(agent, step)
    note = Intervention(decision.kind, step.pending, decision.by, before=before)
    if decision.kind == "edit":
        _take(step, checked.thought or step.thought, checked.action, checked.final_answer)
    elif decision.kind == "observe":
        text = decision.text.strip()
        step.observation = Observation(bounded(text), note=WRITTEN_NOTE + _cut(text), written_by=decision.by)
    elif decision.kind == "pick":
        note.alternatives, note.picked, note.replaced = (
            step.offered,
            decision.number,
            _as_alternative(agent, trace, step),
        )
        chosen = step.offered[decision.number - 1]
        step = trace.steps[-1] = _picked(step, chosen)
        if chosen.error:
            step.observation = Observation.error(f"{chosen.error} {agent.dialect.reminder(agent.config.tools.names)}")
    note.after = step.observation.text if decision.kind == "observe" and step.observation else _said(agent, step)
    step.interventions.append(note)
    approved = decision.kind == "run" and step.pending == "destructive"  # Run at that breakpoint approves the call
    step.pending = ""
    if decision.kind == "stop":
        trace.stop_reason = "cancelled"
        return
    if not approved and step.observation is None and agent.breakpoint_at(step) == "destructive":
        # An edited or picked call that only a person's approval runs: shown to them before it runs.
        step.pending, trace.stop_reason = "destructive", "paused"
        yield Paused(step)
        return
    yield from _go_on(agent, trace, step, started, approved=approved)


def _go_on(agent: Agent, trace: Trace, step: Step, started: float, **settling: Any) -> Iterator[Event]:
    """The decided step carried through (its action run: ``settling`` says how), then the rest of the budget."""
    yield StepStarted(step.index)  # a watcher shows the step again while its action runs
    yield from agent.settle(trace, step, started, **settling)
    if trace.stop_reason:
        return
    left = agent.config.max_calls - calls_spent(trace)
    if left <= 0:
        trace.stop_reason = "max_calls"
        return
    yield from agent.loop(trace, None, calls=left)


def _answer(agent: Agent, trace: Trace, step: Step, decision: Decision, answer: Any, started: float) -> Iterator[Event]:
    """The person's answer to the server's questions goes back with the step's call, sent again (approved as the
    first was: a destructive call's approval is on the step)."""
    asks = step.asks or {}
    step.interventions.append(Intervention("answer", "input", decision.by, before=summary(asks), after=decision.text))
    step.pending, step.observation = "", None
    approved = any(n.kind == "run" and n.at == "destructive" for n in step.interventions)
    yield from _go_on(agent, trace, step, started, approved=approved, answer=answer)


def _take(step: Step, thought: str, action: Any, final_answer: str | None) -> None:
    step.thought, step.action, step.final_answer = thought, action, final_answer
    step.observation, step.tool_call = None, None


def _picked(step: Step, chosen: Alternative) -> Step:
    """The paused step as the alternative picked for it: the alternative's step, with the time the step took, the
    breakpoint it waits at and the decisions taken on it."""
    kept = {"seconds": step.seconds, "leaked_observation": step.leaked_observation, "pending": step.pending}
    return replace(chosen.as_step(step.index), interventions=step.interventions, **kept)


def _said(agent: Agent, step: Step) -> str:
    """The step's action as the dialect writes it (its raw reply when it had none)."""
    if step.action is None and step.final_answer is None:
        return step.raw_output
    return agent.dialect.render_action(step.action, step.final_answer)


def _cut(text: str) -> str:
    if len(text) <= MAX_OBSERVATION_CHARS:
        return ""
    return f" It was {len(text):,} characters long and is cut like every observation."


def _not_taken(step: Step, by: str) -> None:
    """Alternatives offered and passed over by another decision are kept on the step, none picked."""
    if step.offered:
        step.interventions.append(Intervention("regenerate", step.pending, by, alternatives=step.offered))
        step.offered = []


def _as_alternative(agent: Agent, trace: Trace, step: Step) -> Alternative:
    error = step.observation.text if step.is_error and step.observation else ""
    temperature = float(trace.settings.get("temperature", agent.config.temperature))
    return Alternative(
        step.raw_output, step.thought, step.action, step.final_answer, error, temperature, step.usage, step.call
    )


def _draws_failed(e: Exception, done: int, wanted: int) -> str:
    """What the person reads at the pause when regenerating ended early: the run is still theirs to decide on."""
    kept = f"{done} of {wanted} alternatives drawn" + (" (offered below)" if done else "")
    if isinstance(e, Cancelled):
        return f"Stopped while regenerating, with {kept}. The run stays paused here."
    if isinstance(e, ReactLabError):
        why = str(e).strip()
        end = "" if why.endswith((".", "!", "?")) else "."
        return f"Regenerating failed with {kept}: {why}{end} The run stays paused here."
    log.exception("regenerating a paused step failed unexpectedly")
    return f"Regenerating failed unexpectedly ({type(e).__name__}: {e}) with {kept}. The run stays paused here."


def _draw(agent: Agent, trace: Trace, step: Step, decision: Decision, drawn: list[Alternative]) -> Iterator[Event]:
    """``decision.k`` replies drawn for ``step`` from the prompt that wrote it, each with its own model call, into
    ``drawn`` as each arrives (so a failure keeps the ones before it)."""
    request = replace(agent.request_at(trace, step.index), temperature=float(decision.temperature))
    earlier = [s for s in trace.steps if s.index < step.index]
    previous = call_records.CallTexts.of(earlier)[-1] if earlier else None
    for _ in range(decision.k):
        yield StepStarted(step.index)
        reply = yield from agent.generate(request, step.index)
        parsed = agent.dialect.parse(reply.text, cut=reply.cut)
        drawn.append(
            Alternative(
                raw_output=reply.text,
                thought=parsed.thought,
                action=parsed.action,
                final_answer=parsed.final_answer,
                error=parsed.error or "",
                temperature=float(decision.temperature),
                usage=reply.usage,
                call=call_record(request, reply, previous),
            )
        )
