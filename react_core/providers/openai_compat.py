"""The ``openai`` provider: OpenAI's Chat Completions API, and every server that speaks it (Ollama, vLLM, LM Studio,
``llama_cpp.server``) through a base URL.

Chat Completions, not the Responses API, because only it takes ``stop``. At most four stop sequences go to the API; the
loop cuts locally at all of them. Reasoning models (o-series, gpt-5 and later) take neither ``stop`` nor
``temperature``: they are not sent, and a model that rejects a parameter with a 400 is asked again without it, so any
model works through local cutting. Streams ask for usage; servers that report none get an estimate from the loop.
Replies are read as compatible servers really send them (``openai_reply``: content as typed parts, tool calls repeated
in every piece, a server that answers with one JSON body instead of a stream). The SDK's own retries are off:
``retry.with_retries`` does them (3 tries, jittered backoff, Retry-After). The SDK is imported lazily.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from react_core.base.errors import ConfigError, ProviderError
from react_core.base.retry_after import parse_retry_after
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import Usage
from react_core.providers.base import Chunk, CompletionRequest, Provider
from react_core.providers.keys import missing_key, redact, rejected_key, resolve_base_url, resolve_key, withheld
from react_core.providers.openai_reply import ToolCallPieces, content_text, whole_reply_events
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

# A current small OpenAI model (GPT-5.4 mini, March 2026): fast and cheap. It is a reasoning model, so stop
# sequences are enforced by local cutting; set --model to any other model.
DEFAULT_MODEL = "gpt-5.4-mini"
# Compatible servers often ignore the key but the SDK insists on one; this placeholder is not a secret.
NO_KEY = "not-needed"
_REASONING = re.compile(r"^(o\d|gpt-[5-9])", re.IGNORECASE)
# Reasoning tokens count against max_completion_tokens; leave room for them on top of the visible answer.
REASONING_ALLOWANCE = 4096
# A reply's tool-call arguments beyond this are not read (a server streaming arguments without end).
MAX_ARGUMENT_CHARS = 20_000
# Parameters a model or server may refuse; on a 400 naming one, the request is sent again without it.
_ADJUSTABLE = ("stop", "temperature", "reasoning_effort", "stream_options", "max_completion_tokens", "max_tokens")


def is_reasoning_model(model: str) -> bool:
    """o1/o3/o4 and gpt-5 or later, except the ``-chat`` variants (which are plain chat models)."""
    short = model.rsplit("/", 1)[-1]
    return bool(_REASONING.match(short)) and "-chat" not in short


class OpenAIProvider(Provider):
    name = "openai"
    label = "OpenAI"
    choice = "OpenAI or a compatible server (Ollama, vLLM, LM Studio, llama.cpp)"
    default_model = DEFAULT_MODEL
    options = ("model", "base_url")
    key_vars = ("OPENAI_API_KEY",)
    base_url_vars = ("OPENAI_BASE_URL",)
    hosted = True
    max_stop = 4

    native_tools = True

    def __init__(
        self,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        read_timeout: float = READ_TIMEOUT,
        connect_timeout: float = CONNECT_TIMEOUT,
        retry: RetryPolicy | None = None,
    ) -> None:
        import openai

        from react_core.providers.transport import StreamingClient

        self.model = model
        self.base_url = base_url
        self.read_timeout = read_timeout
        self._key = api_key
        self.retry = retry or RetryPolicy()
        self.reasoning = is_reasoning_model(model)
        self.supports_stop = not self.reasoning
        # Parameters this model turned out to refuse (learned from 400s, kept for the provider's lifetime).
        self._refused: set[str] = set()
        # Our client: it records the body as sent and lets Stop cut a waiting read (transport.StreamingClient).
        self._http = StreamingClient(
            read=read_timeout,
            connect=connect_timeout,
            whole=lambda body, kind: whole_reply_events(body, kind, self._service, self._key),
        )
        self._client = openai.OpenAI(
            api_key=api_key or NO_KEY, base_url=base_url or None, http_client=self._http, max_retries=0
        )

    @classmethod
    def snippet(cls, call: Mapping[str, Any], style: str) -> str:
        return openai_snippet(call, style, cls.key_vars[0])

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
    ) -> OpenAIProvider:
        """Key: ``api_key`` > OPENAI_API_KEY > .streamlit/secrets.toml; optional when a base URL is set. The
        operator's key goes to a person's own base URL never (``keys.resolve_key``): they are asked for theirs."""
        key = resolve_key(cls, api_key, base_url=base_url)
        if key is None and withheld(cls, base_url):
            raise missing_key(cls, base_url)
        base_url = resolve_base_url(cls, base_url)
        if key is None and not base_url:
            raise missing_key(cls)
        read, connect = split_timeout(timeout)
        try:
            import openai  # noqa: F401
        except ImportError:
            raise ConfigError("The openai package is not installed: pip install -r requirements.txt.") from None
        return cls(
            model=model or DEFAULT_MODEL,
            api_key=key,
            base_url=base_url,
            read_timeout=read,
            connect_timeout=connect,
            retry=retry,
        )

    # -- the request ---------------------------------------------------------------------------------

    def _params(self, request: CompletionRequest) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        if request.system.strip():
            messages.append({"role": "system", "content": request.system})
        messages.append({"role": "user", "content": request.prompt})
        messages += [_message(m) for m in request.messages]
        params: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self.reasoning:
            params["max_completion_tokens"] = request.max_tokens + REASONING_ALLOWANCE
            # "low" is the one effort every reasoning model takes; the answers here are short steps.
            params["reasoning_effort"] = "low"
        else:
            # Compatible servers know max_tokens; OpenAI's newer models want the new name (learned from a 400).
            cap = "max_completion_tokens" if "max_tokens" in self._refused else "max_tokens"
            params[cap] = request.max_tokens
            params["temperature"] = request.temperature
        stops = self.stops_for_api(request.stop)
        if stops:
            params["stop"] = stops
        if request.tools:
            params["tools"] = [_declaration(spec) for spec in request.tools]
        for name in self._refused:
            params.pop(name, None)
        return params

    def _omitted(self, request: CompletionRequest) -> list[dict[str, str]]:
        """The parameters left out of this request on purpose, or dropped after the server refused them."""
        omitted = []
        if self.reasoning:
            for param in ("stop", "temperature"):
                if param == "temperature" or request.stop:
                    reason = f"{self.model} is a reasoning model, which takes no {param}"
                    if param == "stop":
                        reason += "; the loop cuts the reply at the stop sequences locally"
                    omitted.append({"param": param, "reason": reason})
        for param in sorted(self._refused):
            reason = "the server refused it (HTTP 400), so it is no longer sent"
            if param == "stop":
                reason += "; the loop cuts the reply at the stop sequences locally"
            omitted.append({"param": param, "reason": reason})
        sent_stops = self.stops_for_api(request.stop)
        if self.supports_stop and len(request.stop) > len(sent_stops):
            rest = ", ".join(json.dumps(s) for s in request.stop[len(sent_stops) :])
            reason = f"Chat Completions takes at most {self.max_stop} stop sequences; the loop cuts at {rest} locally"
            omitted.append({"param": "stop", "reason": reason})
        return omitted

    def _refusal(self, error: Exception) -> str | None:
        """The parameter a 400 says this model does not take, if it is one we can do without."""
        import openai

        if not isinstance(error, openai.BadRequestError):
            return None
        param = getattr(error, "param", None)
        text = f"{param or ''} {_detail(error)}".lower()
        if not any(w in text for w in ("unsupported", "not supported", "unrecognized", "unknown", "extra")):
            return None
        for name in _ADJUSTABLE:
            if param == name or f"'{name}'" in text or f'"{name}"' in text or f"`{name}`" in text:
                return name
        return None

    def _open(self, request: CompletionRequest) -> tuple[Any, Any, dict[str, Any]]:
        """Send the request (retrying busy or broken moments) and read the first event; with what was sent."""

        def attempt() -> tuple[Any, Any]:
            stream = self._client.chat.completions.create(**self._params(request))
            try:
                return stream, next(stream, None)
            except BaseException:
                stream.close()
                raise

        for _ in range(len(_ADJUSTABLE) + 1):
            try:
                stream, first = with_retries(attempt, self._classify_or_none, self.retry, service=self._service)
            except _Refused as r:
                self._refused.add(r.param)
                if r.param == "stop":
                    self.supports_stop = False
                continue
            endpoint, body = self._http.take_request() or ("", None)
            sent = {"api": "openai.chat.completions", "endpoint": endpoint, "body": body}
            sent["omitted"] = self._omitted(request)
            if request.tools:
                sent["conversation"] = "messages"
            return stream, first, sent
        raise ProviderError(f"{self._service} refused every variant of the request; check --model {self.model}.")

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        return stream_with_retries(
            lambda tries: self._attempt(request, tries), self._classify, self.retry, service=self._service
        )

    def _attempt(self, request: CompletionRequest, tries: int) -> Iterator[Chunk]:
        """One try: the request, then its events until the server says the reply is complete (a finish reason or
        ``[DONE]``); a stream that just stops is Truncated, never a whole reply."""
        from react_core.providers.transport import last_event

        stream, event, sent = self._open(request)
        yield Chunk(sent=sent, restart=tries > 1)
        calls = ToolCallPieces()
        wrote, finish, cached = False, "", None
        try:
            while event is not None:
                for choice in event.choices or ():
                    delta = choice.delta
                    text = content_text(getattr(delta, "content", None)) if delta else ""
                    if text:
                        wrote = True
                        yield Chunk(text=text)
                    for piece in (getattr(delta, "tool_calls", None) or ()) if delta else ():
                        calls.add(piece)
                    finish = choice.finish_reason or finish
                usage = getattr(event, "usage", None)
                if usage is not None:
                    yield Chunk(usage=Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0))
                    details = getattr(usage, "prompt_tokens_details", None)
                    cached = getattr(details, "cached_tokens", None) if details else None
                if calls.argument_chars > MAX_ARGUMENT_CHARS:
                    finish = "length"  # arguments without end: what came is kept (cut, so malformed) and no more
                    break
                event = next(stream, None)
        finally:
            # Closing the response is what stops the server generating when the loop stops reading early.
            stream.close()
        if not finish and last_event(stream.response) != b"[DONE]":
            raise Truncated
        if calls:
            yield Chunk(tool_calls=calls.calls())
        yield Chunk(finish_reason=finish or "stop")
        if cached is not None:
            yield Chunk(sent={**sent, "reused_tokens": cached})
        if finish == "content_filter" and not wrote and not calls:
            raise ProviderError(f"{self._service} refused to answer (content filter). Rephrase the question.")

    # -- failures ------------------------------------------------------------------------------------

    @property
    def _service(self) -> str:
        return f"The OpenAI-compatible server at {self.base_url}" if self.base_url else "OpenAI"

    def _classify_or_none(self, error: Exception) -> Failure | None:
        param = self._refusal(error)
        if param and param not in self._refused:
            raise _Refused(param)
        return self._classify(error)

    def _classify(self, error: Exception) -> Failure:
        import openai

        detail = redact(_detail(error), [self._key])
        if isinstance(error, openai.APITimeoutError):
            return Failure(f"no answer within the {self.read_timeout:g} s timeout", retryable=True)
        if isinstance(error, openai.APIConnectionError):
            where = self.base_url or "api.openai.com"
            return Failure(f"cannot connect to {where}", retryable=True)
        if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
            return Failure(detail, error=rejected_key(type(self), f"HTTP {error.status_code}: {detail}"))
        if isinstance(error, openai.NotFoundError):
            return Failure(
                detail,
                error=ConfigError(f"{self._service} has no model {self.model!r} (HTTP 404: {detail}); check --model."),
            )
        if isinstance(error, openai.APIStatusError):
            status = error.status_code
            if status == 429 and getattr(error, "code", None) == "insufficient_quota":
                return Failure(f"the account has no quota left (HTTP 429: {detail}); check billing")
            headers = error.response.headers
            after = None
            if headers.get("retry-after-ms"):
                ms = parse_retry_after(headers.get("retry-after-ms"))
                after = ms / 1000 if ms is not None else None
            if after is None:
                after = parse_retry_after(headers.get("retry-after"))
            return Failure(f"HTTP {status}: {detail}", retryable=status in RETRY_STATUSES, retry_after=after)
        if isinstance(error, openai.APIError):
            return Failure(detail)
        return Failure(redact(f"{type(error).__name__}: {error}", [self._key]))

    def close(self) -> None:
        self._client.close()
        self._http.close()


class _Refused(Exception):
    def __init__(self, param: str) -> None:
        super().__init__(param)
        self.param = param


def _declaration(spec: ToolSpec) -> dict[str, Any]:
    """A tool as a Chat Completions function: its name, description and its one string argument."""
    parameters = {
        "type": "object",
        "properties": {spec.param: {"type": "string", "description": spec.param_description}},
        "required": [spec.param],
    }
    function = {"name": spec.name, "description": spec.description, "parameters": parameters}
    return {"type": "function", "function": function}


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    """A conversation message (providers.base) in Chat Completions' form."""
    role = message["role"]
    if role == "tool":
        return {"role": "tool", "tool_call_id": message["id"], "content": message["content"]}
    if role == "assistant":
        out: dict[str, Any] = {"role": "assistant", "content": message.get("content", "")}
        calls = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in message.get("tool_calls") or ()
        ]
        if calls:
            out["tool_calls"] = calls
        return out
    return {"role": "user", "content": message["content"]}


def _detail(error: Exception) -> str:
    """The service's own message, without the SDK's 'Error code: …' wrapping."""
    body = getattr(error, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        text = body["message"]
    else:
        text = getattr(error, "message", None) or str(error)
    return " ".join(str(text).split())[:300]


_OPENAI_PYTHON = '''"""{doc}"""
import os

from openai import OpenAI

client = OpenAI(api_key={key}, base_url={base_url!r})
request = {request}
for chunk in client.chat.completions.create(**request):
    for choice in chunk.choices:
        if choice.delta.content:
            print(choice.delta.content, end="", flush=True)
        for call in choice.delta.tool_calls or ():
            print(call.function.name or "", call.function.arguments or "", end="", flush=True)
print()
'''


def openai_snippet(call: Mapping[str, Any], style: str, key_var: str) -> str:
    from react_core.providers import snippets

    snippets.check_style(style, "OpenAI")
    endpoint, body = call["endpoint"], call["body"]
    step = f"Step {call.get('step', '?')}'s model call"
    if style == "curl":
        comment = f"{step}, sent again. The key comes from ${key_var}."
        return snippets.curl(endpoint, body, {"Authorization": f"Bearer ${key_var}"}, comment=comment)
    root = snippets.base_url(endpoint, r"/chat/completions$")
    official = root.startswith("https://api.openai.com")
    key = f"os.environ[{key_var!r}]" if official else f"os.environ.get({key_var!r}, {NO_KEY!r})"
    doc = f"{step}, sent again with OpenAI's SDK (pip install openai). The key comes from {key_var}."
    return _OPENAI_PYTHON.format(doc=doc, key=key, base_url=root, request=snippets.literal(body))
