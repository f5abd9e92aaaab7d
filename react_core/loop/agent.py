"""The ReAct loop: one model call per step, a budget, an explicit stop reason, events for whoever is watching.

Each step sends the fixed prefix (instructions + examples) and the question, the past steps rendered by the dialect, and
the next step's prefix. In the ``tools`` dialect (native tool calling) the past steps go as a conversation instead, the
tools as declared functions, and a reply with several calls gives several steps, run in order (the first carries the
model call; the others say they came from the same reply); the budget counts model calls either way. Partial text is
streamed as it arrives, and cut at the dialect's stop sequences (providers may ignore them). The model's
mistakes become error observations and the loop goes on; provider and configuration failures end the run with ``error``
and a message for the person, keeping every step already taken, and so does anything unexpected. A repeat is a loop only
when it brings nothing new: the same action with the same input (or no readable action at all) answered by the same
observation three times in a row. ``stream`` yields the run as typed events (``react_core.base.events``: step started,
text as the model writes it, the action about to run, the step done) and last ``RunDone`` with the Trace; ``run``
reads that stream and returns the Trace.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import chain
from typing import Any

from react_core.base import call_records, tool_specs
from react_core.base import cancel as cancellation
from react_core.base.cancel import Cancelled
from react_core.base.errors import ConfigError, ContextOverflowError, ReactLabError
from react_core.base.events import ActionParsed, Event, Paused, RunDone, StepDone, StepStarted, TextDelta, final_trace
from react_core.base.trace import Exchange, FailedCall, ModelCall, Observation, Step, Trace, Usage
from react_core.dialects import get_dialect
from react_core.dialects.base import Dialect, ParseResult
from react_core.loop.acting import act, declined
from react_core.loop.model_call import Reply, Stopped, call_record, read_reply, stopped_step
from react_core.presets.dynamic import chosen_examples
from react_core.presets.preset import Preset
from react_core.presets.render import render_prefix, render_question
from react_core.providers.base import CompletionRequest, Provider
from react_core.tools.registry import ToolRegistry

log = logging.getLogger(__name__)
DEFAULT_MAX_CALLS = 8
LOOP_REPEATS = 3
# What a run does when its own steps end without an answer (a loop, the budget spent), named as LangChain's
# AgentExecutor names it (``early_stopping_method``): stop there (the paper's environment, and the default), or make
# one more call asking the model for its final answer (LangChain's "generate"; smolagents does it at its step limit).
EARLY_STOPPING = {
    "force": "Stop without an answer (the paper's)",
    "generate": "Ask the model once more for its final answer",
}
# Stop reasons after which "generate" asks for an answer: the model's own steps ran out, nothing failed or was stopped.
ASKABLE_STOPS = ("loop", "max_calls")
# The start of the thought of that last call: LangChain's own words for it.
ANSWER_AT_STOP = "I now need to return a final answer based on the previous steps:"
# How often a run with no one to ask declines a server's questions and sends the call again before giving up.
ASKED_ROUNDS = 3
Signal = threading.Event | None  # a person's Stop or Pause here, set from another thread


@dataclass
class RunConfig:
    provider: Provider
    preset: Preset
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    max_calls: int = DEFAULT_MAX_CALLS
    temperature: float = 0.0
    max_tokens: int = 400
    # Constrain the on-device model's decoding to one well-formed step of the dialect (providers that can).
    grammar: bool = False
    # Step mode: the breakpoints (``Step.BREAKPOINTS``) where the run pauses for a person (``react_core.loop.pause``).
    pause_before: tuple[str, ...] = ()
    # ``EARLY_STOPPING``: "generate" asks for a final answer, in one call beyond the budget, when a run stops without
    # one.
    early_stopping: str = "force"
    # What else the trace records about how it ran (the knowledge source, the evaluation strategy). Never a key:
    # Trace drops names it does not know.
    recorded: dict[str, Any] = field(default_factory=dict)


def settled(step: Step) -> Step:
    """A copy of an earlier run's step to go on from (a fork, a retry): no longer waiting at a pause."""
    copy = Step.from_dict(step.to_dict())
    copy.pending, copy.offered = "", []
    return copy


def check_pausable(pause_before: Sequence[str], dialect: Dialect) -> None:
    """Refuse a breakpoint that is not one, and step mode in the tools dialect (one reply may hold several calls)."""
    unknown = set(pause_before) - set(Step.BREAKPOINTS)
    if unknown:
        raise ConfigError(f"Unknown breakpoints {sorted(unknown)}: choose from {', '.join(Step.BREAKPOINTS)}.")
    if pause_before and dialect.native_tools:
        raise ConfigError(
            "Step mode pauses the text dialects; the tools dialect's replies may hold several calls at once. Choose "
            "another dialect, or turn step mode off."
        )


def check_supported(provider: Provider, dialect: Dialect) -> None:
    """Refuse a dialect the provider cannot speak (``Provider.unspoken``)."""
    why = provider.unspoken(dialect.name)
    if why:
        raise ConfigError(why)


class Agent:
    """Runs one question to a stop reason. Holds no state between runs except the config. A config whose provider
    cannot speak its prompt's dialect is refused here, once per run (``check_supported``)."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.dialect: Dialect = get_dialect(config.preset.dialect)
        check_supported(config.provider, self.dialect)
        self.stops = tuple(dict.fromkeys(self.dialect.stop + config.provider.extra_stops))

    def run(
        self,
        question: str,
        *,
        context: Sequence[Exchange] = (),
        cancel: threading.Event | None = None,
        prior_steps: Sequence[Step] = (),
        resume_thought: str | None = None,
    ) -> Trace:
        """The run's Trace: ``stream`` read to its end."""
        events = self.stream(
            question, context=context, cancel=cancel, prior_steps=prior_steps, resume_thought=resume_thought
        )
        return final_trace(events)

    def stream(
        self,
        question: str,
        *,
        context: Sequence[Exchange] = (),
        cancel: threading.Event | None = None,
        prior_steps: Sequence[Step] = (),
        resume_thought: str | None = None,
        pause: threading.Event | None = None,
    ) -> Iterator[Event]:
        """The run as events, to a stop reason. ``prior_steps`` (a fork) are kept and written into the prompt; the run
        then takes up to ``max_calls`` new steps, the first starting from ``resume_thought`` when given (the model
        continues that thought). Never raises: whatever ends the run is its stop reason, with the steps taken so far,
        and the last event is ``RunDone``. ``pause`` set: the run pauses at the next step written ("Pause here")."""
        trace = self._new_trace(question, context, prior_steps)
        yield from self.drive(trace, self.loop(trace, resume_thought), cancel, pause)

    def drive(self, trace: Trace, events: Iterator[Event], cancel: Signal, pause: Signal = None) -> Iterator[Event]:
        """``events`` (the loop, or a resumed run) passed on until they end, then ``RunDone``: whatever ends them is
        the trace's stop reason."""
        try:
            # Within the scope, whatever waits for this run (a stream, a backoff, a Wikipedia request) hears Stop.
            with cancellation.run_scope(cancel, pause):
                # The run's own tools (an MCP server's) are known to the dialect and the prompt while it runs only.
                yield from tool_specs.scoped(chain(events, self.answer_at_stop(trace)), self.config.tools.specs)
        except Cancelled:
            trace.stop_reason = "cancelled"
        except ContextOverflowError as e:
            # The context window is a budget too: the run ends without an answer, and says why.
            trace.stop_reason, trace.error = "context", str(e)
        except ReactLabError as e:
            trace.stop_reason, trace.error = "error", str(e)
        except Exception as e:  # a bug must not throw away the steps already taken and shown
            log.exception("the run failed unexpectedly")
            trace.stop_reason = "error"
            trace.error = f"Unexpected error ({type(e).__name__}: {e}). The steps so far are kept; please report it."
        yield RunDone(trace)

    def _new_trace(self, question: str, context: Sequence[Exchange], prior_steps: Sequence[Step]) -> Trace:
        cfg = self.config
        chosen = chosen_examples(cfg.preset, question)[1]  # dynamic examples: which ones this question gets
        return Trace(
            question=question,
            settings={
                "provider": cfg.provider.name,
                "model": cfg.provider.model,
                "dialect": self.dialect.name,
                "preset": cfg.preset.name,
                **({"prompt_version": cfg.preset.ref} if cfg.preset.ref else {}),
                **({"examples_chosen": chosen} if chosen else {}),
                "temperature": cfg.temperature,
                "max_calls": cfg.max_calls,
                "tools": cfg.tools.names,
                **({"grammar": True} if self._constrained() else {}),
                **({"pause_before": list(cfg.pause_before)} if cfg.pause_before else {}),
                **({"early_stopping": cfg.early_stopping} if cfg.early_stopping != "force" else {}),
                **cfg.recorded,
            },
            context=list(context),
            steps=[settled(s) for s in prior_steps],
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )

    def loop(self, trace: Trace, seed: str | None, calls: int | None = None) -> Iterator[Event]:
        """The steps after ``trace``'s own, up to ``calls`` model calls (the run's budget when None)."""
        cfg = self.config
        check_pausable(cfg.pause_before, self.dialect)
        if seed and self.dialect.native_tools:
            raise ConfigError(
                "A run in the tools dialect cannot continue an edited thought (the APIs cannot be made to go on from "
                "a reply's text); fork from an edited observation instead."
            )
        system, question_block, scratchpad = self._prompt_parts(trace, trace.steps)
        previous = call_records.CallTexts.of(trace.steps)[-1] if trace.steps else None
        index = len(trace.steps) + 1
        # The budget counts model calls; a reply with several tool calls gives several steps.
        for _ in range(cfg.max_calls if calls is None else calls):
            cancellation.check()
            yield StepStarted(index)
            started = time.perf_counter()
            request = self._request(system, question_block, scratchpad, trace.steps, index, seed)
            reply = yield from self._write(trace, request, index, seed, previous, started)
            head = index
            for n, parsed in enumerate(self._read(reply, seed)):
                if n:
                    yield StepStarted(index)
                    started = time.perf_counter()
                step = self._step(index, reply, parsed, n)
                if n == 0:
                    step.call = call_record(request, reply, previous)
                    previous = call_records.advance(previous, step.call)
                else:
                    step.call = ModelCall(same_reply_as=head)
                seed = None
                trace.steps.append(step)
                step.pending = self.breakpoint_at(step) or self._pause_here(step)
                if step.pending:
                    trace.stop_reason, step.seconds = "paused", round(time.perf_counter() - started, 6)
                    yield Paused(step)
                    return
                yield from self.settle(trace, step, started)
                if trace.stop_reason:
                    return
                scratchpad += self.dialect.render_step(step)
                index += 1
        trace.stop_reason = "max_calls"

    def settle(
        self, trace: Trace, step: Step, started: float, *, approved: bool = False, answer: dict | None = None
    ) -> Iterator[Event]:
        """The step carried through: its answer ends the run, its action runs (an unreadable step already has its
        error observation), a loop ends the run; then ``StepDone``. ``approved``: a person approved its call (step
        mode's ``destructive`` breakpoint); ``answer``: their answer to what its call asked them (``input``). A call
        that asks a person something pauses at the ``input`` breakpoint, or without it is told no (``Step.asks``)."""
        if step.final_answer is not None:
            trace.final_answer, trace.stop_reason = step.final_answer, "finished"
        elif step.observation is None:  # an action to run
            assert step.action is not None
            yield ActionParsed(step.index, step.action)
            cancellation.check()
            step.observation = yield from act(self.config.tools, step.action, step.index, approved, answer)
            if (yield from self._asked(trace, step, started, approved)):
                return
        if trace.stop_reason is None and self._looping(trace.steps):
            trace.stop_reason = "loop"
            step.observation.note = (
                f"The same action got the same observation {LOOP_REPEATS} times in a row, so the run stopped."
            )
        step.seconds = round(step.seconds + time.perf_counter() - started, 6)
        yield StepDone(step)

    def _asked(self, trace: Trace, step: Step, started: float, approved: bool) -> Generator[Event, None, bool]:
        """Whether the step's call asks a person something and the run pauses for them (True); without the ``input``
        breakpoint, the questions are declined and the call sent again, a few times at most."""
        for _ in range(ASKED_ROUNDS):
            asks = step.asks
            if asks is None:
                return False
            if "input" in self.config.pause_before:
                step.pending, trace.stop_reason = "input", "paused"
                step.seconds = round(step.seconds + time.perf_counter() - started, 6)
                yield Paused(step)
                return True
            assert step.action is not None
            step.observation = yield from act(self.config.tools, step.action, step.index, approved, declined(asks))
        if step.asks is not None:
            step.observation = Observation.error("The MCP server kept asking questions no one here can answer.")
        return False

    def breakpoint_at(self, step: Step, chosen: Sequence[str] | None = None) -> str:
        """The breakpoint ``step`` meets in step mode ('' when the run goes on); ``chosen``: the breakpoints in use,
        the run's own when None."""
        chosen = self.config.pause_before if chosen is None else chosen
        if step.final_answer is not None:
            hit = "finish"
        elif step.is_error:
            hit = "error"
        else:
            hit = "tool" if step.action is not None else ""
            # A call only a person's approval runs: with that breakpoint chosen, the person is asked (else refused).
            if hit and self.config.tools.asks_approval(step.action.tool) and "destructive" in chosen:
                hit = "destructive"
        return hit if hit in chosen else ""

    def _pause_here(self, step: Step) -> str:
        """A person asked the run to pause ("Pause here"): the step just written waits at the breakpoint it meets, as
        if every one were chosen. Not in the tools dialect, whose replies may hold several calls."""
        if self.dialect.native_tools or not cancellation.pause_requested():
            return ""
        return self.breakpoint_at(step, tuple(Step.BREAKPOINTS))

    def answer_at_stop(self, trace: Trace) -> Iterator[Event]:
        """Under ``early_stopping="generate"``, a run whose own steps ended without an answer (``ASKABLE_STOPS``) gets
        one more call, as LangChain's "generate" makes it: the steps so far, then a thought starting with its words
        (``ANSWER_AT_STOP``; a dialect without thoughts, or native tool calls, gets none), with only Finish offered
        (the grammar allows nothing else; the tools dialect declares Finish alone). An answer ends the run
        ``answered_at_stop``; anything else is kept as an error step, not run, and the run keeps its stop reason."""
        cfg = self.config
        if cfg.early_stopping != "generate" or trace.stop_reason not in ASKABLE_STOPS:
            return
        index = trace.steps[-1].index + 1 if trace.steps else 1
        seed = ANSWER_AT_STOP if self.dialect.thinks and not self.dialect.native_tools else None
        yield StepStarted(index)
        started = time.perf_counter()
        request = self._request(*self._prompt_parts(trace, trace.steps), trace.steps, index, seed, tools=[])
        previous = call_records.CallTexts.of(trace.steps)[-1] if trace.steps else None
        reply = yield from self._write(trace, request, index, seed, previous, started)
        step = self._step(index, reply, self._read(reply, seed)[0], 0)
        step.call = call_record(request, reply, previous)
        if step.final_answer is not None:
            trace.final_answer, trace.stop_reason = step.final_answer, "answered_at_stop"
        elif step.observation is None:  # an action where an answer was asked for: not run
            step.action, step.observation = (
                None,
                Observation.error(
                    "Asked for a final answer after the run stopped, the model wrote an action instead; it was not run."
                ),
            )
        step.seconds = round(time.perf_counter() - started, 6)
        trace.steps.append(step)
        yield StepDone(step)

    def request_at(self, trace: Trace, index: int) -> CompletionRequest:
        """The request that writes step ``index`` after the steps before it (a paused step drawn again)."""
        before = [s for s in trace.steps if s.index < index]
        return self._request(*self._prompt_parts(trace, before), before, index, None)

    def _prompt_parts(self, trace: Trace, steps: Sequence[Step]) -> tuple[str, str, str]:
        """The prompt before the next step's prefix, in its three parts: the fixed prefix (instructions, and the
        examples chosen for the question when the preset chooses them), the question block, the ``steps`` so far."""
        cfg = self.config
        return (
            render_prefix(cfg.preset, cfg.tools.names, trace.question),
            render_question(cfg.preset, trace.question, trace.context),
            "".join(self.dialect.render_step(s) for s in steps),
        )

    def _request(
        self,
        system: str,
        question: str,
        scratchpad: str,
        steps: list[Step],
        index: int,
        seed: str | None,
        tools: list[str] | None = None,
    ) -> CompletionRequest:
        """The call that writes step ``index``; ``tools``: the tools the reply may call, when fewer than the run's
        (the prompt still describes the run's own)."""
        cfg = self.config
        offered = cfg.tools.names if tools is None else tools
        if self.dialect.native_tools:
            # The question is the first message; the steps become the conversation after it.
            return CompletionRequest(
                system=system,
                prompt=question,
                stop=self.stops,
                temperature=cfg.temperature,
                max_tokens=cfg.max_tokens,
                messages=tuple(self.dialect.messages(steps)),
                tools=self.dialect.declarations(offered),
            )
        step_prefix = self.dialect.step_prefix(index)
        if seed:
            # A forked step: the model continues the edited thought instead of starting its own.
            step_prefix += ("" if step_prefix.endswith("\n") else " ") + seed.strip()
        return CompletionRequest(
            system=system,
            prompt=question + scratchpad + step_prefix,
            stop=self.stops,
            temperature=cfg.temperature,
            max_tokens=cfg.max_tokens,
            grammar=self.dialect.grammar(offered, index) if self._constrained() else None,
        )

    def _read(self, reply: Reply, seed: str | None) -> list[ParseResult]:
        """What the model did: one result for a text dialect, one per call for native tool calls (a reply's calls
        beyond the run's budget are not run). A reply cut before the model ended it (at its length, by a content
        filter) gives an action or an answer only where the dialect saw it closed: else an error observation, never a
        half-written answer."""
        cut = reply.cut
        if self.dialect.native_tools:
            return self.dialect.read_reply(reply.text, reply.tool_calls, cut=cut)[: self.config.max_calls]
        return [self.dialect.parse(seed.strip() + reply.text if seed else reply.text, cut=cut)]

    def _constrained(self) -> bool:
        return self.config.grammar and self.config.provider.constrained

    def _write(
        self,
        trace: Trace,
        request: CompletionRequest,
        index: int,
        seed: str | None,
        previous: call_records.CallTexts | None,
        started: float,
    ) -> Generator[Event, None, Reply]:
        """The reply that writes step ``index``. Stop while the model writes ends the run (``drive``) with the step as
        far as it was written, nothing of it run; a failed call ends it too, the trace keeping which call failed and
        how."""
        try:
            return (yield from self.generate(request, index))
        except Stopped as e:
            if e.reply.text:
                thought = self._read(e.reply, seed)[0].thought
                trace.steps.append(stopped_step(index, thought, request, e.reply, previous, started))
                yield StepDone(trace.steps[-1])
            raise
        except ReactLabError as e:
            trace.failed_call = FailedCall.of(e, time.perf_counter() - started)
            raise

    def generate(self, request: CompletionRequest, index: int) -> Generator[Event, None, Reply]:
        """The model's reply, its text yielded as it arrives."""
        pieces = read_reply(self.config.provider, request)
        while True:
            try:
                delta, text = next(pieces)
            except StopIteration as done:
                return done.value
            yield TextDelta(index, delta, text)

    def _step(self, index: int, reply: Reply, parsed: ParseResult, n: int) -> Step:
        """The step the model wrote (the ``n``-th of its reply): its thought and its action or answer, or an error
        observation when neither could be read. The reply's text and usage go with its first step."""
        calls_made = reply.tool_calls if self.dialect.native_tools else []
        step = Step(
            index=index,
            thought=parsed.thought,
            action=parsed.action,
            final_answer=parsed.final_answer,
            raw_output=reply.text if n == 0 else "",
            usage=reply.usage if n == 0 else Usage(),
            leaked_observation=parsed.leaked_observation,
            tool_call=calls_made[n] if n < len(calls_made) else None,
        )
        if parsed.error:
            step.observation = Observation.error(f"{parsed.error} {self.dialect.reminder(self.config.tools.names)}")
        return step

    @staticmethod
    def _looping(steps: list[Step]) -> bool:
        """The last LOOP_REPEATS steps took the same action with the same input (or had no readable action) and got
        the same observation: repeating it again would bring nothing new. Lookup paging through "(Result k / n)" and
        a Search repeated after the page changed are progress, not loops."""
        if len(steps) < LOOP_REPEATS:
            return False

        def key(s: Step) -> tuple | None:
            if s.final_answer is not None or s.observation is None:
                return None
            action = (s.action.tool, " ".join(s.action.input.lower().split())) if s.action else None
            return action, " ".join(s.observation.text.split())

        last = [key(s) for s in steps[-LOOP_REPEATS:]]
        return last[0] is not None and all(k == last[0] for k in last)
