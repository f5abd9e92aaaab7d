"""What every finished run gets, in one place: ``finish`` runs its hooks once, whatever ended the run (``Run`` calls it
before it passes on ``RunDone``, so a reader that stops there misses nothing).

- **The expected answer**: the one the caller knows (an evaluation's gold answer, an arena's), else the offline pack's
  answer when the pack behind the run's knowledge setting holds the question word for word (``report.expected``).
- **Worth keeping**: a run that failed before any new step (a missing key, an unreachable provider) or was stopped
  before the model wrote anything is neither saved nor sent (History is not cluttered with empty runs); its message is
  the person's, in the trace. A run stopped while the model wrote keeps that step (``Step.stopped``) and is kept.
- **Saved for its owner**: a new row in their history; for a paused run taken on from History, its own row, claimed
  before the run started (``claim``: of two resumes one wins) and written over while still at that revision; one taken
  on elsewhere meanwhile is kept beside it as a new run. A store that fails says so in ``Kept.save_error``: the run
  itself stands, and is still sent.
- **Sent to the live OpenTelemetry endpoint once it has ended**: a paused run is saved, to be resumed, but sent only
  when it ends (``telemetry.live``: queued, never waited for).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from react_core.base.trace import Trace
from react_core.history import open_history
from react_core.report.expected import expected_answer_for
from react_core.telemetry.live import LiveTarget, export_finished_run

__all__ = ["Claimed", "Keeping", "Kept", "UNKEPT", "claim", "finish", "log", "worth_keeping"]

log = logging.getLogger(__name__)


@dataclass
class Keeping:
    """How a run is kept once it ends: whose history it is saved to and how, its expected answer, where it is sent."""

    owner: str | None = None  # whose history the run is saved to ('' locally); None: not saved (an evaluation's)
    store: Any = None  # an open history to save to instead (the arena's, a test's)
    origin: str = "chat"
    conversation: str = ""
    parent_id: int | None = None
    fork_step: int | None = None
    # A paused run of History taken on: its row, and its revision as the person saw it (None: the stored one).
    run_id: int | None = None
    revision: int | None = None
    expected: str | None = None  # the answer the caller knows; else looked up when ``look_up``
    look_up: bool = True
    export: LiveTarget | None = field(default_factory=LiveTarget)  # None: never sent (a replay)

    @property
    def saves(self) -> bool:
        return self.store is not None or self.owner is not None

    def history(self) -> Any:
        return self.store if self.store is not None else open_history(self.owner or "")


# A run nobody keeps: no expected answer looked up, not saved, not sent (fine-tuning's replay of a trajectory).
UNKEPT = Keeping(look_up=False, export=None)


@dataclass(frozen=True)
class Claimed:
    """A saved paused run reserved for this resume: the store, its row, the revision the claim gave, its
    conversation."""

    store: Any
    run_id: int
    revision: int
    conversation: str


@dataclass(frozen=True)
class Kept:
    """Where the finished run is: its row (None when not saved), the row's revision, why saving failed ('')."""

    run_id: int | None = None
    revision: int = 0
    save_error: str = ""


def claim(store: Any, record: Any, revision: int | None) -> Claimed:
    """Take ``record`` (a paused run of ``store``) to resume it: a Conflict when another resume got there first."""
    claimed = store.claim(record.id, record.revision if revision is None else revision)
    return Claimed(store, record.id, claimed, record.conversation)


def worth_keeping(trace: Trace, before: int) -> bool:
    """Not a run that failed, or was stopped, before taking a step beyond the ``before`` it went on from."""
    return not (trace.stop_reason in ("error", "cancelled") and len(trace.steps) <= before)


def finish(
    trace: Trace, keeping: Keeping, *, settings: Mapping[str, Any], before: int, claimed: Claimed | None = None
) -> Kept:
    """The hooks every finished run gets, in order. ``settings``: the run's (its knowledge setting names the pack the
    expected answer is looked up in); ``before``: how many of its steps it went on from."""
    if keeping.expected is not None:
        trace.expected_answer = keeping.expected
    elif keeping.look_up:
        trace.expected_answer = expected_answer_for(trace.question, settings)
    if not worth_keeping(trace, before):
        return Kept()
    kept = _save(trace, keeping, claimed) if claimed is not None or keeping.saves else Kept()
    if trace.stop_reason != "paused" and keeping.export is not None:
        export_finished_run(trace, keeping.export, conversation=keeping.conversation)  # a chat's turns: one session
    return kept


def _save(trace: Trace, keeping: Keeping, claimed: Claimed | None) -> Kept:
    try:
        if claimed is None:
            store = keeping.history()
            return Kept(
                store.save(
                    trace,
                    origin=keeping.origin,
                    conversation=keeping.conversation,
                    parent_id=keeping.parent_id,
                    fork_step=keeping.fork_step,
                )
            )
        if claimed.store.update(claimed.run_id, trace, claimed.revision):
            return Kept(claimed.run_id, claimed.revision + 1)
        # Taken on elsewhere while this one ran: kept beside it rather than over it.
        beside = claimed.store.save(trace, origin="resume", conversation=claimed.conversation, parent_id=claimed.run_id)
        return Kept(beside)
    except Exception as e:  # the run is still shown; only the saving failed, and the person is told
        log.exception("saving a run to history failed")
        return Kept(claimed.run_id if claimed else None, save_error=f"This run could not be saved to history: {e}")
