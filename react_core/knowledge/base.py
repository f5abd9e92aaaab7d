"""The knowledge-source contract behind the Search and Lookup tools.

A source answers ``search(entity)`` with a page (title, canonical URL, revision, the article's plain-text sentences)
or a miss with similar titles, and reports how many HTTP requests that took. The paper's semantics (first N
sentences, ``Could not find …``, Lookup's ``(Result k / n)`` cursor) live in ``react_core.tools.wiki``, on top of
this contract, so every source behaves the same. Depends only on the trace and the errors.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class Page:
    title: str
    url: str
    sentences: list[str]
    revision: int | None = None


@dataclass
class SearchOutcome:
    page: Page | None
    similar: list[str] = field(default_factory=list)
    http_requests: int = 0
    # Said in the observation when the answer did not come from the configured source (e.g. offline fallback).
    note: str = ""


class KnowledgeSource(Protocol):
    name: str

    def search(self, entity: str) -> SearchOutcome: ...

    def close(self) -> None: ...
