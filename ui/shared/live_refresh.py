"""How often a running turn or arena is redrawn by its live fragment: one home for the Chat and Arena pages.

Each redraw costs the server and the browser CPU (Chromium's share is most of it: docs/benchmarks.md, chat and arena
pages). With the on-device model computing on the same cores, that CPU is the model's: redrawing three times a
second made a watched Figure 1 take about twice as long as the same columns unwatched, so a run whose model computes
here is redrawn once a second.
"""

from __future__ import annotations

from collections.abc import Iterable

from react_core import PROVIDERS

LIVE_REFRESH_SECONDS = 0.3
ON_DEVICE_REFRESH_SECONDS = 1.0
# Until a turn's first text is on the screen the fragment looks more often (the wait for the first thought is the one
# a person notices), then a full rerun sets it back.
FIRST_TEXT_REFRESH_SECONDS = 0.1


def refresh_seconds(providers: Iterable[str], *, waiting_for_text: bool = False) -> float:
    """A run of these providers: redrawn quickly until its first text, then slower when a model computes here."""
    if waiting_for_text:
        return FIRST_TEXT_REFRESH_SECONDS
    here = any(PROVIDERS[name].computes_here for name in providers)
    return ON_DEVICE_REFRESH_SECONDS if here else LIVE_REFRESH_SECONDS
