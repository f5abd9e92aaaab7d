"""The one way to run an evaluation: ``run_evaluation(plan)``, called by ``python -m react_core eval`` /
``eval-table`` and by the Evaluate page, with the same defaults (the paper's).

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
per model (versions × models × a set), a file each. The models run one after another, each with its own provider:
a hosted one answers ``concurrency`` questions at once as usual, the on-device model one question at a time. UI-free.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from react_core.base import cancel as cancel_scope
from react_core.base.errors import ConfigError
from react_core.evaluation import results
from react_core.evaluation.data import Question, load_indices
from react_core.evaluation.harness import evaluate
from react_core.evaluation.question_sets import load_any
from react_core.evaluation.repeats import MAX_REPETITIONS, repeated
from react_core.evaluation.strategies import (
    AGENTS,
    COMPONENTS,
    DEFAULT_PRESETS,
    PAPER_REACT_STEPS,
    PAPER_SC_SAMPLES,
    PAPER_TEMPERATURE,
    PAPER_TOOLS,
    ROLE_MODES,
    ROLES,
    SAMPLING,
    SC_TEMPERATURE,
    STRATEGIES,
    EvalContext,
)
from react_core.evaluation.summary import Summary
from react_core.loop.settings import RunSettings, build_run_config, provider_for
from react_core.presets.store import PresetStore
from react_core.providers import model_choice_label, model_label, provider_class
from react_core.providers.allowance import OPERATOR, Allowance
from react_core.providers.base import Provider
from react_core.providers.choice import ModelChoice
from react_core.tools import DEFAULT_SENTENCES

HOSTED_RPM = 60.0
VERSIONED = ("act", "react")  # the strategies a plan's ``versions`` apply to: one prompt each, the agent's
ProgressHandler = Callable[[dict[str, Any]], None]


class Unit(NamedTuple):
    """One cell of the grid: what runs into one results file."""

    key: str  # its results file's name: ``react``, ``react@paper@2``, with several models ``react@paper@2+local-x``
    strategy: str
    presets: dict[str, str]  # the prompt of each role
    version: str  # the prompt version it compares ('' when the plan compares none)
    model: int  # which of ``EvalPlan.model_settings()`` it runs on


@dataclass
class EvalPlan:
    """What to evaluate and how. Every field after ``settings`` defaults to the paper's setup."""

    datasets: list[str]
    strategies: list[str]
    out_dir: str
    settings: RunSettings  # provider, model, key-free endpoint options, knowledge source
    indices: str | None = None  # a JSON file of dataset rows (one dataset file only)
    limit: int | None = None
    max_calls: int = PAPER_REACT_STEPS
    tools: list[str] = field(default_factory=lambda: list(PAPER_TOOLS))
    temperature: float = PAPER_TEMPERATURE
    samples: int = PAPER_SC_SAMPLES
    sc_temperature: float = SC_TEMPERATURE
    sentences: int = DEFAULT_SENTENCES
    presets: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_PRESETS))
    # File names (without .jsonl) per strategy, when not the strategy's own (``eval --out results/mine.jsonl``).
    names: dict[str, str] = field(default_factory=dict)
    concurrency: int = 1  # questions at once, for providers that can serve calls concurrently
    rpm: float = HOSTED_RPM  # model calls a minute, for hosted providers
    reuse: bool = True  # hybrids reuse the folder's react / cot-sc results made the same way
    owner: str = ""  # whose prompts a preset name means (``react_core.presets.store``): shipped ones, then theirs
    # Runs per question (``repeats``): above 1 each question runs that many times, at a temperature above 0.
    repetitions: int = 1
    # Prompt versions (``name@3``, ``name@label``) to compare on the same questions: Act and ReAct each run once per
    # version, into a results file of its own (``units``); empty: each strategy runs once with ``presets``.
    versions: list[str] = field(default_factory=list)
    # Models (``provider[:model]``, ``react_core.providers.choice``) to run every unit on, each into results files of
    # its own when there are several; empty: the model of ``settings`` alone.
    models: list[str] = field(default_factory=list)

    def model_settings(self) -> list[RunSettings]:
        """The settings of each model the plan runs, in order: ``settings`` with each model choice applied."""
        if not self.models:
            return [self.settings]
        return [self.settings.updated(**ModelChoice.parse(m).changes(self.settings.to_dict())) for m in self.models]

    def model_labels(self) -> list[str]:
        return [model_choice_label(s.to_dict()) for s in self.model_settings()]

    def run_settings(self, settings: RunSettings | None = None) -> RunSettings:
        """The settings every agent step runs with: the model and knowledge chosen, the plan's budget and tools."""
        return (settings or self.settings).updated(
            max_calls=self.max_calls,
            tools=list(self.tools),
            temperature=self.temperature,
            sentences=self.sentences,
            dialect="",
            preset="",
            pause_before=[],  # step mode is the chat's: nobody is there to decide during an evaluation
        )

    def path(self, strategy: str) -> Path:
        return results.result_path(self.out_dir, self.names.get(strategy, strategy))

    def unit_versions(self) -> dict[str, str]:
        """Each unit's key and the prompt version it compares ('' when the plan compares none)."""
        return {u.key: u.version for u in self.units()}

    def unit_models(self) -> dict[str, str]:
        """Each unit's key and the model it runs on, in words ('' when the plan runs one model)."""
        labels = self.model_labels() if len(self.models) > 1 else []
        return {u.key: labels[u.model] if labels else "" for u in self.units()}

    def units(self) -> list[Unit]:
        """What runs, in order: for each model, each strategy with the plan's prompts, or with ``versions``, Act and
        ReAct once per version, keyed ``react@name@3`` (also its results file's name), with several models
        ``react@name@3+provider-model``."""
        presets = {role: self.presets.get(role) or name for role, name in DEFAULT_PRESETS.items()}
        several = len(self.models) > 1
        out = []
        for m, settings in enumerate(self.model_settings()):
            suffix = f"+{model_slug(settings)}" if several else ""
            for strategy in self.strategies:
                if not self.versions:
                    out.append(Unit(strategy + suffix, strategy, presets, "", m))
                    continue
                out += [
                    Unit(f"{strategy}@{v}{suffix}", strategy, {**presets, strategy: v}, v, m) for v in self.versions
                ]
        return out


def model_slug(settings: RunSettings) -> str:
    """A model in a results file's name: its provider and model label, in letters, digits, ``.``, ``_`` and ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{settings.provider}-{model_label(settings.to_dict())}").strip("-")


@dataclass
class EvalRun:
    out_dir: Path
    summaries: dict[str, Summary]
    stopped: bool  # cancelled before every strategy had every question


def check_plan(plan: EvalPlan) -> None:
    """Everything that can be wrong before a model is asked anything, as a ConfigError."""
    unknown = [s for s in plan.strategies if s not in STRATEGIES]
    if unknown or not plan.strategies:
        raise ConfigError(f"Choose strategies among {', '.join(STRATEGIES)} (got {', '.join(unknown) or 'none'}).")
    if plan.limit is not None and plan.limit < 1:
        raise ConfigError("The number of questions must be at least 1.")
    if plan.samples < 1 or plan.concurrency < 1 or plan.rpm <= 0:
        raise ConfigError("Samples, concurrency and calls per minute must be positive.")
    if not 0.0 <= plan.sc_temperature <= 2.0:
        raise ConfigError(f"The CoT-SC temperature must be between 0 and 2 (got {plan.sc_temperature}).")
    if plan.repetitions < 1 or plan.repetitions > MAX_REPETITIONS:
        raise ConfigError(f"Repetitions must be between 1 and {MAX_REPETITIONS} (got {plan.repetitions}).")
    if plan.repetitions > 1 and plan.temperature <= 0 and set(plan.strategies) - set(SAMPLING):
        raise ConfigError("Repeated runs need a temperature above 0: at 0 every repetition gives the same answer.")
    if plan.indices and len(plan.datasets) != 1:
        raise ConfigError("Indices select rows of one dataset file; give a single dataset.")
    if plan.versions and set(plan.strategies) - set(VERSIONED):
        raise ConfigError("Prompt versions are compared with Act or ReAct; choose only those strategies.")
    if len(set(plan.versions)) != len(plan.versions):
        raise ConfigError("Each prompt version once, please: a version given twice would run twice.")
    runs = plan.model_settings()
    labels = plan.model_labels()
    twice = sorted({label for label in labels if labels.count(label) > 1})
    slugs = [model_slug(s) for s in runs]
    if twice or len(set(slugs)) != len(slugs):
        raise ConfigError(f"Each model once, please: {', '.join(twice) or 'two models'} would run twice.")
    for settings in runs:
        plan.run_settings(settings).check()
    store = PresetStore(plan.owner)
    for unit in plan.units():
        strategy, presets = unit.strategy, unit.presets
        for role in ROLES[strategy]:
            preset = store.load(presets[role])
            if preset.mode != ROLE_MODES[role]:
                raise ConfigError(
                    f"Preset {presets[role]!r} is a {preset.mode} prompt; the {role} role needs a "
                    f"{ROLE_MODES[role]} one."
                )


def load_plan_questions(plan: EvalPlan) -> list[Question]:
    indices = load_indices(plan.indices) if plan.indices else None
    questions = [q for path in plan.datasets for q in load_any(path, indices=indices)][: plan.limit]
    return repeated(questions, plan.repetitions)


def strategy_config(
    plan: EvalPlan,
    strategy: str,
    model: str,
    presets: dict[str, str] | None = None,
    settings: RunSettings | None = None,
) -> dict[str, Any]:
    """What decides a strategy's results, as recorded in its file's header; a resume must match it. ``settings``: the
    model's, when the plan runs several."""
    s = settings or plan.settings
    presets = presets or plan.presets
    options = [o for o in provider_class(s.provider).options if o != "delay"]
    config: dict[str, Any] = {"provider": s.provider, "model": model}
    config.update({o: getattr(s, o) for o in options if o != "model" and getattr(s, o, "")})
    config["presets"] = {role: presets.get(role) or DEFAULT_PRESETS[role] for role in ROLES[strategy]}
    if strategy in ("standard", "cot") or strategy in AGENTS:
        config["temperature"] = plan.temperature
    if strategy in AGENTS:
        config.update(max_calls=plan.max_calls, tools=list(plan.tools))
        if provider_class(s.provider).constrained:  # the agent's steps were decoded under the dialect's grammar, or not
            config["grammar"] = bool(s.grammar)
        if set(plan.tools) & {"search", "lookup"}:
            config.update(knowledge=s.knowledge, sentences=plan.sentences)
            config.update({k: getattr(s, k) for k in ("wiki_url", "wiki_language") if getattr(s, k)})
    if plan.repetitions > 1:  # only then, so results files made before repetitions existed still resume
        config["repetitions"] = plan.repetitions
    if strategy in SAMPLING:
        config.update(samples=plan.samples, sc_temperature=plan.sc_temperature)
    return config


def _reusable(plan: EvalPlan, strategy: str, model: str, settings: RunSettings) -> dict[str, dict[str, dict]]:
    """For a hybrid: the folder's results of its components that were made exactly as this run would make them."""
    found: dict[str, dict[str, dict]] = {}
    single = not plan.versions and len(plan.models) < 2  # else the components' files are named per version or model
    for component in COMPONENTS.get(strategy, ()) if plan.reuse and single else ():
        header, records = results.read_file(results.result_path(plan.out_dir, component))
        if header and header.get("config") == strategy_config(plan, component, model, settings=settings):
            found[component] = {r["id"]: r for r in records}
    return found


def run_evaluation(
    plan: EvalPlan,
    *,
    api_key: str | None = None,
    allowance: Allowance = OPERATOR,
    provider: Provider | None = None,
    on_progress: ProgressHandler | None = None,
    cancel: threading.Event | None = None,
) -> EvalRun:
    """Run every unit of the plan in turn, model by model, and return their summaries (also when stopped).

    Each model's provider (``provider``, else the one its settings name, built under ``allowance``'s key rules) makes
    its calls within ``allowance``'s call window; ``api_key`` goes only to a model of the settings' own provider.
    Summaries are keyed by strategy, or with ``plan.versions`` or several ``plan.models`` by unit (``react@paper@2``,
    ``EvalPlan.units``). Events for ``on_progress``: ``preparing`` (message), ``strategy`` (strategy, unit, position,
    of, total), then for each unit the harness's ``start`` / ``result`` / ``done``, each with ``strategy`` and
    ``unit``. A provider failure raises a ProviderError once what finished is saved; rerunning the same plan
    resumes."""
    notify = on_progress or (lambda _e: None)
    cancel = cancel or cancel_scope.current() or threading.Event()
    check_plan(plan)
    questions = load_plan_questions(plan)
    if not questions:
        raise ConfigError("No questions to evaluate.")
    runs = plan.model_settings()
    if provider is not None and len(runs) > 1:
        raise ConfigError("A provider passed in serves one model; give several models by their settings instead.")
    units = plan.units()
    summaries: dict[str, Summary] = {}
    for m, settings in enumerate(runs):
        if cancel.is_set():
            break
        mine = [(position, unit) for position, unit in enumerate(units, 1) if unit.model == m]
        key = api_key if settings.provider == plan.settings.provider else None  # a key goes only to its provider
        built = provider or allowance.build(
            lambda s=settings, k=key: provider_for(
                s, api_key=k, on_progress=lambda message: notify({"kind": "preparing", "message": message})
            )
        )
        try:
            summaries.update(_run(plan, settings, questions, allowance.limit(built), mine, len(units), notify, cancel))
        finally:
            if provider is None and not built.shared:
                built.close()
    stopped = any(not s.complete for s in summaries.values()) or len(summaries) < len(units)
    return EvalRun(Path(plan.out_dir), summaries, stopped)


def _run(
    plan: EvalPlan,
    settings: RunSettings,
    questions: list[Question],
    provider: Provider,
    units: list[tuple[int, Unit]],
    of: int,
    notify: ProgressHandler,
    cancel: threading.Event,
) -> dict[str, Summary]:
    """One model's units, in turn."""
    model = provider.model or settings.model
    if provider.hosted:
        from react_core.providers.rate_limit import RateLimited

        provider = RateLimited(provider, plan.rpm)  # type: ignore[assignment]
    run_settings = plan.run_settings(settings)
    store = PresetStore(plan.owner)
    if any(s in AGENTS for s in plan.strategies):
        build_run_config(
            run_settings,
            preset=store.load(plan.presets.get("react") or DEFAULT_PRESETS["react"]),
            provider=provider,
        )  # fails now on a missing pack, not after the first questions
    question_record = {
        "datasets": [Path(d).name for d in plan.datasets],
        "indices": Path(plan.indices).name if plan.indices else None,
        "limit": plan.limit,
        "n": len(questions),
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
            on_progress=lambda e, s=strategy, k=key: notify({**e, "strategy": s, "unit": k}),
        )
    return summaries


def resolved(store: PresetStore, ref: str) -> str:
    """A prompt's address with its number (``paper@best`` -> ``paper@2``); a file given by path stays its path."""
    return store.load(ref).ref or ref
