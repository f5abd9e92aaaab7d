"""A provider that replays a list of model outputs: it drives tests, offline demos and benchmarks.

Each item of the script is either a string (the model's text) or an object ``{"text": …, "delay": seconds, "gate": path,
"error": "…", "usage": {…}, "tool_calls": [{"name": …, "arguments": {…} or "raw JSON text", "id": …}]}``; an item with
``tool_calls`` is a reply that calls tools natively (the ``tools`` dialect), its ``text`` the thought. An ``error`` item
raises a ProviderError as a failing service would. A ``gate`` item waits until a file exists at that path before it
answers (with ``"gate_after": n``, after its first n words), and removes it as it passes: creating the file lets one
call through (a test or a demo opens the gate when it is ready; Stop interrupts the wait), so "while the model is
working" (or "while it is writing") is an event, not a race with a delay. The provider
records every request it was sent. Like a model that ignores stop sequences, it returns its text whole: the loop's local
cutting is what stops it. Outputs are consumed in order across runs, so one script can drive a whole evaluation."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from react_core.base import cancel
from react_core.base.errors import ConfigError, ProviderError
from react_core.base.trace import ToolCall, Usage
from react_core.providers.base import Chunk, CompletionRequest, Provider

__all__ = ["ScriptedProvider", "checked_outputs", "load_script"]

_PIECES = re.compile(r"\S+\s*|\s+")


def load_script(path: str | Path) -> list[Any]:
    """Read a JSON array of model outputs; a ConfigError names the file and the problem."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"Cannot read script {path}: {e.strerror or e}.") from None
    except UnicodeDecodeError:
        raise ConfigError(f"Script {path} is not UTF-8 text.") from None
    return checked_outputs(text, f"Script {path}")


def checked_outputs(text: str | list[Any], name: str = "The script") -> list[Any]:
    """A script's outputs from its JSON text (or as a list already read); ConfigError saying what is wrong."""
    if isinstance(text, str):
        try:
            text = json.loads(text)
        except (ValueError, RecursionError) as e:
            raise ConfigError(f"{name} is not valid JSON: {e}.") from None
    if not isinstance(text, list) or not all(isinstance(x, str | dict) for x in text):
        raise ConfigError(f"{name} must be a JSON array of strings (one model output per call).")
    return text


class ScriptedProvider(Provider):
    name = "scripted"
    genai_name = "reactlab.scripted"
    genai_operation = "text_completion"
    label = "Scripted"
    choice = "Scripted (replays a JSON file of model outputs)"
    default_model = "script"
    options = ("script", "delay")
    runs_unset = False  # it needs a script
    # Outputs are consumed in order, so one call at a time.
    concurrent = False
    # Items may script native tool calls, so it can drive the tools dialect in tests and demos.
    native_tools = True

    def __init__(self, outputs: list[Any], *, delay: float = 0.0, model: str = "script") -> None:
        self.outputs = list(outputs)
        self.delay = delay
        self.model = model
        self.requests: list[CompletionRequest] = []
        self._next = 0
        self._lock = threading.Lock()

    @classmethod
    def create(
        cls, *, script: str | list[Any] | None = None, delay: float | None = 0.0, **_ignored: Any
    ) -> ScriptedProvider:
        """From a script file path (or a list of outputs); options it does not use are ignored."""
        if script is None or script == "":
            raise ConfigError("The scripted provider needs a script: --script FILE.json (or REACT_SCRIPT).")
        outputs = load_script(script) if isinstance(script, str | Path) else list(script)
        return cls(outputs, delay=float(delay or 0.0))

    def _take(self, request: CompletionRequest) -> Any:
        with self._lock:
            self.requests.append(request)
            if self._next >= len(self.outputs):
                raise ProviderError(
                    f"The script has no more outputs (all {len(self.outputs)} were used); add more to the script."
                )
            item = self.outputs[self._next]
            self._next += 1
            return item

    def sent(self, request: CompletionRequest) -> dict[str, Any]:
        """What this "API" receives: the request's fields as they are."""
        body = {
            "system": request.system,
            "prompt": request.prompt,
            "stop": list(request.stop),
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        omitted = []
        if request.stop:
            reason = "a script ignores stop sequences; the loop cuts at them locally"
            omitted.append({"param": "stop", "reason": reason})
        sent = {"api": "scripted", "endpoint": "", "body": body, "omitted": omitted}
        if request.tools:
            body["messages"] = [dict(m) for m in request.messages]
            body["tools"] = [spec.name for spec in request.tools]
            sent["conversation"] = "messages"
        return sent

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        item = self._take(request)
        yield Chunk(sent=self.sent(request))
        gate, after = None, 0
        if isinstance(item, dict):
            gate, after = (Path(str(item["gate"])) if item.get("gate") else None), int(item.get("gate_after", 0))
            if gate is not None and not after:
                _wait_for(gate)
            text, delay = str(item.get("text", "")), float(item.get("delay", self.delay))
            if item.get("error"):
                raise ProviderError(str(item["error"]))
            usage = Usage.from_dict(item["usage"]) if "usage" in item else None
            calls = [_tool_call(c, n) for n, c in enumerate(item.get("tool_calls") or [])]
        else:
            text, delay, usage, calls = item, self.delay, None, []
        if delay:
            cancel.sleep(delay)
        # Word-sized pieces, so streaming and local stop cutting are exercised as with a real model.
        for n, piece in enumerate(_PIECES.findall(text)):
            if gate is not None and after and n == after:
                _wait_for(gate)
            yield Chunk(text=piece)
        if calls:
            yield Chunk(tool_calls=calls)
        yield Chunk(
            usage=usage or Usage(Provider.estimate_tokens(request.text), Provider.estimate_tokens(text)),
            finish_reason="stop",
        )


def _tool_call(item: Any, n: int) -> ToolCall:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise ConfigError('A scripted tool call is an object {"name": …, "arguments": {…}}.')
    arguments = item.get("arguments", {})
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return ToolCall(str(item.get("id", f"call_{n}")), item["name"], raw)


def _wait_for(gate: Path) -> None:
    """Block until the gate file exists, then take it (one call per opening; of two waiting, only the one whose removal
    succeeds passes). Raises Cancelled when the run is stopped meanwhile."""
    while True:
        try:
            gate.unlink()
            return
        except FileNotFoundError:
            cancel.sleep(0.01)
