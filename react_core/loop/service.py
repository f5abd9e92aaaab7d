"""The run service: one owner runs a question and keeps the result, whoever asked.

The chat's turn, an arena's columns, the evaluation's Act and ReAct (and so the bootstrap's runs), ``ask`` and
``stream``, a step-mode decision and a paused run resumed from History each make a ``Run`` from a ``RunRequest`` (what
the run needs) and a ``Keeping`` (what is done with it once it ends); nothing else makes an ``Agent``.

``prepare()`` builds the run: the provider (under the person's allowance, or the one given to reuse), the prompt,
tools and knowledge, the agent; for a decision, the paused run is read (from History when it is saved there), the
decision checked and the run's row claimed. What cannot be done raises there, before the first event. Iterating the run
yields the loop's events and never raises: a run that could not start ends with stop reason ``error`` and the one
message, a decision that could not be taken leaves the paused run as it was (``refused`` says why), Stop ends it as
``cancelled``. Before the last event, ``RunDone``, every run gets the same finish (``keeping.finish``: its expected
answer, saved for its owner, sent once it has ended), as mini-swe-agent saves its trajectory in a ``finally`` and
smolagents hands each finished step to its registered callbacks. Then ``trace``, ``run_id``, ``revision`` and
``save_error`` say how it ended and where it is kept, and ``provider`` is what it ran on, for the caller to reuse.

A strategy that answers without the loop (Standard and CoT in the arena: one model call) gives its own events as
``answer``; the rest is the same.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from react_core.base.cancel import Cancelled, run_scope
from react_core.base.errors import ConfigError, ReactLabError
from react_core.base.events import ActionParsed, Event, RunDone, StepDone, StepStarted, final_trace
from react_core.base.trace import Action, Exchange, Step, Trace
from react_core.history.store import resumed_elsewhere
from react_core.loop.agent import Agent, RunConfig
from react_core.loop.keeping import Claimed, Keeping, claim, finish
from react_core.loop.pause import Decision, resume
from react_core.loop.recorded import Recorded
from react_core.loop.settings import RunSettings, build_run_config, provider_for
from react_core.presets.preset import Preset
from react_core.providers.allowance import Allowance
from react_core.providers.base import Provider

__all__ = ["Answer", "Run", "RunRequest", "log"]

log = logging.getLogger(__name__)
Answer = Callable[[Provider], Iterator[Event]]


@dataclass
class RunRequest:
    """What a run needs. A new question goes on from ``prior_steps`` when given (a fork, a retry); a decision takes the
    paused run ``paused`` on (or the saved one that ``Keeping.run_id`` names)."""

    question: str = ""
    settings: RunSettings | None = None  # None: the environment's (for a decision: what the paused run recorded)
    preset: Preset | None = None  # the prompt itself (an edited or saved one), else the settings name it
    api_key: str | None = field(default=None, repr=False)
    provider: Provider | None = None  # one to reuse (a session's, an evaluation's), else built from the settings
    config: RunConfig | None = None  # one built already (the command line's): the four fields above are then unused
    context: Sequence[Exchange] = ()
    prior_steps: Sequence[Step] = ()
    resume_thought: str | None = None  # the first new step continues this thought (a fork from an edited thought)
    replace_action: Action | None = None  # run this for the last prior step instead, then go on (a similar title)
    decision: Decision | None = None
    paused: Trace | None = None
    recorded: Mapping[str, Any] = field(default_factory=dict)  # what else the trace records (strategy, arena, column)
    allowance: Allowance | None = None  # the person's: built under its key rules, called within its window
    cancel: threading.Event | None = None
    pause: threading.Event | None = None  # set: pause at the next step written ("Pause here"; the text dialects)
    keep_provider: bool = True  # False: a provider built for this run alone is closed when it ends


class Run:
    """One run, from its request to what is kept of it. Iterate it once."""

    def __init__(self, request: RunRequest, keeping: Keeping | None = None, *, answer: Answer | None = None) -> None:
        self.request = request
        self.keeping = keeping if keeping is not None else Keeping()
        self.answer = answer
        self.config: RunConfig | None = request.config
        self.provider: Provider | None = request.config.provider if request.config else request.provider
        self.settings: RunSettings | None = request.settings
        self.paused: Trace | None = request.paused
        self.trace: Trace | None = None
        self.run_id: int | None = self.keeping.run_id
        self.revision = self.keeping.revision or 0
        self.save_error = ""
        self.refused = ""
        self._events: Iterator[Event] | None = None
        self._problem: Exception | None = None
        self._claimed: Claimed | None = None

    @classmethod
    def resume(
        cls,
        store: Any,
        run_id: int,
        decision: Decision,
        *,
        agent: Agent | None = None,
        revision: int | None = None,
        cancel: threading.Event | None = None,
        **options: Any,
    ) -> Run:
        """The paused run ``run_id`` of ``store`` taken on with ``decision``, its row updated with the result (a
        script's resume from History). Before it returns the run is read, its config built (its own recorded settings
        on the environment's; ``options``: ``preset``, ``api_key``, ``provider``), the decision checked and the row
        claimed (a ``Conflict`` when another resume got there first). ``revision``: the run's revision as the person
        saw it, else the stored one. ``agent``: one built for the run already. Iterate the returned run for its
        events."""
        request = RunRequest(decision=decision, config=agent.config if agent else None, cancel=cancel, **options)
        run = cls(request, Keeping(store=store, run_id=run_id, revision=revision))
        run.prepare()
        return run

    @staticmethod
    def scope(
        cancel: threading.Event | None, pause: threading.Event | None = None
    ) -> contextlib.AbstractContextManager[None]:
        """Within this block (on this thread), every run made obeys ``cancel`` (Stop: a model stream, a retry's
        backoff or a Wikipedia request that is waiting stops at once) and ``pause`` ("Pause here"): a job's work runs
        in its own. Either one None leaves the one around it in place."""
        return run_scope(cancel, pause)

    @property
    def before(self) -> list[Step]:
        """The steps a watcher shows before the first event: those the run goes on from, as they were."""
        if self.request.decision is not None:
            return list(self.paused.steps[:-1]) if self.paused is not None else []
        prior = list(self.request.prior_steps)
        return prior[:-1] if self.request.replace_action is not None else prior

    def prepare(self) -> None:
        """Build the run, or check the decision and claim its row; a ReactLabError says why it cannot start."""
        if self._problem is not None:
            raise self._problem
        if self._events is not None:
            return
        allowance = self.request.allowance
        try:
            with allowance.keys() if allowance is not None else contextlib.nullcontext():
                self._events = self._start()
        except Exception as e:
            self._problem = e
            raise

    def result(self) -> Trace:
        """The run read to its end: the Trace it ends with (as ``trace`` says afterwards)."""
        return final_trace(self)

    def __iter__(self) -> Iterator[Event]:
        if self.trace is not None:  # it has ended (and been kept): read again, it is only its end
            yield RunDone(self.trace)
            return
        trace: Trace | None = None
        try:
            try:
                self.prepare()
            except Exception as e:
                if self.request.decision is not None:  # the paused run stays as it was
                    yield self._refuse(e)
                    return
                raise
            assert self._events is not None
            for event in self._events:
                if isinstance(event, RunDone):
                    trace = event.trace
                    break
                yield event
        except Cancelled:
            trace = self._failed(None, "cancelled")
        except ReactLabError as e:
            trace = self._failed(str(e))
        except Exception as e:  # a bug must still end the run with the steps it took and one message
            log.exception("a run failed unexpectedly")
            trace = self._failed(_unexpected(e))
        finally:
            self._close()
        if trace is None:
            trace = self._failed("The run ended without a result.")
        if self.answer is not None:
            trace.settings.update(self.request.recorded)
        self._finish(trace)
        yield RunDone(trace)

    # -- starting --------------------------------------------------------------------------------------------------

    def _start(self) -> Iterator[Event]:
        req = self.request
        if self.settings is None and req.config is None and req.decision is None:
            self.settings = RunSettings.from_env()
        if self.answer is not None:
            return self.answer(self._provider())
        if req.decision is not None:
            return self._decide(req.decision)
        agent = self._agent()
        if req.replace_action is not None:
            # The action goes into the next prompt in the run's dialect: one it cannot write faithfully (a title with
            # "]" in Search[…]) would be read back by the model as another action.
            action = req.replace_action
            why = agent.dialect.unrenderable(action)
            if why:
                raise ConfigError(f"This run's dialect cannot write {action.tool}: {action.input!r}. {why}")
            return self._replaced(agent, action)
        return agent.stream(
            req.question,
            context=req.context,
            cancel=req.cancel,
            prior_steps=req.prior_steps,
            resume_thought=req.resume_thought,
            pause=req.pause,
        )

    def _provider(self) -> Provider:
        req = self.request
        assert self.settings is not None
        if self.provider is None:
            self.provider = provider_for(self.settings, api_key=req.api_key)
        return req.allowance.limit(self.provider) if req.allowance is not None else self.provider

    def _agent(self) -> Agent:
        req = self.request
        if self.config is None:
            assert self.settings is not None
            config = build_run_config(self.settings, preset=req.preset, api_key=req.api_key, provider=req.provider)
            config.recorded.update(req.recorded)
            self.provider = config.provider  # the caller reuses it as built, outside this person's window
            if req.allowance is not None:
                config.provider = req.allowance.limit(config.provider)
            self.config = config
        agent = Agent(self.config)  # refuses a dialect its provider cannot speak
        prepare = getattr(self.provider, "prepare", None)
        if callable(prepare):
            prepare()  # the on-device model loads now: a watcher says so until the first event
        return agent

    def _decide(self, decision: Decision) -> Iterator[Event]:
        keeping = self.keeping
        record, store = None, None
        if keeping.run_id is not None:  # saved in History: the stored run is the one taken on
            store = keeping.history()
            record = store.get(keeping.run_id)
            if record is None or record.trace is None:
                raise ConfigError(f"There is no run #{keeping.run_id} in your history.")
            if record.damaged:
                raise ConfigError(f"Run #{keeping.run_id} is damaged and cannot be resumed: {record.damaged}")
            if keeping.revision is not None and record.revision != keeping.revision:
                raise resumed_elsewhere(keeping.run_id)  # it changed since the person saw it
            self.paused = record.trace
        paused = self.paused
        if paused is None:
            raise ConfigError("There is no paused run to take on.")
        paused.pending_step()
        if self.settings is None and self.config is None:
            self.settings = Recorded(paused).run_settings()
        try:
            agent = self._agent()
        except ReactLabError as e:
            raise Recorded(paused).cannot_go_on(e) from None
        events = resume(agent, paused, decision, cancel=self.request.cancel, pause=self.request.pause)
        if record is not None:
            self._claimed = claim(store, record, keeping.revision)
        return events

    def _replaced(self, agent: Agent, action: Action) -> Iterator[Event]:
        """The last prior step run again with ``action`` (a copy: the earlier run's step is left as it was), then the
        run goes on from it."""
        req = self.request
        step = Step.from_dict(req.prior_steps[-1].to_dict())
        step.action, step.final_answer = action, None
        yield StepStarted(step.index)
        yield ActionParsed(step.index, action)
        step.observation = agent.config.tools.run(action)
        yield StepDone(step)
        yield from agent.stream(
            req.question,
            context=req.context,
            cancel=req.cancel,
            prior_steps=[*req.prior_steps[:-1], step],
            resume_thought=req.resume_thought,
            pause=req.pause,
        )

    # -- ending ----------------------------------------------------------------------------------------------------

    def _refuse(self, why: Exception) -> RunDone:
        """The decision was not taken: the paused run, as it was, and why."""
        if isinstance(why, Cancelled):
            message = "Stopped before the decision was taken: the run stays paused."
        else:
            message = str(why) if isinstance(why, ReactLabError) else _unexpected(why)
        self.refused = message
        if self.paused is None:
            self._finish(self._failed(message))
            return RunDone(self.trace)  # type: ignore[arg-type]
        self.trace = self.paused
        return RunDone(self.paused)

    def _failed(self, message: str | None, reason: str = "error") -> Trace:
        """A run that ended before the loop could say so itself: set up failed, or Stop came first."""
        req = self.request
        values = self.settings.to_dict() if self.settings is not None else {}
        preset = req.preset or (self.config.preset if self.config is not None else None)
        dialect = preset.dialect if preset is not None else values.get("dialect")
        return Trace(
            question=req.question,
            # The dialect the steps kept were written in, so they are drawn in it.
            settings={**values, **({"dialect": dialect} if dialect else {}), **req.recorded},
            steps=list(req.prior_steps),
            stop_reason=reason,
            error=message,
            context=list(req.context),
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )

    def _finish(self, trace: Trace) -> None:
        self.trace = trace
        req = self.request
        before = len(self.paused.steps) - 1 if req.decision is not None and self.paused else len(req.prior_steps)
        values = self.settings.to_dict() if self.settings is not None else trace.settings
        kept = finish(trace, self.keeping, settings=values, before=before, claimed=self._claimed)
        self.run_id, self.revision, self.save_error = kept.run_id, kept.revision, kept.save_error

    def _close(self) -> None:
        """A provider built for this run alone (``keep_provider`` False) is closed once it has ended."""
        req = self.request
        built = req.provider is None and req.config is None and self.provider is not None
        if built and not req.keep_provider and not self.provider.shared:  # type: ignore[union-attr]
            self.provider.close()  # type: ignore[union-attr]


def _unexpected(e: Exception) -> str:
    return f"Unexpected error ({type(e).__name__}: {e}). Please report it."
