"""The providers by name: scripted, local (on-device llama.cpp), openai (and compatible servers), gemini.

Each provider class describes itself (``Provider``'s class attributes: label, key variables, hosted, shared, …, and
its classmethods: the model label, which dialects it speaks), so the rest of the project asks the class
(``PROVIDERS[name]``) instead of comparing names. Importing this package imports the provider modules,
which import their SDKs and llama.cpp only when a provider is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from react_core.base.errors import ConfigError
from react_core.providers import keys
from react_core.providers.base import Chunk, CompletionRequest, Provider
from react_core.providers.gemini import GeminiProvider
from react_core.providers.local import LocalProvider
from react_core.providers.openai_compat import OpenAIProvider
from react_core.providers.scripted import ScriptedProvider


class _Registry(dict[str, type[Provider]]):
    """The provider classes by name, in the order menus list them; an unknown name is a ConfigError naming them."""

    def __missing__(self, name: str) -> type[Provider]:
        raise ConfigError(f"Unknown provider {name!r}: choose one of {', '.join(self)}.")


PROVIDERS = _Registry((cls.name, cls) for cls in (LocalProvider, OpenAIProvider, GeminiProvider, ScriptedProvider))
# Without REACT_PROVIDER, the first hosted provider that is configured runs; else the on-device model.
AUTO_ORDER = (GeminiProvider, OpenAIProvider)
FALLBACK = LocalProvider


def create_provider(name: str, **options: Any) -> Provider:
    """Build a provider. Options: model, base_url, api_key, model_path, script (path or list), delay, timeout
    (read seconds, or a (read, connect) pair), retry (a ``retry.RetryPolicy``), on_progress (local: a callable
    told about first-use preparation). Options a provider does not use are ignored, so callers can pass all."""
    return PROVIDERS[name].create(**options)


def model_choice_label(settings: Mapping[str, Any]) -> str:
    """A provider and its model in a few words (``OpenAI · gpt-4o-mini``, ``Scripted · a.json``): how an evaluation
    of several models names each one, in its tables, its progress and its results files' headers."""
    cls = PROVIDERS[settings["provider"]]
    return f"{cls.label} · {cls.model_label(settings)}"


def default_provider_name(env: Mapping[str, str] | None = None) -> str:
    """The first hosted provider with a key (or endpoint) configured, else the on-device model."""
    for cls in AUTO_ORDER:
        if keys.configured(cls, env=env):
            return cls.name
    return FALLBACK.name


__all__ = [
    "PROVIDERS",
    "Chunk",
    "CompletionRequest",
    "Provider",
    "create_provider",
    "default_provider_name",
    "model_choice_label",
]
