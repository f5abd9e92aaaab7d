"""The knowledge a visitor may choose (public demo and signed-in modes): the operator's packs and wiki endpoint.

The offline packs are the default pack (REACT_PACK, or the one built in the cache) and the one REACT_KNOWLEDGE names;
the MediaWiki endpoint is Wikipedia in a language the visitor picks (the code is checked by ``reach.endpoint_for``,
so it only ever names a wikipedia.org host) or the operator's REACT_WIKI_URL. Anything else is refused by the rule of
``react_core.base.visitor_rule`` before it is opened, probed or fetched.
"""

from __future__ import annotations

from react_core.base.environment import environment_value
from react_core.base.paths import pack_file
from react_core.base.visitor_rule import among_paths, refusal
from react_core.knowledge.reach import check_wiki_url
from react_core.knowledge.spec import is_pack, pack_path, pack_text

__all__ = ["check_knowledge", "pack_choices", "thread_visitor"]


def thread_visitor(visitor: bool | None) -> bool:
    """``visitor`` as given, or (None) whether the work on this thread is a visitor's (the job's key rules)."""
    if visitor is not None:
        return visitor
    from react_core.providers.keys import visitor as on_this_thread

    return on_this_thread()


def pack_choices() -> list[str]:
    """The offline packs the operator offers visitors, as paths (the default pack first)."""
    packs = [str(pack_file())]
    configured = environment_value("REACT_KNOWLEDGE")
    if is_pack(configured) and pack_text(configured):
        packs.append(pack_text(configured))
    return list(dict.fromkeys(packs))


def check_knowledge(spec: str, wiki_url: str | None = None, *, visitor: bool | None = None) -> None:
    """ConfigError when a visitor's knowledge setting names a pack or a wiki endpoint the operator did not offer."""
    if not thread_visitor(visitor):
        return
    path = pack_path(spec)  # a malformed setting says so, whoever gives it
    if path is not None:
        if not among_paths(str(path), pack_choices()):
            raise refusal("the offline pack", "choose one of the operator's packs in Settings, or live Wikipedia")
        return
    check_wiki_url(wiki_url)
