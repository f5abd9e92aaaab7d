"""The offline pack (knowledge source ``pack:PATH``): Wikipedia paragraphs in one SQLite file with an FTS5 index.

Reading only; ``pack_build`` writes packs. Search follows the paper's environment: the exact title (MediaWiki's
normalisation, redirects followed) returns the page; anything else, or a disambiguation page, is a miss whose
Similar list comes from case-insensitive and ``Title (…)`` matches, full-text title matches, fuzzy title matches and
full-text body matches, in that order. The local MediaWiki server answers from the same methods, so the pack and the
live client pointed at it agree. Safe to share between threads (one connection behind a lock).

A pack also says what it can answer: ``coverage`` (one line, e.g. "1,963 Wikipedia opening paragraphs (2017) behind
198 HotpotQA questions") and ``sample_questions(n, seed)``, the questions it was built from with their answers and
supporting titles (``question_for(text)`` finds one by its exact text). Packs carry a format version
(``PACK_VERSION``); one written by an older ReAct Lab is refused with the command that rebuilds it. Text read from a
pack is well-formed: invalid UTF-8 and lone surrogates become U+FFFD.
"""

from __future__ import annotations

import difflib
import json
import random
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from react_core.base.errors import ConfigError
from react_core.base.text import scrub_value
from react_core.knowledge.base import SIMILAR_LIMIT, Page, SearchOutcome
from react_core.knowledge.titles import invalid_reason, normalize_title, search_text

PACK_FORMAT = "react-lab-pack"
# 2: titles and text HTML-unescaped ("X&amp;Y" was a title in 1), and the questions the pack was built from.
PACK_VERSION = 2
HOTPOTQA_GLOB = "../shared/data/hotpotqa/dev_distractor_*.json"
MAX_REDIRECT_HOPS = 3
FUZZY_MAX_TITLES = 50_000  # difflib over more titles than this is too slow for an interactive Search
_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class PackEntry:
    id: int
    title: str
    url: str
    text: str
    sentences: tuple[str, ...]
    revision: int | None
    disambiguation: bool
    links: tuple[str, ...]


@dataclass(frozen=True)
class PackQuestion:
    """A question the pack was built from, with its answer and the titles of the pages that support it."""

    question: str
    answer: str
    supporting_titles: tuple[str, ...]
    type: str = ""  # HotpotQA's "bridge" or "comparison"
    level: str = ""  # HotpotQA's "easy", "medium" or "hard"

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "supporting_titles": list(self.supporting_titles),
            "type": self.type,
            "level": self.level,
        }


def rebuild_command(path: str | Path) -> str:
    return f"python -m react_core pack build --hotpotqa {HOTPOTQA_GLOB} --out {path}"


def _decode(value: bytes) -> str:
    """SQLite text as Python text; bytes that are not UTF-8 (a pack written by another tool) become U+FFFD."""
    return value.decode("utf-8", "replace")


def fts_query(text: str, *, column: str | None = None, any_token: bool = False, max_tokens: int = 16) -> str:
    """An FTS5 query built from the words of ``text`` (each quoted, so no user text is ever FTS syntax)."""
    tokens = list(dict.fromkeys(t.lower() for t in _TOKEN.findall(text)))[:max_tokens]
    if not tokens:
        return ""
    body = (" OR " if any_token else " AND ").join(f'"{t}"' for t in tokens)
    return f"{column} : ({body})" if column else f"({body})"


class PackSource:
    """Search over a pack file. ``PackSource(path)`` raises ConfigError (with the build command) when unusable."""

    name = "pack"

    def __init__(self, path: str | Path, *, shared: bool = False) -> None:
        # A shared pack serves every run in the process: a run's close() leaves it open (shutdown() closes it).
        self.shared = shared
        self.path = Path(path).expanduser()
        if not self.path.is_file():
            raise ConfigError(f"Offline pack not found at {self.path}. Build it with: {rebuild_command(self.path)}")
        try:
            self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
            self._db.text_factory = _decode
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
            self.articles = self._db.execute("SELECT count(*) FROM pages").fetchone()[0]
        except sqlite3.Error as e:
            raise ConfigError(
                f"{self.path} is not a ReAct Lab pack ({e}). Build one with: {rebuild_command(self.path)}"
            ) from None
        self._check_version(meta)
        try:
            self.question_count = self._db.execute("SELECT count(*) FROM questions").fetchone()[0]
        except sqlite3.Error as e:
            raise ConfigError(f"{self.path} is damaged ({e}). Rebuild it with: {rebuild_command(self.path)}") from None
        self.meta = meta
        self.description = meta.get("description", "offline pack")
        # One plain line on what the pack can answer, for people (the Chat page's examples say it).
        self.coverage = meta.get("coverage") or f"{self.articles:,} pages ({self.description})"
        self._lock = threading.Lock()
        self._titles: list[str] | None = None
        self._title_keys: dict[str, str] | None = None

    def _check_version(self, meta: dict[str, str]) -> None:
        if meta.get("format") != PACK_FORMAT:
            raise ConfigError(
                f"{self.path} is not a ReAct Lab pack (format {meta.get('format')!r}). "
                f"Build one with: {rebuild_command(self.path)}"
            )
        version = meta.get("version", "")
        number = int(version) if version.isdigit() else 0
        if number < PACK_VERSION:
            raise ConfigError(
                f"{self.path} was built by an older ReAct Lab (pack format {version or '?'}; this one reads format "
                f"{PACK_VERSION}, which fixes titles such as 'X&amp;Y' and lists the pack's questions). "
                f"Rebuild it with: {rebuild_command(self.path)}"
            )
        if number > PACK_VERSION:
            raise ConfigError(
                f"{self.path} was built by a newer ReAct Lab (pack format {version}; this one reads format "
                f"{PACK_VERSION}). Update ReAct Lab, or rebuild the pack with: {rebuild_command(self.path)}"
            )

    # -- what the pack can answer ------------------------------------------------------------------------------

    def sample_questions(self, n: int = 3, seed: int | None = None) -> list[PackQuestion]:
        """Up to ``n`` different questions the pack was built from, drawn at random (the same ones for the same
        ``seed``; ``None``: different each time). Their supporting titles are all pages of this pack."""
        with self._lock:
            ids = [r[0] for r in self._db.execute("SELECT id FROM questions ORDER BY id")]
        chosen = random.Random(seed).sample(ids, min(max(0, n), len(ids)))
        return [q for q in (self._question(i) for i in chosen) if q is not None]

    def question_for(self, text: str) -> PackQuestion | None:
        """The pack's question whose text is exactly ``text`` (surrounding blanks aside), or None."""
        with self._lock:
            row = self._db.execute("SELECT id FROM questions WHERE question = ? LIMIT 1", (text.strip(),)).fetchone()
        return self._question(row[0]) if row else None

    def _question(self, question_id: int) -> PackQuestion | None:
        sql = "SELECT question, answer, supporting, type, level FROM questions WHERE id = ?"
        with self._lock:
            row = self._db.execute(sql, (question_id,)).fetchone()
        if row is None:
            return None
        titles = scrub_value(json.loads(row[2]))
        return PackQuestion(row[0], row[1], tuple(t for t in titles if isinstance(t, str)), row[3], row[4])

    # -- the KnowledgeSource contract ---------------------------------------------------------------------

    def search(self, entity: str) -> SearchOutcome:
        title = normalize_title(entity)
        if invalid_reason(title):
            return SearchOutcome(page=None, similar=self.similar(entity))
        entry = self.find(title)
        if entry is None:
            return SearchOutcome(page=None, similar=self.similar(title))
        if entry.disambiguation:
            return SearchOutcome(page=None, similar=list(entry.links[:SIMILAR_LIMIT]))
        return SearchOutcome(page=Page(entry.title, entry.url, list(entry.sentences), entry.revision))

    def close(self) -> None:
        if not self.shared:
            self.shutdown()

    def shutdown(self) -> None:
        with self._lock:
            self._db.close()

    # -- lookups the local server shares --------------------------------------------------------------------

    def _entry(self, where: str, arg: object) -> PackEntry | None:
        sql = f"SELECT id, title, url, text, sentences, revision, disambiguation, links FROM pages WHERE {where}"
        with self._lock:
            row = self._db.execute(sql, (arg,)).fetchone()
        if row is None:
            return None
        return PackEntry(
            id=row[0],
            title=row[1],
            url=row[2],
            text=row[3],
            sentences=tuple(scrub_value(json.loads(row[4]))),
            revision=row[5],
            disambiguation=bool(row[6]),
            links=tuple(scrub_value(json.loads(row[7]))),
        )

    def entry(self, title: str) -> PackEntry | None:
        """The page with exactly this (normalised) title, without following redirects."""
        return self._entry("title = ?", title)

    def entry_by_id(self, page_id: int) -> PackEntry | None:
        return self._entry("id = ?", page_id)

    def redirect_target(self, title: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT target FROM redirects WHERE source = ?", (title,)).fetchone()
        return row[0] if row else None

    def find(self, title: str) -> PackEntry | None:
        """The page for a normalised title, following redirects as Wikipedia does."""
        for _ in range(MAX_REDIRECT_HOPS + 1):
            entry = self.entry(title)
            if entry is not None:
                return entry
            target = self.redirect_target(title)
            if target is None:
                return None
            title = target
        return None

    def similar(self, text: str, limit: int = SIMILAR_LIMIT) -> list[str]:
        """Titles for a miss: exact but for case, ``Text (…)``, full-text on titles, fuzzy titles, full-text on text."""
        query = search_text(text)
        if not query or limit <= 0:
            return []
        key = query.casefold()
        found: dict[str, None] = {}

        def add(titles: list[str]) -> bool:
            for t in titles:
                found.setdefault(t, None)
            return len(found) >= limit

        escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        steps = (
            lambda: self._titles_where("title_key = ?", key, limit),
            lambda: self._titles_where("title_key LIKE ? ESCAPE '\\'", escaped + " (%", limit),
            lambda: self._fts(fts_query(query, column="title"), limit),
            lambda: self._fuzzy(query, limit),
            lambda: self._fts(fts_query(query, any_token=True), limit + len(found)),
        )
        for step in steps:
            if add(step()):
                break
        return list(found)[:limit]

    def titles(self) -> list[str]:
        if self._titles is None:
            with self._lock:
                self._titles = [r[0] for r in self._db.execute("SELECT title FROM pages ORDER BY id")]
        return self._titles

    def _titles_where(self, where: str, arg: str, limit: int) -> list[str]:
        sql = f"SELECT title FROM pages WHERE {where} ORDER BY length(title), title LIMIT ?"
        with self._lock:
            return [r[0] for r in self._db.execute(sql, (arg, limit))]

    def _fts(self, match: str, limit: int) -> list[str]:
        if not match:
            return []
        sql = (
            "SELECT p.title FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid "
            "WHERE pages_fts MATCH ? ORDER BY bm25(pages_fts, 10.0, 1.0) LIMIT ?"
        )
        with self._lock:
            try:
                return [r[0] for r in self._db.execute(sql, (match, limit))]
            except sqlite3.OperationalError:  # a query FTS5 cannot run is no reason to fail a Search
                return []

    def _fuzzy(self, query: str, limit: int) -> list[str]:
        if self._title_keys is None:
            titles = self.titles()
            self._title_keys = {t.casefold(): t for t in titles} if len(titles) <= FUZZY_MAX_TITLES else {}
        keys = self._title_keys
        return [keys[k] for k in difflib.get_close_matches(query.casefold(), list(keys), n=limit, cutoff=0.75)]
