"""What a run keeps of its calls: ``ToolCall`` (a native function call), ``ModelCall`` (the request behind a step,
stored so it can be rebuilt byte for byte), ``Usage`` (its tokens), ``McpCall`` (an MCP tool's request and result)
and ``FailedCall`` (the model call a run ended on when it failed).
``react_core.base.trace`` holds them in its Steps and Observations and names them too.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

# Why a model stopped, in the words every provider reports (OpenAI's, which llama.cpp uses too; Gemini's are mapped to
# them): it ended its reply itself (``COMPLETE``: a stop, or a call of tools), or it ran out of tokens (``LENGTH``).
# Any other reason (a content filter, a safety or recitation block, Gemini's OTHER) cut the reply where it was.
LENGTH = "length"
COMPLETE = ("stop", "tool_calls", "function_call")
# The finish reason of a reply the person stopped while the model wrote it (``loop.model_call.Stopped``).
STOPPED = "cancelled"


def cut_reason(finish_reason: str) -> str:
    """The finish reason of a reply that was cut before the model ended it, so what it was writing may be unfinished;
    '' for a reply the model ended itself (or whose provider gives no reason)."""
    return finish_reason if finish_reason and finish_reason not in COMPLETE else ""


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
    response_id: str = ""  # the API's id for the reply and the model that wrote it, when it says ('' otherwise)
    response_model: str = ""
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
class McpCall:
    """An MCP tool call behind an observation, as the step panel shows it (like the Model call section): which server
    and tool, the arguments sent, and the result as the server gave it (``CallToolResult`` as JSON, its content
    blocks' data left out), or why there was none; or a resource read (``method`` ``resources/read``). Never a
    credential: ``server`` is the configured server's name."""

    server: str
    tool: str  # the tool's name on its server (the step's action names it name-spaced); '' for resources/read
    arguments: dict[str, Any] = field(default_factory=dict)  # resources/read: its params ({"uri": …})
    result: dict[str, Any] | None = None
    error: str = ""  # no result: refused, timed out, the server died or refused the call
    seconds: float = 0.0
    # How the call went: the transport ("stdio" or "streamable-http"), the server's URL for HTTP (without its query or
    # credentials: ``ServerConfig.where``) and the protocol version the session agreed ('' when not known).
    transport: str = ""
    url: str = ""
    protocol_version: str = ""
    method: str = "tools/call"  # the JSON-RPC request: "tools/call", or "resources/read" (a resource link followed)
    # The server's questions for a person before it can finish (an elicitation: ``react_core.tools.mcp_asks``), and
    # its opaque state to send back with the answer; None when it asked nothing.
    asks: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.method == "tools/call":  # written only when it is another, so tool calls read as they always did
            del out["method"]
        if self.asks is None:
            del out["asks"]
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> McpCall:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass
class FailedCall:
    """The model call that ended a run by failing (the provider's error, a context window outgrown): the error's type,
    as OpenTelemetry's ``error.type`` names it (its class, or the class of the provider's own exception it wraps), and
    how long the call took. Its message is the trace's ``error``; no step holds the call, as it wrote none."""

    error_type: str
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FailedCall:
        return cls(d["error_type"], d.get("seconds", 0.0))

    @classmethod
    def of(cls, error: BaseException, seconds: float) -> FailedCall:
        # ``raise ProviderError(…) from e`` wraps an SDK's exception, whose type classifies the failure better.
        named = error.__cause__ if error.__cause__ is not None else error
        return cls(type(named).__qualname__, round(seconds, 6))
