"""Run one question: the entry point for the command line and a person's own script.

``stream`` builds the run (provider, prompt, tools, knowledge) from plain settings through the run service
(``loop.service``) and yields the loop's events, the last being ``RunDone``; ``ask`` returns the Trace. Like every run,
it gets its expected answer and is sent to the live OpenTelemetry endpoint when the operator names one; a script saves
it itself (``open_history().save``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from react_core.base.events import Event, final_trace
from react_core.base.trace import Exchange, Trace
from react_core.loop.service import Run, RunRequest
from react_core.loop.settings import RunSettings
from react_core.presets.preset import Preset
from react_core.providers.base import Provider

__all__ = ["ask", "stream", "warm_up"]


def stream(
    question: str,
    settings: RunSettings | None = None,
    *,
    preset: Preset | None = None,
    api_key: str | None = None,
    provider: Provider | None = None,
    context: Sequence[Exchange] = (),
    cancel: threading.Event | None = None,
) -> Iterator[Event]:
    """The run of ``question`` as events. ``settings``: the environment's defaults when None (``RunSettings.from_env``).
    A configuration that cannot run (a missing key, an unknown preset) raises before the first event."""
    request = RunRequest(
        question, settings, preset=preset, api_key=api_key, provider=provider, context=context, cancel=cancel
    )
    run = Run(request)
    run.prepare()
    return iter(run)


def ask(question: str, settings: RunSettings | None = None, **options) -> Trace:
    """The Trace of ``question`` (``stream`` read to its end)."""
    return final_trace(stream(question, settings, **options))


def warm_up(settings: RunSettings, preset: Preset, question: str = "") -> Any:
    """Get the fixed prefix of ``preset`` (instructions and examples, with the enabled tools) ready on the model these
    settings name, in the background, and then as much of ``question``'s first step as can be read before it is asked
    (the question a person is likely to ask first: the Chat page's first example): the handle of the warm-up
    (``Provider.warm``), or None when that provider has nothing to prepare or cannot be built. Never loads an SDK:
    only providers that warm (``Provider.warms``) are built, and building the on-device one is cheap (the model loads
    in the background)."""
    from react_core.base.errors import ReactLabError
    from react_core.loop.settings import provider_for
    from react_core.presets.render import render_first_prompt, render_prefix
    from react_core.providers import provider_class

    if not provider_class(settings.provider).warms:
        return None
    try:
        provider = provider_for(settings, on_progress=lambda _message: None)
    except ReactLabError:
        return None  # a missing model file: the run will say so
    tools = list(settings.tools)
    ahead = render_first_prompt(preset, tools, question) if question.strip() else ""
    return provider.warm(render_prefix(preset, tools), ahead)
