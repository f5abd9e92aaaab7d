"""One strategy's results in figures: EM, F1, how the episodes ended (a count per stop reason), steps and seconds.

The stop reasons are the trace's (``react_core.base.trace.STOP_REASONS``); a results file only ever holds the ones in
``Summary.ENDINGS`` (a failed or stopped question is not written), and every table shows all of them, so ``context``
(the prompt outgrew the model's context window) is visible even when it is 0. UI-free.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from react_core.base.trace import STOP_REASONS

__all__ = ["Summary", "summarize"]


@dataclass
class Summary:
    # The stop reasons every summary counts, 0 included (an evaluation never pauses); an answer asked for after the
    # steps ended (``answered_at_stop``) only under early_stopping="generate", so it shows only when it occurs.
    ENDINGS: ClassVar[tuple[str, ...]] = tuple(
        r for r in STOP_REASONS if r not in ("error", "cancelled", "paused", "answered_at_stop")
    )

    n: int
    em: float
    f1: float
    finished: float
    well_formed: float
    avg_steps: float
    avg_seconds: float
    # Episodes per stop reason (every reason of ENDINGS, 0 included).
    ended: dict[str, int] = field(default_factory=lambda: dict.fromkeys(Summary.ENDINGS, 0))
    # Questions the evaluation set out to answer (0 when unknown): n < planned means it stopped early.
    planned: int = 0

    def line(self, metric: str = "EM", f1: bool = True) -> str:
        """``EM 27.4  F1 36.2  n=500``; a FEVER line is ``accuracy 60.9  n=500`` (its F1 is the same figure)."""
        return f"{metric} {self.em * 100:.1f}  " + (f"F1 {self.f1 * 100:.1f}  " if f1 else "") + f"n={self.n}"

    def ended_line(self) -> str:
        return "ended: " + ", ".join(f"{reason} {count}" for reason, count in self.ended.items())

    @property
    def complete(self) -> bool:
        return self.n >= self.planned

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "ended": dict(self.ended)}


def summarize(results: Iterable[dict], planned: int = 0) -> Summary:
    results = list(results)
    n = len(results)
    counts = Counter(r["stop_reason"] for r in results)
    ended = {reason: counts.get(reason, 0) for reason in Summary.ENDINGS}
    ended.update({reason: c for reason, c in counts.items() if reason not in ended})  # an unknown reason still shows
    if not n:
        return Summary(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, ended, planned)
    steps = [s for r in results for s in r["trace"]["steps"]]
    ok = sum(1 for s in steps if not (s.get("observation") or {}).get("is_error"))
    return Summary(
        n=n,
        em=sum(r["em"] for r in results) / n,
        f1=sum(r["f1"] for r in results) / n,
        finished=ended["finished"] / n,
        well_formed=ok / len(steps) if steps else 0.0,
        avg_steps=sum(r["steps"] for r in results) / n,
        avg_seconds=sum(r["seconds"] for r in results) / n,
        ended=ended,
        planned=planned,
    )
