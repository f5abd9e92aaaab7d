"""Search and Lookup as the ReAct paper's environment defines them, once, over any knowledge source.

``Search[entity]``: the exact title (redirects followed) gives the article's first N sentences (the paper: 5) and its
source; otherwise ``Could not find [entity]. Similar: ['T1', …].`` (``Observation.miss_text``). ``Lookup[keyword]``: the
next sentence of the last page found that contains the keyword, case-insensitively, as ``(Result k / n) sentence``, then
``No more results.``; a new keyword, or a new Search, starts again at 1. The two tools share per-run state, so
``make_wiki_tools`` is called once per run. A model's malformed input (an empty or over-long entity) is an error
observation; so is a source that could not answer. A page's sentences and a Lookup result are evidence
(``Observation.evidence``); a miss, "No more results." and errors are not. The registry cuts every observation to
``registry.MAX_OBSERVATION_CHARS``, however long the page's sentences are. Works over any source, never a particular
one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from react_core.base.trace import Observation, ObservationStats, Source
from react_core.knowledge.base import KnowledgeSource, Page
from react_core.knowledge.text import collapse
from react_core.knowledge.titles import MAX_TITLE_BYTES
from react_core.tools.registry import Tool

__all__ = [
    "MAX_KEYWORD_CHARS",
    "NO_MORE_RESULTS",
    "clean_entity",
    "lookup_sentence",
    "make_wiki_tools",
]

NO_MORE_RESULTS = "No more results."
MAX_KEYWORD_CHARS = 200
_LOOKUP_PREFIX = re.compile(r"^\(Result \d+ / \d+\) ")
_WIKI_LINK = re.compile(r"^\[\[([^\[\]|]*)(?:\|[^\[\]]*)?\]\]$")
_QUOTES = ('"', "'", "\u201c\u201d", "\u2018\u2019")


@dataclass
class _WikiState:
    page: Page | None = None
    note: str = ""
    keyword: str = ""
    matches: list[str] | None = None
    cursor: int = 0


def clean_entity(text: str) -> str:
    """What the model meant: ``[[Title|label]]`` -> ``Title``, ``"Title"`` -> ``Title``, whitespace collapsed."""
    entity = collapse(text)
    link = _WIKI_LINK.match(entity)
    if link:
        entity = link.group(1).strip()
    for q in _QUOTES:
        opening, closing = q[0], q[-1]
        inner = entity[1:-1]
        if len(entity) > 2 and entity[0] == opening and entity[-1] == closing and opening not in inner:
            entity = inner.strip()
    return entity


def lookup_sentence(observation_text: str) -> str:
    """The sentence of a Lookup result, without its ``(Result k / n)`` counter."""
    return _LOOKUP_PREFIX.sub("", observation_text, count=1)


def make_wiki_tools(source: KnowledgeSource, sentences: int = 5) -> list[Tool]:
    """A ``search`` and a ``lookup`` Tool sharing one run's state (the last page and the Lookup cursor)."""
    state = _WikiState()
    sentences = max(1, int(sentences))

    def search(entity_text: str) -> Observation:
        entity = clean_entity(entity_text)
        if not entity:
            return Observation.error("Search needs an entity, e.g. Search[Albert Einstein].")
        size = len(entity.encode("utf-8"))
        if size > MAX_TITLE_BYTES:
            return Observation.error(
                f"That entity is {len(entity):,} characters long; Wikipedia titles are at most {MAX_TITLE_BYTES} "
                "bytes. Search for the title of one article."
            )
        outcome = source.search(entity)
        stats = ObservationStats(http_requests=outcome.http_requests)
        state.keyword, state.matches, state.cursor = "", None, 0  # the paper resets Lookup on every Search
        if outcome.error:
            return Observation(text=outcome.error, is_error=True, stats=stats, note=outcome.note)
        if outcome.page is None:
            return Observation(text=Observation.miss_text(entity, outcome.similar), stats=stats, note=outcome.note)
        page = outcome.page
        state.page, state.note = page, outcome.note
        text = collapse("".join(page.sentences[:sentences]))
        if not text:
            empty = f"The article {page.title} has no text."
            return Observation(text=empty, sources=[_source(page)], stats=stats, note=outcome.note)
        return Observation(text=text, sources=[_source(page)], stats=stats, note=outcome.note, evidence=True)

    def lookup(keyword_text: str) -> Observation:
        keyword = collapse(keyword_text)
        if not keyword:
            return Observation.error("Lookup needs a keyword, e.g. Lookup[born].")
        if len(keyword) > MAX_KEYWORD_CHARS:
            return Observation.error(f"That keyword is {len(keyword):,} characters long; look up a word or phrase.")
        if state.page is None:
            return Observation.error(
                "There is no page to look up in yet: Lookup searches the last page found by Search, "
                "so Search[entity] first."
            )
        if keyword.casefold() != state.keyword.casefold() or state.matches is None:
            needle = keyword.casefold()
            state.keyword = keyword
            state.matches = [collapse(s) for s in state.page.sentences if needle in collapse(s).casefold()]
            state.cursor = 0
        if state.cursor >= len(state.matches):
            return Observation(text=NO_MORE_RESULTS, note=state.note)
        state.cursor += 1
        text = f"(Result {state.cursor} / {len(state.matches)}) {state.matches[state.cursor - 1]}"
        return Observation(text=text, sources=[_source(state.page)], note=state.note, evidence=True)

    return [
        Tool(name="search", function=search),
        Tool(name="lookup", function=lookup),
    ]


def _source(page: Page) -> Source:
    return Source(title=page.title, url=page.url, revision=page.revision)
