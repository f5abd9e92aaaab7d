"""Who uses this browser session, and in which of three modes the app runs.

- **Local** (the default, ``make run``): one person, no sign-in, one history.
- **Signed in**: when ``.streamlit/secrets.toml`` has an ``[auth]`` section, Streamlit's OpenID Connect sign-in
  (``st.login`` / ``st.user``) is required, and each person's history, saved presets and remembered settings are
  theirs alone (the store filters every query by the owner).
- **Public demo** (``REACT_PUBLIC_DEMO=1``, without ``[auth]``): no sign-in; each browser session keeps its runs to
  itself, visitors bring their own API key (the server's are lent only with ``REACT_DEMO_SERVER_KEYS=1``), and each
  visitor (``visitor``: a network address, not a browser session, which a reload renews) may make
  ``REACT_DEMO_CALLS_PER_MINUTE`` model calls a minute, all of them together ``REACT_DEMO_TOTAL_CALLS_PER_MINUTE``
  (the engine's ``PublicDemo`` reads these variables).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json

import streamlit as st

from react_core import Allowance, PublicDemo, ReactLabError, Store
from ui.chat import job_registry as registry

LOCAL, SIGNED_IN, DEMO = "local", "signed-in", "demo"
THIS_MACHINE = "address:this machine"  # the visitor Streamlit gives no address for


def auth_configured() -> bool:
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file at all: Streamlit raises rather than answer
        return False


def mode() -> str:
    if auth_configured():
        return SIGNED_IN
    return DEMO if PublicDemo().on else LOCAL


def signed_in() -> bool:
    return bool(st.user.is_logged_in)


def owner() -> str:
    """Whose history and evaluations this session reads and writes: '' in local mode, the person's OpenID issuer and
    subject when signed in (``oidc_owner``), this browser session in public demo mode."""
    current = mode()
    if current == SIGNED_IN:
        return oidc_owner(str(st.user.get("iss", "")), str(st.user.get("sub", "")))
    if current == DEMO:
        return f"session:{st.session_state.session_id}"
    return ""


def oidc_owner(iss: str, sub: str) -> str:
    """A signed-in person's owner id, never shared with another person: ``oidc:{iss}#{sub}`` when that reads back
    one way (no '#' in the issuer) and fits the store, else a digest of the pair under a prefix the readable form
    cannot have (it starts "oidc:")."""
    readable = f"oidc:{iss}#{sub}"
    if "#" not in iss:
        try:
            return Store.check_owner(readable)
        except ReactLabError:
            pass  # too long for the store, or holding what it refuses
    return "oidc-sha256:" + hashlib.sha256(json.dumps([iss, sub]).encode("ascii")).hexdigest()


def person() -> str:
    """The signed-in person as they would recognise themselves."""
    return str(st.user.get("email") or st.user.get("name") or st.user.get("sub") or "you")


def lends_server_keys() -> bool:
    return mode() != DEMO or PublicDemo().server_keys


def own_endpoints() -> bool:
    """Whether a Base URL typed in Settings is the person's own, to be given only a key they typed: unless the person
    is the operator (local mode)."""
    return mode() != LOCAL


def calls_per_minute() -> int | None:
    """The public demo's limit on each visitor's model calls (None: no limit); ConfigError when it is not a limit."""
    if mode() != DEMO:
        return None
    return PublicDemo().calls_per_minute


def total_calls_per_minute() -> int | None:
    """The public demo's limit on all visitors' model calls together (None: no limit); ConfigError likewise."""
    if mode() != DEMO:
        return None
    return PublicDemo().total_calls_per_minute


def client_address() -> str | None:
    """The address this session's browser connects from, as Streamlit gives it (None for this machine)."""
    address = st.context.ip_address
    return address if isinstance(address, str) else None  # AppTest's stand-in runtime answers with a mock


def visitor() -> str:
    """Whose calls the public demo's limit counts together: ``visitor_of`` this session's address."""
    return visitor_of(client_address())


def visitor_of(address: str | None) -> str:
    """A visitor, as the call limit knows them: the network address they connect from, not the browser session (a
    reload or a new tab makes a new session, and would make a new allowance). An IPv6 address counts as its /64
    network, since one device or household picks addresses within it at will; an IPv4 address mapped into IPv6 as
    that IPv4 address. Streamlit gives no address for a connection from this machine, so all of those (the operator
    trying the demo, or a proxy here that forwards none) are one visitor: ``THIS_MACHINE``."""
    text = (address or "").strip()
    if not text:
        return THIS_MACHINE
    try:
        ip = ipaddress.ip_address(text.strip("[]").split("%", 1)[0])
    except ValueError:
        return f"address:{text}"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:  # ::ffff:127.0.0.1 too, which Streamlit passes on (an app bound to :: sees it)
        return THIS_MACHINE
    if isinstance(ip, ipaddress.IPv6Address):
        return f"network:{ipaddress.IPv6Network((ip, 64), strict=False)}"
    return f"address:{ip}"


def allowance() -> Allowance:
    """This session's rule for every job that calls a model (chat turn, evaluation, …): its owner, whether the
    server's keys may be used, whether a Base URL typed in Settings is the person's own, and its call window (the
    visitor's, within all visitors')."""
    per_minute, total = calls_per_minute(), total_calls_per_minute()
    return Allowance(
        owner=owner(),
        server_keys=lends_server_keys(),
        own_endpoints=own_endpoints(),
        window=registry.windows.of(visitor(), per_minute, total) if per_minute and total else None,
    )


def describe() -> str:
    """One line for the page: which mode the app is in and what it means for this person."""
    current = mode()
    if current == SIGNED_IN:
        return f"Signed in as {person()}: your history, saved presets, settings and evaluations are yours alone."
    if current == DEMO:
        lend = "" if lends_server_keys() else " Bring your own API key in Settings for a hosted model."
        return (
            "Public demo: your runs and evaluations stay in this browser session only; "
            f"{calls_per_minute()} model calls a minute from your network address, all your tabs together." + lend
        )
    return "Local mode: one person, no sign-in."
