"""A run as data: Action, Source, Observation, Usage, Step and Trace.

These dataclasses are the single source for the next prompt, the UI, exports, the history store and test assertions.
``to_dict``/``from_dict`` round-trip exactly through JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

# Why a run ended, and how to say it to a person.
STOP_REASONS = {
    "finished": "Answered",
    "max_calls": "No answer: it used all its model calls",
    "context": "No answer: the prompt outgrew the model's context window",
    "loop": "No answer: it repeated an action that brought nothing new",
    "cancelled": "Stopped by you",
    "error": "Failed",
}

# The settings a trace records. A key or any other secret is never one of them: Trace.from_dict and the
# constructor drop anything not listed here.
SETTINGS_FIELDS = (
    "provider",
    "model",
    "dialect",
    "preset",
    "temperature",
    "max_calls",
    "knowledge",
    "tools",
    "strategy",
    "grammar",
)


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
class Source:
    title: str
    url: str
    revision: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Source:
        return cls(title=d["title"], url=d["url"], revision=d.get("revision"))


@dataclass
class ObservationStats:
    http_requests: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ObservationStats:
        return cls(http_requests=d.get("http_requests", 0), seconds=d.get("seconds", 0.0))


@dataclass
class McpCall:
    """An MCP tool call behind an observation, as the step panel shows it (like the Model call section): which server
    and tool, the arguments sent, and the result as the server gave it (``CallToolResult`` as JSON, its content
    blocks' data left out), or why there was none. Never a credential: ``server`` is the configured server's name."""

    server: str
    tool: str  # the tool's name on its server (the step's action names it name-spaced)
    arguments: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    error: str = ""  # no result: refused, timed out, the server died or refused the call
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> McpCall:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass
class Observation:
    text: str
    is_error: bool = False
    sources: list[Source] = field(default_factory=list)
    stats: ObservationStats = field(default_factory=ObservationStats)
    # Where the text came from when it is not the configured source (e.g. the offline pack standing in
    # for unreachable Wikipedia). Empty when nothing needs saying.
    note: str = ""
    # The text is evidence a tool returned (a page's sentences, a Lookup result, a Calculator result), not a miss,
    # a "no more results" or an error: only evidence can ground an answer.
    evidence: bool = False
    # The MCP request and result behind the text, for an MCP tool's observation (None for every other tool).
    mcp: McpCall | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "text": self.text,
            "is_error": self.is_error,
            "sources": [s.to_dict() for s in self.sources],
            "stats": self.stats.to_dict(),
            "note": self.note,
            "evidence": self.evidence,
        }
        if self.mcp is not None:  # written only when there is one, so other traces read as they always did
            out["mcp"] = self.mcp.to_dict()
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Observation:
        return cls(
            text=d["text"],
            is_error=d.get("is_error", False),
            sources=[Source.from_dict(s) for s in d.get("sources", [])],
            stats=ObservationStats.from_dict(d.get("stats", {})),
            note=d.get("note", ""),
            # Traces written before the field existed: a page found by Search or Lookup is the evidence they hold.
            evidence=d.get("evidence", bool(d.get("sources")) and not d.get("is_error", False)),
            mcp=McpCall.from_dict(d["mcp"]) if d.get("mcp") else None,
        )

    @classmethod
    def error(cls, text: str) -> Observation:
        return cls(text=text, is_error=True)


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Usage:
        return cls(prompt_tokens=d.get("prompt_tokens", 0), completion_tokens=d.get("completion_tokens", 0))

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)


@dataclass
class ToolCall:
    """A function call a model made natively (the ``tools`` dialect): what it called, with the arguments exactly as it
    wrote them (JSON text, possibly malformed), so the conversation can be sent back to it as it was."""

    id: str  # the API's id for the call ('' when the API gives none, as Gemini's may not)
    name: str
    arguments: str
    # Opaque data the API wants back with the call (Gemini's thought signature, base64); '' when none.
    signature: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ToolCall:
        return cls(d.get("id", ""), d["name"], d.get("arguments", ""), d.get("signature", ""))


@dataclass
class ModelCall:
    """The model call behind a step, kept so that the request can be rebuilt byte for byte without storing the whole
    prompt again for every step (which would grow as the square of the steps).

    ``body`` is the request as the provider's API received it, with the run's long texts replaced by references
    (``{"$ref": "system"}``, ``{"$ref": "prompt"}``, ``{"$ref": "system+prompt"}``). The texts themselves are stored
    once: ``system`` only when it differs from the previous call's, and the prompt as what it keeps of the previous
    call's prompt (``prompt_keep`` characters) plus what it adds. ``react_core.base.call_records`` rebuilds them.
    """

    api: str = ""  # e.g. "openai.chat.completions", "gemini.streamGenerateContent", "llama.cpp"
    endpoint: str = ""  # where it was sent (never a key); "" for an in-process model
    body: dict[str, Any] = field(default_factory=dict)
    system: str | None = None  # None: the same as the previous call's
    prompt_keep: int = 0
    prompt_added: str = ""
    # Parameters left out on purpose or dropped after the server refused them: [{"param": …, "reason": …}].
    omitted: list[dict[str, str]] = field(default_factory=list)
    stop_local: list[str] = field(default_factory=list)  # the stop sequences the loop enforced by cutting
    finish_reason: str = ""
    cut_at: int | None = None  # where in the raw output a stop sequence cut the reply
    cut_by: str = ""  # which one
    first_token_seconds: float = 0.0
    seconds: float = 0.0
    reused_tokens: int | None = None  # prompt tokens the model reused from its cache, when it says
    conversation: str = ""  # the body key holding the message list ('' for a single prompt)
    messages_keep: int = 0
    messages_added: list[Any] = field(default_factory=list)
    same_reply_as: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ModelCall:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass
class Step:
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

    @property
    def is_error(self) -> bool:
        return bool(self.observation and self.observation.is_error)

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


# Names that traces, settings, presets and evaluation results were written with before a rename: "format" became
# "dialect", the one word for an action format. Every reader of stored data goes through ``current_names``.
RENAMED = {"format": "dialect"}


def current_names(d: Mapping[str, Any]) -> dict[str, Any]:
    """``d`` with names written before a rename read as today's; a current name wins over its old one."""
    out = dict(d)
    for old, new in RENAMED.items():
        if old in out:
            value = out.pop(old)
            out.setdefault(new, value)
    return out


def clean_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Keep only the recorded setting names, so a key can never ride along into a trace."""
    settings = current_names(settings)
    return {k: settings[k] for k in SETTINGS_FIELDS if k in settings}


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

    def __post_init__(self) -> None:
        self.settings = clean_settings(self.settings)

    @property
    def totals(self) -> dict[str, Any]:
        usage = Usage()
        for s in self.steps:
            usage = usage + s.usage
        return {
            "steps": len(self.steps),
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "tokens": usage.prompt_tokens + usage.completion_tokens,
            "seconds": round(sum(s.seconds for s in self.steps), 6),
            "http_requests": sum(s.observation.stats.http_requests for s in self.steps if s.observation),
            "errors": sum(1 for s in self.steps if s.is_error),
        }

    @property
    def sources(self) -> list[Source]:
        """Every distinct source the observations drew on, in the order first seen."""
        seen: dict[str, Source] = {}
        for s in self.steps:
            for src in s.observation.sources if s.observation else []:
                seen.setdefault(src.url, src)
        return list(seen.values())

    def to_dict(self) -> dict[str, Any]:
        return {
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
        )
