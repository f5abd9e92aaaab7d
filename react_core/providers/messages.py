"""A service's own words as a person reads them in a failure: on one line, without a secret, and not endless.

Services echo keys back (OpenAI's 401 quotes the key it was sent) and SDKs put whole bodies in their exceptions (the
Gemini SDK's "Raw response: …" carries what it could not read, up to the body's bound). So every message of a
service that reaches a person goes through ``said``: the secrets are taken out first and only then is it cut to
``MESSAGE_CHARS``, so a key near the cut is never half-shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from react_core.providers.keys import redact

MESSAGE_CHARS = 300


def one_line(text: Any) -> str:
    """``text`` on one line (whitespace runs become one space); whole: ``said`` cuts it."""
    return " ".join(str(text).split())


def said(text: Any, secrets: Iterable[str | None] = ()) -> str:
    """A service's message as a person reads it: without ``secrets``, on one line, at most ``MESSAGE_CHARS``."""
    return one_line(redact(str(text), secrets))[:MESSAGE_CHARS]
