"""Wikipedia page titles: MediaWiki's normalisation, which strings can be titles at all, and canonical URLs.

Shared by the pack, the live client and the local server so that all three agree on what "the exact title" means:
underscores are spaces, runs of whitespace collapse, the first letter is upper-case (English Wikipedia's
``$wgCapitalLinks``), and a string holding ``# < > [ ] | { }``, a control character or more than 255 bytes is not
a title.
"""

from __future__ import annotations

import re
from urllib.parse import quote

MAX_TITLE_BYTES = 255
WIKI_BASE = "https://en.wikipedia.org/wiki/"
_ILLEGAL = re.compile(r"[#<>\[\]|{}\x00-\x1f\x7f\ufffd]|%[0-9A-Fa-f]{2}")
_SPACES = re.compile(r"[\s_]+")
# wfUrlencode leaves these readable in URLs (MediaWiki's GlobalFunctions.php); everything else is percent-encoded.
_URL_SAFE = ";@$!*(),/~:"


def normalize_title(text: str) -> str:
    """What MediaWiki does to a title before looking it up: ``"scott_derrickson "`` -> ``"Scott derrickson"``."""
    title = _SPACES.sub(" ", text).strip()
    return title[:1].upper() + title[1:]


def invalid_reason(title: str) -> str:
    """Why a normalised string cannot be a page title, or "" when it can."""
    if not title:
        return "the title is empty"
    if len(title.encode("utf-8")) > MAX_TITLE_BYTES:
        return f"the title is longer than {MAX_TITLE_BYTES} bytes"
    bad = _ILLEGAL.search(title)
    if bad:
        return f"the title contains {bad.group(0)!r}, which titles cannot hold"
    return ""


def search_text(text: str) -> str:
    """The text to hand a full-text search when a string is not a valid title: illegal characters become spaces."""
    return _SPACES.sub(" ", _ILLEGAL.sub(" ", text)).strip()


def encode_title(title: str) -> str:
    """A title as it appears in a Wikipedia URL path: ``Arthur's Magazine`` -> ``Arthur%27s_Magazine``."""
    return quote(title.replace(" ", "_"), safe=_URL_SAFE)


def page_url(title: str, base: str = WIKI_BASE) -> str:
    """The canonical article URL: ``https://en.wikipedia.org/wiki/`` and the encoded title."""
    return base + encode_title(title)
