"""The ``openai`` provider: OpenAI's Chat Completions API, and every server that speaks it (Ollama, vLLM, LM Studio,
``llama_cpp.server``) through a base URL.

Chat Completions, not the Responses API, because only it takes ``stop``. At most four stop sequences go to the API; the
loop cuts locally at all of them. Reasoning models (o-series, gpt-5 and later) take neither ``stop`` nor
``temperature``: they are not sent, and a model that rejects a parameter with a 400 is asked again without it, so any
model works through local cutting. Streams ask for usage; servers that report none get an estimate from the loop.
Replies are read as compatible servers really send them (``openai_reply``: content as typed parts, tool calls repeated
in every piece, a server that answers with one JSON body instead of a stream). Keys, retries (the SDK's own are off),
failures and the call record are ``hosted.HostedProvider``'s. The SDK is imported lazily.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from react_core.base.calls import LENGTH
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import Usage
from react_core.providers.base import CompletionRequest
from react_core.providers.hosted import CUT_LOCALLY, Fault, HostedProvider, Reading
from react_core.providers.messages import one_line
from react_core.providers.openai_reply import (
    ToolCallPieces,
    completion_events,
    content_text,
    not_chat_completions,
    responses_api,
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


def is_reasoning_model(model: str) -> bool:
    """o1/o3/o4 and gpt-5 or later, except the ``-chat`` variants (which are plain chat models)."""
    short = model.rsplit("/", 1)[-1]
    return bool(_REASONING.match(short)) and "-chat" not in short


class OpenAIProvider(HostedProvider):
    name = "openai"
    genai_name = "openai"
    genai_operation = "chat"
    label = "OpenAI"
    choice = "OpenAI or a compatible server (Ollama, vLLM, LM Studio, llama.cpp)"
    default_model = DEFAULT_MODEL
    max_stop = 4
    key_vars = ("OPENAI_API_KEY",)
    base_url_vars = ("OPENAI_BASE_URL",)

    sdk_module = sdk_package = "openai"
    sdk_label = "OpenAI's SDK"
    host = "api.openai.com"
    api = "openai.chat.completions"
    api_label = "Chat Completions"
    conversation = "messages"
    # Parameters a model or server may refuse; on a 400 naming one, the request is sent again without it.
    adjustable = ("stop", "temperature", "reasoning_effort", "stream_options", "max_completion_tokens", "max_tokens")
    placeholder_key = NO_KEY
    end_marker = b"[DONE]"
    refusal_advice = "Rephrase the question."

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.reasoning = is_reasoning_model(self.model)
        self.supports_stop = not self.reasoning

    def _sdk_client(self) -> Any:
        import openai

        key = self._key or NO_KEY
        return openai.OpenAI(api_key=key, base_url=self.base_url or None, http_client=self._http, max_retries=0)

    @property
    def _service(self) -> str:
        return f"The OpenAI-compatible server at {self.base_url}" if self.base_url else "OpenAI"

    def close(self) -> None:
        self._client.close()
        super().close()

    # -- the request ---------------------------------------------------------------------------------

    def _send(self, request: CompletionRequest) -> Iterator[Any]:
        return self._client.chat.completions.create(**self._params(request))

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

    def _left_out(self, request: CompletionRequest) -> list[dict[str, str]]:
        omitted = []
        if self.reasoning:
            for param in ("stop", "temperature"):
                if param == "temperature" or request.stop:
                    reason = f"{self.model} is a reasoning model, which takes no {param}"
                    if param == "stop":
                        reason += f"; {CUT_LOCALLY}"
                    omitted.append({"param": param, "reason": reason})
        return omitted

    def _refusal(self, fault: Fault) -> str | None:
        text = f"{fault.param or ''} {fault.detail}".lower()
        if not any(w in text for w in ("unsupported", "not supported", "unrecognized", "unknown", "extra")):
            return None
        for name in self.adjustable:
            if fault.param == name or f"'{name}'" in text or f'"{name}"' in text or f"`{name}`" in text:
                return name
        return None

    # -- the reply -----------------------------------------------------------------------------------

    def _read(self, events: Iterator[Any], reading: Reading) -> Iterator[str]:
        calls = ToolCallPieces()
        for event in events:
            if responses_api(event):
                raise not_chat_completions(self._service)
            reading.note(event, ("id",), ("model",))
            for choice in event.choices or ():
                delta = choice.delta
                text = content_text(getattr(delta, "content", None)) if delta else ""
                if text:
                    yield text
                for piece in (getattr(delta, "tool_calls", None) or ()) if delta else ():
                    calls.add(piece)
                reading.finish = choice.finish_reason or reading.finish
            usage = getattr(event, "usage", None)
            if usage is not None:
                reading.usage = Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0)
                details = getattr(usage, "prompt_tokens_details", None)
                reading.cached = getattr(details, "cached_tokens", None) if details else None
            if calls.argument_chars > MAX_ARGUMENT_CHARS:
                reading.finish = LENGTH  # arguments without end: what came is kept (cut, so malformed) and no more
                break
        reading.calls = calls.calls()
        if reading.finish == "content_filter":
            reading.refused = "content filter"

    def _whole_events(self, data: Any) -> list[Any]:
        return completion_events(data, self._service)

    @classmethod
    def _python(cls, call: Mapping[str, Any], doc: str, key_var: str) -> str:
        from react_core.providers import snippets
        from react_core.providers.endpoints import same_origin

        root = snippets.base_url(call["endpoint"], r"/chat/completions$")
        official = same_origin(root, f"https://{cls.host}")
        key = f"os.environ[{key_var!r}]" if official else f"os.environ.get({key_var!r}, {NO_KEY!r})"
        return _OPENAI_PYTHON.format(doc=doc, key=key, base_url=root, request=snippets.literal(call["body"]))

    # -- failures ------------------------------------------------------------------------------------

    def _fault(self, error: Exception) -> Fault | None:
        import openai

        if isinstance(error, openai.APIConnectionError):  # the SDK's wrapping of our HTTP client's errors
            return Fault("timeout" if isinstance(error, openai.APITimeoutError) else "unreachable")
        if isinstance(error, openai.APIStatusError):
            status = error.status_code
            no_quota = status == 429 and getattr(error, "code", None) == "insufficient_quota"
            param = getattr(error, "param", None)
            return Fault("http", _detail(error), status, error.response.headers, param=param, no_quota=no_quota)
        if isinstance(error, openai.APIError):
            return Fault("other", _detail(error))
        return None


def _declaration(spec: ToolSpec) -> dict[str, Any]:
    """A tool as a Chat Completions function: its name, description and its arguments' JSON Schema."""
    function = {"name": spec.name, "description": spec.description, "parameters": spec.parameters()}
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
    return one_line(text)


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
