"""The knowledge setting as text, read and written in this one place: ``wikipedia`` or ``pack:PATH``.

Settings, traces, evaluation headers and the command line all carry it as that string; everything that needs its
parts (the pack's file, whether the offline pack stood in) asks here; ``setting.Knowledge`` says it to people (its
label, the licence line under a Wikipedia text).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from react_core.base.errors import ConfigError

__all__ = [
    "PACK_STOOD_IN",
    "WIKIPEDIA",
    "is_pack",
    "knowledge_answered",
    "pack_path",
    "pack_spec",
    "pack_text",
    "stood_in",
]

WIKIPEDIA = "wikipedia"
_PACK = "pack:"


def pack_spec(path: str | Path) -> str:
    """The setting for an offline pack file."""
    return f"{_PACK}{path}"


def is_pack(spec: str) -> bool:
    return (spec or "").strip().startswith(_PACK)


def pack_text(spec: str) -> str:
    """The path a ``pack:PATH`` setting names, as written ('' for ``wikipedia`` or a ``pack:`` without one)."""
    spec = (spec or "").strip()
    return spec[len(_PACK) :].strip() if spec.startswith(_PACK) else ""


def pack_path(spec: str) -> Path | None:
    """The pack file a ``pack:PATH`` setting names; None for ``wikipedia``. ConfigError for anything else, or for a
    ``pack:`` without a path."""
    spec = (spec or "").strip()
    if spec == WIKIPEDIA:
        return None
    if not spec.startswith(_PACK):
        raise ConfigError(f"Unknown knowledge source {spec!r}: use '{WIKIPEDIA}' or '{_PACK}PATH'.")
    path = pack_text(spec)
    if not path:
        raise ConfigError(f"Knowledge source '{_PACK}' needs a path, e.g. {_PACK}hotpotqa-pack.sqlite.")
    return Path(path)


# The start of the note on an observation the offline pack gave while Wikipedia could not be reached.
PACK_STOOD_IN = "Wikipedia could not be reached; answered from the offline pack"


def stood_in(note: str) -> bool:
    """Whether an observation with this note came from the offline pack standing in for Wikipedia."""
    return note.startswith(PACK_STOOD_IN)


def knowledge_answered(trace: Any) -> str:
    """The run's knowledge setting as what answered it: ``wikipedia``, or, when the offline pack stood in for some of
    its Searches, that too (an export that says ``knowledge wikipedia`` of text the pack gave misleads its reader)."""
    spec = str(trace.settings.get("knowledge") or "")
    stood = [s.index for s in trace.steps if s.observation is not None and stood_in(s.observation.note)]
    if not stood:
        return spec
    steps = ", ".join(map(str, stood))
    return f"{spec or WIKIPEDIA} (unreachable: the offline pack answered step{'s' * (len(stood) > 1)} {steps})"
