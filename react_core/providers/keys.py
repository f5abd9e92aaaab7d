"""Where API keys and base URLs come from, where the operator's keys may go, and how a key is kept out of every message.

A provider class declares the variables that may hold its key (``key_vars``) and its endpoint (``base_url_vars``).
Order: a key passed in (the settings page keeps it for the browser session only) > the environment >
``.streamlit/secrets.toml`` (top-level entries with the same names). Nothing here writes a key anywhere.

The environment's and the secrets' keys are the operator's. ``lending`` (set per job by
``react_core.providers.allowance``) says whether they may be used at all, and whether a base URL passed in is the
person's own: then the operator's key goes only to an endpoint the operator configured (the provider's own API, its
endpoint variable such as OPENAI_BASE_URL, or REACT_BASE_URL for the provider REACT_PROVIDER names), never to one a
person typed.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from react_core.base.environment import environment_value
from react_core.base.errors import ConfigError, MissingKeyError
from react_core.base.paths import secrets_files
from react_core.providers.endpoints import same_endpoint

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


@dataclass(frozen=True)
class Lending:
    """Whose keys the calls made on this thread may use."""

    server_keys: bool = True  # the operator's keys (environment, secrets) may be used
    own_endpoints: bool = False  # a base URL passed in is the person's own (signed-in and public demo modes)
    owner: str = ""  # whose work it is ('' in local mode and on the CLI): their own MCP servers' sign-ins


_OPERATORS = Lending()  # outside any job (the CLI, local scripts): the person is the operator
_lending: ContextVar[Lending | None] = ContextVar("react_lending", default=None)


def _rules() -> Lending:
    return _lending.get() or _OPERATORS


@contextmanager
def lending(server_keys: bool = True, own_endpoints: bool = False, owner: str = "") -> Iterator[None]:
    """Within this block (on this thread), the operator's keys are used only as these rules allow."""
    token = _lending.set(Lending(server_keys, own_endpoints, owner))
    try:
        yield
    finally:
        _lending.reset(token)


def owner() -> str:
    """Whose work runs on this thread ('' outside a job: the operator's)."""
    return _rules().owner


def visitor() -> bool:
    """Whether the work on this thread is a visitor's (public demo or signed-in mode), not the operator's own."""
    return _rules().own_endpoints


def configured_base_url(provider_name: str, env: Mapping[str, str] | None = None) -> str:
    """REACT_BASE_URL when it is ``provider_name``'s, else ''. A Base URL belongs to one provider, the one
    REACT_PROVIDER names: another provider's key never goes there. Set without REACT_PROVIDER it would belong to no
    provider in particular, so it is refused (ConfigError), not guessed."""
    url = environment_value("REACT_BASE_URL", env)
    named = environment_value("REACT_PROVIDER", env)
    if url and not named:
        raise ConfigError(
            "REACT_BASE_URL is one provider's endpoint: set REACT_PROVIDER to the provider it belongs to (openai for "
            "an OpenAI-compatible server, gemini for a Gemini endpoint)."
        )
    return url if named == provider_name else ""


def operators_endpoint(
    provider: type[Provider],
    base_url: str | None,
    *,
    env: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
) -> bool:
    """Whether ``base_url`` (as passed in; empty: the provider's own API) is where the operator pointed this provider:
    its endpoint variables (OPENAI_BASE_URL), or REACT_BASE_URL when it is this provider's (``configured_base_url``)."""
    if not (base_url and base_url.strip()):
        return True
    configured = (lookup(provider.base_url_vars, env=env, secrets=secrets), configured_base_url(provider.name, env))
    return any(url and same_endpoint(url, base_url) for url in configured)


def _own_endpoint(provider: type[Provider], base_url: str | None, **sources: Mapping[str, str] | None) -> bool:
    return _rules().own_endpoints and not operators_endpoint(provider, base_url, **sources)


def resolve_key(
    provider: type[Provider],
    explicit: str | None = None,
    *,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
) -> str | None:
    """The key to use for ``provider`` with calls going to ``base_url`` (as passed in: a setting, not the provider's
    endpoint variable), or None when none is configured or the operator's may not go there."""
    if explicit and explicit.strip():
        return explicit.strip()
    if not _rules().server_keys or _own_endpoint(provider, base_url, env=env, secrets=secrets):
        return None
    return lookup(provider.key_vars, env=env, secrets=secrets)


def withheld(
    provider: type[Provider],
    base_url: str | None,
    *,
    env: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
) -> bool:
    """Whether the operator has a key for ``provider`` that may be lent, but not to ``base_url``, a person's own."""
    return (
        _rules().server_keys
        and _own_endpoint(provider, base_url, env=env, secrets=secrets)
        and lookup(provider.key_vars, env=env, secrets=secrets) is not None
    )


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
    if not _rules().server_keys:
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


def missing_key(provider: type[Provider], base_url: str | None = None) -> MissingKeyError:
    """No key for ``provider``; ``base_url`` as passed in (a person's own endpoint gets its own message)."""
    if _rules().server_keys and _own_endpoint(provider, base_url):
        return MissingKeyError(
            f"No {provider.label} API key for the Base URL you set: the server's keys go only to the endpoints its "
            "operator configured. Paste your own key on the Settings page (kept for this browser session only; any "
            "text for a server that needs none), or clear the Base URL."
        )
    extra = ""
    if provider.base_url_vars and _rules().server_keys:
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
