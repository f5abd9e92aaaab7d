"""Where an imported run came from when another tool made it (``Provenance``), so that its page says so and never
takes this app's settings for the run's own. ReAct Lab's own runs, and its own exports imported back, have none.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass
class Provenance:
    """The file an imported run was read from: its format (``ATIF-v1.6``, ``OTLP/JSON``), the agent or service that
    wrote it and that one's version (``terminus-2``, ``2.0.0``; '' when the file does not say), and the model it
    names ('' when none)."""

    format: str
    producer: str = ""
    version: str = ""
    model: str = ""

    @property
    def described(self) -> str:
        """One line for a person: 'an ATIF-v1.6 trajectory written by terminus-2 2.0.0 (model gpt-4o)'."""
        kind = "trajectory" if self.format.startswith("ATIF") else "file"
        by = " ".join(p for p in (self.producer, self.version) if p)
        said = f"an {self.format} {kind}" + (f" written by {by}" if by else " (the tool that wrote it is not named)")
        return said + (f", model {self.model}" if self.model else "")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Provenance:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})
