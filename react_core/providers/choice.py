"""A model choice: a provider and the model it runs, written ``provider[:model][+adapter]`` — ``local``,
``openai:gpt-4o-mini``, ``gemini:gemini-2.5-flash``, ``local:/models/qwen.gguf``, ``scripted:replies.json``,
``local+none`` (the on-device model without its adapter), ``local+adapters/react-hotpotqa-v1/adapter.gguf``. The one
home of that syntax, read by ``eval --models`` and the Evaluate page's models.

What follows the colon is the value of the provider's model setting (``Provider.model_option``: a model name, a GGUF
file, or for the scripted provider its script, whose replies are that "model"); nothing after it means the provider's
default. What follows ``+`` is the adapter setting of a provider that takes one (``shipped``, ``none`` or a file; the
visitor rule judges a file as it judges Settings'); without it the adapter is the settings' own, so the base model
and the fine-tuned one compare in one evaluation (``local+none`` beside ``local``).
A choice applied to run settings keeps their other connection options (Base URL) for the same provider; for another it
starts them afresh from what the environment gives that provider (``environment_settings``), as the arena's columns,
the Settings page's provider and a bootstrap teacher do: a Base URL typed for one provider is not another's.
``offered`` lists the choices a person can run without typing one: the settings' own, then each other provider that
runs as configured (a hosted one with the operator's key or endpoint, when the keys are lent). UI-free.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from react_core.base.environment import environment_value, setting_defaults
from react_core.base.errors import ConfigError
from react_core.providers import PROVIDERS, keys, model_choice_label
from react_core.providers.adapters import NONE, SHIPPED

__all__ = ["CONNECTION", "ModelChoice", "environment_settings"]

CONNECTION = ("model", "base_url", "model_path", "script")  # what a choice of another provider starts afresh
ADAPTER = "adapter"  # the setting a ``+adapter`` sets, for the providers whose options hold it


@dataclass(frozen=True)
class ModelChoice:
    provider: str
    model: str = ""  # the value of the provider's model setting; '' for its default
    adapter: str = ""  # its adapter setting ('' for the settings' own: ``shipped`` unless they say otherwise)

    @classmethod
    def parse(cls, text: str) -> ModelChoice:
        """``provider``, ``provider:model``, either with ``+adapter``; a ConfigError says what is wrong."""
        head, plus, adapter = str(text).strip().partition("+")
        name, _, model = head.partition(":")
        name, model, adapter = name.strip().lower(), model.strip(), adapter.strip()
        if name not in PROVIDERS:
            raise ConfigError(
                f"Unknown provider {name!r} in model choice {text!r}: write provider or provider:model, the provider "
                f"one of {', '.join(PROVIDERS)}."
            )
        if model and not PROVIDERS[name].model_option():
            raise ConfigError(f"{PROVIDERS[name].label} takes no model: write {name!r} alone.")
        if plus and ADAPTER not in PROVIDERS[name].options:
            raise ConfigError(f"{PROVIDERS[name].label} takes no adapter: write {head.strip()!r} without '+'.")
        if plus and not adapter:
            raise ConfigError(f"No adapter after '+' in {text!r}: write +none, +shipped or +FILE.")
        return cls(name, model, adapter)

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> ModelChoice:
        """The choice these settings make (a script given as a list of replies, as tests do, is the default's; the
        shipped adapter, the default, is written without ``+``)."""
        provider = PROVIDERS[settings["provider"]]
        option = provider.model_option()
        value = settings.get(option) if option else ""
        adapter = str(settings.get(ADAPTER) or "") if ADAPTER in provider.options else ""
        return cls(settings["provider"], value if isinstance(value, str) else "", "" if adapter == SHIPPED else adapter)

    @property
    def spec(self) -> str:
        head = f"{self.provider}:{self.model}" if self.model else self.provider
        return f"{head}+{self.adapter}" if self.adapter else head

    def changes(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """What to change in ``settings`` to run this choice: for another provider, its connection as the environment
        gives it (its own API when the environment gives it nothing), then this choice's model."""
        out: dict[str, Any] = {"provider": self.provider}
        if settings.get("provider") != self.provider:
            given = environment_settings(self.provider)
            out.update({option: given.get(option, "") for option in CONNECTION})
        option = PROVIDERS[self.provider].model_option()
        if option and self.model:
            out[option] = self.model
        if self.adapter:
            out[ADAPTER] = self.adapter
        return out

    @classmethod
    def offered(
        cls, settings: Mapping[str, Any], *, lent: bool = True, env: Mapping[str, str] | None = None
    ) -> list[str]:
        """Model choices (specs) to offer: the settings' own first, then every other provider that runs as configured
        with its default model: a hosted one when the operator's key or endpoint is set and ``lent`` (the person may
        use the operator's keys), one that needs no key when it needs no setting either (not the scripted one, which
        needs a script)."""
        own = cls.of(settings)
        found = [own.spec]
        if ADAPTER in PROVIDERS[own.provider].options:  # the same model without its adapter, or with the shipped one
            found.append(replace(own, adapter=NONE if own.adapter != NONE else SHIPPED).spec)
        for name, provider in PROVIDERS.items():
            if name == settings["provider"]:
                continue
            if provider.key_vars or provider.base_url_vars:
                ready = lent and keys.configured(provider, env=env)
            else:
                ready = provider.runs_unset
            if ready:
                found.append(name)
        return found

    def label(self, settings: Mapping[str, Any]) -> str:
        """This choice in a few words (``OpenAI · gpt-4o-mini``) when run from ``settings``, as an evaluation of
        several models names each (``model_choice_label``)."""
        return model_choice_label({**settings, **self.changes(settings)})


def environment_settings(provider: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The settings the environment gives a run of ``provider`` ({field: value} for each variable set, the provider
    itself left out). REACT_BASE_URL and REACT_MODEL mean something else to each provider that reads them, so they
    are given only to the provider REACT_PROVIDER names (``keys.configured_base_url``; REACT_MODEL to any when
    REACT_PROVIDER is unset)."""
    given = {k: v for k, v in setting_defaults(env).items() if k not in ("provider", "base_url")}
    if environment_value("REACT_PROVIDER", env) not in ("", provider):
        given.pop("model", None)
    base_url = keys.configured_base_url(provider, env)
    return {**given, "base_url": base_url} if base_url else given
