"""The settings a recorded run goes on with: a paused run resumed, a retry, a fork, a re-ask with a similar title.

Its earlier steps were written by its model, in its dialect, under its prompt; going on from them with other settings
would make a run of two models or two dialects. A trace records the provider, model, dialect, prompt (its name and,
for a saved one, its version, ``paper@2``, which never changes), temperature, budget, knowledge, tools, whether
decoding was constrained, and its breakpoints; never the connection (Base URL, model file, script), which comes from
the settings the run goes on under: the person's session, or the environment's for the run's own provider. A Base URL
given for another provider is never this one's (``ModelChoice.changes``): it would get this provider's key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from react_core.base.call_records import CallTexts
from react_core.base.errors import ConfigError
from react_core.base.trace import Trace
from react_core.loop.settings import RunSettings
from react_core.presets.preset import Preset
from react_core.presets.render import render_prefix, render_question
from react_core.providers import PROVIDERS
from react_core.providers.choice import ModelChoice

__all__ = ["GOES_ON_WITH", "Recorded"]

GOES_ON_WITH = ("temperature", "max_calls", "knowledge", "tools")  # besides its provider, model, prompt and grammar


@dataclass(frozen=True)
class Recorded:
    """What the run ``trace`` records goes on with: its settings over a person's or the environment's, and the prompt
    that wrote its calls."""

    trace: Trace

    def settings(self, base: Mapping[str, Any]) -> dict[str, Any]:
        """``base`` (``RunSettings.to_dict()``) with the model and the settings the trace ran with; its prompt and its
        breakpoints are the caller's to choose. A provider this app does not have leaves ``base``'s."""
        recorded = self.trace.settings
        values = dict(base)
        provider = recorded.get("provider")
        if provider in PROVIDERS:
            values.update(ModelChoice(provider).changes(values))
            if "model" in PROVIDERS[provider].options and "model" in recorded:
                values["model"] = recorded["model"]
        values.update({name: recorded[name] for name in GOES_ON_WITH if name in recorded})
        values["grammar"] = bool(recorded.get("grammar", False))  # recorded only when decoding was constrained
        return values

    def prompt(self, candidates: Iterable[Preset], tools: list[str]) -> Preset | None:
        """The first of ``candidates`` that wrote the trace's calls: in the run's dialect (paper when it records none),
        rendering with ``tools`` exactly the system prompt of its first recorded call and the question its prompt starts
        with; the first in its dialect when it recorded no call (it failed before its first). None when none did."""
        trace = self.trace
        dialect = trace.settings.get("dialect") or "paper"
        sent = next((t for t in CallTexts.of(trace.steps) if t is not None), None)
        for preset in candidates:
            if preset.dialect != dialect:
                continue
            if sent is None:
                return preset
            question = render_question(preset, trace.question, trace.context)
            if render_prefix(preset, tools, trace.question) == sent.system and sent.prompt.startswith(question):
                return preset
        return None

    def cannot_go_on(self, why: Exception | str) -> ConfigError:
        """The one message for a paused run whose own settings cannot be built here."""
        provider, model = self.trace.settings.get("provider", "?"), self.trace.settings.get("model") or "default"
        return ConfigError(
            f"This paused run cannot go on here with its own settings (provider {provider!r}, model {model!r}): {why} "
            "Nothing is lost: it stays paused in History, ready to resume once that is fixed."
        )

    def run_settings(self, base: RunSettings | None = None) -> RunSettings:
        """Everything a paused run goes on with: what the trace recorded (its exact prompt version, its breakpoints), on
        top of ``base`` (the environment's for its provider when None). A provider this app does not have is kept, so
        building the run says so."""
        recorded = self.trace.settings
        provider = str(recorded.get("provider") or "")
        base = base or RunSettings.from_env(provider=provider if provider in PROVIDERS else None)
        values = self.settings(base.to_dict())
        if provider and provider not in PROVIDERS:
            values["provider"] = provider
        prompt = recorded.get("prompt_version") or recorded.get("preset")
        values.update(
            {
                **({"dialect": recorded["dialect"]} if "dialect" in recorded else {}),
                **({"preset": prompt} if prompt else {}),
                **({"pause_before": recorded["pause_before"]} if "pause_before" in recorded else {}),
            }
        )
        return RunSettings.from_dict(values)
