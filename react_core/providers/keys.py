"""Where API keys and base URLs come from, and how a key is kept out of every message.

A provider class declares the variables that may hold its key (``key_vars``) and its endpoint (``base_url_vars``).
Order: a key passed in (the settings page keeps it for the browser session only) > the environment >
``.streamlit/secrets.toml`` (top-level entries with the same names; Nothing here writes a key anywhere.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from react_core.errors import MissingKeyError
from react_core.paths import secrets_files

if TYPE_CHECKING:
    from react_core.providers.base import Provider


def read_secrets(paths: Iterable[Path] | None = None) -> dict[str, str]:
    """Top-level string entries of the secrets files; earlier files win. An unreadable file is skipped."""
    found: dict[str, str] = {}
    for path in secrets_files() if paths is None else paths:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        for k, v in data.items():
            if isinstance(v, str) and v.strip():
                found.setdefault(k, v.strip())
    return found


def lookup(
    names: Iterable[str], *, env: Mapping[str, str] | None = None, secrets: Mapping[str, str] | None = None
) -> str | None:
    """The first of ``names`` set in the environment, else in the secrets files; None when none is."""
    names = tuple(names)
    env = os.environ if env is None else env
    for name in names:
        if env.get(name, "").strip():
            return env[name].strip()
    if not names:
        return None
    secrets = read_secrets(secrets_files(env)) if secrets is None else secrets
    for name in names:
        if secrets.get(name):
            return secrets[name]
    return None


# Whether keys may come from the server's environment and secrets, or only from the person (public demo mode).
_server_keys: ContextVar[bool] = ContextVar("react_server_keys", default=True)


@contextmanager
def visitor_keys_only() -> Iterator[None]:
    """Within this block (on this thread), a key must be given explicitly: the server's own keys are not used."""
    token = _server_keys.set(False)
    try:
        yield
    finally:
        _server_keys.reset(token)


def resolve_key(
    provider: type[Provider],
    explicit: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
) -> str | None:
    """The key to use for ``provider``, or None when none is configured."""
    if explicit and explicit.strip():
        return explicit.strip()
    if not _server_keys.get():
        return None
    return lookup(provider.key_vars, env=env, secrets=secrets)


def resolve_base_url(
    provider: type[Provider],
    explicit: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
) -> str | None:
    if explicit and explicit.strip():
        return explicit.strip()
    return lookup(provider.base_url_vars, env=env, secrets=secrets)


def configured(
    provider: type[Provider], *, env: Mapping[str, str] | None = None, secrets: Mapping[str, str] | None = None
) -> bool:
    """Whether this hosted provider can run as configured: a key, or an endpoint that needs none."""
    if resolve_key(provider, env=env, secrets=secrets) is not None:
        return True
    return resolve_base_url(provider, env=env, secrets=secrets) is not None


def where_to_set(provider: type[Provider]) -> str:
    if not _server_keys.get():
        return (
            "paste your own key on the Settings page (kept for this browser session only); this public demo does not "
            "lend the server's keys"
        )
    names = provider.key_vars
    either = " or ".join(names)
    return (
        f'set {either} in the environment, add {names[0]} = "..." to .streamlit/secrets.toml, '
        "or paste it on the Settings page (kept for this browser session only)"
    )


def missing_key(provider: type[Provider]) -> MissingKeyError:
    extra = ""
    if provider.base_url_vars and _server_keys.get():
        extra = f" (or set --base-url / {provider.base_url_vars[0]} for a local {provider.label}-compatible server)"
    return MissingKeyError(f"No {provider.label} API key: {where_to_set(provider)}{extra}.")


def rejected_key(provider: type[Provider], detail: str) -> MissingKeyError:
    """The service refused the key. Same fix as a missing key, so the same error class."""
    return MissingKeyError(f"{provider.label} rejected the API key ({detail}): {where_to_set(provider)}.")


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every secret replaced, so an error that echoes a key never carries it further."""
    for s in secrets:
        if s and len(s) >= 4:
            text = text.replace(s, "***")
    return text
