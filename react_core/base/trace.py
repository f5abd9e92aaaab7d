"""A run as data: Action, Observation (``observation.py``), Usage, Step and Trace.

These dataclasses are the single source for the next prompt, the UI, exports, the history store and test assertions.
``to_dict``/``from_dict`` round-trip exactly through JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from react_core.base.calls import STOPPED
from react_core.base.calls import FailedCall as FailedCall
from react_core.base.calls import McpCall as McpCall
from react_core.base.calls import ModelCall as ModelCall
from react_core.base.calls import ToolCall as ToolCall
from react_core.base.calls import Usage as Usage
from react_core.base.errors import ConfigError
from react_core.base.observation import Observation as Observation
from react_core.base.observation import ObservationStats as ObservationStats
from react_core.base.observation import Source as Source
from react_core.base.provenance import Provenance as Provenance
from react_core.base.recorded_settings import clean_settings
from react_core.base.text import plural

__all__ = [
    "Action",
    "Alternative",
    "Exchange",
    "FailedCall",
    "Intervention",
    "McpCall",
    "ModelCall",
    "Observation",
    "ObservationStats",
    "Provenance",
    "STOP_REASONS",
    "Source",
    "Step",
    "ToolCall",
    "Trace",
    "Usage",
    "ended",
]

# Why a run ended, and how to say it to a person.
STOP_REASONS = {
    "finished": "Answered",
    # Its own steps ended without an answer (a loop, the budget), and one more call asked for one (``early_stopping``).
    "answered_at_stop": "Answered when asked: its own steps had ended without an answer",
    "max_calls": "No answer: it used all its model calls",
    "context": "No answer: the prompt outgrew the model's context window",
    "loop": "No answer: it repeated an action that brought nothing new",
    "cancelled": "Stopped by you",
    "error": "Failed",
    "paused": "Paused: waiting for you",
}


def ended(stop_reason: str | None) -> str:
    """How a run ended, said to a person (``STOP_REASONS``); ``Unfinished`` when it has no stop reason (yet)."""
    return STOP_REASONS.get(stop_reason or "", "Unfinished")


@dataclass
class Action:
    tool: str
    input: str

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "input": self.input}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Action:
        return cls(tool=d["tool"], input=d["input"])


@dataclass
class Alternative:
    """One reply drawn again for a paused step (step mode's Regenerate): what the model wrote, what it was read as
    (``error``: why it could not be read), at which temperature, and its own model call."""

    raw_output: str
    thought: str = ""
    action: Action | None = None
    final_answer: str | None = None
    error: str = ""
    temperature: float = 0.0
    usage: Usage = field(default_factory=Usage)
    call: ModelCall | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["call"] = self.call.to_dict() if self.call else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Alternative:
        return cls(
            raw_output=d["raw_output"],
            thought=d.get("thought", ""),
            action=Action.from_dict(d["action"]) if d.get("action") else None,
            final_answer=d.get("final_answer"),
            error=d.get("error", ""),
            temperature=d.get("temperature", 0.0),
            usage=Usage.from_dict(d.get("usage", {})),
            call=ModelCall.from_dict(d["call"]) if d.get("call") else None,
        )

    def as_step(self, index: int) -> Step:
        """The step this reply is at ``index`` once picked: its Thought, action or answer, raw reply, usage and model
        call, nothing run yet (an unreadable reply's observation is its dialect's to word: ``loop.pause``)."""
        return Step(
            index, self.thought, self.action, None, self.final_answer, self.raw_output, self.usage, call=self.call
        )


@dataclass
class Intervention:
    """A person's decision at a paused step (step mode): ``kind`` run | edit | observe | regenerate | pick | stop,
    ``at`` which breakpoint (tool | error | finish), ``by`` whom, what the step said ``before`` and ``after`` (an action
    or an observation as text); a pick keeps every alternative drawn, the number ``picked`` (1 = the first) and the
    step's own reply it replaced; a regeneration passed over keeps its alternatives with none picked."""

    kind: str
    at: str
    by: str = "person"
    before: str = ""
    after: str = ""
    alternatives: list[Alternative] = field(default_factory=list)
    picked: int | None = None
    replaced: Alternative | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["alternatives"] = [a.to_dict() for a in self.alternatives]
        d["replaced"] = self.replaced.to_dict() if self.replaced else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Intervention:
        return cls(
            kind=d["kind"],
            at=d.get("at", ""),
            by=d.get("by", "person"),
            before=d.get("before", ""),
            after=d.get("after", ""),
            alternatives=[Alternative.from_dict(a) for a in d.get("alternatives", [])],
            picked=d.get("picked"),
            replaced=Alternative.from_dict(d["replaced"]) if d.get("replaced") else None,
        )


@dataclass
class Step:
    # Step mode's breakpoints, in the order a step meets them, and how to say each to a person.
    BREAKPOINTS: ClassVar[dict[str, str]] = {
        "tool": "before every tool call",
        "error": "on an unreadable step",
        "finish": "before Finish",
        # A call to a tool that runs only with a person's approval (an MCP tool not declared read-only): Run
        # approves it.
        "destructive": "before a destructive tool call",
        # An MCP server's question for a person in the middle of a call (an elicitation): the person answers it.
        "input": "when an MCP server asks you something",
    }

    index: int
    thought: str = ""
    action: Action | None = None
    observation: Observation | None = None
    final_answer: str | None = None
    raw_output: str = ""
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    leaked_observation: bool = False
    call: ModelCall | None = None
    tool_call: ToolCall | None = None  # the native function call behind the action (the ``tools`` dialect)
    # Step mode: the breakpoint this step waits at (tool | error | finish; '' once decided), the alternatives drawn
    # for it and not yet picked, and every decision a person took on it.
    pending: str = ""
    offered: list[Alternative] = field(default_factory=list)
    interventions: list[Intervention] = field(default_factory=list)

    @property
    def is_error(self) -> bool:
        return bool(self.observation and self.observation.is_error)

    @property
    def stopped(self) -> bool:
        """Stop came while the model wrote this step: its reply as far as it got, nothing of it run."""
        return self.call is not None and self.call.finish_reason == STOPPED

    def with_observation_edited(self, text: str) -> Step:
        """A copy of this step whose Observation a person rewrote on the fork form (its sources no longer apply)."""
        edited = Step.from_dict(self.to_dict())
        edited.observation = Observation(text=text, note=Observation.FORK_NOTE)
        return edited

    @property
    def asks(self) -> dict[str, Any] | None:
        """The questions the step's call asks a person before it can finish (an MCP server's), if any."""
        mcp = self.observation.mcp if self.observation is not None else None
        return mcp.asks if mcp is not None and mcp.asks else None

    @property
    def tool_call_text(self) -> str:
        """The exact call the step's action makes, e.g. ``search('Colorado orogeny')``; '' when it makes none."""
        if self.action is None:
            return ""
        return f"{self.action.tool}({self.action.input!r})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "thought": self.thought,
            "action": self.action.to_dict() if self.action else None,
            "observation": self.observation.to_dict() if self.observation else None,
            "final_answer": self.final_answer,
            "raw_output": self.raw_output,
            "usage": self.usage.to_dict(),
            "seconds": self.seconds,
            "leaked_observation": self.leaked_observation,
            "call": self.call.to_dict() if self.call else None,
            "tool_call": self.tool_call.to_dict() if self.tool_call else None,
            "pending": self.pending,
            "offered": [a.to_dict() for a in self.offered],
            "interventions": [i.to_dict() for i in self.interventions],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Step:
        return cls(
            index=d["index"],
            thought=d.get("thought", ""),
            action=Action.from_dict(d["action"]) if d.get("action") else None,
            observation=Observation.from_dict(d["observation"]) if d.get("observation") else None,
            final_answer=d.get("final_answer"),
            raw_output=d.get("raw_output", ""),
            usage=Usage.from_dict(d.get("usage", {})),
            seconds=d.get("seconds", 0.0),
            leaked_observation=d.get("leaked_observation", False),
            call=ModelCall.from_dict(d["call"]) if d.get("call") else None,
            tool_call=ToolCall.from_dict(d["tool_call"]) if d.get("tool_call") else None,
            pending=d.get("pending", ""),
            offered=[Alternative.from_dict(a) for a in d.get("offered", [])],
            interventions=[Intervention.from_dict(i) for i in d.get("interventions", [])],
        )


@dataclass
class Exchange:
    """An earlier question of the conversation and its answer, carried into a follow-up question as context."""

    question: str
    answer: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Exchange:
        return cls(question=d["question"], answer=d.get("answer") or "")


@dataclass
class Trace:
    question: str
    settings: dict[str, Any] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    final_answer: str | None = None
    stop_reason: str | None = None
    error: str | None = None
    context: list[Exchange] = field(default_factory=list)
    started_at: str = ""
    # The answer the question is known to have, when it is known: an evaluation question's gold answer, or a chat
    # question that is word for word one of the offline pack's HotpotQA questions (``react_core.report.expected``).
    expected_answer: str | None = None
    failed_call: FailedCall | None = None  # the model call whose failure ended the run, when one did
    imported_from: Provenance | None = None  # the file another tool wrote, for a run imported from one

    def __post_init__(self) -> None:
        self.settings = clean_settings(self.settings)

    @property
    def totals(self) -> dict[str, Any]:
        usage = Usage()
        for s in self.steps:
            usage = usage + s.usage
            # Step mode: alternatives drawn and replies set aside were spent too (a picked one is the step's own).
            notes = s.interventions
            aside = [a for n in notes for i, a in enumerate(n.alternatives, 1) if i != n.picked]
            for alt in [*s.offered, *aside, *(n.replaced for n in notes if n.replaced)]:
                usage = usage + alt.usage
        return {
            "steps": len(self.steps),
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "tokens": usage.prompt_tokens + usage.completion_tokens,
            "seconds": round(sum(s.seconds for s in self.steps), 6),
            "http_requests": sum(s.observation.stats.http_requests for s in self.steps if s.observation),
            "errors": sum(1 for s in self.steps if s.is_error),
        }

    def summary(self) -> str:
        """How the run ended, then its steps, seconds and tokens: ``Answered · 3 steps · 4.2 s · 1,234 tokens``."""
        t = self.totals
        figures = f"{plural(t['steps'], 'step')} · {t['seconds']:.1f} s · {plural(t['tokens'], 'token')}"
        return f"{ended(self.stop_reason)} · {figures}"

    def pending_step(self) -> Step:
        """The step a paused run waits at; a ConfigError when the run is not paused."""
        if self.stop_reason != "paused" or not self.steps or not self.steps[-1].pending:
            raise ConfigError(
                f"This run is not paused (its stop reason is {self.stop_reason!r}): there is nothing to resume."
            )
        return self.steps[-1]

    def as_if_picked(self, position: int, alternative: Alternative) -> Trace:
        """The run up to step ``position`` as if ``alternative`` had been picked there: the steps before it, then the
        alternative's step (its model call is read in this light, as the step's own would be)."""
        steps = [*self.steps[:position], alternative.as_step(self.steps[position].index)]
        return Trace(self.question, settings=dict(self.settings), steps=steps, context=list(self.context))

    @property
    def sources(self) -> list[Source]:
        """Every distinct source the observations drew on, in the order first seen."""
        seen: dict[str, Source] = {}
        for s in self.steps:
            for src in s.observation.sources if s.observation else []:
                seen.setdefault(src.url, src)
        return list(seen.values())

    def to_dict(self) -> dict[str, Any]:
        out = {
            "question": self.question,
            "settings": dict(self.settings),
            "steps": [s.to_dict() for s in self.steps],
            "final_answer": self.final_answer,
            "stop_reason": self.stop_reason,
            "error": self.error,
            "context": [t.to_dict() for t in self.context],
            "started_at": self.started_at,
            "expected_answer": self.expected_answer,
            "totals": self.totals,
        }
        if self.failed_call is not None:  # written only when there is one, so other traces read as they always did
            out["failed_call"] = self.failed_call.to_dict()
        if self.imported_from is not None:
            out["imported_from"] = self.imported_from.to_dict()
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Trace:
        # "totals" is derived from the steps, so it is written for readers but never read back.
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known - {"totals"}
        if unknown:
            raise ValueError(f"unknown trace fields: {sorted(unknown)}")
        return cls(
            question=d["question"],
            settings=d.get("settings", {}),
            steps=[Step.from_dict(s) for s in d.get("steps", [])],
            final_answer=d.get("final_answer"),
            stop_reason=d.get("stop_reason"),
            error=d.get("error"),
            context=[Exchange.from_dict(t) for t in d.get("context", [])],
            started_at=d.get("started_at", ""),
            expected_answer=d.get("expected_answer"),
            failed_call=FailedCall.from_dict(d["failed_call"]) if d.get("failed_call") else None,
            imported_from=Provenance.from_dict(d["imported_from"]) if d.get("imported_from") else None,
        )
