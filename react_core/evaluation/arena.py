"""The arena: one question, 2 to 4 variants (a strategy, a prompt, a provider and model, a temperature) side by side.

Each column runs on its own thread with its own Stop, and yields the loop's events tagged with its column
(``ColumnEvent``), so a page can draw every column as the chat draws a turn. Hosted providers overlap; the on-device
model serves the columns in turn through its own lock (its calls wait there, under the column's Stop) while the
others stream. Each column is a run of the run service (``loop.service``): Act and ReAct run the agent as the
evaluation does, Standard and CoT answer in one call through the evaluation's own strategy code, so a column's trace is
the one Evaluate would produce for that question. Its trace records the arena's id and its column (settings ``arena``,
``arena_column``); when it ends it is kept like every run (its expected answer: the gold answer given, else the one
a known HotpotQA question has, as a chat run's is found; saved to the history as an ordinary run with origin ``arena``
when a store is given; sent to the live OpenTelemetry endpoint) and scored: the grounding check, exact match and F1
against the expected answer when there is one. ``Variant.figure_one`` sets the paper's budget (``PAPER_REACT_STEPS``
model calls). ``Arena.line_up`` and ``first_difference`` line the columns' steps up row by row and find the first row
where their actions differ; ``Variant.label`` names a column's variant and ``ColumnResult.figures`` says its scores and
totals, for the app's view and the HTML export alike. UI-free.
"""

from __future__ import annotations

import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from react_core.base import cancel as cancellation
from react_core.base.answers import exact_match, f1_score, normalize_answer
from react_core.base.errors import ConfigError
from react_core.base.events import Event, RunDone, StepDone, StepStarted, TextDelta
from react_core.base.text import plural
from react_core.base.trace import Step, Trace
from react_core.evaluation.paper import STRATEGY_LABELS
from react_core.evaluation.strategies import (
    DEFAULT_PRESETS,
    PAPER_REACT_STEPS,
    ROLE_MODES,
    EvalContext,
    role_presets,
    run_direct,
)
from react_core.history.records import ARENA_ORIGIN
from react_core.loop.keeping import Keeping
from react_core.loop.service import Run, RunRequest
from react_core.loop.settings import RunSettings
from react_core.presets.preset import Preset, load_preset
from react_core.providers import PROVIDERS
from react_core.providers.allowance import Allowance
from react_core.providers.base import Provider
from react_core.report.edits import Edit, hand_edits
from react_core.report.expected import score_line
from react_core.report.grounding import Grounding, check_grounding
from react_core.telemetry.live import LiveTarget

__all__ = [
    "Arena",
    "ColumnEvent",
    "ColumnResult",
    "DIFFERENCE_MARK",
    "DIRECT",
    "Variant",
    "check_variants",
    "first_difference",
]

DIRECT = ("standard", "cot")  # answer in one call, no tools
DIFFERENCE_MARK = "First difference"  # the words that mark the row where the columns' actions part


@dataclass
class Variant:
    """One column: a strategy, the settings of its run (provider, model, temperature, dialect, preset, tools, …) and
    optionally a prompt to run instead of the named preset (a saved or edited one). ``provider``: a provider object to
    use instead of building one from the settings (a test's scripted provider). ``api_key``: the person's key for
    this column's provider (a key typed for one provider never goes to another)."""

    strategy: str = "react"
    settings: RunSettings = field(default_factory=RunSettings)
    preset: Preset | None = None
    provider: Provider | None = None
    api_key: str = field(default="", repr=False)  # for this column's provider only; never recorded

    def preset_name(self) -> str:
        """The prompt this column runs: the given one, else the settings' preset, else the strategy's paper prompt."""
        if self.preset is not None:
            return self.preset.name
        return self.settings.preset or DEFAULT_PRESETS[self.strategy]

    def budget(self) -> str:
        """The model calls this column may make: ``one model call`` for Standard and CoT, ``at most 7 model calls``."""
        return _run_budget({"strategy": self.strategy, "max_calls": self.settings.max_calls})

    @classmethod
    def figure_one(cls, settings: RunSettings, *, max_calls: int = PAPER_REACT_STEPS) -> list[Variant]:
        """The paper's Figure 1 on one model: Standard, CoT, Act and ReAct with the paper's HotpotQA prompts (a model
        whose adapter learned a prompt runs that one for the role it plays: ``role_presets``), greedy, Act and ReAct on
        the paper's budget (7 model calls, its notebook's steps) rather than the chat's."""
        prompts = role_presets(settings.to_dict())
        return [
            cls(strategy, replace(settings, dialect="", preset=prompts[strategy], temperature=0.0, max_calls=max_calls))
            for strategy in Arena.STRATEGIES
        ]

    @staticmethod
    def label(settings: dict[str, Any]) -> str:
        """A column's variant in a few words, from the settings its run recorded: strategy, model, prompt (its version,
        ``paper@2``, when the run recorded one), temperature and the budget it ran with."""
        strategy = STRATEGY_LABELS.get(str(settings.get("strategy", "")), "Chat")
        try:
            model = PROVIDERS[settings["provider"]].model_label(settings) if settings.get("provider") else "?"
        except ConfigError:  # a trace from elsewhere, naming a provider this app does not have
            model = str(settings.get("model") or settings.get("provider"))
        prompt = settings.get("prompt_version") or settings.get("preset", "?")
        label = f"{strategy} · {model} · {prompt} · temperature {settings.get('temperature', '?')}"
        spent = _run_budget(settings)
        return f"{label} · {spent}" if spent else label


@dataclass(frozen=True)
class ColumnEvent:
    """An event of one column's run (``column`` counts from 0)."""

    column: int
    event: Event


@dataclass
class ColumnResult:
    """How one column ended: its trace, scores and whether it was saved."""

    column: int
    trace: Trace
    seconds: float  # the column's wall time
    grounding: Grounding | None = None
    em: float | None = None  # exact match and F1 against the expected answer, when there is one
    f1: float | None = None
    history_id: int | None = None
    save_error: str | None = None
    edits: list[Edit] = field(default_factory=list)  # the steps a person changed (``react_core.report.edits``)

    @classmethod
    def of(
        cls, trace: Trace, column: int, seconds: float | None = None, history_id: int | None = None, record: Any = None
    ) -> ColumnResult:
        """A finished run as a column: the grounding check, EM and F1 against its expected answer when it has one, and
        a person's edits (``record``: its history row, which knows a fork's). A saved run opened again takes its time
        from its steps."""
        took = trace.totals["seconds"] if seconds is None else seconds
        result = cls(column, trace, round(took, 6), history_id=history_id)
        origin = getattr(record, "origin", "")
        result.edits = hand_edits(trace, getattr(record, "fork_step", None), origin)
        if trace.final_answer is not None:
            result.grounding = check_grounding(trace)
        gold = trace.expected_answer
        if gold is not None:
            result.em, result.f1 = exact_match(trace.final_answer, gold), f1_score(trace.final_answer, gold)
        return result

    @property
    def steps(self) -> int:
        return len(self.trace.steps)

    @property
    def tokens(self) -> int:
        return int(self.trace.totals["tokens"])

    def figures(self) -> str:
        """The column's footer line: ``EM 1 · F1 1.00 · 2 steps · 310 tokens · 1.4 s`` (EM and F1 only when an
        expected answer is known)."""
        scores = f"{score_line(self.em, self.f1)} · " if self.em is not None and self.f1 is not None else ""
        return f"{scores}{plural(self.steps, 'step')} · {plural(self.tokens, 'token')} · {self.seconds:.1f} s"


def _run_budget(settings: dict[str, Any]) -> str:
    """The model calls a run could make: ``one model call`` for Standard and CoT (they answer at once), ``at most 7
    model calls`` for the others; '' when the run did not record its budget (a trace from elsewhere)."""
    if settings.get("strategy") in DIRECT:
        return "one model call"
    calls = settings.get("max_calls")
    return f"at most {plural(calls, 'model call')}" if isinstance(calls, int) and calls > 0 else ""


def check_variants(variants: Sequence[Variant]) -> None:
    if not Arena.MIN_COLUMNS <= len(variants) <= Arena.MAX_COLUMNS:
        raise ConfigError(f"An arena has {Arena.MIN_COLUMNS} to {Arena.MAX_COLUMNS} columns (got {len(variants)}).")
    for v in variants:
        if v.strategy not in Arena.STRATEGIES:
            raise ConfigError(f"Unknown arena strategy {v.strategy!r}: choose one of {', '.join(Arena.STRATEGIES)}.")


class Arena:
    """One question run in every column at once. ``stream()`` starts the columns and yields their events as they
    come, each column's ending with ``RunDone``; ``stop(column)`` stops one, ``stop_all()`` every one; ``results``
    holds each column's ``ColumnResult`` once it has ended."""

    STRATEGIES = ("standard", "cot", "act", "react")  # the paper's Figure 1, in its order
    MIN_COLUMNS, MAX_COLUMNS = 2, 4

    @staticmethod
    def line_up(columns: Sequence[Sequence[Step]]) -> list[list[Step | None]]:
        """The columns' steps as rows: row k holds each column's k-th step, or None where a column has fewer."""
        rows = max((len(c) for c in columns), default=0)
        return [[c[k] if k < len(c) else None for c in columns] for k in range(rows)]

    def __init__(
        self,
        question: str,
        variants: Sequence[Variant],
        *,
        gold: str | None = None,
        arena_id: str | None = None,
        allowance: Allowance = Allowance.OPERATOR,
        store: Any = None,
        export: LiveTarget | None = None,
    ) -> None:
        """``store``: the history each column is saved to (None: not saved); ``export``: where the columns are sent
        (the operator's OpenTelemetry endpoint when None)."""
        check_variants(variants)
        self.question = question
        self.variants = list(variants)
        self.gold = gold.strip() if gold and gold.strip() else None
        self.id = arena_id or uuid.uuid4().hex[:16]
        self.allowance = allowance
        self.store = store
        self.export = export if export is not None else LiveTarget()
        self.cancels = [threading.Event() for _ in self.variants]
        self.results: list[ColumnResult | None] = [None] * len(self.variants)

    def stop(self, column: int) -> None:
        self.cancels[column].set()

    def stop_all(self) -> None:
        for c in self.cancels:
            c.set()

    def stream(self) -> Iterator[ColumnEvent]:
        """Every column's events as they come (the order within a column is kept), until every column has ended."""
        events: queue.SimpleQueue[ColumnEvent] = queue.SimpleQueue()
        threads = [
            threading.Thread(target=self._column, args=(n, events.put), name=f"react-arena-{n}", daemon=True)
            for n in range(len(self.variants))
        ]
        for t in threads:
            t.start()
        running = len(threads)
        while running:
            item = events.get()
            if isinstance(item.event, RunDone):
                running -= 1
            yield item

    def run(self) -> list[ColumnResult]:
        for _ in self.stream():
            pass
        return [r for r in self.results if r is not None]

    # -- one column, on its own thread ---------------------------------------------------------------------------

    def _column(self, n: int, emit: Callable[[ColumnEvent], None]) -> None:
        started = time.perf_counter()
        variant = self.variants[n]
        request = RunRequest(
            self.question,
            variant.settings.unattended(dialect="", preset=variant.preset_name()),
            preset=variant.preset,
            api_key=variant.api_key or None,
            provider=variant.provider,
            recorded={"strategy": variant.strategy, "arena": self.id, "arena_column": n + 1},
            allowance=self.allowance,
            cancel=self.cancels[n],
            keep_provider=False,  # built for this column alone
        )
        keeping = Keeping(store=self.store, origin=ARENA_ORIGIN, expected=self.gold, export=self.export)
        answer = self._direct(n, variant, emit) if variant.strategy in DIRECT else None
        run = Run(request, keeping, answer=answer)
        with self.allowance.keys(), cancellation.scope(self.cancels[n]):
            for event in run:
                if not isinstance(event, RunDone):
                    emit(ColumnEvent(n, event))
        assert run.trace is not None
        result = ColumnResult.of(run.trace, n, time.perf_counter() - started, history_id=run.run_id)
        result.save_error = run.save_error or None
        self.results[n] = result
        emit(ColumnEvent(n, RunDone(result.trace)))

    def _direct(
        self, n: int, variant: Variant, emit: Callable[[ColumnEvent], None]
    ) -> Callable[[Provider], Iterator[Event]]:
        """Standard or CoT as the evaluation runs it: one completion, one step with the answer; its text is emitted
        as it arrives, as an agent column's is."""

        def answer(provider: Provider) -> Iterator[Event]:
            preset = variant.preset or load_preset(variant.preset_name())
            wanted = ROLE_MODES[variant.strategy]
            if preset.mode != wanted:
                raise ConfigError(
                    f"Preset {preset.name!r} is a {preset.mode} prompt; "
                    f"the {variant.strategy} strategy needs a {wanted} one."
                )
            ctx = EvalContext(
                settings=variant.settings,
                provider=provider,
                presets={variant.strategy: preset.name},
                cancel=self.cancels[n],
                on_text=lambda delta, text: emit(ColumnEvent(n, TextDelta(1, delta, text))),
            )
            ctx._loaded[preset.name] = preset  # the given prompt, not a file of the same name
            yield StepStarted(1)
            trace = run_direct(self.question, ctx, variant.strategy).trace
            for step in trace.steps:
                yield StepDone(step)
            yield RunDone(trace)

        return answer


# -- steps lined up ----------------------------------------------------------------------------------------------


def _move(step: Step | None) -> tuple:
    """What a step did, for comparing columns: its action (tool and input, case and spacing aside), its answer, or
    nothing readable."""
    if step is None:
        return ("none",)
    if step.final_answer is not None:
        return ("finish", normalize_answer(step.final_answer))
    if step.action is not None:
        return ("action", step.action.tool, " ".join(step.action.input.lower().split()))
    return ("unreadable",)


def first_difference(columns: Sequence[Sequence[Step]]) -> int | None:
    """The first row (0-based) where the columns' actions differ (a column that has no step there differs too); None
    when every row agrees or there is only one column."""
    if len(columns) < 2:
        return None
    for k, row in enumerate(Arena.line_up(columns)):
        if len({_move(s) for s in row}) > 1:
            return k
    return None
