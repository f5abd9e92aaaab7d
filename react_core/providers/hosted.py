"""What every hosted provider does the same way, so that each one writes only its API: how it builds the request,
how it reads the reply's events, and what its SDK's exceptions mean.

``HostedProvider`` owns the call around them:

- **Building** (``create``): the key and base URL (``keys``: whose key may go where), the SDK-present check, the
  timeouts and the retry policy; then our HTTP client (``transport.StreamingClient``), handed to the SDK.
- **Opening** (``_open``): send the request and read its first event, retrying what is worth retrying
  (``retry.with_retries``). A 400 naming a parameter the model does not take (``_refusal``) drops that parameter for
  the provider's lifetime and sends again; what was sent is recorded (``sent``: api, endpoint, body, what was left out
  and why, the conversation key) from the bytes that went out.
- **Reading** (``stream`` and ``_attempt``): a failed or cut-short stream is tried again from the start
  (``retry.stream_with_retries``), the response is always closed (what stops the server generating), and a stream
  that ends before the API said the reply was complete is ``Truncated``, never a whole reply. The provider's
  ``_read`` yields the text and fills a ``Reading`` (finish reason, usage, tool calls, cached tokens, a refusal).
- **Failures** (``_classify``): the provider says what its SDK's exception is, in the few words of ``Fault``
  (``_fault``); the base turns that into the one message a person reads, never with the key in it.
- **Reproducing a call** (``snippet``): the cURL command is the same for every API; the provider writes its SDK's
  Python (``_python``).

SDKs and the HTTP client are imported when a provider is built, never here: the pages import this module.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Self

from react_core.base.errors import ConfigError, ProviderError
from react_core.base.retry_after import parse_retry_after
from react_core.base.trace import ToolCall, Usage
from react_core.providers.base import Chunk, CompletionRequest, Provider
from react_core.providers.keys import missing_key, rejected_key, resolve_base_url, resolve_key, withheld
from react_core.providers.messages import said
from react_core.providers.retry import (
    CONNECT_TIMEOUT,
    READ_TIMEOUT,
    RETRY_STATUSES,
    Failure,
    RetryPolicy,
    Truncated,
    split_timeout,
    stream_with_retries,
    with_retries,
)

# Said of every stop sequence an API is not sent: the reply is still cut there.
CUT_LOCALLY = "the loop cuts the reply at the stop sequences locally"


@dataclass(frozen=True)
class Fault:
    """What an SDK's exception says happened, in the same few words for every hosted provider (``_fault``)."""

    # "timeout": no answer in time; "unreachable": no connection; "http": the service answered with an error status;
    # "other": any other error of the SDK (its message is the detail).
    kind: Literal["timeout", "unreachable", "http", "other"]
    detail: str = ""  # the service's own message, on one line (``_classify`` takes the key out, then cuts it)
    status: int = 0
    headers: Mapping[str, str] | None = None  # of the error response (Retry-After)
    retry_after: float | None = None  # a wait the error body asks for, where the API says it there
    param: str | None = None  # the request parameter the service names, if it names one
    no_quota: bool = False  # the account has run out (not worth another try)


@dataclass
class Reading:
    """What the provider's ``_read`` learned from one reply's events besides its text."""

    finish: str = ""  # the API's finish reason, in the loop's words ("stop", "length", …); '' while it goes on
    usage: Usage | None = None
    cached: int | None = None  # prompt tokens the service reused from its cache, when it says
    calls: list[ToolCall] = field(default_factory=list)
    refused: str = ""  # why the service refused to answer ('' when it did not)
    wrote: bool = False
    response_id: str = ""  # the API's id for this reply ("chatcmpl-…"), and the model that wrote it, when it says
    response_model: str = ""

    def note(self, event: Any, id_names: tuple[str, ...], model_names: tuple[str, ...]) -> None:
        """Keep the reply's id and model from the first event that names them (an SDK object or, from a server that
        does not stream, a plain dict)."""
        self.response_id = self.response_id or _named(event, id_names)
        self.response_model = self.response_model or _named(event, model_names)


def _named(event: Any, names: tuple[str, ...]) -> str:
    for name in names:
        value = event.get(name) if isinstance(event, dict) else getattr(event, name, None)
        if isinstance(value, str) and value:
            return value[:200]
    return ""


class HostedProvider(Provider):
    """A remote API reached through its official SDK and our HTTP client. Subclasses set the class attributes below
    and write ``_sdk_client``, ``_send``, ``_read``, ``_fault``, ``_whole_events`` and ``_python``."""

    hosted = True
    options = ("model", "base_url")
    native_tools = True

    # -- what a subclass says about its API --------------------------------------------------------------------------
    sdk_module: ClassVar[str] = ""  # imported to check the SDK is there ("openai", "google.genai")
    sdk_package: ClassVar[str] = ""  # what pip installs ("google-genai")
    sdk_label: ClassVar[str] = ""  # in a snippet's docstring ("Google's SDK")
    host: ClassVar[str] = ""  # where the SDK sends requests when no base URL is set
    api: ClassVar[str] = ""  # the call record's "api"
    api_label: ClassVar[str] = ""  # the API as its limits are told ("Chat Completions")
    stop_param: ClassVar[str] = "stop"  # the body's name for the stop sequences
    conversation: ClassVar[str] = ""  # the body key holding the messages in the tools dialect
    # Parameters a model may refuse with a 400 (``_refusal``): each is dropped and the request sent again.
    adjustable: ClassVar[tuple[str, ...]] = ()
    # The key the SDK gets for an endpoint that needs none; None: a key is always needed.
    placeholder_key: ClassVar[str | None] = None
    # The last event of a complete stream, when the API sends one; without it only a finish reason says so.
    end_marker: ClassVar[bytes | None] = None
    # Said after "… refused to answer (why)."
    refusal_advice: ClassVar[str] = "Rephrase the question or switch provider."
    # The key's header in a cURL command: its name, and what comes before the key.
    key_header: ClassVar[tuple[str, str]] = ("Authorization", "Bearer ")

    def __init__(
        self,
        *,
        model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        read_timeout: float = READ_TIMEOUT,
        connect_timeout: float = CONNECT_TIMEOUT,
        retry: RetryPolicy | None = None,
    ) -> None:
        from react_core.providers.transport import StreamingClient  # with httpx2, which pages never load

        self.model = model or self.default_model
        self.base_url = base_url
        self.read_timeout = read_timeout
        self._key = api_key
        self.retry = retry or RetryPolicy()
        # Parameters this model turned out to refuse (learned from 400s, kept for the provider's lifetime).
        self._refused: set[str] = set()
        # Our client: it records the body as sent and lets Stop cut a waiting read (transport.StreamingClient).
        self._http = StreamingClient(read=read_timeout, connect=connect_timeout, whole=self._whole)
        self._client = self._sdk_client()

    @classmethod
    def create(
        cls,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float | tuple[float, float] | None = None,
        retry: RetryPolicy | None = None,
        **_ignored: Any,
    ) -> Self:
        """Key: ``api_key`` > the ``key_vars`` in the environment > .streamlit/secrets.toml; optional for an endpoint
        (a base URL) when the API has a ``placeholder_key``. The operator's key goes to a person's own base URL never
        (``keys.resolve_key``): they are asked for theirs."""
        key = resolve_key(cls, api_key, base_url=base_url)
        if key is None and (cls.placeholder_key is None or withheld(cls, base_url)):
            raise missing_key(cls, base_url)
        base_url = resolve_base_url(cls, base_url)
        if key is None and not base_url:
            raise missing_key(cls)
        try:
            importlib.import_module(cls.sdk_module)
        except ImportError:
            missing = f"The {cls.sdk_package} package is not installed: pip install -r requirements.txt."
            raise ConfigError(missing) from None
        read, connect = split_timeout(timeout)
        return cls(model=model, api_key=key, base_url=base_url, read_timeout=read, connect_timeout=connect, retry=retry)

    @property
    def _service(self) -> str:
        """Who answered, as failures name it."""
        return self.label

    def close(self) -> None:
        self._http.close()

    def pace_key(self) -> str:
        """Whose rate limit a call counts against (``rate_limit.pace_for``): API, address and key, as a digest."""
        who = f"{type(self).__name__}\0{self.base_url or self.host}\0{self._key or ''}"
        return hashlib.sha256(who.encode()).hexdigest()

    def paced(self, hold: Callable[[float], None]) -> None:
        """Waits the service asks for go through ``hold`` (an evaluation's ``rate_limit.RateLimited``)."""
        from react_core.providers.rate_limit import pace_policy

        self.retry = pace_policy(self.retry, hold)

    # -- a subclass's part ---------------------------------------------------------------------------------------

    def _sdk_client(self) -> Any:
        """The SDK's client, sending through ``self._http`` with the SDK's own retries off."""
        raise NotImplementedError

    def _send(self, request: CompletionRequest) -> Iterator[Any]:
        """Ask the SDK for the streamed reply to ``request``: its events."""
        raise NotImplementedError

    def _read(self, events: Iterator[Any], reading: Reading) -> Iterator[str]:
        """The reply's text as it arrives; everything else it says goes into ``reading``."""
        raise NotImplementedError

    def _fault(self, error: Exception) -> Fault | None:
        """What the SDK's exception says (None: not one of the SDK's; our HTTP client's errors are read here)."""
        raise NotImplementedError

    def _whole_events(self, data: Any) -> list[Any]:
        """The events a successful reply that is not a stream (its JSON) stands for, or a ProviderError."""
        raise NotImplementedError

    @classmethod
    def _python(cls, call: Mapping[str, Any], doc: str, key_var: str) -> str:
        """A Python script with the SDK that sends ``call``'s body again (``doc`` its docstring)."""
        raise NotImplementedError

    def _refusal(self, fault: Fault) -> str | None:
        """The parameter (one of ``adjustable``) a 400 says this model does not take, if it says so."""
        return None

    def _left_out(self, request: CompletionRequest) -> list[dict[str, str]]:
        """Parameters this model is never sent, with the reason (the record's "omitted")."""
        return []

    def _refused_reason(self, param: str) -> str:
        reason = "the server refused it (HTTP 400), so it is no longer sent"
        return f"{reason}; {CUT_LOCALLY}" if param == self.stop_param else reason

    def _rejects_key(self, status: int, detail: str) -> bool:
        return status in (401, 403)

    # -- a call ----------------------------------------------------------------------------------------------------

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        return stream_with_retries(
            lambda tries: self._attempt(request, tries), self._classify, self.retry, service=self._service
        )

    def _attempt(self, request: CompletionRequest, tries: int) -> Iterator[Chunk]:
        """One try: the request, then its events until the API says the reply is complete (a finish reason, or its
        end marker); a stream that just stops is Truncated, never a whole reply."""
        from react_core.providers.transport import last_event

        stream, first, response, sent = self._open(request)
        yield Chunk(sent=sent, restart=tries > 1)
        reading = Reading()
        try:
            for text in self._read(stream if first is None else itertools.chain((first,), stream), reading):
                reading.wrote = True
                yield Chunk(text=text)
        finally:
            # The SDKs leave an abandoned stream open; closing the response is what stops the server generating.
            _close(stream, response)
        if reading.refused and not reading.wrote and not reading.calls:
            # Not the model's mistake to correct: every further step would be refused the same way.
            raise ProviderError(f"{self._service} refused to answer ({reading.refused}). {self.refusal_advice}")
        if not reading.finish and (self.end_marker is None or last_event(response) != self.end_marker):
            raise Truncated
        if reading.calls:
            yield Chunk(tool_calls=reading.calls)
        named = {"response_id": reading.response_id, "response_model": reading.response_model}
        if any(named.values()):  # completes what was sent with what the reply said it was
            sent = {**sent, **{k: v for k, v in named.items() if v}}
            yield Chunk(sent=sent)
        yield Chunk(usage=reading.usage, finish_reason=reading.finish or "stop")
        if reading.cached is not None:
            yield Chunk(sent={**sent, "reused_tokens": reading.cached})

    def _open(self, request: CompletionRequest) -> tuple[Iterator[Any], Any, Any, dict[str, Any]]:
        """Send the request (retrying busy or broken moments) and read the first event (the SDKs send the request
        when it is asked for); with the response to close and what was sent. A parameter the model refuses is dropped
        and the request sent again without it."""

        def attempt() -> tuple[Iterator[Any], Any, Any]:
            stream = self._send(request)
            try:
                first = next(stream, None)
            except BaseException:
                _close(stream, self._http.take_stream())
                raise
            return stream, first, self._http.take_stream()

        for _ in range(len(self.adjustable) + 1):
            try:
                opened = with_retries(attempt, self._classify_or_drop, self.retry, service=self._service)
            except _Refused as r:
                self._refused.add(r.param)
                if r.param == self.stop_param:
                    self.supports_stop = False
                continue
            stream, first, response = opened
            endpoint, body = self._http.take_request() or ("", None)
            sent = {"api": self.api, "endpoint": endpoint, "body": body, "omitted": self._omitted(request)}
            if request.tools:
                sent["conversation"] = self.conversation
            return stream, first, response, sent
        raise ProviderError(f"{self._service} refused every variant of the request; check --model {self.model}.")

    def _omitted(self, request: CompletionRequest) -> list[dict[str, str]]:
        """The parameters left out of this request on purpose, or dropped after the server refused them."""
        omitted = self._left_out(request)
        omitted += [{"param": p, "reason": self._refused_reason(p)} for p in sorted(self._refused)]
        sent_stops = self.stops_for_api(request.stop)
        if self.supports_stop and len(request.stop) > len(sent_stops):
            rest = ", ".join(json.dumps(s) for s in request.stop[len(sent_stops) :])
            reason = f"{self.api_label} takes at most {self.max_stop} stop sequences; the loop cuts at {rest} locally"
            omitted.append({"param": self.stop_param, "reason": reason})
        return omitted

    def _whole(self, body: bytes, kind: str) -> list[Any] | None:
        """The events a reply that is not a stream stands for (``transport.StreamingClient``'s ``whole``); None for
        events under another content type; anything else is one clear line (``bodies.whole_json``)."""
        from react_core.providers.bodies import whole_json  # with the HTTP client, which pages never load

        data = whole_json(body, kind, self._service, [self._key])
        return None if data is None else self._whole_events(data)

    # -- failures ----------------------------------------------------------------------------------------------------

    def _fault_of(self, error: Exception) -> Fault | None:
        """What ``error`` says: the SDK's word (``_fault``), else our HTTP client's, whose errors an SDK may let
        through as they are (google-genai does)."""
        import httpx2

        fault = self._fault(error)
        if fault is None and isinstance(error, httpx2.TimeoutException):
            return Fault("timeout")
        if fault is None and isinstance(error, httpx2.TransportError):
            return Fault("unreachable")
        return fault

    def _classify_or_drop(self, error: Exception) -> Failure:
        fault = self._fault_of(error)
        if fault is not None and fault.kind == "http" and fault.status == 400:
            param = self._refusal(fault)
            if param and param not in self._refused:
                raise _Refused(param)
        return self._classify(error)

    def _classify(self, error: Exception) -> Failure:
        fault = self._fault_of(error)
        if fault is None:
            return Failure(said(f"{type(error).__name__}: {error}", [self._key]))
        if fault.kind == "timeout":
            return Failure(f"no answer within the {self.read_timeout:g} s timeout", retryable=True)
        if fault.kind == "unreachable":
            return Failure(f"cannot connect to {self.base_url or self.host}", retryable=True)
        detail = said(fault.detail, [self._key])
        if fault.kind == "other":
            return Failure(detail)
        status = fault.status
        if self._rejects_key(status, detail):
            return Failure(detail, error=rejected_key(type(self), f"HTTP {status}: {detail}"))
        if status == 404:
            missing = ConfigError(f"{self._service} has no model {self.model!r} (HTTP 404: {detail}); check --model.")
            return Failure(detail, error=missing)
        if fault.no_quota:
            return Failure(f"the account has no quota left (HTTP {status}: {detail}); check billing")
        after = _header_delay(fault.headers)
        if after is None:
            after = fault.retry_after
        return Failure(f"HTTP {status}: {detail}", retryable=status in RETRY_STATUSES, retry_after=after)

    # -- reproducing a call ------------------------------------------------------------------------------------------

    @classmethod
    def snippet(cls, call: Mapping[str, Any], style: str) -> str:
        from react_core.providers import snippets

        snippets.check_style(style, cls.label)
        key_var = cls.key_vars[0]
        step = f"Step {call.get('step', '?')}'s model call"
        if style == "curl":
            name, before = cls.key_header
            comment = f"{step}, sent again. The key comes from ${key_var}."
            return snippets.curl(call["endpoint"], call["body"], {name: f"{before}${key_var}"}, comment=comment)
        doc = f"{step}, sent again with {cls.sdk_label} (pip install {cls.sdk_package}). The key comes from {key_var}."
        return cls._python(call, doc, key_var)


class _Refused(Exception):
    def __init__(self, param: str) -> None:
        super().__init__(param)
        self.param = param


def _header_delay(headers: Mapping[str, str] | None) -> float | None:
    """The wait an error response asks for in its headers: ``retry-after-ms`` (OpenAI's), else ``Retry-After``."""
    if headers is None or not hasattr(headers, "get"):
        return None
    if headers.get("retry-after-ms"):
        ms = parse_retry_after(headers.get("retry-after-ms"))
        if ms is not None:
            return ms / 1000
    return parse_retry_after(headers.get("retry-after"))


def _close(stream: Any, response: Any) -> None:
    close = getattr(stream, "close", None)
    if close:
        close()
    if response is not None:
        response.close()
