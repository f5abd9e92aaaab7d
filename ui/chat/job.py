"""A chat turn on a background thread, so the page stays responsive (streaming, Stop, polite refusals), and ``Turn``,
what the conversation keeps of a turn.

One turn per browser session at a time. The thread hands the turn to the engine's run service (``react_core.Run``:
it builds the run, which may load an SDK or the on-device model, so never on the page's thread; runs it; and saves
and sends the finished trace itself, so a closed tab never loses a finished run) and folds its events into a
``LiveRun`` that the page draws (``view``). The provider the run used is handed back through ``provider`` for the
session to reuse (a script drives a whole conversation); the session takes it, and the finished ``turn``, when it
collects the job.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from react_core import (
    Action,
    Allowance,
    Decision,
    Exchange,
    Keeping,
    LiveRun,
    LiveTarget,
    Preset,
    Provider,
    Run,
    RunDone,
    RunRequest,
    RunSettings,
    Step,
    Trace,
)
from ui.shared.job import Job

if TYPE_CHECKING:  # a separate line from the front door's list above: only a type
    from react_core import Writing

# Settings that need a new provider object when they change; everything else applies to the same provider.
PROVIDER_FIELDS = ("provider", "model", "base_url", "model_path", "script", "delay")


@dataclass
class Turn:
    """A question of the conversation and its run, as the Chat page keeps and draws it, running or finished: while it
    runs (``running``), its trace holds the steps done so far and ``writing`` the step the model is writing."""

    id: int
    trace: Trace
    history_id: int | None = None
    origin: str = "chat"  # chat | retry | fork | similar
    label: str = ""  # shown above the turn, e.g. "Fork of run #3 from step 2"
    revision: int = 0  # the saved row's revision as drawn: a decision on a paused run names it (step mode)
    writing: Writing | None = None
    running: bool = False

    @property
    def question(self) -> str:
        return self.trace.question

    @property
    def key(self) -> str:
        """Where its panels' widget keys begin (``ui.shared.render.step_key``): the same across a decision's new job;
        a running turn's are its own (its panels have no buttons yet)."""
        return "live" if self.running else f"t{self.id}"


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
    # Whose history the run is saved to, whose keys it may use, the person's call window (ui.shared.identity.allowance).
    allowance: Allowance = Allowance.OPERATOR
    # Live export as the Settings page names it (local mode only: ``LiveTarget.endpoint`` keeps that rule).
    export: LiveTarget = field(default_factory=LiveTarget)
    # Step mode: a decision on the paused run ``paused`` (saved as ``history_id`` at ``revision``, when it was saved).
    decision: Decision | None = None
    paused: Trace | None = None
    history_id: int | None = None
    revision: int = 0


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
        self._pause = threading.Event()
        self.run = Run(run_request(request, reuse, self._cancel, self._pause), keeping(request))
        self._live = LiveRun(steps=self.run.before)
        self._preparing = True  # until the first event: the provider and knowledge are built, the model may load
        self.turn: Turn | None = None
        self.save_error: str | None = None
        self.refused: str | None = None  # why a step-mode decision was not taken

    def pause(self) -> None:
        """Pause here: the run stops at the next step the model has written, before its action, and waits for a
        decision as in step mode."""
        self._pause.set()

    @property
    def pausing(self) -> bool:
        return self._pause.is_set()

    @property
    def provider(self) -> Provider | None:
        """The provider the run built (or reused), for the session's next turn."""
        return self.run.provider

    @property
    def preparing(self) -> bool:
        """Until the run's first event: the provider and knowledge are being built, the model may be loading."""
        return self._preparing

    @property
    def max_index(self) -> int:
        return len(self.request.prior_steps) + int(self.request.settings.get("max_calls", 8))

    def model_status(self) -> Any:
        """What the model is doing and how fast (``Provider.status``); None when it cannot tell."""
        return self.provider.status() if self.provider is not None else None

    def view(self) -> Turn:
        """The turn as it stands, for the page to draw while it runs: the steps done, in the run's dialect and with
        its settings, as the finished run's will be, and the step being written."""
        req = self.request
        with self._lock:
            live = self._live.view()
        trace = live.trace or Trace(req.question, settings={**req.settings, "dialect": req.dialect}, steps=live.steps)
        return Turn(req.turn_id, trace, origin=req.origin, label=req.label, writing=live.writing, running=True)

    # -- worker side ----------------------------------------------------------------------------------

    def work(self) -> None:
        for event in self.run:
            with self._lock:
                self._preparing = False
                self._live.apply(event)
        req, run = self.request, self.run
        assert run.trace is not None
        with self._lock:
            self.turn = Turn(req.turn_id, run.trace, run.run_id, req.origin, req.label, run.revision)
            self.save_error = run.save_error or None
            self.refused = run.refused or None

    def crashed(self, message: str) -> None:
        """A bug outside the run (which says its own failures): the turn ends with the message, a paused run as it
        was."""
        req = self.request
        failed = Trace(req.question, settings=req.settings, steps=list(req.prior_steps), stop_reason="error")
        failed.error = message
        trace = req.paused or failed
        with self._lock:
            self._live.apply(RunDone(trace))
            self.turn = Turn(req.turn_id, trace, req.history_id, req.origin, req.label, req.revision)
            self.refused = message if req.paused else None


def run_request(req: TurnRequest, reuse: Provider | None, cancel: Any, pause: Any) -> RunRequest:
    """The engine's request for the turn: its settings and prompt, under the person's allowance."""
    return RunRequest(
        req.question,
        RunSettings.from_dict(req.settings),
        preset=req.preset,
        api_key=req.api_key or None,
        provider=reuse,
        context=req.context,
        prior_steps=req.prior_steps,
        resume_thought=req.resume_thought,
        replace_action=req.replace_action,
        decision=req.decision,
        paused=req.paused,
        allowance=req.allowance,
        cancel=cancel,
        pause=pause,
    )


def keeping(req: TurnRequest) -> Keeping:
    """How the turn is kept: in the person's history, in this conversation (a paused run's own row when it was saved),
    and sent where the Settings page says, in local mode only."""
    return Keeping(
        owner=req.allowance.owner,
        origin=req.origin,
        conversation=req.chat_id,
        parent_id=req.parent_id,
        fork_step=req.fork_step,
        run_id=req.history_id if req.decision is not None else None,
        revision=req.revision if req.decision is not None and req.history_id is not None else None,
        export=req.export,
    )
