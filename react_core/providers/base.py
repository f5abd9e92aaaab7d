"""The provider contract: stream a prompt with stop sequences, saying what was sent, returning text and usage.

A request carries the fixed prefix (``system``: instructions and examples) and the growing part (``prompt``: question,
past steps, the next step's prefix) separately. Chat providers send them as a system instruction and a user message;
raw-completion providers send ``system + prompt``. Either way the prefix is byte-identical between steps. Capabilities
are attributes. SDKs are imported lazily by the concrete providers, never here.

Native tool calling (the ``tools`` dialect, providers with ``native_tools``): ``prompt`` is the first user message,
``messages`` the conversation after it, and ``tools`` the functions to declare. Messages are plain dicts that each
provider turns into its API's form:

    {"role": "assistant", "content": "text", "tool_calls": [ToolCall.to_dict(), ...]}
    {"role": "tool", "id": "…", "name": "search", "content": "observation", "is_error": False}
    {"role": "user", "content": "text"}

The reply's calls come back whole (streamed pieces assembled by the provider) in ``Chunk.tool_calls``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from react_core.base.errors import ConfigError
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import ToolCall, Usage
from react_core.dialects import get_dialect

__all__ = ["Chunk", "CompletionRequest", "MODEL_OPTIONS", "Provider", "cut_at_stop"]

MODEL_OPTIONS = ("model", "model_path", "script")  # the settings that can say which model a provider runs


@dataclass(frozen=True)
class CompletionRequest:
    system: str
    prompt: str
    stop: tuple[str, ...] = ()
    temperature: float = 0.0
    max_tokens: int = 400
    # A GBNF grammar the reply must follow, for providers that can constrain decoding (``Provider.constrained``).
    grammar: str | None = None
    # The on-device model's sampling seed at a temperature above 0; None: the one llama-cpp-python would draw. The
    # call records the seed it used, so the call can be replayed ("Copy as Python").
    seed: int | None = None
    # Native tool calling: the conversation after ``prompt`` and the functions the model may call (see above).
    messages: tuple[dict[str, Any], ...] = ()
    tools: tuple[ToolSpec, ...] = ()

    @property
    def text(self) -> str:
        """The whole prompt for raw-completion models."""
        return self.system + self.prompt


@dataclass
class Chunk:
    """A piece of a streamed completion. A provider's first chunk says what it sent (``sent``); the last ones may
    carry the usage and why the model stopped (``finish_reason``), and a later ``sent`` may complete the first (the
    cached tokens a hosted API reports at the end). ``restart``: the stream failed or was cut short and the provider
    is trying again: everything received so far in this call is void (the text shown starts over)."""

    text: str = ""
    usage: Usage | None = None
    # What the API received: {"api", "endpoint", "body", "omitted": [{"param", "reason"}], "reused_tokens",
    # "conversation"}. The body is the request as sent (never a key), the texts in it verbatim; "conversation" names
    # the body key holding the message list in the tools dialect. The loop stores it compactly
    # (react_core.base.call_records).
    sent: dict[str, Any] | None = None
    finish_reason: str | None = None
    restart: bool = False
    # Native tool calling: calls the model made, each complete (in the order it made them).
    tool_calls: list[ToolCall] | None = None


def cut_at_stop(text: str, stops: tuple[str, ...] | list[str]) -> tuple[str, str | None]:
    """Text before the earliest stop sequence, and which one was hit (None if none)."""
    best, hit = len(text), None
    for s in stops:
        if not s:
            continue
        i = text.find(s)
        if 0 <= i < best:
            best, hit = i, s
    return text[:best], hit


class Provider:
    """Base class of every model provider. A provider describes itself in class attributes, so callers (the CLI, the
    pages, the evaluation) decide what to show and how to run it without ever comparing provider names."""

    @staticmethod
    def estimate_tokens(text: str) -> int:
        """A rough token count (about four characters a token) for providers that report none."""
        return max(1, (len(text) + 3) // 4) if text else 0

    # -- what the provider is ----------------------------------------------------------------------------
    name: str = ""  # the id in settings, on the command line and in traces
    label: str = ""  # its name for people, e.g. "Gemini"
    choice: str = ""  # one line for a menu of providers, e.g. "Google Gemini"
    default_model: str = ""  # shown where no model is set
    # The settings it reads besides temperature and the prompt: model, base_url, model_path, script, delay.
    options: tuple[str, ...] = ("model",)
    # Environment variables (or .streamlit/secrets.toml entries) that may hold its key, first match wins; empty when
    # it needs none.
    key_vars: tuple[str, ...] = ()
    # Variables naming an endpoint of its API; with one set, the key becomes optional (a local compatible server).
    base_url_vars: tuple[str, ...] = ()

    # It runs with none of its settings given (no key, no script): offered as a model choice as it is.
    runs_unset: bool = True

    # -- how to run it -----------------------------------------------------------------------------------
    # A remote service that bills per call: evaluations rate-limit it, and public demo mode asks visitors for their
    # own key unless the operator allows the server's.
    hosted: bool = False
    # It can serve several calls at once (an evaluation may run questions in parallel).
    concurrent: bool = True
    # It computes on this machine's cores, in the app's own process: whatever else the machine does meanwhile (a page
    # redrawing a live run, the browser drawing it) slows the model down, so a call's deadline counts from its last
    # progress (``progress``), not from its start.
    computes_here: bool = False
    # One instance serves every browser session of the process: a session never closes it.
    shared: bool = False
    # It can call tools natively (function declarations) besides writing text actions.
    native_tools: bool = False
    # It can constrain decoding with a grammar (llama.cpp's GBNF).
    constrained: bool = False
    # What to say while it gets ready before the first step (loading a model); '' when that is instant.
    preparing: str = ""
    # A small on-device demo model: the UI and the CLI say it is often wrong, in ``demo_notice``.
    is_demo: bool = False
    demo_notice: str = ""
    # It can get a prompt prefix ready before a question comes (``warm``) and say how fast it is going (``status``):
    # the on-device model, whose first step would otherwise read the whole preset.
    warms: bool = False
    # How OpenTelemetry's GenAI conventions name it (``gen_ai.provider.name``; a well-known value where there is one)
    # and the operation its calls are (``chat``, ``text_completion``, ``generate_content``), for exported traces.
    genai_name: str = ""
    genai_operation: str = "chat"

    # -- the API's limits --------------------------------------------------------------------------------
    model: str = ""
    # How many stop sequences the API accepts (None: any number). The loop always cuts locally as well.
    max_stop: int | None = None
    supports_stop: bool = True
    # Stop sequences this model needs beyond the dialect's (a base model invents new questions after Finish).
    extra_stops: tuple[str, ...] = ()

    @classmethod
    def snippet(cls, call: Mapping[str, Any], style: str) -> str:
        """One recorded call (``call_records.CallTexts.request``: ``api``, ``endpoint``, ``model``, ``body`` as the API
        received it) as a ``curl`` command or a ``python`` script with the provider's official SDK that sends the same
        body, with the key as a shell or environment variable (``key_vars[0]``), never its value."""
        raise ConfigError(f"A {cls.label} call cannot be reproduced outside the app as {style}.")

    @classmethod
    def notice_for_settings(cls, settings: Mapping[str, Any]) -> str:
        """What a person is told about this model before using it ('' for none): the demo notice."""
        return cls.demo_notice if cls.demo_for(settings) else ""

    @classmethod
    def preset_for(cls, settings: Mapping[str, Any]) -> str:
        """The preset this model was trained to answer, for runs that choose none ('' when any will do)."""
        return ""

    @classmethod
    def model_option(cls) -> str:
        """The setting that names this provider's model: a model name, a GGUF file, or (scripted) the script, whose
        outputs are that "model"; '' when it has none."""
        return next((o for o in MODEL_OPTIONS if o in cls.options), "")

    @classmethod
    def model_label(cls, settings: Mapping[str, Any]) -> str:
        """The model these settings run (or a trace's settings ran) on this provider, as a person reads it; decided
        without building the provider. The one home of this label: the sidebar, the Evaluate page, a run's header
        and the fork form use it. A file (a GGUF model, a script) is named by its file name."""
        option = cls.model_option()
        value = settings.get(option) if option else None
        if value and isinstance(value, str | Path):
            return str(value) if option == "model" else Path(value).name
        return cls.default_model or "provider default"

    @classmethod
    def unspoken(cls, dialect: str) -> str:
        """Why this provider cannot run a dialect ('' when it can): the ``tools`` dialect (native tool calls) needs a
        provider with ``native_tools``. The one home of the rule: the loop refuses such a run with this reason, and
        the Settings page offers a preset only when its dialect is spoken."""
        if cls.native_tools or not get_dialect(dialect).native_tools:
            return ""
        return (
            f"{cls.label} cannot call tools natively, so it cannot run the {dialect!r} dialect: choose a text "
            "dialect (paper, gemini-xml, langchain-json, pause, function-call), or a Gemini or OpenAI provider."
        )

    @classmethod
    def speaks(cls, dialect: str) -> bool:
        return not cls.unspoken(dialect)

    @classmethod
    def demo_for(cls, settings: Mapping[str, Any]) -> bool:
        """Whether these settings would run the demo model, decided without building the provider."""
        return cls.is_demo

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        raise NotImplementedError

    def sample_batch(self, request: CompletionRequest, n: int) -> list[list[Chunk]] | None:
        """``n`` samples of one request (at a temperature above 0) drawn together, each as the chunks its own
        ``stream`` would send; None when the provider draws them one call at a time (the default)."""
        return None

    def stops_for_api(self, stops: tuple[str, ...]) -> list[str]:
        """The stop sequences this API will take; the rest are enforced by local cutting."""
        if not self.supports_stop:
            return []
        return list(stops if self.max_stop is None else stops[: self.max_stop])

    def warm(self, prefix: str, ahead: str = "") -> Any:
        """Start getting ``prefix`` (a request's ``system`` text) ready in the background, and as much of ``ahead`` (the
        whole text of a likely first request) as can be read before it is asked; return a handle with ``state``,
        ``progress``, ``finished`` and ``wait()``; None when the provider has nothing to prepare."""
        return None

    def progress(self) -> int:
        """How much the model has computed so far (prompt tokens read and tokens written, by any call), for a model
        that computes here: a call on it fails only when this and its reply stand still for the whole deadline
        (``loop.model_call``); 0 when the provider cannot tell."""
        return 0

    def status(self) -> Any:
        """What the model is doing and how fast against its normal speed here (``.slow``, ``.state``, ``.describe()``);
        None when the provider cannot tell."""
        return None

    def close(self) -> None:
        """Release connections or memory; the default has nothing to release."""
