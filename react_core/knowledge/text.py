"""Plain text for observations: strip HTML, entities, wiki markup and reference markers; split into sentences.

``article_sentences`` turns a MediaWiki plain-text extract (headings as ``== History ==``) into the sentence list a
``Page`` holds: headings go, trailing sections such as References and External links go, every paragraph is
cleaned and split. The splitter is rule-based and knows abbreviations (``Dr.``, ``U.S.``, ``e.g.``), initials
(``J. R. R. Tolkien``) and decimals (``3.14``).
"""

from __future__ import annotations

import html
import re

# Sections at the end of an article that hold no prose worth looking up.
DROPPED_SECTIONS = {
    "references",
    "external links",
    "see also",
    "notes",
    "notes and references",
    "further reading",
    "bibliography",
    "sources",
    "citations",
    "footnotes",
}
_HEADING = re.compile(r"^\s*(=+)\s*(.*?)\s*\1\s*$")
# Reference elements and markers take the space before them along: "Girls" <ref>…</ref>, -> "Girls",
_REF_ELEMENT = re.compile(r"\s*(?:<ref\b[^>]*/>|<ref\b[^>]*>.*?</ref\s*>)", re.IGNORECASE | re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_DROPPED_ELEMENTS = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
# Tags that separate words when rendered; all others (b, i, a, span, nowiki…) join their neighbours.
_BLOCK_TAG = re.compile(r"</?(?:br|p|div|li|ul|ol|dl|dd|dt|tr|td|th|table|h[1-6]|hr|blockquote)\b[^<>]*>", re.I)
# Reference and note markers as Wikipedia renders them: [3], [12], [a], [note 1], [citation needed]. Four-digit
# brackets stay: "[1992]" is how law reports cite a year.
_MARKER = re.compile(
    r"\s*\[(?:\d{1,3}|[a-z]|note \d+|nb \d+|citation needed|clarification needed|when\?|who\?|according to whom\?)\]",
    re.IGNORECASE,
)
_WIKI_LINK = re.compile(r"\[\[(?:[^\[\]|]*\|)?([^\[\]]*)\]\]")
_BOLD_ITALIC = re.compile(r"'{2,}")
_INLINE_SPACE = re.compile(r"[ \t\u00a0\u2009\u200b]+")

_ABBREVIATIONS = {
    *"mr mrs ms dr prof sr jr st mt ft no nos vs etc inc ltd co corp bros gen col lt sgt capt cmdr adm gov sen".split(),
    *"rep rev hon pres jan feb mar apr jun jul aug sep sept oct nov dec approx ca fig figs vol vols ed eds".split(),
    *"pp op al est dept univ assn ave blvd rd cf viz lit var ch sec e.g i.e a.k.a u.s u.k u.n d.c".split(),
}
_END = re.compile(r"([.!?\u3002\uff01\uff1f]+[\"'\u201d\u2019\u00bb)\]]*)(\s*)")


def _strip_markup(text: str) -> str:
    for pattern in (_COMMENT, _REF_ELEMENT, _DROPPED_ELEMENTS):
        text = pattern.sub("", text)
    return _TAG.sub("", _BLOCK_TAG.sub(" ", text))


def clean_text(text: str) -> str:
    """One paragraph of plain text: no HTML, no entities, no wiki links or bold quotes, no ``[3]`` markers."""
    text = html.unescape(_strip_markup(text))
    text = _strip_markup(text)  # entities may have hidden markup (&lt;b&gt;)
    text = _WIKI_LINK.sub(r"\1", text)
    text = _BOLD_ITALIC.sub("", text)
    text = _MARKER.sub("", text)
    return _INLINE_SPACE.sub(" ", text).strip()


def collapse(text: str) -> str:
    """All whitespace runs (newlines included) to single spaces: observations are one line of prose."""
    return " ".join(text.split())


def _is_boundary(text: str, dot_start: int, dot_end: int, nxt: str) -> bool:
    """Does the punctuation at text[dot_start:dot_end] end a sentence, given the next sentence's first character?"""
    if not nxt or nxt.islower():
        return False
    punct = text[dot_start:dot_end].rstrip("\"'\u201d\u2019\u00bb)]")
    if punct != ".":
        return True  # "!", "?", "...", full-width stops
    before = text[max(0, dot_start - 40) : dot_start].split()
    word = before[-1] if before else ""
    word = word.lstrip("(\"'\u201c\u2018[")
    if not word:
        return True
    if word.lower() in _ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isalpha() and word.isupper():
        return False  # an initial: "J. R. R. Tolkien"
    # "U.S", "Ph.D", "a.m": letters joined by dots.
    return not re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", word)


def split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph, stripped: 'Dr. Smith lived in the U.S. for 3.5 years. He left.' -> 2."""
    sentences: list[str] = []
    start = 0
    for m in _END.finditer(text):
        end, after = m.end(1), m.end()
        if end == after and m.group(1)[0] not in "\u3002\uff01\uff1f":
            continue  # "3.14", "example.com": no space after the dot, no boundary (full-width stops need none)
        if _is_boundary(text, m.start(), end, text[after : after + 1]):
            piece = text[start:end].strip()
            if piece:
                sentences.append(piece)
            start = after
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def article_sentences(extract: str) -> list[str]:
    """A MediaWiki plain-text extract (``exsectionformat=wiki``) as a Page's sentences (leading space kept)."""
    out: list[str] = []
    dropped_level = 0  # >0 while inside a dropped section of that heading level
    for line in extract.splitlines():
        heading = _HEADING.match(line)
        if heading:
            level, name = len(heading.group(1)), heading.group(2).strip().lower()
            if dropped_level and level > dropped_level:
                continue
            dropped_level = level if name in DROPPED_SECTIONS else 0
            continue
        if dropped_level:
            continue
        for sentence in split_sentences(clean_text(line)):
            out.append(sentence if not out else " " + sentence)
    return out
