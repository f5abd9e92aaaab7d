"""Knowledge sources behind Search and Lookup: live Wikipedia (``wikipedia``) or an offline pack (``pack:PATH``).

``create_knowledge(spec, **options)`` is the one factory. Sources are shared per process (one Wikipedia client per
endpoint, one open pack per file), so caches and connections outlive a run; a run's ``close()`` leaves them open.
``setting.Knowledge`` is the setting as a person chose it (its label, its licence line, the pack that stands in).
Modules: base (the contract), titles and text (normalisation and plain text), pack and pack_build (the SQLite
pack), default_pack, api_client and wikipedia (the live client), server_api and server (the local MediaWiki
server), cli (``pack build`` and ``wiki-server``). Nothing here imports a UI.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from react_core.knowledge.base import KnowledgeSource, Page, SearchOutcome
from react_core.knowledge.choices import check_knowledge
from react_core.knowledge.spec import pack_path

_packs: dict[tuple[str, int, int], Any] = {}
_packs_lock = threading.Lock()


def open_pack(path: str | Path) -> KnowledgeSource:
    """The shared source for a pack file (reopened when the file is rebuilt); ConfigError when unusable."""
    from react_core.knowledge.pack import PackSource

    p = Path(path).expanduser()
    try:
        st = p.resolve().stat()
    except OSError:
        return PackSource(p)  # raises the ConfigError that says how to build it
    key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    with _packs_lock:
        if key not in _packs:
            _packs[key] = PackSource(p, shared=True)
        return _packs[key]


def create_knowledge(spec: str, *, visitor: bool | None = None, **options: Any) -> KnowledgeSource:
    """``wikipedia`` or ``pack:PATH``; ``visitor``: whether the setting is a visitor's (None: this thread's key
    rules), who may name only the operator's packs and wiki endpoint (``choices``). Options for wikipedia: wiki_url,
    language, contact, fallback_pack ("auto": the default pack when Wikipedia cannot be reached; None: no fallback; or
    a pack path), timeout (read timeout in seconds), and WikipediaSource's keyword arguments: cache_size, cache_ttl,
    and the request limits (connect_timeout, read_timeout, request_timeout, deadline, max_body_bytes, retries,
    backoff, max_retry_after, max_redirects; defaults in ``api_client``). Options that do not apply are ignored."""
    check_knowledge(spec, options.get("wiki_url"), visitor=visitor)
    path = pack_path(spec)
    if path is not None:
        return open_pack(path)
    from react_core.knowledge.wikipedia import WikipediaSource

    return WikipediaSource.create(**{k: v for k, v in options.items() if v is not None or k == "fallback_pack"})


__all__ = ["KnowledgeSource", "Page", "SearchOutcome", "create_knowledge", "open_pack"]
