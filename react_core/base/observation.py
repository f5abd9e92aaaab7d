"""What a step's action got back: an Observation, its Sources and what fetching it cost. Part of a run as data
(``trace.py``, which names them too)."""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from react_core.base.calls import McpCall
from react_core.base.text import safe_url

__all__ = ["Observation", "ObservationStats", "Source"]


@dataclass
class Source:
    # The data credit under a run's list of sources, wherever it is shown (the page, the Markdown and HTML exports).
    CREDIT: ClassVar[str] = (
        "Observation text comes from Wikipedia (CC BY-SA 4.0); offline packs hold the opening paragraphs from the "
        "HotpotQA corpus (Yang et al. 2018, CC BY-SA 4.0)."
    )

    title: str
    url: str
    revision: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Source:
        return cls(title=d["title"], url=d["url"], revision=d.get("revision"))

    @property
    def href(self) -> str:
        """The address to link to: its URL when http(s), made safe inside a Markdown or HTML link; else ''."""
        return safe_url(self.url)


@dataclass
class ObservationStats:
    http_requests: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ObservationStats:
        return cls(http_requests=d.get("http_requests", 0), seconds=d.get("seconds", 0.0))


@dataclass
class Observation:
    FORK_NOTE: ClassVar[str] = "Edited by hand in a fork."  # the note on an Observation rewritten on the fork form

    text: str
    is_error: bool = False
    sources: list[Source] = field(default_factory=list)
    stats: ObservationStats = field(default_factory=ObservationStats)
    # Where the text came from when it is not the configured source (e.g. the offline pack standing in
    # for unreachable Wikipedia). Empty when nothing needs saying.
    note: str = ""
    # The text is evidence a tool returned (a page's sentences, a Lookup result, a Calculator result), not a miss,
    # a "no more results" or an error: only evidence can ground an answer.
    evidence: bool = False
    # Who wrote the text when no tool did (step mode's "write the observation"): '' for a tool's observation.
    written_by: str = ""
    # The MCP request and result behind the text, for an MCP tool's observation (None for every other tool).
    mcp: McpCall | None = None

    @staticmethod
    def miss_text(entity: str, similar: list[str]) -> str:
        """Search's answer when no page has the title, in the paper's words (read back by ``similar_titles``)."""
        return f"Could not find [{entity}]. Similar: {similar!r}."

    @property
    def similar_titles(self) -> list[str]:
        """The titles a Search miss offered (``Could not find [X]. Similar: [...]``), for the app to make clickable
        and fine-tuning to follow; [] for any other text."""
        text = self.text
        if not text.startswith("Could not find ["):
            return []
        start = text.rfind(". Similar: [")
        end = text.rfind("]")
        if start < 0 or end < start:
            return []
        try:
            titles = ast.literal_eval(text[start + len(". Similar: ") : end + 1])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return []
        return [t for t in titles if isinstance(t, str)] if isinstance(titles, list) else []

    def to_dict(self) -> dict[str, Any]:
        out = {
            "text": self.text,
            "is_error": self.is_error,
            "sources": [s.to_dict() for s in self.sources],
            "stats": self.stats.to_dict(),
            "note": self.note,
            "evidence": self.evidence,
            "written_by": self.written_by,
        }
        if self.mcp is not None:  # written only when there is one, so other traces read as they always did
            out["mcp"] = self.mcp.to_dict()
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Observation:
        return cls(
            text=d["text"],
            is_error=d.get("is_error", False),
            sources=[Source.from_dict(s) for s in d.get("sources", [])],
            stats=ObservationStats.from_dict(d.get("stats", {})),
            note=d.get("note", ""),
            # Traces written before the field existed: a page found by Search or Lookup is the evidence they hold.
            evidence=d.get("evidence", bool(d.get("sources")) and not d.get("is_error", False)),
            written_by=d.get("written_by", ""),
            mcp=McpCall.from_dict(d["mcp"]) if d.get("mcp") else None,
        )

    @classmethod
    def error(cls, text: str) -> Observation:
        return cls(text=text, is_error=True)

    @property
    def edited_in_fork(self) -> bool:
        return self.note == self.FORK_NOTE
