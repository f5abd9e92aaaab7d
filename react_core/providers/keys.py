"""Where API keys and the OpenAI-compatible base URL come from, and how a key is kept out of every message.

Order: a key passed in (the settings page keeps it for the browser session only) > the environment
(``GEMINI_API_KEY`` or ``GOOGLE_API_KEY``, ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``) > ``.streamlit/secrets.toml``
(top-level entries with the same names), read with tomllib so the engine never imports Streamlit.
``REACT_SECRETS_PATH`` (files separated by the path separator; empty for none) replaces the places Streamlit looks,
for deployments and tests. Nothing here writes a key anywhere. Depends only on ``react_core.errors``; must not
import Streamlit, an SDK or anything that logs.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

from react_core.errors import MissingKeyError

PROJECT_ROOT = Path(__file__).resolve().parents[2]

# The variables each hosted provider reads, first match wins.
KEY_VARS: dict[str, tuple[str, ...]] = {
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "openai": ("OPENAI_API_KEY",),
}
BASE_URL_VARS: dict[str, tuple[str, ...]] = {"openai": ("OPENAI_BASE_URL",)}
DISPLAY = {"gemini": "Gemini", "openai": "OpenAI"}


def secrets_paths(env: Mapping[str, str] = os.environ) -> list[Path]:
    """Where Streamlit looks for secrets: the working folder's, the project's, then the user's."""
    if "REACT_SECRETS_PATH" in env:
        return [Path(p) for p in env["REACT_SECRETS_PATH"].split(os.pathsep) if p.strip()]
    paths = [Path.cwd() / ".streamlit" / "secrets.toml", PROJECT_ROOT / ".streamlit" / "secrets.toml"]
    paths.append(Path.home() / ".streamlit" / "secrets.toml")
    return list(dict.fromkeys(paths))


def read_secrets(paths: Iterable[Path] | None = None) -> dict[str, str]:
    """Top-level string entries of the secrets files; earlier files win. An unreadable file is skipped."""
    found: dict[str, str] = {}
    for path in secrets_paths() if paths is None else paths:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        for k, v in data.items():
            if isinstance(v, str) and v.strip():
                found.setdefault(k, v.strip())
    return found


def _lookup(names: tuple[str, ...], env: Mapping[str, str], secrets: Mapping[str, str] | None) -> str | None:
    for name in names:
        if env.get(name, "").strip():
            return env[name].strip()
    secrets = read_secrets(secrets_paths(env)) if secrets is None else secrets
    for name in names:
        if secrets.get(name):
            return secrets[name]
    return None


def resolve_key(
    provider: str,
    explicit: str | None = None,
    *,
    env: Mapping[str, str] = os.environ,
    secrets: Mapping[str, str] | None = None,
) -> str | None:
    """The key to use for ``provider`` (gemini, openai), or None when none is configured."""
    if explicit and explicit.strip():
        return explicit.strip()
    return _lookup(KEY_VARS.get(provider, ()), env, secrets)


def resolve_base_url(
    provider: str,
    explicit: str | None = None,
    *,
    env: Mapping[str, str] = os.environ,
    secrets: Mapping[str, str] | None = None,
) -> str | None:
    if explicit and explicit.strip():
        return explicit.strip()
    return _lookup(BASE_URL_VARS.get(provider, ()), env, secrets)


def has_key(provider: str, *, env: Mapping[str, str] = os.environ, secrets: Mapping[str, str] | None = None) -> bool:
    """Whether a key is configured (for choosing a default provider and for the settings page)."""
    return resolve_key(provider, env=env, secrets=secrets) is not None


def where_to_set(provider: str) -> str:
    names = KEY_VARS[provider]
    either = " or ".join(names)
    return (
        f'set {either} in the environment, add {names[0]} = "..." to .streamlit/secrets.toml, '
        "or paste it on the Settings page (kept for this browser session only)"
    )


def missing_key(provider: str) -> MissingKeyError:
    name = DISPLAY[provider]
    extra = ""
    if provider == "openai":
        extra = " (or set --base-url / OPENAI_BASE_URL for a local OpenAI-compatible server)"
    return MissingKeyError(f"No {name} API key: {where_to_set(provider)}{extra}.")


def rejected_key(provider: str, detail: str) -> MissingKeyError:
    """The service refused the key. Same fix as a missing key, so the same error class."""
    return MissingKeyError(f"{DISPLAY[provider]} rejected the API key ({detail}): {where_to_set(provider)}.")


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every secret replaced, so an error that echoes a key never carries it further."""
    for s in secrets:
        if s and len(s) >= 4:
            text = text.replace(s, "***")
    return text
