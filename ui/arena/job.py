"""An arena on a background thread: every column's events folded into a ``LiveRun`` per column that the Arena page
draws a few times a second, a Stop per column, and each column saved to the person's history and sent where the
Settings page says as it ends (the engine's ``Arena`` does the running, the tagging and the keeping). Never calls
Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from react_core import (
    Allowance,
    Arena,
    ColumnResult,
    LiveRun,
    LiveTarget,
    Preset,
    RunDone,
    RunSettings,
    Variant,
    open_history,
)
from ui.shared.job import Job


@dataclass
class ColumnSpec:
    """One column as the page gathered it: plain values captured when Run was pressed."""

    strategy: str
    settings: dict[str, Any]  # RunSettings.to_dict(), never a key
    preset: Preset | None = None  # the prompt to run (a shipped or saved preset, loaded by the page)
    api_key: str = field(default="", repr=False)  # the key typed in Settings, when this column runs that provider


@dataclass(frozen=True)
class ArenaView:
    """What the page draws of a running (or finished) arena."""

    live: list[LiveRun]
    results: list[ColumnResult | None]
    stopping: list[bool]
    done: bool


class ArenaJob(Job):
    name = "arena"

    def __init__(
        self,
        question: str,
        columns: list[ColumnSpec],
        allowance: Allowance,
        *,
        gold: str = "",
        export: LiveTarget | None = None,
    ) -> None:
        """Raises ConfigError for columns the arena cannot run (too few, too many, an unknown strategy)."""
        super().__init__(allowance)
        self.question = question
        self.columns = columns
        variants = [
            Variant(c.strategy, RunSettings.from_dict(c.settings), preset=c.preset, api_key=c.api_key) for c in columns
        ]
        self.arena = Arena(
            question,
            variants,
            gold=gold or None,
            allowance=allowance,
            store=open_history(allowance.owner),
            export=export,
        )
        self._live = [LiveRun() for _ in columns]
        self.crash: str | None = None

    def stop(self, column: int) -> None:
        self.arena.stop(column)

    def cancel(self) -> None:
        super().cancel()
        self.arena.stop_all()

    def view(self) -> ArenaView:
        with self._lock:
            return ArenaView(
                live=[live.view() for live in self._live],
                results=list(self.arena.results),
                stopping=[c.is_set() for c in self.arena.cancels],
                done=self.done,
            )

    def work(self) -> None:
        for item in self.arena.stream():
            with self._lock:
                event = item.event
                if isinstance(event, RunDone):
                    # The column's trace as saved: tagged with the arena, scored, with its history id.
                    result = self.arena.results[item.column]
                    event = RunDone(result.trace) if result is not None else event
                self._live[item.column].apply(event)

    def crashed(self, message: str) -> None:
        with self._lock:
            self.crash = message
        self.arena.stop_all()
