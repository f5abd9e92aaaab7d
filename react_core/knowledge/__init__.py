"""Knowledge sources behind Search and Lookup: live Wikipedia (``wikipedia``) or an offline pack (``pack:PATH``)."""

from __future__ import annotations

from typing import Any

from react_core.errors import ConfigError
from react_core.knowledge.base import KnowledgeSource, Page, SearchOutcome


def create_knowledge(spec: str, **options: Any) -> KnowledgeSource:
    """``wikipedia`` or ``pack:PATH``. Options: wiki_url, language, contact, fallback_pack, timeout."""
    if spec == "wikipedia":
        from react_core.knowledge.wikipedia import WikipediaSource

        return WikipediaSource.create(**options)
    if spec.startswith("pack:"):
        from react_core.knowledge.pack import PackSource

        return PackSource(spec[len("pack:") :])
    raise ConfigError(f"Unknown knowledge source {spec!r}: use 'wikipedia' or 'pack:PATH'.")


__all__ = ["KnowledgeSource", "Page", "SearchOutcome", "create_knowledge"]
