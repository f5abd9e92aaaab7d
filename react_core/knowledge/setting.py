"""A run's knowledge as a person chose it: the setting (``wikipedia`` or ``pack:PATH``, read in ``spec``) and the wiki
endpoint it reads live, with what the app says of it (its label, the licence line under its text), the offline pack
that answers its Searches, and the packs the operator offers visitors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from react_core.base.errors import ConfigError
from react_core.knowledge import create_knowledge, open_pack, reach
from react_core.knowledge.choices import check_knowledge, pack_choices
from react_core.knowledge.spec import WIKIPEDIA, is_pack, pack_path, pack_spec, pack_text, stood_in

__all__ = ["Knowledge"]


@dataclass(frozen=True)
class Knowledge:
    spec: str = WIKIPEDIA  # the setting: ``wikipedia`` or ``pack:PATH``
    wiki_url: str | None = None  # the MediaWiki API a live source reads (None: Wikipedia's, in ``language``)
    language: str | None = None

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> Knowledge:
        """The knowledge of these settings (``knowledge``, ``wiki_url``, ``wiki_language``) or a trace's."""
        return cls(
            str(settings.get("knowledge") or WIKIPEDIA),
            settings.get("wiki_url") or None,
            settings.get("wiki_language") or None,
        )

    @classmethod
    def of_pack(cls, path: str | Path) -> Knowledge:
        """The setting for an offline pack file."""
        return cls(pack_spec(path))

    @staticmethod
    def offered_packs() -> list[str]:
        """The offline packs the operator offers visitors, as paths (the default pack first)."""
        return pack_choices()

    @property
    def pack_text(self) -> str:
        """The path a ``pack:PATH`` setting names, as written ('' for ``wikipedia`` or a ``pack:`` without one)."""
        return pack_text(self.spec)

    def label(self, *, visitor: bool = False) -> str:
        """What a person reads for this knowledge. Live Wikipedia is called live only while it can be reached: the
        probe is brief and remembered, and while it fails the offline pack stands in (and the label says so). A
        visitor's own endpoint (``visitor``: public demo, signed in) is never probed: whether something answers there
        is not theirs to learn."""
        if is_pack(self.spec):
            try:
                path = pack_path(self.spec)
            except ConfigError:
                return "offline pack (no file named)"
            return f"offline pack {path.name}" if path is not None else "offline pack"
        try:
            endpoint = reach.endpoint_for(self.wiki_url, self.language, visitor=visitor)
        except ConfigError:
            return "Wikipedia (live)"  # the run will say what is wrong with the URL
        return "Wikipedia unreachable: offline pack" if reach.probe(endpoint) is False else "Wikipedia (live)"

    def credit(self, note: str = "") -> str:
        """The licence line under text a tool took from this source (``note``: the observation's, which says when the
        offline pack stood in for Wikipedia)."""
        if is_pack(self.spec) or stood_in(note):
            return "Text: Wikipedia opening paragraphs (2017) from the HotpotQA corpus — CC BY-SA 4.0."
        return "Text: Wikipedia, CC BY-SA 4.0."

    def standing_pack(self, *, visitor: bool | None = None) -> Any:
        """The offline pack that answers Searches here: the pack itself for ``pack:PATH``; for ``wikipedia``, the
        default pack when Wikipedia cannot be reached (probed briefly if nothing is known yet); else None. Never
        raises: a setting that cannot be used (a visitor's that the operator did not offer, ``visitor`` as for
        ``create_knowledge``) answers None here and says why when a run starts."""
        try:
            check_knowledge(self.spec, self.wiki_url, visitor=visitor)
            if pack_path(self.spec) is not None:
                return create_knowledge(self.spec)
            if reach.probe(reach.endpoint_for(self.wiki_url, self.language)) is not False:
                return None  # Wikipedia answers, or nothing is known yet
        except ConfigError:
            return None
        from react_core.knowledge.default_pack import ensure_default_pack

        path = ensure_default_pack()
        try:
            return open_pack(path) if path is not None else None
        except ConfigError:
            return None
