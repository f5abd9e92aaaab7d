"""The ``gemini`` provider: Google's Gemini API through the ``google-genai`` SDK (never the retired
``google-generativeai``).

A streamed ``generate_content`` with the fixed prefix as the system instruction and the growing prompt as the user turn,
up to five stop sequences (the loop cuts locally at all of them), the temperature, and usage from ``usage_metadata``
(thinking tokens count as completion tokens: they are billed as output). Gemini 3 models think at the ``low`` level and
2.5 Flash models not at all, because a ReAct step is short and latency adds up over a run. ``base_url`` points the SDK
elsewhere (``HttpOptions(base_url=…)``), which is how the tests reach a local server. A reply that is not a stream is
handed to the SDK as the events it stands for (``_whole_events``). Keys, timeouts, retries, failures, closing an
abandoned stream and the call record are ``hosted.HostedProvider``'s. The SDK is imported lazily.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from react_core.base.calls import LENGTH
from react_core.base.errors import ConfigError, ProviderError
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import ToolCall, Usage
from react_core.providers.base import CompletionRequest
from react_core.providers.hosted import Fault, HostedProvider, Reading
from react_core.providers.messages import one_line

# Gemini 3.8 Flash: the current generally available Flash model (the SDK's own examples use it). Editable.
DEFAULT_MODEL = "gemini-3.8-flash"
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


class GeminiProvider(HostedProvider):
    name = "gemini"
    genai_name = "gcp.gemini"
    genai_operation = "generate_content"
    label = "Gemini"
    choice = "Google Gemini"
    default_model = DEFAULT_MODEL
    max_stop = 5
    key_vars = ("GEMINI_API_KEY", "GOOGLE_API_KEY")

    sdk_module = "google.genai"
    sdk_package = "google-genai"
    sdk_label = "Google's SDK"
    host = "generativelanguage.googleapis.com"
    api = "gemini.streamGenerateContent"
    api_label = "Gemini"
    stop_param = "stopSequences"
    conversation = "contents"
    adjustable = ("thinkingConfig",)
    key_header = ("x-goog-api-key", "")

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._thinking = thinking_config(self.model)

    def _sdk_client(self) -> Any:
        from google import genai
        from google.genai import types

        options = types.HttpOptions(base_url=self.base_url or None, httpx_client=self._http)
        return genai.Client(api_key=self._key, vertexai=False, http_options=options)

    @property
    def thinking(self) -> dict[str, Any] | None:
        """The thinking setting sent, unless the model refused one."""
        return None if "thinkingConfig" in self._refused else self._thinking

    # -- the request ---------------------------------------------------------------------------------

    def _send(self, request: CompletionRequest) -> Iterator[Any]:
        contents = _contents(request) if request.tools or request.messages else request.prompt
        return self._client.models.generate_content_stream(
            model=self.model, contents=contents, config=self._config(request)
        )

    def _config(self, request: CompletionRequest) -> Any:
        from google.genai import types

        config: dict[str, Any] = {
            "temperature": request.temperature,
            "max_output_tokens": request.max_tokens + (THINKING_ALLOWANCE if self.thinking else 0),
            "candidate_count": 1,
        }
        if request.system.strip():
            config["system_instruction"] = request.system
        stops = self.stops_for_api(request.stop)
        if stops:
            config["stop_sequences"] = stops
        if self.thinking:
            config["thinking_config"] = self.thinking
        if request.tools:
            config["tools"] = [types.Tool(function_declarations=[_declaration(spec) for spec in request.tools])]
            # The SDK would run Python functions itself; these are declarations the loop runs.
            config["automatic_function_calling"] = types.AutomaticFunctionCallingConfig(disable=True)
        return types.GenerateContentConfig(**config)

    def _refusal(self, fault: Fault) -> str | None:
        # This model has no thinking setting; ask it plainly from now on.
        return "thinkingConfig" if self.thinking and "think" in fault.detail.lower() else None

    def _refused_reason(self, param: str) -> str:
        return f"{self.model} refused a thinking setting (HTTP 400), so it is no longer sent"

    # -- the reply -----------------------------------------------------------------------------------

    def _read(self, events: Iterator[Any], reading: Reading) -> Iterator[str]:
        """Chunks until one carries a finish reason (or the prompt was blocked)."""
        for chunk in events:
            text = _text(chunk)
            if text:
                yield text
            reading.note(chunk, ("response_id", "responseId"), ("model_version", "modelVersion"))
            reading.calls += _calls(chunk)
            reading.refused = _blocked(chunk) or reading.refused
            reading.finish = _finish(chunk) or reading.finish
            meta = getattr(chunk, "usage_metadata", None)
            if meta is not None and (meta.prompt_token_count or meta.candidates_token_count):
                reading.usage = Usage(
                    meta.prompt_token_count or 0,
                    (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
                )
                reading.cached = meta.cached_content_token_count

    def _whole_events(self, data: Any) -> list[Any]:
        """Without ``alt=sse`` (a proxy that drops it) Gemini answers ``streamGenerateContent`` with a JSON array of
        the chunks it would have streamed, and a server that does not stream at all with one ``generateContent``
        object: each chunk is an event."""
        chunks = [data] if isinstance(data, dict) else data
        if isinstance(chunks, list) and chunks and all(isinstance(c, dict) for c in chunks):
            return chunks
        raise ProviderError("Gemini did not stream its reply and sent no answer; nothing it sent was used.")

    # -- failures ------------------------------------------------------------------------------------

    def _fault(self, error: Exception) -> Fault | None:
        from google.genai import errors

        if isinstance(error, errors.APIError):
            headers = getattr(getattr(error, "response", None), "headers", None)
            detail = one_line(getattr(error, "message", None) or str(error))
            delay = _retry_delay(getattr(error, "details", None))
            return Fault("http", detail, int(error.code or 0), headers, retry_after=delay)
        return None

    def _rejects_key(self, status: int, detail: str) -> bool:
        # An invalid key is a 400 ("API key not valid"), a missing permission a 401/403.
        return super()._rejects_key(status, detail) or (status == 400 and "api key" in detail.lower())

    @classmethod
    def _python(cls, call: Mapping[str, Any], doc: str, key_var: str) -> str:
        from react_core.providers import snippets
        from react_core.providers.endpoints import same_endpoint

        m = _GEMINI_ENDPOINT.match(call["endpoint"])
        if m is None:
            raise ConfigError(f"The recorded endpoint {call['endpoint']!r} is not a Gemini model URL.")
        root = m.group("root")
        own_api = same_endpoint(root, f"https://{cls.host}")
        options = "" if own_api else f", http_options=types.HttpOptions(base_url={root!r})"
        body = snippets.literal(call["body"])
        return _GEMINI_PYTHON.format(doc=doc, key_var=key_var, options=options, body=body, model=m.group("model"))


def _text(chunk: Any) -> str:
    """The visible text of a streamed chunk: text parts of the first candidate, thoughts left out."""
    candidates = getattr(chunk, "candidates", None) or []
    if not candidates or candidates[0].content is None:
        return ""
    return "".join(p.text for p in candidates[0].content.parts or [] if p.text and not p.thought)


def _calls(chunk: Any) -> list[ToolCall]:
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
            # In the loop's words (base.calls): STOP is "stop", out of tokens (the reply's or the request's limit) is
            # LENGTH; any other reason (SAFETY, RECITATION, OTHER, …) is kept, lower-cased: it cut the reply too.
            return LENGTH if reason in _OUT_OF_TOKENS else reason.lower()
    return ""


def _declaration(spec: ToolSpec) -> Any:
    from google.genai import types

    if spec.schema is not None:  # an MCP tool: the server's own JSON Schema
        return types.FunctionDeclaration(
            name=spec.name, description=spec.description, parameters_json_schema=spec.parameters()
        )
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


_OUT_OF_TOKENS = ("MAX_TOKENS", "CONTINUATION")
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
