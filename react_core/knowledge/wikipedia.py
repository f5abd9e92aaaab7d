"""Live Wikipedia (knowledge source ``wikipedia``): the MediaWiki Action API with a strict request budget.

A Search hit is one request: ``titles=…&redirects`` with ``prop=extracts|info|pageprops`` brings the canonical
title, URL, latest revision id, disambiguation flag and the whole plain text at once (Lookup then needs none). A miss
takes a second request (``list=search`` for Similar, or the disambiguation page's links). Answers are kept in a
bounded LRU cache with a time limit, so a repeated Search costs nothing, across runs and browser sessions: one
source is shared per process per endpoint (``WikipediaSource.create``) and is thread-safe.

When the endpoint cannot be reached (connection refused, unknown host) and an offline pack is configured, the
answer comes from the pack with a note saying so; the endpoint is then remembered as unreachable for a minute, so
an offline machine does not wait on every Search. Other failures become ``SearchOutcome.error`` (an error
observation). The request limits (timeouts, deadline, answer size, redirects) are ``ApiClient``'s, passed through as
keyword options; only ``Cancelled`` (the person pressed Stop) is raised.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx2

from react_core.base.environment import environment_value
from react_core.base.errors import ConfigError
from react_core.knowledge import reach
from react_core.knowledge.api_client import ApiClient
from react_core.knowledge.base import SIMILAR_LIMIT, Page, SearchOutcome
from react_core.knowledge.cache import TTLCache
from react_core.knowledge.pack import PackSource
from react_core.knowledge.reach import endpoint_for
from react_core.knowledge.spec import PACK_STOOD_IN
from react_core.knowledge.text import article_sentences
from react_core.knowledge.titles import invalid_reason, normalize_title, page_url, search_text

DEFAULT_CONTACT = "https://github.com/react-lab/react-lab"
CLIENT_VERSION = "0.1"
CACHE_SIZE = 512  # Searches remembered per process and endpoint
CACHE_TTL = 3600.0  # seconds a remembered Search stays fresh

PAGE_PARAMS = {
    "prop": "extracts|info|pageprops",
    "redirects": "1",
    "explaintext": "1",
    "exsectionformat": "wiki",
    "exlimit": "1",
    "inprop": "url",
    "ppprop": "disambiguation",
}


def user_agent(contact: str | None = None) -> str:
    """Wikimedia's policy asks for a client name and a way to reach its operator."""
    contact = contact or environment_value("REACT_WIKI_CONTACT") or DEFAULT_CONTACT
    return f"ReActLab/{CLIENT_VERSION} (+{contact}) httpx2/{httpx2.__version__}"


class WikipediaSource:
    name = "wikipedia"
    _shared: dict[tuple[Any, ...], WikipediaSource] = {}
    _shared_lock = threading.Lock()

    @classmethod
    def create(
        cls,
        wiki_url: str | None = None,
        language: str | None = None,
        contact: str | None = None,
        fallback_pack: str | Path | None = "auto",
        timeout: float | None = None,
        **options: Any,
    ) -> WikipediaSource:
        """The process-wide source for this endpoint and configuration (created on first use)."""
        endpoint = endpoint_for(wiki_url, language)
        if timeout is not None:
            options.setdefault("read_timeout", timeout)
        key = (endpoint, user_agent(contact), str(fallback_pack), tuple(sorted(options.items())))
        with cls._shared_lock:
            source = cls._shared.get(key)
            if source is None:
                source = cls._shared[key] = cls(endpoint, contact=contact, fallback_pack=fallback_pack, **options)
            return source

    def __init__(
        self,
        endpoint: str,
        *,
        contact: str | None = None,
        fallback_pack: str | Path | None = "auto",
        cache_size: int = CACHE_SIZE,
        cache_ttl: float = CACHE_TTL,
        unreachable_seconds: float = reach.UNREACHABLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        **http: Any,
    ) -> None:
        """``http``: ApiClient's options (connect_timeout, read_timeout, request_timeout, deadline, max_body_bytes,
        retries, backoff, max_retry_after, max_redirects, transport, sleep); ``clock`` times the cache and the
        unreachable period."""
        self.endpoint = endpoint
        self.user_agent = user_agent(contact)
        self.api = ApiClient(endpoint, self.user_agent, **http)
        self.cache: TTLCache[SearchOutcome] = TTLCache(cache_size, cache_ttl, clock)
        self.fallback_pack = fallback_pack
        self.unreachable_seconds = unreachable_seconds
        self._clock = clock
        self._fallback: PackSource | None = None
        self._fallback_lock = threading.Lock()

    # -- the KnowledgeSource contract ---------------------------------------------------------------------

    def search(self, entity: str) -> SearchOutcome:
        title = normalize_title(entity)
        key = title if not invalid_reason(title) else "\x00" + search_text(entity)
        cached = self.cache.get(key)
        if cached is not None:
            return replace(cached, http_requests=0)
        known_down = reach.unreachable(self.endpoint, now=self._clock())
        if known_down is not None:
            return self._from_fallback(entity, 0, known_down)
        outcome, unreachable = self._search_live(title, entity)
        # One memory per endpoint for every source in the process, and for the page that says the pack stands in.
        reach.mark(self.endpoint, not unreachable, outcome.error, now=self._clock(), seconds=self.unreachable_seconds)
        if unreachable:
            return self._from_fallback(entity, outcome.http_requests, outcome.error)
        if outcome.error:
            outcome.error = f"Wikipedia ({self.endpoint}) failed: {outcome.error}. Try again, or search another title."
        else:
            self.cache.put(key, outcome)
        return outcome

    def close(self) -> None:
        """Nothing: the source is shared by every run in the process (``shutdown`` really closes it)."""

    def shutdown(self) -> None:
        self.api.close()
        if self._fallback is not None:
            self._fallback.close()

    # -- the requests -------------------------------------------------------------------------------------

    def _search_live(self, title: str, entity: str) -> tuple[SearchOutcome, bool]:
        if invalid_reason(title):  # not a title at all: only the full-text search can help (one request)
            return self._similar(search_text(entity), 0)
        result = self.api.query({**PAGE_PARAMS, "titles": title})
        if result.error:
            return SearchOutcome(None, http_requests=result.requests, error=result.error), result.unreachable
        try:
            page = result.data["query"]["pages"][0]  # type: ignore[index]
            if page.get("missing") or page.get("invalid"):
                return self._similar(title, result.requests)
            if "disambiguation" in (page.get("pageprops") or {}):
                return self._options(page["title"], title, result.requests)
            found = Page(
                title=page["title"],
                url=page.get("canonicalurl") or page.get("fullurl") or page_url(page["title"]),
                sentences=article_sentences(page.get("extract") or ""),
                revision=page.get("lastrevid"),
            )
        except (KeyError, IndexError, TypeError, AttributeError):
            return SearchOutcome(None, http_requests=result.requests, error="its answer had an unexpected shape"), False
        return SearchOutcome(found, http_requests=result.requests), False

    def _similar(self, text: str, spent: int) -> tuple[SearchOutcome, bool]:
        result = self.api.query(
            {"list": "search", "srsearch": text, "srlimit": str(SIMILAR_LIMIT), "srnamespace": "0", "srprop": ""}
        )
        requests = spent + result.requests
        if result.error:
            error = f"listing similar titles: {result.error}"
            return SearchOutcome(None, http_requests=requests, error=error), result.unreachable
        try:
            titles = _titles([hit["title"] for hit in result.data["query"]["search"]])  # type: ignore[index]
        except (KeyError, TypeError):
            titles = []
        return SearchOutcome(None, similar=titles[:SIMILAR_LIMIT], http_requests=requests), False

    def _options(self, page_title: str, asked: str, spent: int) -> tuple[SearchOutcome, bool]:
        """A disambiguation page is a miss; its links (the options) become Similar, the asked name's first."""
        result = self.api.query({"prop": "links", "titles": page_title, "plnamespace": "0", "pllimit": "max"})
        requests = spent + result.requests
        if result.error:
            error = f"listing the options of {page_title!r}: {result.error}"
            return SearchOutcome(None, http_requests=requests, error=error), result.unreachable
        try:
            links = _titles([link["title"] for link in result.data["query"]["pages"][0].get("links", [])])  # type: ignore[index]
        except (KeyError, IndexError, TypeError, AttributeError):
            links = []
        base = page_title.removesuffix(" (disambiguation)").casefold()
        ranked = sorted(links, key=lambda t: base not in t.casefold() and asked.casefold() not in t.casefold())
        return SearchOutcome(None, similar=ranked[:SIMILAR_LIMIT], http_requests=requests), False

    # -- offline fallback ---------------------------------------------------------------------------------

    def _fallback_source(self) -> PackSource | None:
        with self._fallback_lock:
            if self._fallback is None and self.fallback_pack not in (None, "", "none", "off"):
                path: Path | None
                if self.fallback_pack == "auto":
                    from react_core.knowledge.default_pack import ensure_default_pack

                    path = ensure_default_pack()
                else:
                    path = Path(str(self.fallback_pack))
                if path is not None:
                    try:
                        self._fallback = PackSource(path)
                    except ConfigError:
                        self._fallback = None
            return self._fallback

    def _from_fallback(self, entity: str, requests: int, reason: str) -> SearchOutcome:
        pack = self._fallback_source()
        if pack is None:
            return SearchOutcome(
                None,
                http_requests=requests,
                error=(
                    f"Wikipedia could not be reached at {self.endpoint} ({reason}) and no offline pack is available. "
                    "Check the network or --wiki-url, or use --knowledge pack:PATH."
                ),
            )
        outcome = pack.search(entity)
        outcome.http_requests = requests
        outcome.note = f"{PACK_STOOD_IN} ({pack.description})."
        return outcome


def _titles(values: list[Any]) -> list[str]:
    """The strings of a server's title list that can be titles at all (a hostile answer cannot flood Similar)."""
    return [v for v in values if isinstance(v, str) and not invalid_reason(normalize_title(v))]
