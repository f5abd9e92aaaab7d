"""The providers by name: scripted, local (on-device llama.cpp), openai (and compatible servers), gemini.

Each provider class describes itself (``Provider``'s class attributes: label, key variables, hosted, shared, …), so the
rest of the project asks the class instead of comparing names. Importing this package imports the provider modules,
which import their SDKs and llama.cpp only when a provider is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from react_core.base.errors import ConfigError
from react_core.providers import keys
from react_core.providers.base import Chunk, CompletionRequest, Provider
from react_core.providers.gemini import GeminiProvider
from react_core.providers.local import LocalProvider
from react_core.providers.openai_compat import OpenAIProvider
from react_core.providers.scripted import ScriptedProvider

# In the order menus list them.
CATALOGUE: dict[str, type[Provider]] = {
    cls.name: cls for cls in (LocalProvider, OpenAIProvider, GeminiProvider, ScriptedProvider)
}
PROVIDERS = tuple(CATALOGUE)
# Without REACT_PROVIDER, the first hosted provider that is configured runs; else the on-device model.
AUTO_ORDER = (GeminiProvider, OpenAIProvider)
FALLBACK = LocalProvider


def provider_class(name: str) -> type[Provider]:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise ConfigError(f"Unknown provider {name!r}: choose one of {', '.join(PROVIDERS)}.") from None


def create_provider(name: str, **options: Any) -> Provider:
    """Build a provider. Options: model, base_url, api_key, model_path, script (path or list), delay, timeout
    (read seconds, or a (read, connect) pair), retry (a ``retry.RetryPolicy``), on_progress (local: a callable
    told about first-use preparation). Options a provider does not use are ignored, so callers can pass all."""
    return provider_class(name).create(**options)


def unspoken(provider: type[Provider] | Provider, dialect: str) -> str:
    """Why a provider cannot run a dialect ('' when it can): the ``tools`` dialect (native tool calls) needs a
    provider with ``native_tools``. The one home of the rule: the loop refuses such a run with this reason, and the
    Settings page offers a preset only when its dialect is spoken."""
    from react_core.dialects import get_dialect

    if provider.native_tools or not get_dialect(dialect).native_tools:
        return ""
    return (
        f"{provider.label} cannot call tools natively, so it cannot run the {dialect!r} dialect: choose a text "
        "dialect (paper, gemini-xml, langchain-json, pause, function-call), or a Gemini or OpenAI provider."
    )


def speaks(provider_name: str, dialect: str) -> bool:
    return not unspoken(provider_class(provider_name), dialect)


MODEL_OPTIONS = ("model", "model_path", "script")  # the settings that can say which model a provider runs


def model_option(cls: type[Provider]) -> str:
    """The setting that names this provider's model: a model name, a GGUF file, or (scripted) the script, whose
    outputs are that "model"; '' when it has none."""
    return next((o for o in MODEL_OPTIONS if o in cls.options), "")


def model_label(settings: Mapping[str, Any]) -> str:
    """The model these settings run (or a trace's settings ran), as a person reads it; decided without building the
    provider. The one home of this label: the sidebar, the Evaluate page, a run's header and the fork form use it.
    A file (a GGUF model, a script) is named by its file name."""
    cls = provider_class(settings["provider"])
    own = cls.label_for(settings)
    if own:
        return own
    option = model_option(cls)
    value = settings.get(option) if option else None
    if value and isinstance(value, str | Path):
        return str(value) if option == "model" else Path(value).name
    return cls.default_model or "provider default"


def model_choice_label(settings: Mapping[str, Any]) -> str:
    """A provider and its model in a few words (``OpenAI · gpt-4o-mini``, ``Scripted · a.json``): how an evaluation
    of several models names each one, in its tables, its progress and its results files' headers."""
    return f"{provider_class(settings['provider']).label} · {model_label(settings)}"


def default_provider_name(env: Mapping[str, str] | None = None) -> str:
    """The first hosted provider with a key (or endpoint) configured, else the on-device model."""
    for cls in AUTO_ORDER:
        if keys.configured(cls, env=env):
            return cls.name
    return FALLBACK.name


__all__ = [
    "CATALOGUE",
    "PROVIDERS",
    "Chunk",
    "CompletionRequest",
    "Provider",
    "create_provider",
    "default_provider_name",
    "provider_class",
    "model_choice_label",
    "model_label",
    "model_option",
    "speaks",
    "unspoken",
]
