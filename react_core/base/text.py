"""Text that crosses a boundary (a model's reply, a Wikipedia answer, an imported file) made safe to keep and show.

A lone UTF-16 surrogate, which a JSON ``"\\ud800"`` escape decodes to, is a valid Python string but cannot be encoded as
UTF-8: printing it, storing it or sending it to a browser raises. ``scrub`` replaces each with U+FFFD at the boundaries
where text enters, so everything downstream can rely on well-formed text. ``visible_controls`` shows terminal control
characters (an ANSI escape from a model) as text instead of letting a terminal obey them.
"""

from __future__ import annotations

import re
from typing import Any

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
