"""A chat turn on a background thread, so the page stays responsive (streaming, Stop, polite refusals), and ``Turn``,
what the conversation keeps of a turn.

One turn per browser session at a time. The thread builds the run config (which may load an SDK or the on-device
model: slow, so never on the page's thread), reads the loop's events into a ``LiveRun`` that the page draws
(``view``), and saves the finished trace to the history store itself, so a closed tab never loses a finished run.
The provider it used is handed back through ``provider`` for the session to reuse (a script drives a whole
conversation); the session takes it, and the finished ``turn``, when it collects the job.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from typing import Any

from react_core import (
    EDITED_NOTE,
    OPERATOR,
    Action,
    Agent,
    Allowance,
    ConfigError,
    Decision,
    Exchange,
    LiveRun,
    Observation,
    Preset,
    Provider,
    ReactLabError,
    RunDone,
    RunSettings,
    Step,
    Trace,
    build_run_config,
    cannot_go_on,
    expected_answer_for,
    export_run_live,
    get_dialect,
    open_history,
    resume,
    resume_saved,
)
from ui.jobs.base import Job

log = logging.getLogger(__name__)
# Settings that need a new provider object when they change; everything else applies to the same provider.
PROVIDER_FIELDS = ("provider", "model", "base_url", "model_path", "script", "delay")


@dataclass
class Turn:
    """A question of the conversation and its run, as the Chat page keeps and draws it."""

    id: int
    trace: Trace
    history_id: int | None = None
    origin: str = "chat"  # chat | retry | fork | similar
    label: str = ""  # shown above the turn, e.g. "Fork of run #3 from step 2"
    revision: int = 0  # the saved row's revision as drawn: a decision on a paused run names it (step mode)

    @property
    def question(self) -> str:
        return self.trace.question


@dataclass
class TurnRequest:
    """Everything a turn needs, captured when it starts (later settings changes do not leak in)."""

    question: str
    settings: dict[str, Any]  # RunSettings.to_dict(), never a key
    chat_id: str
    turn_id: int
    context: list[Exchange] = field(default_factory=list)
    preset: Preset | None = None  # the prompt to run (None: the settings name it, as a script or a test may do)
    dialect: str = "paper"  # the prompt's dialect, for drawing the live steps
    api_key: str = ""
    prior_steps: list[Step] = field(default_factory=list)
    resume_thought: str | None = None
    # Re-ask from a step with another action (a "Similar:" title): run it, then continue.
    replace_action: Action | None = None
    origin: str = "chat"
    label: str = ""
    replaces_turn: int | None = None  # a retry takes the failed turn's place
    parent_id: int | None = None
    fork_step: int | None = None
    # Whose history the run is saved to, whose keys it may use, the person's call window (ui.identity.allowance).
    allowance: Allowance = OPERATOR
    # Live export as the Settings page names it (local mode only: ``telemetry.live.endpoint`` keeps that rule).
    export_to: str = ""
    export_content: bool | None = None
    # Step mode: a decision on the paused run ``paused`` (saved as ``history_id`` at ``revision``, when it was saved).
    decision: Decision | None = None
    paused: Trace | None = None
    history_id: int | None = None
    revision: int = 0


@dataclass(frozen=True)
class TurnView:
    """What the page draws of a running turn."""

    live: LiveRun
    max_index: int
    preparing: bool
    cancelling: bool
    done: bool
    model: Any = None  # what the model is doing and how fast (``Provider.status``); None when it cannot tell


def provider_signature(settings: dict[str, Any], api_key: str) -> tuple:
    key_digest = hashlib.sha256(api_key.encode()).hexdigest() if api_key else ""
    return (*(settings.get(k) for k in PROVIDER_FIELDS), key_digest)


class TurnJob(Job):
    """One running turn. ``view()`` is safe to call from any thread at any time; ``turn`` is set once it is done."""

    name = "turn"

    def __init__(self, request: TurnRequest, reuse: Provider | None = None) -> None:
        """``reuse``: the session's provider from its last turn, used again when the settings still match it."""
        super().__init__(request.allowance)
        self.request = request
        self.signature = provider_signature(request.settings, request.api_key)
        self.provider: Provider | None = reuse
        self._live = LiveRun(steps=list(request.prior_steps))
        self._preparing = True  # building the provider and knowledge (the on-device model may be loading)
        self.turn: Turn | None = None
        self.save_error: str | None = None
        self.refused: str | None = None  # why a step-mode decision was not taken

    def view(self) -> TurnView:
        with self._lock:
            return TurnView(
                live=self._live.view(),
                max_index=len(self.request.prior_steps) + int(self.request.settings.get("max_calls", 8)),
                preparing=self._preparing,
                cancelling=self.cancelling,
                done=self.done,
                model=self.provider.status() if self.provider is not None else None,
            )

    # -- worker side ----------------------------------------------------------------------------------

    def _config(self):
        req = self.request
        settings = RunSettings.from_dict(req.settings)
        config = self.allowance.build(
            lambda: build_run_config(settings, preset=req.preset, api_key=req.api_key or None, provider=self.provider)
        )
        self.provider = config.provider  # reused by the session's next turn, unwrapped
        config.provider = self.allowance.limit(config.provider)
        return config

    def work(self) -> None:
        if self.request.decision is not None:
            self._decide()
            return
        req = self.request
        prior = list(req.prior_steps)
        try:
            config = self._config()
            prepare = getattr(config.provider, "prepare", None)
            if callable(prepare):
                prepare()  # load the on-device model now, so the page can say so instead of "Thinking…"
            with self._lock:
                self._preparing = False
            if req.replace_action is not None:
                prior = self._replace_last(config, prior)
            events = Agent(config).stream(
                req.question,
                context=req.context,
                cancel=self._cancel,
                prior_steps=prior,
                resume_thought=req.resume_thought,
            )
            trace = self._follow(events)
        except ReactLabError as e:
            trace = self._failed(prior, str(e))
        self._finish(trace)

    def _follow(self, events) -> Trace:
        """Fold the loop's events into the live view the page draws, up to RunDone; its Trace."""
        for event in events:
            if isinstance(event, RunDone):
                return event.trace
            with self._lock:
                self._live.apply(event)
        raise ValueError("the events ended without RunDone")  # never: the loop always ends with RunDone

    def crashed(self, message: str) -> None:
        if self.request.decision is not None:
            self._kept(message)
            return
        self._finish(self._failed(list(self.request.prior_steps), message))

    def _decide(self) -> None:
        """Step mode: the paused run taken on with the person's decision. Its saved row is claimed and updated
        (``resume_saved``); one that could not be saved is resumed in memory and saved when it ends. A decision that
        cannot be taken (an edit that does not parse, a run resumed in another tab, a provider gone) leaves the
        paused run as it was, and says why."""
        req = self.request
        assert req.decision is not None and req.paused is not None
        try:
            config = self._config()
        except ReactLabError as e:
            self._kept(str(cannot_go_on(req.paused, e)))
            return
        try:
            with self._lock:
                self._preparing = False
            agent = Agent(config)
            resumed = None
            if req.history_id is None:
                events = resume(agent, req.paused, req.decision, cancel=self._cancel)
            else:
                store = open_history(self.allowance.owner)
                resumed = resume_saved(
                    store, req.history_id, req.decision, agent=agent, revision=req.revision, cancel=self._cancel
                )
                events = resumed.events
        except ReactLabError as e:
            self._kept(str(e))
            return
        trace = self._follow(events)
        if resumed is None:
            self._finish(trace)
            return
        with self._lock:
            self._live.apply(RunDone(trace))
            self.turn = Turn(req.turn_id, trace, resumed.run_id, req.origin, req.label, resumed.revision)
            self.save_error = resumed.save_error or None

    def _kept(self, message: str) -> None:
        """The decision was not taken: the paused run stays as it was, and the person is told why."""
        req = self.request
        assert req.paused is not None
        with self._lock:
            self._live.apply(RunDone(req.paused))
            self.turn = Turn(req.turn_id, req.paused, req.history_id, req.origin, req.label, req.revision)
            self.refused = message

    def _finish(self, trace: Trace) -> None:
        req = self.request
        trace.expected_answer = expected_answer_for(req.question, req.settings)
        history_id, save_error = self._save(trace)
        if self._worth_keeping(trace):
            # To the OpenTelemetry endpoint, if any: queued, never waited for.
            export_run_live(
                trace,
                chosen_url=req.export_to,
                chosen_content=req.export_content,
                visitor=req.allowance.own_endpoints,
                conversation=req.chat_id,
            )
        with self._lock:
            self._live.apply(RunDone(trace))
            self.turn = Turn(req.turn_id, trace, history_id, req.origin, req.label)
            self.save_error = save_error

    def _replace_last(self, config, prior: list[Step]) -> list[Step]:
        """Run the replacement action for the last prior step and give (a copy of) that step its result."""
        action = self.request.replace_action
        assert action is not None
        # The action goes into the next prompt in the run's dialect: one it cannot write faithfully (a title with
        # "]" in Search[…]) would be read back by the model as another action.
        why = get_dialect(config.preset.dialect).unrenderable(action)
        if why:
            raise ConfigError(f"This run's dialect cannot write {action.tool}: {action.input!r}. {why}")
        step = Step.from_dict(prior[-1].to_dict())  # the earlier run's step is left as it was
        step.action, step.final_answer = action, None
        step.observation = config.tools.run(action)
        prior = [*prior[:-1], step]
        with self._lock:
            self._live = LiveRun(steps=list(prior))
        return prior

    def _failed(self, prior: list[Step], message: str) -> Trace:
        return Trace(
            question=self.request.question,
            # The dialect the run was written in, so its kept steps are drawn in it.
            settings={**self.request.settings, "dialect": self.request.dialect},
            steps=prior,
            stop_reason="error",
            error=message,
            context=list(self.request.context),
        )

    def _worth_keeping(self, trace: Trace) -> bool:
        # A failure before any new step (a missing key, an unreachable provider) is not a run worth keeping.
        return not (trace.stop_reason == "error" and len(trace.steps) <= len(self.request.prior_steps))

    def _save(self, trace: Trace) -> tuple[int | None, str | None]:
        req = self.request
        if not self._worth_keeping(trace):
            return None, None
        try:
            store = open_history(self.allowance.owner)
            return store.save(
                trace, origin=req.origin, conversation=req.chat_id, parent_id=req.parent_id, fork_step=req.fork_step
            ), None
        except Exception as e:  # the answer is still shown; only the saving failed, and the person is told
            log.exception("saving to history failed")
            return None, f"This run could not be saved to history: {e}"


def edited_observation_step(step: Step, text: str) -> Step:
    """A copy of a step whose Observation was rewritten by hand (its sources no longer apply)."""
    edited = Step.from_dict(step.to_dict())
    edited.observation = Observation(text=text, note=EDITED_NOTE)
    return edited
