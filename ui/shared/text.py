"""Showing untrusted text through Streamlit's Markdown literally (labels, captions and buttons insist on Markdown), and
the time left as every job's progress bar says it."""

from __future__ import annotations

import re

from react_core import md_escape


def md_literal(text: str) -> str:
    """Text that Streamlit's Markdown shows literally. Escaping handles emphasis, links, HTML and colour codes;
    autolinks (URLs, www., e-mail) and icon codes ignore escapes, so a zero-width space breaks them up."""
    out = md_escape(text)
    out = re.sub(r"(?i)(https?\\:)(//)", "\\1\u200b\\2", out)
    out = re.sub(r"(?i)\bwww\\\.", "www\u200b\\.", out)
    out = out.replace("@", "@\u200b")
    return re.sub(r"(\\:)(?=[A-Za-z_]+/)", "\\1\u200b", out)


def time_left(seconds: float | None) -> str:
    """`` · about 4 min left`` (a progress bar's tail; '' while there is no estimate). Every job's bar says it so."""
    if seconds is None or seconds <= 0:
        return ""
    if seconds < 60:
        return " · under a minute left"
    minutes = round(seconds / 60)
    return f" · about {minutes} min left" if minutes < 90 else f" · about {seconds / 3600:.1f} h left"
