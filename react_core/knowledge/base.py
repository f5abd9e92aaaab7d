"""The knowledge-source contract behind the Search and Lookup tools.

A source answers ``search(entity)`` with a page (title, canonical URL, revision, the article's plain-text sentences)
or a miss with similar titles, and reports how many HTTP requests that took. When it cannot answer at all (the
network failed after its retries) it says why in ``error`` instead of raising, so the run goes on. The paper's
semantics (first N sentences, ``Could not find …``, Lookup's ``(Result k / n)`` cursor) live in
``react_core.tools.wiki``, on top of this contract, so every source behaves the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

SIMILAR_LIMIT = 5  # titles in a miss's Similar list (the paper's environment shows up to 5)


@dataclass
class Page:
    title: str
    url: str
    # The article's sentences in order, each keeping the whitespace that separated it from the one before, so
    # ``"".join(sentences)`` is the plain text (HotpotQA splits inside quotes; joining with spaces would not be).
    sentences: list[str]
    revision: int | None = None


@dataclass
class SearchOutcome:
    page: Page | None
    similar: list[str] = field(default_factory=list)
    http_requests: int = 0
    # Said in the observation when the answer did not come from the configured source (e.g. offline fallback).
    note: str = ""
    # Set when the source could not answer (e.g. Wikipedia failing after retries): the tool turns it into an
    # error observation and the run goes on. ``page`` and ``similar`` are then empty.
    error: str = ""


class KnowledgeSource(Protocol):
    name: str

    def search(self, entity: str) -> SearchOutcome: ...

    def close(self) -> None: ...
