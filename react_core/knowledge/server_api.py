"""The part of the MediaWiki Action API that our client and the old ``wikipedia`` package use, answered from a pack.

``WikiApi.handle(params)`` takes the query parameters of one ``api.php`` request and returns (HTTP status, JSON
body). Covered: ``action=query`` with ``titles``/``pageids`` (normalisation, ``redirects``, missing and invalid
titles), ``prop=info|pageprops|extracts|revisions|links`` (``inprop=url``, ``ppprop``, ``explaintext``, ``exintro``,
``exsentences``, ``exchars``, ``exsectionformat``, ``rvprop=ids|content``, ``rvparse``, ``pllimit``) and
``list=search`` (``srsearch``, ``srlimit``, ``sroffset``, ``srinfo``), in ``formatversion`` 1 and 2, with MediaWiki's
error shape for what is not. No HTTP here (see ``server``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from react_core.knowledge.pack import PackEntry, PackSource
from react_core.knowledge.text import article_sentences
from react_core.knowledge.titles import encode_title, invalid_reason, normalize_title

MAX_LIMIT = 500
_HEADING = re.compile(r"^\s*(=+)\s*(.*?)\s*\1\s*$", re.MULTILINE)
KNOWN_PROPS = {"info", "pageprops", "extracts", "revisions", "links"}


def split_multi(value: str | None) -> list[str]:
    """MediaWiki's multi-value parameters: ``a|b``, or ``\\x1fa\\x1fb`` when values may contain ``|``."""
    if not value:
        return []
    parts = value[1:].split("\x1f") if value.startswith("\x1f") else value.split("|")
    return [p for p in parts if p != ""]


def api_error(code: str, info: str) -> tuple[int, dict[str, Any]]:
    return 200, {"error": {"code": code, "info": info}, "servedby": "react-lab-wiki-server"}


def _limit(value: str | None, default: int) -> int:
    if value in (None, ""):
        return default
    if value == "max":
        return MAX_LIMIT
    try:
        return max(1, min(MAX_LIMIT, int(value)))
    except ValueError:
        return default


class WikiApi:
    def __init__(self, pack: PackSource, language: str = "en") -> None:
        self.pack = pack
        self.language = language

    def handle(self, params: Mapping[str, str]) -> tuple[int, dict[str, Any]]:
        if params.get("format", "json") not in ("json", "jsonfm"):
            return api_error("badvalue", f'Unrecognized value for parameter "format": {params.get("format")}.')
        if params.get("action") != "query":
            return api_error("badvalue", f'Unrecognized value for parameter "action": {params.get("action")}.')
        v2 = params.get("formatversion") in ("2", "latest")
        props = split_multi(params.get("prop"))
        unknown = [p for p in props if p not in KNOWN_PROPS]
        if unknown:
            return api_error("badvalue", f'Unrecognized value for parameter "prop": {unknown[0]}.')
        out: dict[str, Any] = {"batchcomplete": True if v2 else ""}
        query: dict[str, Any] = {}
        if "titles" in params or "pageids" in params:
            self._pages(params, set(props), v2, query)
        lists = split_multi(params.get("list"))
        if lists:
            if lists != ["search"]:
                return api_error("badvalue", f'Unrecognized value for parameter "list": {lists[0]}.')
            if not params.get("srsearch"):
                return api_error("nosrsearch", 'The "srsearch" parameter must be set.')
            self._search(params, query)
        if query:
            out["query"] = query
        return 200, out

    # -- titles and pageids -------------------------------------------------------------------------------

    def _pages(self, params: Mapping[str, str], props: set[str], v2: bool, query: dict[str, Any]) -> None:
        normalized: list[dict[str, Any]] = []
        redirects: list[dict[str, str]] = []
        pages: list[dict[str, Any]] = []
        follow = "redirects" in params  # a MediaWiki boolean: present means true
        for raw in split_multi(params.get("titles")):
            title = normalize_title(raw)
            if title != raw:
                normalized.append({**({"fromencoded": False} if v2 else {}), "from": raw, "to": title})
            reason = invalid_reason(title)
            if reason:
                pages.append({"title": raw, "invalidreason": f"The requested page title is invalid: {reason}."})
                pages[-1]["invalid"] = True if v2 else ""
                continue
            entry = self.pack.entry(title)
            hops = 0
            while entry is None and follow and hops < 3:
                target = self.pack.redirect_target(title)
                if target is None:
                    break
                redirects.append({"from": title, "to": target})
                title, hops = target, hops + 1
                entry = self.pack.entry(title)
            pages.append(self._page(entry, params, props, v2) if entry else {"ns": 0, "title": title, "missing": True})
        for raw_id in split_multi(params.get("pageids")):
            entry = self.pack.entry_by_id(int(raw_id)) if raw_id.isdigit() else None
            pages.append(self._page(entry, params, props, v2) if entry else {"pageid": raw_id, "missing": True})
        if normalized:
            query["normalized"] = normalized
        if redirects:
            query["redirects"] = redirects
        if v2:
            query["pages"] = pages
            return
        keyed: dict[str, Any] = {}
        for n, page in enumerate(pages, start=1):
            if "missing" in page or "invalid" in page:
                page = {k: ("" if v is True else v) for k, v in page.items()}
                keyed[str(-n) if "pageid" not in page else str(page["pageid"])] = page
            else:
                keyed[str(page["pageid"])] = page
        query["pages"] = keyed

    def _page(self, e: PackEntry, params: Mapping[str, str], props: set[str], v2: bool) -> dict[str, Any]:
        page: dict[str, Any] = {"pageid": e.id, "ns": 0, "title": e.title}
        revid = e.revision or 100_000 + e.id  # HotpotQA has no revisions; a stable stand-in per page
        if "info" in props:
            page.update(
                contentmodel="wikitext",
                pagelanguage=self.language,
                pagelanguagehtmlcode=self.language,
                pagelanguagedir="ltr",
                touched="2017-10-01T00:00:00Z",
                lastrevid=revid,
                length=len(e.text.encode("utf-8")),
            )
            if "url" in split_multi(params.get("inprop")):
                page.update(fullurl=e.url, editurl=f"{e.url}?action=edit", canonicalurl=e.url)
        if "pageprops" in props:
            wanted = split_multi(params.get("ppprop"))
            if e.disambiguation and (not wanted or "disambiguation" in wanted):
                page["pageprops"] = {"disambiguation": True if v2 else ""}
        if "extracts" in props:
            page["extract"] = self._extract(e, params)
        if "revisions" in props:
            page["revisions"] = [self._revision(e, revid, params, v2)]
        if "links" in props and e.links:
            limit = _limit(params.get("pllimit"), 10)
            page["links"] = [{"ns": 0, "title": t} for t in sorted(e.links)[:limit]]
        return page

    def _extract(self, e: PackEntry, params: Mapping[str, str]) -> str:
        text = e.text
        if "exintro" in params:
            first = _HEADING.search(text)
            text = text[: first.start()] if first else text
        if params.get("exsentences", "").isdigit():
            text = "".join(article_sentences(text)[: int(params["exsentences"])]).strip()
        elif params.get("exchars", "").isdigit():
            n = int(params["exchars"])
            text = text if len(text) <= n else text[:n].rstrip() + "..."
        if params.get("exsectionformat", "wiki") == "plain":
            text = _HEADING.sub(lambda m: m.group(2), text)
        if "explaintext" in params:
            return text.strip()
        return "".join(
            f"<h2>{html.escape(m.group(2))}</h2>" if (m := _HEADING.fullmatch(p)) else f"<p>{html.escape(p)}</p>"
            for p in text.splitlines()
            if p.strip()
        )

    def _revision(self, e: PackEntry, revid: int, params: Mapping[str, str], v2: bool) -> dict[str, Any]:
        rvprop = split_multi(params.get("rvprop")) or ["ids", "timestamp", "flags", "comment", "user"]
        rev: dict[str, Any] = {}
        if "ids" in rvprop:
            rev.update(revid=revid, parentid=revid - 1)
        if "timestamp" in rvprop:
            rev["timestamp"] = "2017-10-01T00:00:00Z"
        if "content" in rvprop:
            if "rvparse" in params:
                content = self._html(e)
            else:
                options = "".join(f"\n* [[{t}]]" for t in e.links) if e.disambiguation else ""
                content = e.text + options
            if v2:
                main = {"contentmodel": "wikitext", "contentformat": "text/x-wiki", "content": content}
                rev["slots"] = {"main": main}
            else:
                rev.update({"contentformat": "text/x-wiki", "contentmodel": "wikitext", "*": content})
        return rev

    def _html(self, e: PackEntry) -> str:
        body = "".join(f"<p>{html.escape(p)}</p>" for p in e.text.splitlines() if p.strip())
        if e.disambiguation and e.links:
            items = "".join(
                f'<li><a href="/wiki/{encode_title(t)}" title="{html.escape(t)}">{html.escape(t)}</a></li>'
                for t in e.links
            )
            body += f"<ul>{items}</ul>"
        return body

    # -- list=search ----------------------------------------------------------------------------------------

    def _search(self, params: Mapping[str, str], query: dict[str, Any]) -> None:
        limit = _limit(params.get("srlimit"), 10)
        offset = int(params["sroffset"]) if params.get("sroffset", "").isdigit() else 0
        titles = self.pack.similar(params["srsearch"], limit + offset)[offset:]
        hits = []
        for t in titles:
            entry = self.pack.entry(t)
            hits.append({"ns": 0, "title": t, "pageid": entry.id if entry else 0})
        info = split_multi(params.get("srinfo", "totalhits|suggestion|rewrittenquery"))
        if "totalhits" in info:
            query["searchinfo"] = {"totalhits": offset + len(hits)}
        query["search"] = hits
