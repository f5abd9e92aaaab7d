"""Writing offline packs: ``PackWriter`` (any pages) and ``build_pack`` (from HotpotQA distractor-format files).

A pack is one SQLite file: ``pages`` (title, canonical URL, the text the local server serves, the sentences Search
and Lookup use, revision, disambiguation flag and options), ``redirects``, ``questions`` (the questions it was built
from, with answers and supporting titles), a contentless FTS5 index over titles and text, and ``meta`` (format,
version, description, coverage, sources). Files are written beside the target and renamed into place, so a reader
never sees half a pack.

What goes in is cleaned on the way: lone surrogates (a JSON ``"\\ud800"``) become U+FFFD, and titles, questions and
answers are HTML-unescaped as MediaWiki decodes character references in titles (HotpotQA writes "X&amp;Y" for the
page "X&Y"); sentences are cleaned of HTML and entities by ``clean_text``.
"""

from __future__ import annotations

import html
import json
import os
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from react_core.base.errors import ConfigError
from react_core.base.text import scrub
from react_core.knowledge.base import SIMILAR_LIMIT
from react_core.knowledge.pack import PACK_FORMAT, PACK_VERSION, PackQuestion, fts_query
from react_core.knowledge.text import article_sentences, clean_text, collapse
from react_core.knowledge.titles import invalid_reason, normalize_title, page_url

HOTPOTQA_DESCRIPTION = "HotpotQA 2017 paragraphs"
HOTPOTQA_CORPUS = "Wikipedia opening paragraphs (2017)"
# "X may refer to:", "X can also stand for:": a disambiguation page's opening line.
_DISAMBIGUATION = re.compile(r"\b(?:may|might|can|could)\s+(?:also\s+)?(?:refer\s+to|stand\s+for|mean)\b.*:\s*$", re.I)
_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE pages(
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL UNIQUE,
    title_key TEXT NOT NULL,
    url TEXT NOT NULL,
    text TEXT NOT NULL,
    sentences TEXT NOT NULL,
    revision INTEGER,
    disambiguation INTEGER NOT NULL DEFAULT 0,
    links TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX pages_title_key ON pages(title_key);
CREATE TABLE redirects(source TEXT PRIMARY KEY, target TEXT NOT NULL);
CREATE TABLE questions(
    id INTEGER PRIMARY KEY,
    question TEXT NOT NULL UNIQUE,
    answer TEXT NOT NULL,
    supporting TEXT NOT NULL,
    type TEXT NOT NULL DEFAULT '',
    level TEXT NOT NULL DEFAULT ''
);
CREATE VIRTUAL TABLE pages_fts USING fts5(title, body, content='', tokenize='unicode61 remove_diacritics 2');
"""


@dataclass
class PackStats:
    path: Path
    articles: int = 0
    duplicates: int = 0
    skipped: int = 0
    disambiguation: int = 0
    questions: int = 0  # records read
    stored_questions: int = 0  # distinct questions kept (the shared files repeat two)
    files: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def size_bytes(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    def summary(self) -> str:
        return (
            f"Built {self.path}: {self.articles:,} articles ({self.disambiguation} disambiguation pages, "
            f"{self.duplicates:,} repeats merged, {self.skipped} skipped) from {self.questions:,} questions in "
            f"{len(self.files)} file(s); {self.size_bytes / 1e6:.1f} MB in {self.seconds:.2f} s."
        )


def clean_title(title: str) -> str:
    """A title as MediaWiki reads it: character references decoded, normalised (``X&amp;Y`` -> ``X&Y``)."""
    return normalize_title(html.unescape(scrub(title)))


def clean_line(text: str) -> str:
    """A question or answer: well-formed, unescaped, on one line."""
    return collapse(html.unescape(scrub(text)))


def clean_sentences(sentences: Sequence[str]) -> list[str]:
    """HotpotQA sentences, cleaned of leftover HTML, keeping whether each was separated from the previous one."""
    out: list[str] = []
    for raw in map(scrub, sentences):
        text = clean_text(raw)
        if text:
            out.append((" " if out and raw[:1].isspace() else "") + text)
    return out


def is_disambiguation(sentences: Sequence[str]) -> bool:
    return any(_DISAMBIGUATION.search(s.strip()) for s in sentences[:2])


class PackWriter:
    """Collects pages, then ``finish()`` indexes them and moves the file into place. Its ``redirects`` table stays
    empty (HotpotQA's paragraphs hold none); the reader and the local wiki server follow a pack's redirects as
    MediaWiki does, which is how the offline tests drive the live client's redirect handling
    (``tests/wiki_helpers.py`` writes two)."""

    def __init__(self, path: str | Path, *, description: str = "offline pack", corpus: str = "pages") -> None:
        """``description`` names the pack in notes ("answered from the offline pack (…)"); ``corpus`` says what its
        pages are, in ``coverage`` ("1,963 Wikipedia opening paragraphs (2017) behind 198 HotpotQA questions")."""
        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"Cannot create the folder for {self.path}: {e.strerror or e}.") from None
        self._tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self._tmp.unlink(missing_ok=True)
        self._db = sqlite3.connect(self._tmp)
        self._db.executescript(_SCHEMA)
        self.stats = PackStats(path=self.path)
        self._started = time.perf_counter()
        self._meta: dict[str, str] = {
            "format": PACK_FORMAT,
            "version": str(PACK_VERSION),
            "description": scrub(description),
        }
        self._corpus = scrub(corpus)

    def add_page(
        self,
        title: str,
        sentences: Sequence[str] | None = None,
        *,
        text: str | None = None,
        url: str | None = None,
        revision: int | None = None,
        disambiguation: bool | None = None,
        links: Sequence[str] = (),
    ) -> bool:
        """Add one article from its sentences (HotpotQA) or its plain text (headings and markup are cleaned for
        Search but served raw by the local server). False when the title is a repeat or cannot be a title."""
        title = clean_title(title)
        if invalid_reason(title):
            self.stats.skipped += 1
            return False
        text = None if text is None else scrub(text)
        if sentences is not None:
            sents = clean_sentences(sentences)
            text = "".join(sents) if text is None else text
        else:
            sents = article_sentences(text or "")
        if disambiguation is None:
            disambiguation = is_disambiguation(sents)
        try:
            cur = self._db.execute(
                "INSERT INTO pages(title, title_key, url, text, sentences, revision, disambiguation, links) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    title,
                    title.casefold(),
                    url or page_url(title),
                    text or "",
                    json.dumps(sents, ensure_ascii=False),
                    revision,
                    int(disambiguation),
                    json.dumps([clean_title(x) for x in links], ensure_ascii=False),
                ),
            )
        except sqlite3.IntegrityError:
            self.stats.duplicates += 1
            return False
        body = collapse("".join(sents))
        self._db.execute("INSERT INTO pages_fts(rowid, title, body) VALUES (?, ?, ?)", (cur.lastrowid, title, body))
        self.stats.articles += 1
        self.stats.disambiguation += int(disambiguation)
        return True

    def add_question(self, question: PackQuestion) -> bool:
        """Keep a question the pack can answer (cleaned like titles and text); False when it is a repeat."""
        question = PackQuestion(
            clean_line(question.question),
            clean_line(question.answer),
            tuple(dict.fromkeys(clean_title(t) for t in question.supporting_titles)),
            clean_line(question.type),
            clean_line(question.level),
        )
        if not question.question:
            return False
        cur = self._db.execute(
            "INSERT OR IGNORE INTO questions(question, answer, supporting, type, level) VALUES (?, ?, ?, ?, ?)",
            (
                question.question,
                question.answer,
                json.dumps(list(question.supporting_titles), ensure_ascii=False),
                question.type,
                question.level,
            ),
        )
        self.stats.stored_questions += cur.rowcount
        return cur.rowcount == 1

    def _coverage(self) -> str:
        line = f"{self.stats.articles:,} {self._corpus}"
        if self.stats.stored_questions:
            line += f" behind {self.stats.stored_questions:,} HotpotQA questions"
        return line

    def _fill_disambiguation_links(self) -> None:
        """Options for disambiguation pages that were given none: ``Base (…)`` titles, then full-text title hits."""
        rows = self._db.execute("SELECT id, title FROM pages WHERE disambiguation = 1 AND links = '[]'").fetchall()
        for page_id, title in rows:
            base = title.removesuffix(" (disambiguation)")
            key = base.casefold().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            options = [
                r[0]
                for r in self._db.execute(
                    "SELECT title FROM pages WHERE title_key LIKE ? ESCAPE '\\' AND id != ? ORDER BY title",
                    (key + " (%", page_id),
                )
            ]
            match = fts_query(base, column="title")
            if match and len(options) < SIMILAR_LIMIT:
                for (other,) in self._db.execute(
                    "SELECT p.title FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid WHERE pages_fts MATCH ? "
                    "AND p.id != ? ORDER BY bm25(pages_fts, 10.0, 1.0) LIMIT ?",
                    (match, page_id, SIMILAR_LIMIT * 2),
                ):
                    if other not in options:
                        options.append(other)
            self._db.execute("UPDATE pages SET links = ? WHERE id = ?", (json.dumps(options[:20]), page_id))

    def finish(self) -> PackStats:
        self._fill_disambiguation_links()
        self._meta.update(
            {
                "articles": str(self.stats.articles),
                "questions": str(self.stats.stored_questions),
                "coverage": self._coverage(),
                "built_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "sources": json.dumps(self.stats.files),
            }
        )
        self._db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", self._meta.items())
        self._db.execute("INSERT INTO pages_fts(pages_fts) VALUES ('optimize')")
        self._db.commit()
        self._db.close()
        os.replace(self._tmp, self.path)
        self.stats.seconds = time.perf_counter() - self._started
        return self.stats

    def abort(self) -> None:
        self._db.close()
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> PackWriter:
        return self

    def __exit__(self, exc_type: object, *_: object) -> None:
        if exc_type is None:
            self.finish()
        else:
            self.abort()


def _context_pairs(context: Any) -> Iterator[tuple[str, list[str]]]:
    """Both layouts: HF ``{"title": [...], "sentences": [[...]]}`` and official ``[[title, [sentences]], ...]``."""
    if isinstance(context, dict):
        yield from zip(context["title"], context["sentences"], strict=True)
    else:
        for pair in context:  # a malformed pair raises ValueError/TypeError here, reported by read_hotpotqa
            title, sentences = pair
            yield title, sentences


def _supporting_titles(facts: Any) -> list[str]:
    """Both layouts: HF ``{"title": [...], "sent_id": [...]}`` and official ``[[title, sent_id], ...]``."""
    if isinstance(facts, dict):
        return [str(t) for t in facts.get("title", [])]
    return [str(fact[0]) for fact in facts or []]


def _question(record: dict[str, Any]) -> PackQuestion | None:
    if not isinstance(record.get("question"), str):
        return None  # a file of paragraphs only: nothing to ask
    return PackQuestion(
        question=record["question"],
        answer=str(record.get("answer", "")),
        supporting_titles=tuple(_supporting_titles(record.get("supporting_facts"))),
        type=str(record.get("type", "")),
        level=str(record.get("level", "")),
    )


@dataclass
class HotpotFile:
    records: int
    questions: list[PackQuestion]
    articles: list[tuple[str, list[str]]]


def read_records(path: str | Path) -> list[Any]:
    """A file's records: a JSON array, or JSON Lines."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"Cannot read {path}: {e.strerror or e}.") from None
    try:
        return json.loads(raw) if raw.lstrip().startswith("[") else [json.loads(x) for x in raw.splitlines() if x]
    except ValueError as e:
        raise ConfigError(f"{path} is not JSON or JSON Lines: {e}.") from None


def read_hotpotqa(path: str | Path) -> HotpotFile:
    """The records of a distractor-format file (a JSON array, or JSON Lines): questions and (title, sentences)."""
    data = read_records(path)
    articles: list[tuple[str, list[str]]] = []
    questions: list[PackQuestion] = []
    try:
        for record in data:
            articles.extend((str(t), [str(s) for s in sents]) for t, sents in _context_pairs(record["context"]))
            question = _question(record)
            if question is not None:
                questions.append(question)
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise ConfigError(
            f"{path} is not in HotpotQA distractor format (each record needs a 'context' of titles and sentences): "
            f"{type(e).__name__}: {e}."
        ) from None
    return HotpotFile(len(data), questions, articles)


def build_pack(files: Iterable[str | Path], out: str | Path, *, description: str = HOTPOTQA_DESCRIPTION) -> PackStats:
    """Build a pack from HotpotQA distractor-format files; the first occurrence of a title (or question) wins."""
    files = [Path(f) for f in files]
    if not files:
        raise ConfigError("pack build needs at least one HotpotQA file (--hotpotqa FILE …).")
    loaded = [(f, read_hotpotqa(f)) for f in files]  # read everything first: a bad file leaves no pack behind
    writer = PackWriter(out, description=description, corpus=HOTPOTQA_CORPUS)
    try:
        for f, content in loaded:
            writer.stats.files.append(f.name)
            writer.stats.questions += content.records
            for title, sentences in content.articles:
                writer.add_page(title, sentences)
            for question in content.questions:
                writer.add_question(question)
        return writer.finish()
    except BaseException:
        writer.abort()
        raise
