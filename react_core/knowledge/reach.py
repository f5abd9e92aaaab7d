"""Which MediaWiki endpoint, and whether it can be reached: one memory per process, for the client that falls back
to the offline pack and for the page that says so.

A failed Search marks its endpoint unreachable for a minute (no Search waits on it again meanwhile); a page that
needs to know before any Search starts a probe (a TCP connection, no request sent) in the background and waits for
it briefly. Light on purpose: no HTTP library, so a page can ask without loading the client.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from urllib.parse import urlsplit

from react_core.base.environment import environment_value
from react_core.base.errors import ConfigError
from react_core.base.visitor_rule import refusal

UNREACHABLE_SECONDS = 60.0
PROBE_TIMEOUT = 5.0
# A wikipedia.org subdomain such as en, simple, pt-br or zh-min-nan: letters, then parts joined by single hyphens. It
# becomes a host name, so nothing else (no dot, colon, slash, '@' or '#') ever gets through.
_LANGUAGE = re.compile(r"(?=.{2,20}$)[a-z]{2,}(?:-[a-z0-9]+)*")

_lock = threading.Lock()
_known: dict[str, tuple[bool, float, str]] = {}  # endpoint -> (reachable, until, reason)
_probes: dict[str, threading.Thread] = {}


def check_wiki_url(wiki_url: str | None) -> None:
    """ConfigError when a visitor's MediaWiki API URL is not the operator's (REACT_WIKI_URL): in public demo and
    signed-in modes the server fetches only from the operator's endpoint, or from Wikipedia."""
    operators = environment_value("REACT_WIKI_URL")
    if wiki_url and wiki_url.strip() not in ("", operators):
        instead = "leave it empty for the operator's wiki" if operators else "leave it empty for Wikipedia"
        raise refusal("the MediaWiki API URL", instead)


# Wikipedia's API for a language: the one home of the address (the tests read it from here).
WIKIPEDIA_API = "https://{language}.wikipedia.org/w/api.php"


def endpoint_for(wiki_url: str | None = None, language: str | None = None, *, visitor: bool = False) -> str:
    """``--wiki-url`` / REACT_WIKI_URL, else ``https://<language>.wikipedia.org/w/api.php``; ConfigError if bad, or
    if ``visitor`` (the setting is a visitor's) and the URL is not the operator's (``check_wiki_url``)."""
    if visitor:
        check_wiki_url(wiki_url)
    url = wiki_url or environment_value("REACT_WIKI_URL")
    if not url:
        language = (language or environment_value("REACT_WIKI_LANGUAGE") or "en").strip().lower()
        if not _LANGUAGE.fullmatch(language):
            raise ConfigError(f"Wikipedia language {language!r} is not a language code such as 'en', 'de' or 'pt-br'.")
        return WIKIPEDIA_API.format(language=language)
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        host = None
    if parts.scheme not in ("http", "https") or not host or " " in url:
        raise ConfigError(
            f"--wiki-url must be the http(s) URL of a MediaWiki api.php, "
            f"e.g. https://en.wikipedia.org/w/api.php (got {url!r})."
        )
    return url


def mark(
    endpoint: str,
    reachable: bool,
    reason: str = "",
    *,
    now: float | None = None,
    seconds: float = UNREACHABLE_SECONDS,
) -> None:
    """Remember what a request (or a probe) found, for ``seconds``."""
    now = time.monotonic() if now is None else now
    with _lock:
        _known[endpoint] = (reachable, now + seconds, reason)


def unreachable(endpoint: str, *, now: float | None = None) -> str | None:
    """Why the endpoint is known to be unreachable right now, or None."""
    now = time.monotonic() if now is None else now
    with _lock:
        known = _known.get(endpoint)
    if known is None or now >= known[1] or known[0]:
        return None
    return known[2] or "it could not be reached"


def probe(endpoint: str, *, wait: float = 0.5) -> bool | None:
    """Whether the endpoint can be reached: what is remembered, else a probe in the background, waited for at most
    ``wait`` seconds (None when it has not answered by then)."""
    now = time.monotonic()
    with _lock:
        known = _known.get(endpoint)
        if known is not None and now < known[1]:
            return known[0]
        thread = _probes.get(endpoint)
        if thread is None or not thread.is_alive():
            thread = _probes[endpoint] = threading.Thread(
                target=_connect, args=(endpoint,), name="react-wiki-probe", daemon=True
            )
            thread.start()
    thread.join(wait)
    with _lock:
        known = _known.get(endpoint)
    return known[0] if known is not None and time.monotonic() < known[1] else None


def _connect(endpoint: str) -> None:
    parts = urlsplit(endpoint)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=PROBE_TIMEOUT).close()
    except OSError as e:
        mark(endpoint, False, f"cannot connect ({e})")
    else:
        mark(endpoint, True)
