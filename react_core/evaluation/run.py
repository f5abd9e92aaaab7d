"""The one way to run an evaluation: ``EvalPlan.run``, called by ``python -m react_core eval`` / ``eval-table`` and
by the Evaluate page, with the same defaults (the paper's). ``EvalPlan`` is the plan (``plan.Plan``) with its run.

A plan names the questions (dataset files, optional indices and limit), the strategies, the output folder and how
the strategies run: the paper's budget of 7 model calls with Search and Lookup, its prompts, 21 CoT-SC samples at
temperature 0.7 and greedy decoding otherwise, unless the plan says otherwise. Which model and knowledge source
answer comes from ``plan.settings`` (the CLI's run options, the app's Settings); their budget, tools, temperature
and preset are not used. The engine builds the provider under the person's ``Allowance`` (whose keys, their call
window; the operator's on the CLI) and rate-limits it when it is hosted, writes one results file per strategy into
the folder (``results``: header + one line per question, resumable by id), lets the hybrids reuse the folder's
``react`` and ``cot-sc`` results made the same way, reports progress to a callback and stops when ``cancel`` is set
(by default the current ``react_core.base.cancel`` scope's event). Each file's header records the prompt version each
role ran, by number (``paper@best`` read as ``paper@2`` when the strategy starts), and the model it ran on; a plan with
``versions`` runs Act and ReAct once per version on the same questions, and a plan with ``models`` runs everything once
per model (versions × models × a set), a file each (``plan.EvalPlan.units``). Each model has its own provider: the
hosted ones run at once, each answering ``concurrency`` questions at a time as usual, while the on-device model (and a
script) runs its cells in turn, one question at a time. UI-free.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from react_core.base import cancel as cancel_scope
from react_core.base.errors import ConfigError
from react_core.base.folder_lock import only_run
from react_core.evaluation import results
from react_core.evaluation.data import Question
from react_core.evaluation.harness import evaluate
from react_core.evaluation.plan import (  # noqa: F401 - also read from here by the CLI, bootstrap and tests
    HOSTED_RPM,
    VERSIONED,
    Plan,
    Unit,
    check_plan,
    load_plan_questions,
    model_slug,
    strategy_config,
)
from react_core.evaluation.strategies import AGENTS, COMPONENTS, ROLES, EvalContext
from react_core.evaluation.summary import Summary
from react_core.evaluation.tasks import paper_data
from react_core.loop.settings import RunSettings, build_run_config, provider_for
from react_core.presets.store import PresetStore
from react_core.providers import PROVIDERS, model_choice_label
from react_core.providers.allowance import Allowance
from react_core.providers.base import Provider
from react_core.telemetry.live import LiveTarget

__all__ = ["EvalPlan", "EvalRun", "ProgressHandler", "VERSIONED", "resolved"]

ProgressHandler = Callable[[dict[str, Any]], None]


@dataclass
class EvalRun:
    out_dir: Path
    summaries: dict[str, Summary]
    stopped: bool  # cancelled before every strategy had every question


def _reusable(plan: Plan, strategy: str, model: str, settings: RunSettings) -> dict[str, dict[str, dict]]:
    """For a hybrid: the folder's results of its components that were made exactly as this run would make them."""
    found: dict[str, dict[str, dict]] = {}
    single = not plan.versions and len(plan.models) < 2  # else the components' files are named per version or model
    for component in COMPONENTS.get(strategy, ()) if plan.reuse and single else ():
        header, records = results.read_file(results.result_path(plan.out_dir, component))
        if header and header.get("config") == strategy_config(plan, component, model, settings=settings):
            found[component] = {r["id"]: r for r in records}
    return found


class EvalPlan(Plan):
    """An evaluation's plan (``plan.Plan``: what to evaluate and how) and the one way to run it."""

    def run(
        self,
        *,
        api_key: str | None = None,
        allowance: Allowance = Allowance.OPERATOR,
        provider: Provider | None = None,
        on_progress: ProgressHandler | None = None,
        cancel: threading.Event | None = None,
        export: LiveTarget | None = None,
    ) -> EvalRun:
        """Run every unit of the plan, model by model, and return their summaries in the plan's order (also when
        stopped).

        Each model's provider (``provider``, else the one its settings name, built under ``allowance``'s key rules)
        makes its calls within ``allowance``'s call window; ``api_key`` goes only to a model of the settings' own
        provider. Hosted models run at once, each on a thread of its own; the others (the on-device model, a script)
        run their cells in turn. Summaries are keyed by strategy, or with ``versions`` or several ``models`` by unit
        (``react@paper@2``, ``units``). Events for ``on_progress``: ``preparing`` (message), ``strategy`` (strategy,
        unit, position, of, total), then for each unit the harness's ``start`` / ``result`` / ``done``, each with
        ``strategy`` and ``unit``. A provider failure raises a ProviderError once every model has stopped and what
        finished is saved (a hosted model's failure stops only its own cells); rerunning the same plan resumes. Act
        and ReAct runs are sent to ``export`` (the operator's OpenTelemetry endpoint when None). One run at a time in
        ``out_dir``: another one there (a second terminal resuming the same folder) is refused before it writes."""
        check_plan(self)
        with only_run(Path(self.out_dir), "an evaluation writing its results"):
            return self._run_all(api_key, allowance, provider, on_progress, cancel, export)

    def _run_all(
        self,
        api_key: str | None,
        allowance: Allowance,
        provider: Provider | None,
        on_progress: ProgressHandler | None,
        cancel: threading.Event | None,
        export: LiveTarget | None,
    ) -> EvalRun:
        notify = on_progress or (lambda _e: None)
        cancel = cancel or cancel_scope.current() or threading.Event()
        questions = load_plan_questions(self)
        if not questions:
            raise ConfigError("No questions to evaluate.")
        runs = self.model_settings()
        if provider is not None and len(runs) > 1:
            raise ConfigError("A provider passed in serves one model; give several models by their settings instead.")
        units = self.units()
        summaries: dict[str, Summary] = {}
        failures: list[BaseException] = []

        def model(m: int) -> None:
            settings = runs[m]
            if cancel.is_set():
                return
            mine = [(position, unit) for position, unit in enumerate(units, 1) if unit.model == m]
            key = api_key if settings.provider == self.settings.provider else None  # a key goes only to its provider
            built = provider or allowance.build(
                lambda: provider_for(
                    settings, api_key=key, on_progress=lambda message: notify({"kind": "preparing", "message": message})
                )
            )
            try:
                # A visitor's own call window is never exceeded by the pace (it would refuse the call, failing a
                # question).
                rpm = self.rpm if allowance.window is None else min(self.rpm, allowance.window.per_minute)
                limited = allowance.limit(built)
                summaries.update(
                    _run(self, settings, questions, limited, rpm, mine, len(units), notify, cancel, export)
                )
            finally:
                if provider is None and not built.shared:
                    built.close()

        def on_thread(m: int) -> None:
            try:
                with allowance.keys():  # the job's key rules hold on this thread too
                    model(m)
            except BaseException as e:  # reported once every model has stopped
                failures.append(e)

        at_once = [m for m, s in enumerate(runs) if len(runs) > 1 and PROVIDERS[s.provider].hosted]
        threads = [threading.Thread(target=on_thread, args=(m,), name=f"react-eval-model-{m}") for m in at_once]
        for t in threads:
            t.start()
        try:
            for m in range(len(runs)):
                if m not in at_once:
                    model(m)
        except KeyboardInterrupt:
            cancel.set()  # the hosted models' questions under way stop too
            raise
        finally:
            for t in threads:
                t.join()
        if failures:
            raise failures[0]
        summaries = {u.key: summaries[u.key] for u in units if u.key in summaries}
        stopped = any(not s.complete for s in summaries.values()) or len(summaries) < len(units)
        return EvalRun(Path(self.out_dir), summaries, stopped)


def _run(
    plan: Plan,
    settings: RunSettings,
    questions: list[Question],
    provider: Provider,
    rpm: float,
    units: list[tuple[int, Unit]],
    of: int,
    notify: ProgressHandler,
    cancel: threading.Event,
    export: LiveTarget | None,
) -> dict[str, Summary]:
    """One model's units, in turn; a hosted model's calls at most ``rpm`` a minute, at its key's pace."""
    model = provider.model or settings.model
    if provider.hosted:
        from react_core.providers.rate_limit import RateLimited

        provider = RateLimited(provider, rpm)  # type: ignore[assignment]
    run_settings = plan.run_settings(settings)
    store = PresetStore(plan.owner)
    if any(s in AGENTS for s in plan.strategies):
        build_run_config(
            run_settings, preset=store.load(plan.role_presets()["react"]), provider=provider
        )  # fails now on a missing pack, not after the first questions
    question_record = {
        "datasets": [Path(d).name for d in plan.datasets],
        "indices": Path(plan.indices).name if plan.indices else None,
        "limit": plan.limit,
        "n": len(questions),
        "paper_data": paper_data(plan.datasets),  # whether the paper's Table 1 column belongs beside these results
    }
    summaries: dict[str, Summary] = {}
    for position, unit in units:
        if cancel.is_set():
            break
        key, strategy, presets = unit.key, unit.strategy, unit.presets
        # Each role's prompt by its number, read now: a label moved during the run changes nothing, and the header
        # says which version ran even when the plan named a label or the newest.
        versions = {role: resolved(store, presets[role]) for role in ROLES[strategy]}
        ctx = EvalContext(
            settings=run_settings,
            provider=provider,
            samples=plan.samples,
            sc_temperature=plan.sc_temperature,
            presets={**presets, **versions},
            cancel=cancel,
            owner=plan.owner,
            export=export if export is not None else LiveTarget(),
        )
        notify(
            {
                "kind": "strategy",
                "strategy": strategy,
                "unit": key,
                "position": position,
                "of": of,
                "total": len(questions),
            }
        )
        header = {
            "strategy": strategy,
            "created_at": results.now(),
            "questions": question_record,
            "config": strategy_config(plan, strategy, model, presets, settings),
            "versions": versions,
            "model": model_choice_label(settings.to_dict()),
        }
        summaries[key] = evaluate(
            questions,
            strategy,
            ctx,
            plan.path(key),
            header=header,
            known=_reusable(plan, strategy, model, settings),
            concurrency=plan.concurrency,
            task=plan.the_task(),
            on_progress=lambda e, s=strategy, k=key: notify({**e, "strategy": s, "unit": k}),
        )
    return summaries


def resolved(store: PresetStore, ref: str) -> str:
    """A prompt's address with its number (``paper@best`` -> ``paper@2``); a file given by path stays its path."""
    return store.load(ref).ref or ref
