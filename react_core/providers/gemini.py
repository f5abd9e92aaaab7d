"""The ``gemini`` provider: Google's Gemini API through the ``google-genai`` SDK (never the retired
``google-generativeai``).

A streamed ``generate_content`` with the fixed prefix as the system instruction and the growing prompt as the user turn,
up to five stop sequences (the loop cuts locally at all of them), the temperature, and usage from ``usage_metadata``
(thinking tokens count as completion tokens: they are billed as output). Gemini 3 models think at the ``low`` level and
2.5 Flash models not at all, because a ReAct step is short and latency adds up over a run. ``base_url`` points the SDK
elsewhere (``HttpOptions(base_url=…)``), which is how the tests reach a local server. Timeouts, bounded bodies and
closing of an abandoned stream come from ``transport.StreamingClient``, which also hands a reply that is not a stream
to the SDK as the events it stands for (``_whole_reply``); retries come from ``retry.with_retries``. The SDK is
imported lazily.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from react_core.base.errors import ConfigError, ProviderError
from react_core.base.retry_after import parse_retry_after
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import ToolCall, Usage
from react_core.providers.base import Chunk, CompletionRequest, Provider
from react_core.providers.keys import missing_key, redact, rejected_key, resolve_key
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

# Gemini 3.8 Flash: the current generally available Flash model (the SDK's own examples use it). Editable.
DEFAULT_MODEL = "gemini-3.8-flash"
# Where the SDK sends requests when no base URL is set.
DEFAULT_ROOT = "https://generativelanguage.googleapis.com"
# Thinking tokens count against max_output_tokens; leave room for them on top of the visible step.
THINKING_ALLOWANCE = 2048


def thinking_config(model: str) -> dict[str, Any] | None:
    """Keep thinking short: a ReAct step is a sentence and an action, and every step waits for it."""
    short = model.rsplit("/", 1)[-1].lower()
    if short.startswith("gemini-3"):
        return {"thinking_level": "LOW"}
    if short.startswith("gemini-2.5-flash"):
        return {"thinking_budget": 0}
    return None


class GeminiProvider(Provider):
    name = "gemini"
    label = "Gemini"
    choice = "Google Gemini"
    default_model = DEFAULT_MODEL
    options = ("model", "base_url")
    key_vars = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    hosted = True
    native_tools = True
    max_stop = 5

    def __init__(
        self,
        *,
        api_key: str,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        read_timeout: float = READ_TIMEOUT,
        connect_timeout: float = CONNECT_TIMEOUT,
        retry: RetryPolicy | None = None,
    ) -> None:
        from google import genai
        from google.genai import types

        from react_core.providers.transport import StreamingClient

        self.model = model
        self.base_url = base_url
        self.read_timeout = read_timeout
        self._key = api_key
        self.retry = retry or RetryPolicy()
        self._thinking = thinking_config(model)
        self._no_thinking = False  # the model refused a thinking setting
        self._http = StreamingClient(
            read=read_timeout, connect=connect_timeout, whole=lambda body, kind: _whole_reply(body, kind, api_key)
        )
        options = types.HttpOptions(base_url=base_url or None, httpx_client=self._http)
        self._client = genai.Client(api_key=api_key, vertexai=False, http_options=options)

    @classmethod
    def snippet(cls, call: Mapping[str, Any], style: str) -> str:
        return gemini_snippet(call, style, cls.key_vars[0])

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
    ) -> GeminiProvider:
        """Key: ``api_key`` > GEMINI_API_KEY > GOOGLE_API_KEY > .streamlit/secrets.toml (never the operator's for
        a person's own base URL: ``keys.resolve_key``)."""
        key = resolve_key(cls, api_key, base_url=base_url)
        if key is None:
            raise missing_key(cls, base_url)
        try:
            from google import genai  # noqa: F401
        except ImportError:
            raise ConfigError("The google-genai package is not installed: pip install -r requirements.txt.") from None
        read, connect = split_timeout(timeout)
        return cls(
            api_key=key,
            model=model or DEFAULT_MODEL,
            base_url=base_url,
            read_timeout=read,
            connect_timeout=connect,
            retry=retry,
        )

    def _config(self, request: CompletionRequest) -> Any:
        from google.genai import types

        config: dict[str, Any] = {
            "temperature": request.temperature,
            "max_output_tokens": request.max_tokens + (THINKING_ALLOWANCE if self._thinking else 0),
            "candidate_count": 1,
        }
        if request.system.strip():
            config["system_instruction"] = request.system
        stops = self.stops_for_api(request.stop)
        if stops:
            config["stop_sequences"] = stops
        if self._thinking:
            config["thinking_config"] = self._thinking
        if request.tools:
            config["tools"] = [types.Tool(function_declarations=[_declaration(spec) for spec in request.tools])]
            # The SDK would run Python functions itself; these are declarations the loop runs.
            config["automatic_function_calling"] = types.AutomaticFunctionCallingConfig(disable=True)
        return types.GenerateContentConfig(**config)

    def _omitted(self, request: CompletionRequest) -> list[dict[str, str]]:
        omitted = []
        if self._no_thinking:
            reason = f"{self.model} refused a thinking setting (HTTP 400), so it is no longer sent"
            omitted.append({"param": "thinkingConfig", "reason": reason})
        sent_stops = self.stops_for_api(request.stop)
        if len(request.stop) > len(sent_stops):
            rest = ", ".join(json.dumps(s) for s in request.stop[len(sent_stops) :])
            reason = f"Gemini takes at most {self.max_stop} stop sequences; the loop cuts at {rest} locally"
            omitted.append({"param": "stopSequences", "reason": reason})
        return omitted

    def _open(self, request: CompletionRequest) -> tuple[Iterator[Any], Any, Any, dict[str, Any]]:
        """Start the stream and read its first chunk (that is when the request is sent), retrying failures; with the
        response to close and what was sent."""
        contents = _contents(request) if request.tools or request.messages else request.prompt

        def attempt() -> tuple[Iterator[Any], Any, Any]:
            stream = self._client.models.generate_content_stream(
                model=self.model, contents=contents, config=self._config(request)
            )
            try:
                first = next(stream, None)
            except BaseException:
                _close(stream, self._http.take_stream())
                raise
            return stream, first, self._http.take_stream()

        try:
            stream, first, response = with_retries(attempt, self._classify_or_none, self.retry, service="Gemini")
        except _NoThinking:
            # This model has no thinking setting; ask it plainly from now on.
            self._thinking, self._no_thinking = None, True
            stream, first, response = with_retries(attempt, self._classify, self.retry, service="Gemini")
        endpoint, body = self._http.take_request() or ("", None)
        sent = {"api": "gemini.streamGenerateContent", "endpoint": endpoint, "body": body}
        sent["omitted"] = self._omitted(request)
        if request.tools:
            sent["conversation"] = "contents"
        return stream, first, response, sent

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        return stream_with_retries(
            lambda tries: self._attempt(request, tries), self._classify, self.retry, service="Gemini"
        )

    def _attempt(self, request: CompletionRequest, tries: int) -> Iterator[Chunk]:
        """One try: the request, then its chunks until one carries a finish reason (or the prompt was blocked); a
        stream that just stops is Truncated, never a whole reply."""
        stream, chunk, response, sent = self._open(request)
        yield Chunk(sent=sent, restart=tries > 1)
        usage: Usage | None = None
        wrote, blocked, finish, cached = False, "", "", None
        calls: list[ToolCall] = []
        try:
            while chunk is not None:
                text = _text(chunk)
                if text:
                    wrote = True
                    yield Chunk(text=text)
                calls += _calls(chunk, len(calls))
                blocked = _blocked(chunk) or blocked
                finish = _finish(chunk) or finish
                meta = getattr(chunk, "usage_metadata", None)
                if meta is not None and (meta.prompt_token_count or meta.candidates_token_count):
                    usage = Usage(
                        meta.prompt_token_count or 0,
                        (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
                    )
                    cached = meta.cached_content_token_count
                chunk = next(stream, None)
        finally:
            # The SDK leaves an abandoned stream open; closing the response is what stops the generation.
            _close(stream, response)
        if blocked and not wrote and not calls:
            # Not the model's mistake to correct: every further step would be refused the same way.
            raise ProviderError(f"Gemini refused to answer ({blocked}). Rephrase the question or switch provider.")
        if not finish:
            raise Truncated
        if calls:
            yield Chunk(tool_calls=calls)
        yield Chunk(usage=usage, finish_reason=finish.lower())
        if cached is not None:
            yield Chunk(sent={**sent, "reused_tokens": cached})

    # -- failures ------------------------------------------------------------------------------------

    def _classify_or_none(self, error: Exception) -> Failure | None:
        from google.genai import errors

        if (
            self._thinking
            and isinstance(error, errors.ClientError)
            and error.code == 400
            and "think" in _detail(error).lower()
        ):
            raise _NoThinking
        return self._classify(error)

    def _classify(self, error: Exception) -> Failure:
        import httpx2
        from google.genai import errors

        if isinstance(error, httpx2.TimeoutException):
            return Failure(f"no answer within the {self.read_timeout:g} s timeout", retryable=True)
        if isinstance(error, httpx2.TransportError):
            return Failure(f"cannot connect to {self.base_url or 'generativelanguage.googleapis.com'}", retryable=True)
        if isinstance(error, errors.APIError):
            code = int(error.code or 0)
            detail = redact(_detail(error), [self._key])
            # An invalid key is a 400 ("API key not valid"), a missing permission a 401/403.
            if code in (401, 403) or (code == 400 and "api key" in detail.lower()):
                return Failure(detail, error=rejected_key(type(self), f"HTTP {code}: {detail}"))
            if code == 404:
                missing = ConfigError(f"Gemini has no model {self.model!r} (HTTP 404: {detail}); check --model.")
                return Failure(detail, error=missing)
            headers = getattr(getattr(error, "response", None), "headers", None) or {}
            after = parse_retry_after(headers.get("retry-after")) if hasattr(headers, "get") else None
            if after is None:
                after = _retry_delay(getattr(error, "details", None))
            return Failure(f"HTTP {code}: {detail}", retryable=code in RETRY_STATUSES, retry_after=after)
        return Failure(redact(f"{type(error).__name__}: {error}", [self._key]))

    def close(self) -> None:
        self._http.close()


class _NoThinking(Exception):
    pass


def _whole_reply(body: bytes, kind: str, key: str) -> list[Any] | None:
    """The events a reply that is not a stream stands for (``transport.StreamingClient``'s ``whole``). Without
    ``alt=sse`` (a proxy that drops it) Gemini answers ``streamGenerateContent`` with a JSON array of the chunks it
    would have streamed, and a server that does not stream at all with one ``generateContent`` object: each chunk is
    an event. None for events under another content type; anything else is one clear line."""
    from react_core.providers.bodies import whole_json  # with the HTTP client, which pages never load

    data = whole_json(body, kind, "Gemini", [key])
    chunks = [data] if isinstance(data, dict) else data
    if data is None or (isinstance(chunks, list) and chunks and all(isinstance(c, dict) for c in chunks)):
        return chunks
    raise ProviderError("Gemini did not stream its reply and sent no answer; nothing it sent was used.")


def _text(chunk: Any) -> str:
    """The visible text of a streamed chunk: text parts of the first candidate, thoughts left out."""
    candidates = getattr(chunk, "candidates", None) or []
    if not candidates or candidates[0].content is None:
        return ""
    return "".join(p.text for p in candidates[0].content.parts or [] if p.text and not p.thought)


def _calls(chunk: Any, before: int) -> list[ToolCall]:
    """The function calls in a streamed chunk (Gemini sends each whole), with their thought signatures."""
    candidates = getattr(chunk, "candidates", None) or []
    if not candidates or candidates[0].content is None:
        return []
    found = []
    for part in candidates[0].content.parts or []:
        call = part.function_call
        if call is None:
            continue
        signature = base64.b64encode(part.thought_signature).decode() if part.thought_signature else ""
        arguments = json.dumps(call.args or {}, ensure_ascii=False)
        found.append(ToolCall(call.id or "", call.name or "", arguments, signature))
    return found


def _finish(chunk: Any) -> str:
    """The finish reason of the chunk's candidate, or of a blocked prompt ('' while the answer goes on)."""
    feedback = getattr(chunk, "prompt_feedback", None)
    if feedback is not None and getattr(feedback, "block_reason", None):
        return "blocked"
    for candidate in getattr(chunk, "candidates", None) or []:
        if candidate.finish_reason:
            reason = str(getattr(candidate.finish_reason, "value", candidate.finish_reason))
            # Out of tokens, in the loop's vocabulary (model_call.LENGTH): the reply may be half-written.
            return "length" if reason == "MAX_TOKENS" else reason
    return ""


def _declaration(spec: ToolSpec) -> Any:
    from google.genai import types

    argument = types.Schema(type="STRING", description=spec.param_description)
    parameters = types.Schema(type="OBJECT", properties={spec.param: argument}, required=[spec.param])
    return types.FunctionDeclaration(name=spec.name, description=spec.description, parameters=parameters)


def _contents(request: CompletionRequest) -> list[dict[str, Any]]:
    """The conversation (providers.base) as Gemini contents: the calls of one reply in one model turn, their results
    together in the next user turn."""
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": request.prompt}]}]
    for message in request.messages:
        role = message["role"]
        if role == "assistant":
            parts: list[dict[str, Any]] = [{"text": message["content"]}] if message.get("content") else []
            parts += [_call_part(c) for c in message.get("tool_calls") or ()]
            if parts:  # Gemini refuses an empty turn; a reply with nothing in it is left out
                contents.append({"role": "model", "parts": parts})
        elif role == "tool":
            key = "error" if message.get("is_error") else "result"
            response: dict[str, Any] = {"name": message["name"], "response": {key: message["content"]}}
            if message.get("id"):
                response["id"] = message["id"]
            last = contents[-1]
            if len(contents) > 1 and last["role"] == "user" and all("function_response" in p for p in last["parts"]):
                last["parts"].append({"function_response": response})
            else:
                contents.append({"role": "user", "parts": [{"function_response": response}]})
        else:
            contents.append({"role": "user", "parts": [{"text": message["content"]}]})
    return contents


def _call_part(call: Mapping[str, Any]) -> dict[str, Any]:
    try:
        args = json.loads(call["arguments"])
    except ValueError:
        args = {}
    function_call: dict[str, Any] = {"name": call["name"], "args": args if isinstance(args, dict) else {}}
    if call.get("id"):
        function_call["id"] = call["id"]
    part: dict[str, Any] = {"function_call": function_call}
    if call.get("signature"):
        part["thought_signature"] = base64.b64decode(call["signature"])
    return part


_REFUSALS = {"SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "RECITATION", "JAILBREAK", "MODEL_ARMOR"}


def _blocked(chunk: Any) -> str:
    """Why Gemini refused the prompt or the answer ('' when it did not)."""
    feedback = getattr(chunk, "prompt_feedback", None)
    reason = getattr(feedback, "block_reason", None) if feedback else None
    if reason:
        return f"prompt blocked: {getattr(reason, 'value', reason)}"
    for candidate in getattr(chunk, "candidates", None) or []:
        finish = getattr(candidate.finish_reason, "value", candidate.finish_reason)
        if finish in _REFUSALS:
            return f"answer blocked: {finish}"
    return ""


def _retry_delay(details: Any) -> float | None:
    """Gemini says how long to wait in the error body (google.rpc.RetryInfo ``retryDelay: "23s"``), not a header."""
    error = details.get("error", details) if isinstance(details, dict) else None
    items = error.get("details") if isinstance(error, dict) else None
    for item in items if isinstance(items, list) else []:
        delay = item.get("retryDelay") if isinstance(item, dict) else None
        if isinstance(delay, str) and delay.endswith("s"):
            try:
                return max(0.0, float(delay[:-1]))
            except ValueError:
                return None
    return None


def _detail(error: Any) -> str:
    text = getattr(error, "message", None) or str(error)
    return " ".join(str(text).split())[:300]


def _close(stream: Any, response: Any) -> None:
    close = getattr(stream, "close", None)
    if close:
        close()
    if response is not None:
        response.close()


_GEMINI_PYTHON = '''"""{doc}"""
import json
import os

from google import genai
from google.genai import types

client = genai.Client(api_key=os.environ[{key_var!r}]{options})
# The body as the REST API received it; the SDK's types read it back (JSON mode decodes thought signatures).
body = {body}
config = dict(body.get("generationConfig", {{}}))
for field in ("systemInstruction", "tools", "toolConfig", "safetySettings"):
    if field in body:
        config[field] = body[field]
stream = client.models.generate_content_stream(
    model={model!r},
    contents=[types.Content.model_validate_json(json.dumps(c)) for c in body["contents"]],
    config=types.GenerateContentConfig.model_validate_json(json.dumps(config)),
)
for chunk in stream:
    for candidate in chunk.candidates or ():
        for part in (candidate.content.parts if candidate.content else None) or ():
            if part.text:
                print(part.text, end="", flush=True)
            if part.function_call:
                print(part.function_call.name, json.dumps(part.function_call.args), flush=True)
print()
'''

_GEMINI_ENDPOINT = re.compile(r"^(?P<root>.*?)/(?P<version>v1\w*)/models/(?P<model>[^:/]+):")


def gemini_snippet(call: Mapping[str, Any], style: str, key_var: str) -> str:
    from react_core.providers import snippets

    snippets.check_style(style, "Gemini")
    endpoint, body = call["endpoint"], call["body"]
    step = f"Step {call.get('step', '?')}'s model call"
    if style == "curl":
        comment = f"{step}, sent again. The key comes from ${key_var}."
        return snippets.curl(endpoint, body, {"x-goog-api-key": f"${key_var}"}, comment=comment)
    m = _GEMINI_ENDPOINT.match(endpoint)
    if m is None:
        raise ConfigError(f"The recorded endpoint {endpoint!r} is not a Gemini model URL.")
    root = m.group("root")
    options = "" if root == DEFAULT_ROOT else f", http_options=types.HttpOptions(base_url={root!r})"
    doc = f"{step}, sent again with Google's SDK (pip install google-genai). The key comes from {key_var}."
    return _GEMINI_PYTHON.format(
        doc=doc, key_var=key_var, options=options, body=snippets.literal(body), model=m.group("model")
    )
