"""A chat turn on a background thread, so the page stays responsive (streaming, Stop, polite refusals).

One turn per browser session at a time. The thread builds the run config (which may load an SDK or the on-device
model: slow, so never on the page's thread), runs the agent, keeps a lock-protected picture of the progress for the
page to draw, and saves the finished trace to the history store itself, so a closed tab never loses a finished run.
The provider it used is handed back through ``provider`` for the session to reuse (a script drives a whole
conversation); the session takes it when it collects the turn.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from typing import Any

from react_core.base.errors import ConfigError, ReactLabError
from react_core.base.trace import Action, Exchange, Observation, Step, Trace
from react_core.dialects import get_dialect
from react_core.history import open_history
from react_core.loop.agent import Agent
from react_core.loop.settings import RunSettings, build_run_config
from react_core.presets.preset import Preset
from react_core.providers.allowance import OPERATOR, Allowance
from react_core.providers.base import Provider
from react_core.report.expected import expected_answer_for
from ui.jobs.base import Job

log = logging.getLogger(__name__)
# Settings that need a new provider object when they change; everything else applies to the same provider.
PROVIDER_FIELDS = ("provider", "model", "base_url", "model_path", "script", "delay")
EDITED_NOTE = "Edited by hand in a fork."  # the note on an Observation rewritten on the fork form


@dataclass
class TurnRequest:
    """Everything a turn needs, as plain values captured when it starts (later settings changes do not leak in)."""

    question: str
    settings: dict[str, Any]
    chat_id: str
    turn_id: int
    context: list[dict[str, Any]] = field(default_factory=list)
    preset: dict[str, Any] | None = None
    dialect: str = "paper"  # the preset's dialect, for drawing the live steps
    api_key: str = ""
    prior_steps: list[dict[str, Any]] = field(default_factory=list)
    resume_thought: str | None = None
    # Re-ask from a step with another action (a "Similar:" title): run it, then continue.
    replace_action: dict[str, Any] | None = None
    origin: str = "chat"  # chat | retry | fork | similar
    label: str = ""  # shown above the turn, e.g. "Fork of run #3 from step 2"
    replaces_turn: int | None = None  # a retry takes the failed turn's place
    parent_id: int | None = None
    fork_step: int | None = None
    # Whose history the run is saved to, whose keys it may use, the person's call window (ui.identity.allowance).
    allowance: Allowance = OPERATOR


def provider_signature(settings: dict[str, Any], api_key: str) -> tuple:
    key_digest = hashlib.sha256(api_key.encode()).hexdigest() if api_key else ""
    return (*(settings.get(k) for k in PROVIDER_FIELDS), key_digest)


class TurnJob(Job):
    """One running turn. ``snapshot()`` is safe to call from any thread at any time."""

    name = "turn"

    def __init__(self, request: TurnRequest, reuse: Provider | None = None) -> None:
        """``reuse``: the session's provider from its last turn, used again when the settings still match it."""
        super().__init__(request.allowance)
        self.request = request
        self.signature = provider_signature(request.settings, request.api_key)
        self.provider: Provider | None = reuse
        self._steps: list[dict[str, Any]] = [dict(s) for s in request.prior_steps]
        self._current: dict[str, Any] | None = None
        self._preparing = True  # building the provider and knowledge (the on-device model may be loading)
        self._trace: dict[str, Any] | None = None
        self._history_id: int | None = None
        self._save_error: str | None = None

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "kind": "done" if self.done else "running",
                "question": self.request.question,
                "steps": list(self._steps),
                "current": dict(self._current) if self._current else None,
                "trace": self._trace,
                "history_id": self._history_id,
                "save_error": self._save_error,
                "max_index": len(self.request.prior_steps) + int(self.request.settings.get("max_calls", 8)),
                "cancelling": self.cancelling,
                "preparing": self._preparing,
            }

    # -- worker side ----------------------------------------------------------------------------------

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        with self._lock:
            if kind == "step_started":
                self._current = {"index": event["index"], "text": "", "action": None}
            elif kind == "text" and self._current is not None:
                self._current["text"] = event["text"]
            elif kind == "action" and self._current is not None:
                self._current["action"] = event["action"]
            elif kind == "step":
                self._steps.append(event["step"])
                self._current = None

    def _config(self):
        req = self.request
        settings = RunSettings.from_dict(req.settings)
        preset = Preset.from_dict(req.preset) if req.preset else None
        config = self.allowance.build(
            lambda: build_run_config(settings, preset=preset, api_key=req.api_key or None, provider=self.provider)
        )
        self.provider = config.provider  # reused by the session's next turn, unwrapped
        config.provider = self.allowance.limit(config.provider)
        return config

    def work(self) -> None:
        req = self.request
        context = [Exchange.from_dict(t) for t in req.context]
        prior = [Step.from_dict(s) for s in req.prior_steps]
        try:
            config = self._config()
            prepare = getattr(config.provider, "prepare", None)
            if callable(prepare):
                prepare()  # load the on-device model now, so the page can say so instead of "Thinking…"
            with self._lock:
                self._preparing = False
            if req.replace_action:
                prior = self._replace_last(config, prior)
            trace = Agent(config).run(
                req.question,
                context=context,
                on_event=self._on_event,
                cancel=self._cancel,
                prior_steps=prior,
                resume_thought=req.resume_thought,
            )
        except ReactLabError as e:
            trace = self._failed(prior, context, str(e))
        self._finish(trace)

    def crashed(self, message: str) -> None:
        req = self.request
        prior = [Step.from_dict(s) for s in req.prior_steps]
        self._finish(self._failed(prior, [Exchange.from_dict(t) for t in req.context], message))

    def _finish(self, trace: Trace) -> None:
        trace.expected_answer = expected_answer_for(self.request.question, self.request.settings)
        history_id, save_error = self._save(trace)
        with self._lock:
            self._history_id, self._save_error = history_id, save_error
            self._trace = trace.to_dict()
            self._current = None

    def _replace_last(self, config, prior: list[Step]) -> list[Step]:
        """Run the replacement action for the last prior step and give that step its result."""
        action = Action.from_dict(self.request.replace_action or {})
        # The action goes into the next prompt in the run's dialect: one it cannot write faithfully (a title with
        # "]" in Search[…]) would be read back by the model as another action.
        why = get_dialect(config.preset.dialect).unrenderable(action)
        if why:
            raise ConfigError(f"This run's dialect cannot write {action.tool}: {action.input!r}. {why}")
        step = prior[-1]
        step.action, step.final_answer = action, None
        step.observation = config.tools.run(action)
        with self._lock:
            self._steps = [s.to_dict() for s in prior]
        return prior

    def _failed(self, prior: list[Step], context: list[Exchange], message: str) -> Trace:
        return Trace(
            question=self.request.question,
            # The dialect the run was written in, so its kept steps are drawn in it.
            settings={**self.request.settings, "dialect": self.request.dialect},
            steps=prior,
            stop_reason="error",
            error=message,
            context=context,
        )

    def _save(self, trace: Trace) -> tuple[int | None, str | None]:
        req = self.request
        # A failure before any new step (a missing key, an unreachable provider) is not a run worth keeping.
        if trace.stop_reason == "error" and len(trace.steps) <= len(req.prior_steps):
            return None, None
        try:
            store = open_history(self.allowance.owner)
            return store.save(
                trace, origin=req.origin, conversation=req.chat_id, parent_id=req.parent_id, fork_step=req.fork_step
            ), None
        except Exception as e:  # the answer is still shown; only the saving failed, and the person is told
            log.exception("saving to history failed")
            return None, f"This run could not be saved to history: {e}"


def edited_observation_step(step: dict[str, Any], text: str) -> dict[str, Any]:
    """A copy of a step whose Observation was rewritten by hand (its sources no longer apply)."""
    edited = Step.from_dict(step)
    edited.observation = Observation(text=text, note=EDITED_NOTE)
    return edited.to_dict()
