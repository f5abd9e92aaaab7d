"""The provider contract: stream or complete a prompt with stop sequences, returning text and usage.

A request carries the fixed prefix (``system``: instructions and examples) and the growing part (``prompt``:
question, past steps, the next step's prefix) separately. Chat providers send them as a system instruction and a
user message; raw-completion providers send ``system + prompt``. Either way the prefix is byte-identical between
steps. Capabilities are attributes. SDKs are imported lazily by the concrete providers, never here. Depends only on
``react_core.trace`` and ``react_core.errors``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from react_core.trace import Usage


@dataclass(frozen=True)
class CompletionRequest:
    system: str
    prompt: str
    stop: tuple[str, ...] = ()
    temperature: float = 0.0
    max_tokens: int = 400

    @property
    def text(self) -> str:
        """The whole prompt for raw-completion models."""
        return self.system + self.prompt


@dataclass
class Chunk:
    """A piece of a streamed completion. The last chunk of a stream may carry the usage."""

    text: str = ""
    usage: Usage | None = None


@dataclass
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)


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


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters a token) for providers that report none."""
    return max(1, (len(text) + 3) // 4) if text else 0


class Provider:
    """Base class of every model provider."""

    name: str = ""
    model: str = ""
    # How many stop sequences the API accepts (None: any number). The loop always cuts locally as well.
    max_stop: int | None = None
    supports_stop: bool = True
    needs_key: bool = False
    # A small on-device demo model: the UI labels it as often wrong.
    is_demo: bool = False
    # Stop sequences this model needs beyond the format's (a base model invents new questions after Finish).
    extra_stops: tuple[str, ...] = ()

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        raise NotImplementedError

    def complete(self, request: CompletionRequest) -> Completion:
        parts: list[str] = []
        usage: Usage | None = None
        for chunk in self.stream(request):
            parts.append(chunk.text)
            if chunk.usage is not None:
                usage = chunk.usage
        text = "".join(parts)
        if usage is None:
            usage = Usage(estimate_tokens(request.text), estimate_tokens(text))
        return Completion(text=text, usage=usage)

    def stops_for_api(self, stops: tuple[str, ...]) -> list[str]:
        """The stop sequences this API will take; the rest are enforced by local cutting."""
        if not self.supports_stop:
            return []
        return list(stops if self.max_stop is None else stops[: self.max_stop])

    def describe(self) -> str:
        return f"{self.name}:{self.model}" if self.model else self.name

    def close(self) -> None:
        """Release connections or memory; the default has nothing to release."""
