"""A run as it happens: the typed events the loop yields, and ``LiveRun``, what a watcher knows of a run so far.

``Agent.stream`` yields, for each step: ``StepStarted``, ``TextDelta`` as the model writes (its ``text`` goes back to
"" when a provider retries a broken stream: the step starts over), ``ActionParsed`` when the step's action is about to
run, ``ToolProgress`` while it runs when its tool says how far it has got, and ``StepDone`` with the finished ``Step``
(or, in step mode, ``Paused`` with the step that waits for a person); the last event is always ``RunDone`` with the
``Trace``. The chat's live panel, the command line, the evaluation and the history store all read this one stream;
nothing converts it to dicts and back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from react_core.base.trace import Action, Step, Trace

__all__ = [
    "ActionParsed",
    "Event",
    "LiveRun",
    "Paused",
    "RunDone",
    "StepDone",
    "StepStarted",
    "TextDelta",
    "ToolProgress",
    "Writing",
    "final_trace",
]


@dataclass(frozen=True)
class StepStarted:
    index: int


@dataclass(frozen=True)
class TextDelta:
    index: int
    delta: str
    text: str  # everything the model has written of this step so far


@dataclass(frozen=True)
class ActionParsed:
    index: int
    action: Action


@dataclass(frozen=True)
class ToolProgress:
    """How far the action of step ``index`` has got while it runs (an MCP server's progress notifications): so far,
    out of ``total`` when the tool knows it, and what it says it is doing."""

    index: int
    progress: float
    total: float | None = None
    message: str = ""

    @property
    def text(self) -> str:
        """For people: ``3 of 10 · indexing`` (a fraction of one as a percentage: ``30%``)."""
        amount = f"{self.progress:g}" + (f" of {self.total:g}" if self.total else "")
        if self.total == 1:
            amount = f"{self.progress:.0%}"
        return " · ".join(p for p in (amount, self.message) if p)


@dataclass(frozen=True)
class StepDone:
    step: Step


@dataclass(frozen=True)
class Paused:
    """Step mode: the run stops before ``step`` goes on (its ``pending`` names the breakpoint) and waits for a person's
    decision (``react_core.loop.pause``); ``RunDone`` follows with the paused Trace, this step last."""

    step: Step


@dataclass(frozen=True)
class RunDone:
    trace: Trace


Event = StepStarted | TextDelta | ActionParsed | ToolProgress | StepDone | Paused | RunDone


def final_trace(events: Iterable[Event]) -> Trace:
    """The Trace a stream of events ends with (the stream is read to its end)."""
    for event in events:
        if isinstance(event, RunDone):
            return event.trace
    raise ValueError("the events ended without RunDone")


@dataclass(frozen=True)
class Writing:
    """The step the model is writing: its text so far, and its action once it is about to run."""

    index: int
    text: str = ""
    action: Action | None = None
    progress: ToolProgress | None = None  # the action's latest progress, while it runs


@dataclass
class LiveRun:
    """The events folded into what a page draws: the steps done (``Step`` objects, never changed once done), the step
    being written, and the ``Trace`` once the run is over. ``apply`` takes the events in order; ``view`` is a copy a
    page can draw while the run goes on."""

    steps: list[Step] = field(default_factory=list)
    writing: Writing | None = None
    trace: Trace | None = None

    def apply(self, event: Event) -> None:
        if isinstance(event, StepStarted):
            self.writing = Writing(event.index)
        elif isinstance(event, TextDelta) and self.writing is not None:
            self.writing = replace(self.writing, text=event.text)
        elif isinstance(event, ActionParsed) and self.writing is not None:
            self.writing = replace(self.writing, action=event.action)
        elif isinstance(event, ToolProgress) and self.writing is not None and self.writing.index == event.index:
            self.writing = replace(self.writing, progress=event)
        elif isinstance(event, StepDone | Paused):
            self.steps.append(event.step)
            self.writing = None
        elif isinstance(event, RunDone):
            self.trace, self.steps, self.writing = event.trace, list(event.trace.steps), None

    def view(self) -> LiveRun:
        return LiveRun(list(self.steps), self.writing, self.trace)
