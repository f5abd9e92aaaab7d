"""Run one question: the entry point for the command line and a person's own script.

``stream`` builds the run (provider, prompt, tools, knowledge) from plain settings through the run service
(``loop.service``) and yields the loop's events, the last being ``RunDone``; ``ask`` returns the Trace. Like every run,
it gets its expected answer and is sent to the live OpenTelemetry endpoint when the operator names one; a script saves
it itself (``open_history().save``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence

from react_core.base.events import Event, final_trace
from react_core.base.trace import Exchange, Trace
from react_core.loop.service import Run, RunRequest
from react_core.loop.settings import RunSettings
from react_core.presets.preset import Preset
from react_core.providers.base import Provider

__all__ = ["ask", "stream"]


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
