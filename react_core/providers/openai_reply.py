"""How the ``openai`` provider reads a Chat Completions reply as compatible servers really send it.

- **Content** is a string, or (Mistral's API) a list of typed parts: the ``text`` parts are the answer; ``thinking``
  (the model's reasoning, left out as Gemini's thoughts are), ``reference`` and other parts are not.
- **Tool calls** stream in pieces joined by their ``index``, as the openai SDK's stream helpers join them
  (``openai.lib.streaming._deltas.accumulate_delta``: strings concatenated, ``index`` and ``type`` replaced). The SDK
  concatenates every string, so a server that repeats a call's id and name in every piece (MiniMax through NVIDIA
  NIM, SGLang's ids) would get ``searchsearch``, and one that sends the whole call twice ``{…}{…}``. Here a piece
  that repeats the whole value so far adds nothing: the id is the first one sent, a name grows only by a piece that
  is not the name itself (names split in fragments still join), and arguments that are complete JSON are not doubled
  by the same JSON again. vLLM, llama.cpp and OpenAI name a call once and split its arguments; Ollama sends each call
  whole in one piece; both read as before.
- **A server that ignores** ``stream: true`` answers with one ``chat.completion`` JSON body (bounded by the
  transport): it is read whole and handed to the SDK as the one event a stream would have carried (text, tool calls,
  usage, finish reason). A body that is neither that nor a stream of events is one clear line, never a reply cut
  short and tried again.
- **A server that speaks the Responses API** at ``/chat/completions`` (its events ``type: "response.…"``, its body
  ``object: "response"``) has no chat completion to give, however often it is asked: one clear line saying so, never
  "stopped in the middle of an answer" after three tries.
"""

from __future__ import annotations

import json
from typing import Any

from react_core.base.errors import ProviderError
from react_core.base.trace import ToolCall


def content_text(content: Any) -> str:
    """The answer's text in a ``content`` value: a string, or the ``text`` parts of a list of typed parts."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content] if isinstance(content, dict) else []
    texts = []
    for part in parts:
        kind, text = _field(part, "type"), _field(part, "text")
        if kind in ("text", None) and isinstance(text, str):
            texts.append(text)
    return "".join(texts)


class ToolCallPieces:
    """The tool calls of one streamed reply, assembled from their pieces (see the module's docstring)."""

    def __init__(self) -> None:
        self._slots: dict[int, dict[str, str]] = {}

    def add(self, piece: Any) -> None:
        index = _field(piece, "index")
        slot = self._slots.setdefault(index if isinstance(index, int) else 0, {"id": "", "name": "", "arguments": ""})
        call_id = _field(piece, "id")
        if isinstance(call_id, str) and not slot["id"]:
            slot["id"] = call_id
        function = _field(piece, "function")
        name, arguments = _field(function, "name"), _field(function, "arguments")
        if isinstance(name, str) and name != slot["name"]:
            slot["name"] += name
        if isinstance(arguments, str) and not (arguments == slot["arguments"] and _is_json(arguments)):
            slot["arguments"] += arguments

    def __bool__(self) -> bool:
        return bool(self._slots)

    @property
    def argument_chars(self) -> int:
        return sum(len(s["arguments"]) for s in self._slots.values())

    def calls(self) -> list[ToolCall]:
        return [ToolCall(id=s["id"], name=s["name"], arguments=s["arguments"]) for _, s in sorted(self._slots.items())]


def completion_events(data: Any, service: str) -> list[Any]:
    """The events a reply that is not a stream stands for (``HostedProvider._whole_events``): a ``chat.completion``
    body (its JSON) becomes the one chunk a stream would have carried (each choice's message as its delta, its tool
    calls indexed, its finish reason, ``stop`` when it names none: the body is complete) and ``[DONE]``. Anything else
    is one clear line."""
    if responses_api(data):
        raise not_chat_completions(service)
    if not (isinstance(data, dict) and isinstance(data.get("choices"), list)):
        raise ProviderError(
            f"{service} did not stream its reply and sent no chat completion; nothing it sent was used."
        )
    choices = []
    for n, choice in enumerate(c for c in data["choices"] if isinstance(c, dict)):
        message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        calls = message.get("tool_calls") if isinstance(message.get("tool_calls"), list) else []
        delta = {
            "content": message.get("content"),
            "tool_calls": [{**c, "index": i} for i, c in enumerate(calls) if isinstance(c, dict)],
        }
        finish = choice.get("finish_reason") or "stop"
        choices.append({"index": choice.get("index", n), "delta": delta, "finish_reason": finish})
    return [{**data, "object": "chat.completion.chunk", "choices": choices}, "[DONE]"]


def responses_api(data: Any) -> bool:
    """Whether a body or event is the Responses API's (``object: "response"``, ``type: "response.…"``)."""
    kind = _field(data, "type")
    return _field(data, "object") == "response" or (isinstance(kind, str) and kind.startswith("response."))


def not_chat_completions(service: str) -> ProviderError:
    return ProviderError(
        f"{service} does not speak Chat Completions: it answered with the Responses API's events or body, which "
        "hold no chat completion; nothing it sent was used. Give the base URL of a server that serves "
        "/chat/completions."
    )


def _field(value: Any, name: str) -> Any:
    """A field of an SDK object or of the plain dict a server's extra shapes stay as."""
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
