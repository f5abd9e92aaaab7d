"""Model providers by name: scripted, local (on-device llama.cpp), openai (and compatible servers), gemini.

``create_provider`` imports each provider's module only when it is asked for, so SDKs and llama.cpp load only
when used. Keys come from the caller, the environment or ``.streamlit/secrets.toml`` (see ``keys``). Must not
import an SDK, llama.cpp or a UI at import time.
"""

from __future__ import annotations

from typing import Any

from react_core.errors import ConfigError
from react_core.providers.base import Chunk, Completion, CompletionRequest, Provider

PROVIDERS = ("local", "openai", "gemini", "scripted")


def create_provider(name: str, **options: Any) -> Provider:
    """Build a provider. Options: model, base_url, api_key, model_path, script (path or list), delay, timeout
    (read seconds, or a (read, connect) pair), retry (a ``retry.RetryPolicy``), on_progress (local: a callable
    told about first-use preparation).

    Options a provider does not use are ignored, so callers can pass their whole settings.
    """
    if name == "scripted":
        from react_core.providers.scripted import ScriptedProvider, load_script

        script = options.get("script")
        if script is None:
            raise ConfigError("The scripted provider needs a script: --script FILE.json (or REACT_SCRIPT).")
        outputs = load_script(script) if isinstance(script, str) else list(script)
        return ScriptedProvider(outputs, delay=float(options.get("delay") or 0.0))
    if name == "local":
        from react_core.providers.local import LocalProvider

        return LocalProvider.create(**options)
    if name == "openai":
        from react_core.providers.openai_compat import OpenAIProvider

        return OpenAIProvider.create(**options)
    if name == "gemini":
        from react_core.providers.gemini import GeminiProvider

        return GeminiProvider.create(**options)
    raise ConfigError(f"Unknown provider {name!r}: choose one of {', '.join(PROVIDERS)}.")


def provider_notice(provider: Provider) -> str:
    """A line to show beside this provider's answers: the on-device demo model's warning, else ''."""
    if not provider.is_demo:
        return ""
    from react_core.providers.local import DEMO_NOTICE

    return DEMO_NOTICE


__all__ = ["PROVIDERS", "Chunk", "Completion", "CompletionRequest", "Provider", "create_provider", "provider_notice"]
