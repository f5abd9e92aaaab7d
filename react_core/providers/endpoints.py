"""Whether two URLs name the same endpoint, for trust: the one home of the comparison that decides where a key may go.

A key configured for an endpoint goes only to that endpoint, so "the same" is strict. Both URLs are read by the parser
of the HTTP client that sends the request (httpx2, which the providers' SDKs use), so this comparison and the request
agree on where a URL points: the same scheme, host and port (RFC 6454's origin: scheme and host compared without
case, a default port the same as none) and, for an endpoint, the same path (another path of one host can be another
tenant's gateway). A trailing dot makes another host (as in browsers' origins), and a path is compared as written
(percent-escapes included), apart from a trailing slash.

A URL that two parsers could read two ways is nobody's endpoint: user info (``https://llm.example.com@evil.net``), a
backslash, whitespace or control characters (Python's URL parser drops tabs and line breaks that the client
refuses), a query or a fragment. Such a URL can still be used; it is only never taken for a configured one.
"""

from __future__ import annotations

from typing import NamedTuple

_DEFAULT_PORTS = {"http": 80, "https": 443}
_AMBIGUOUS = frozenset("@\\?#")


class _Parts(NamedTuple):
    scheme: str
    host: str
    port: int
    path: bytes


def _parts(url: str | None) -> _Parts | None:
    text = (url or "").strip()
    if not text or any(c in _AMBIGUOUS or c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return None
    import httpx2  # the client's own parser; loaded only when two URLs are compared (a run is being built)

    try:
        parsed = httpx2.URL(text)
        port = parsed.port
    except Exception:  # httpx2 raises its own InvalidURL, and ValueError for some inputs
        return None
    if parsed.scheme not in _DEFAULT_PORTS or not parsed.host or parsed.userinfo:
        return None
    return _Parts(parsed.scheme, parsed.host, port or _DEFAULT_PORTS[parsed.scheme], parsed.raw_path.rstrip(b"/"))


def same_origin(a: str | None, b: str | None) -> bool:
    """Whether ``a`` and ``b`` are on the same scheme, host and port (False when either is no clear URL)."""
    pa, pb = _parts(a), _parts(b)
    return pa is not None and pb is not None and pa[:3] == pb[:3]


def same_endpoint(a: str | None, b: str | None) -> bool:
    """Whether ``a`` and ``b`` are the same endpoint: the same origin and the same path (False when either is no
    clear URL)."""
    pa = _parts(a)
    return pa is not None and pa == _parts(b)
