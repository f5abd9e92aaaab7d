"""Text that crosses a boundary (a model's reply, a Wikipedia answer, an imported file) made safe to keep and show.

A lone UTF-16 surrogate, which a JSON ``"\\ud800"`` escape decodes to, is a valid Python string but cannot be encoded as
UTF-8: printing it, storing it or sending it to a browser raises. ``scrub`` replaces each with U+FFFD at the boundaries
where text enters, so everything downstream can rely on well-formed text. ``visible_controls`` shows terminal control
characters (an ANSI escape from a model) as text instead of letting a terminal obey them. ``md_escape``,
``md_text``, ``fenced``, ``safe_url`` and ``md_link`` make such text literal Markdown: for Streamlit, which draws many
labels as Markdown, and for the exported Markdown file.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "REPLACEMENT",
    "fenced",
    "md_escape",
    "md_link",
    "md_text",
    "plural",
    "safe_url",
    "scrub",
    "scrub_value",
    "visible_controls",
]

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 controls except tab and newline, DEL, and the C1 controls (ESC-less CSI etc.).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def scrub(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (unchanged, and cheap, when there is none)."""
    return _SURROGATE.sub(REPLACEMENT, text)


def scrub_value(value: Any) -> Any:
    """A JSON-like value with ``scrub`` applied to every string in it, keys included."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [scrub_value(v) for v in value]
    if isinstance(value, dict):
        return {scrub_value(k) if isinstance(k, str) else k: scrub_value(v) for k, v in value.items()}
    return value


def visible_controls(text: str) -> str:
    """Control characters written out (``\\x1b``), so a terminal shows them instead of obeying them."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", scrub(text))


# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping them all is the safe choice for
# Streamlit, whose Markdown adds its own syntax (colour codes, icons, math) to CommonMark's.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~:$&])")
# What a one-line text inside a line of an exported file (after "- **Answer:** ", in a heading, a link's text) needs
# escaped for CommonMark and GitHub's extensions to read it literally: a backslash that would escape what follows it,
# code, emphasis and strikethrough marks, link brackets, HTML and autolinks (< and >, so no tag survives even a lax
# reader), math ($), an entity reference, an underscore that is not inside a word (one inside a word never
# emphasises), and the #s that would close a heading. Block syntax (#, >, -, 1.) only counts at the start of a line,
# where run text never stands.
_MD_INLINE = re.compile(
    r"\\(?=[!-/:-@\[-`{-~]|$)|[`*\[\]<>~$]|&(?=#?[0-9A-Za-z]+;)|(?<![^\W_])_|_(?![^\W_])|(?:^|(?<=\s))#+$"
)


def md_escape(text: str) -> str:
    """Text as literal Markdown for Streamlit: every special backslash-escaped, newlines flattened to spaces."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def md_text(text: str) -> str:
    """Text as literal CommonMark inline content, newlines flattened to spaces: only what would be read as Markdown
    or HTML in that position is escaped, so an exported file reads cleanly as plain text too."""
    return _MD_INLINE.sub(lambda m: "".join("\\" + c for c in m.group()), " ".join(str(text).split()))


def fenced(text: str) -> str:
    """A fenced block that no backtick run inside ``text`` can close early."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def safe_url(url: str) -> str:
    """An http(s) URL with the characters that would end a Markdown link percent-encoded; anything else empty."""
    if not re.match(r"^https?://", url or "", re.IGNORECASE):
        return ""
    url = scrub(url)  # a lone surrogate cannot be percent-encoded (it has no UTF-8 form)
    return "".join(c if c.isascii() and c.isprintable() and c not in " ()<>[]\"'`\\" else _pct(c) for c in url)


def _pct(c: str) -> str:
    return "".join(f"%{b:02X}" for b in c.encode("utf-8"))


def md_link(title: str, url: str) -> str:
    href = safe_url(url)
    return f"[{md_text(title)}]({href})" if href else md_text(title)


def plural(n: int, word: str) -> str:
    """``n`` and ``word``, made plural unless n is 1: ``1 step``, ``1,234 tokens``."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")
