"""What an evaluation is asked to do: ``Plan`` (the task, questions, strategies, prompt versions and models, and how
they run: the paper's setup for the task unless it says otherwise), its grid of ``Unit`` s (one results file each),
the checks made before any model is asked (``check_plan``), its questions, and the config a results file's header
records (``strategy_config``). ``run.EvalPlan`` is a ``Plan`` that runs (``EvalPlan.run``). UI-free.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from react_core.base.errors import ConfigError
from react_core.evaluation import results
from react_core.evaluation.data import Question, load_indices
from react_core.evaluation.paper import STRATEGY_LABELS
from react_core.evaluation.question_sets import load_any
from react_core.evaluation.repeats import repeated
from react_core.evaluation.strategies import (
    AGENTS,
    PAPER_REACT_STEPS,
    PAPER_SC_SAMPLES,
    PAPER_TEMPERATURE,
    PAPER_TOOLS,
    ROLE_MODES,
    ROLES,
    SAMPLING,
    SC_TEMPERATURE,
    STRATEGIES,
    role_presets,
)
from react_core.evaluation.tasks import HOTPOTQA, Task, task_for
from react_core.loop.settings import RunSettings, check_temperature
from react_core.presets.store import PresetStore
from react_core.providers import PROVIDERS, model_choice_label
from react_core.providers.choice import ModelChoice
from react_core.tools import DEFAULT_SENTENCES

__all__ = [
    "HOSTED_CONCURRENCY",
    "HOSTED_RPM",
    "Plan",
    "PlanDefaults",
    "StrategyNeeds",
    "Unit",
    "VERSIONED",
    "check_plan",
    "load_plan_questions",
    "model_slug",
    "strategy_config",
]

# Hosted providers: questions at once, and model calls a minute across them (shared by every job of the key; a 429
# with Retry-After slows it down, ``providers.rate_limit``). 8 at once is Inspect AI's and promptfoo's order of
# magnitude; 1000 calls a minute lets 8 questions of 0.5 s calls run unhindered.
HOSTED_CONCURRENCY = 8
HOSTED_RPM = 1000.0
VERSIONED = ("act", "react")  # the strategies a plan's ``versions`` apply to: one prompt each, the agent's


@dataclass(frozen=True)
class PlanDefaults:
    """An evaluation before anyone changes it: the paper's setup for its task (``EvalPlan``'s own defaults) and the
    hosted models' pace (``EvalPlan.defaults``). What the Evaluate page starts from, says, and goes back to."""

    max_calls: int = PAPER_REACT_STEPS
    tools: tuple[str, ...] = PAPER_TOOLS
    temperature: float = PAPER_TEMPERATURE
    samples: int = PAPER_SC_SAMPLES
    sc_temperature: float = SC_TEMPERATURE
    concurrency: int = HOSTED_CONCURRENCY
    rpm: float = HOSTED_RPM
    presets: dict[str, str] = field(default_factory=dict)  # each role's prompt, as the paper ran the task


@dataclass(frozen=True)
class StrategyNeeds:
    """What a set of strategies asks for before it runs: a prompt for each of ``roles`` (in the order of
    ``ROLE_MODES``), a budget and tools (``agent``: Act, ReAct and the hybrids), CoT-SC samples (``sampling``), and
    whether it can compare prompt versions (``versions``: Act and ReAct alone, for ``versioned_roles``):
    ``EvalPlan.needs``."""

    roles: tuple[str, ...]
    agent: bool
    sampling: bool
    versions: bool
    versioned_roles: tuple[str, ...]


class Unit(NamedTuple):
    """One cell of the grid: what runs into one results file."""

    key: str  # its results file's name: ``react``, ``react@paper@2``, with several models ``react@paper@2+local-x``
    strategy: str
    presets: dict[str, str]  # the prompt of each role
    version: str  # the prompt version it compares ('' when the plan compares none)
    model: int  # which of ``EvalPlan.model_settings()`` it runs on


@dataclass
class Plan:
    """What to evaluate and how. Every field after ``settings`` defaults to the paper's setup. What runs it is its
    subclass ``run.EvalPlan`` (``EvalPlan.run``), the one the app and the command line make."""

    MAX_REPETITIONS: ClassVar[int] = 20  # runs per question at most
    STRATEGIES: ClassVar[tuple[str, ...]] = STRATEGIES  # every strategy, in the paper's Table 1 order
    ROLE_MODES: ClassVar[Mapping[str, str]] = ROLE_MODES  # the kind of prompt (a preset's mode) each role plays

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
    # Each role's prompt, where it is not the one ``role_presets`` gives (the paper's for the task, or a tuned one).
    presets: dict[str, str] = field(default_factory=dict)
    # File names (without .jsonl) per strategy, when not the strategy's own (``eval --out results/mine.jsonl``).
    names: dict[str, str] = field(default_factory=dict)
    concurrency: int = HOSTED_CONCURRENCY  # questions at once, for providers that serve calls concurrently (hosted)
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
    # The task (``hotpotqa``, ``fever``; ``tasks``): '' for the one the dataset files hold.
    task: str = ""

    @staticmethod
    def label(strategy: str, unknown: str | None = None) -> str:
        """A strategy in words, as the paper's Table 1 names it (``cot-sc-react``: CoT-SC → ReAct); one it does not
        name: ``unknown``, else as given."""
        return STRATEGY_LABELS.get(strategy, strategy if unknown is None else unknown)

    @staticmethod
    def defaults(task: Task = HOTPOTQA) -> PlanDefaults:
        return PlanDefaults(presets=dict(task.presets))

    @staticmethod
    def needs(strategies: list[str] | tuple[str, ...]) -> StrategyNeeds:
        roles = tuple(r for r in ROLE_MODES if any(r in ROLES[s] for s in strategies))
        return StrategyNeeds(
            roles=roles,
            agent=any(s in AGENTS for s in strategies),
            sampling=any(s in SAMPLING for s in strategies),
            versions=bool(strategies) and set(strategies) <= set(VERSIONED),
            versioned_roles=tuple(r for r in roles if r in VERSIONED),
        )

    def the_task(self) -> Task:
        return task_for(self.datasets, self.task)

    def role_presets(self, settings: RunSettings | None = None) -> dict[str, str]:
        """The prompt of every role for a model (``settings``, else the plan's): the plan's where it names one; else
        for HotpotQA the one a fine-tuned model learned or the paper's (``strategies.role_presets``), for FEVER the
        paper's FEVER prompt (an adapter learned HotpotQA's prompts, not FEVER's)."""
        task = self.the_task()
        if task is HOTPOTQA:
            return role_presets((settings or self.settings).to_dict(), self.presets, self.owner)
        return {role: self.presets.get(role) or name for role, name in task.presets.items()}

    def model_settings(self) -> list[RunSettings]:
        """The settings of each model the plan runs, in order: ``settings`` with each model choice applied."""
        if not self.models:
            return [self.settings]
        return [self.settings.updated(**ModelChoice.parse(m).changes(self.settings.to_dict())) for m in self.models]

    def model_labels(self) -> list[str]:
        return [model_choice_label(s.to_dict()) for s in self.model_settings()]

    def run_settings(self, settings: RunSettings | None = None) -> RunSettings:
        """The settings every agent step runs with: the model and knowledge chosen, the plan's budget and tools."""
        return (settings or self.settings).unattended(
            max_calls=self.max_calls,
            tools=list(self.tools),
            temperature=self.temperature,
            sentences=self.sentences,
            dialect="",
            preset="",
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

    @staticmethod
    def unit_strategy(key: str) -> str:
        """The strategy a unit's key names (``react@paper@2+local-x``: ``react``); a key of no strategy is its own."""
        return next((s for s in STRATEGIES if key == s or key.startswith((f"{s}@", f"{s}+"))), key)

    def units(self) -> list[Unit]:
        """What runs, in order: for each model, each strategy with the plan's prompts, or with ``versions``, Act and
        ReAct once per version, keyed ``react@name@3`` (also its results file's name), with several models
        ``react@name@3+provider-model``."""
        several = len(self.models) > 1
        out = []
        for m, settings in enumerate(self.model_settings()):
            presets = self.role_presets(settings)
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
    label = PROVIDERS[settings.provider].model_label(settings.to_dict())
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{settings.provider}-{label}").strip("-")


def check_plan(plan: Plan) -> None:
    """Everything that can be wrong before a model is asked anything, as a ConfigError."""
    unknown = [s for s in plan.strategies if s not in STRATEGIES]
    if unknown or not plan.strategies:
        raise ConfigError(f"Choose strategies among {', '.join(STRATEGIES)} (got {', '.join(unknown) or 'none'}).")
    plan.the_task()  # an unknown task, or dataset files of two tasks
    if plan.limit is not None and plan.limit < 1:
        raise ConfigError("The number of questions must be at least 1.")
    if plan.samples < 1 or plan.concurrency < 1 or plan.rpm <= 0:
        raise ConfigError("Samples, concurrency and calls per minute must be positive.")
    check_temperature(plan.sc_temperature, "The CoT-SC temperature")
    if plan.repetitions < 1 or plan.repetitions > Plan.MAX_REPETITIONS:
        raise ConfigError(f"Repetitions must be between 1 and {Plan.MAX_REPETITIONS} (got {plan.repetitions}).")
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
    # Each prompt a role plays, once: every model of the grid runs the same ones.
    played = dict.fromkeys((role, unit.presets[role]) for unit in plan.units() for role in ROLES[unit.strategy])
    for role, name in played:
        preset = store.load(name)
        if preset.mode != ROLE_MODES[role]:
            raise ConfigError(
                f"Preset {name!r} is a {preset.mode} prompt; the {role} role needs a {ROLE_MODES[role]} one."
            )


def load_plan_questions(plan: Plan) -> list[Question]:
    indices = load_indices(plan.indices) if plan.indices else None
    questions = [q for path in plan.datasets for q in load_any(path, indices=indices)][: plan.limit]
    return repeated(questions, plan.repetitions)


def strategy_config(
    plan: Plan,
    strategy: str,
    model: str,
    presets: dict[str, str] | None = None,
    settings: RunSettings | None = None,
) -> dict[str, Any]:
    """What decides a strategy's results, as recorded in its file's header; a resume must match it. ``settings``: the
    model's, when the plan runs several."""
    s = settings or plan.settings
    task = plan.the_task()
    presets = presets or plan.role_presets(s)
    options = [o for o in PROVIDERS[s.provider].options if o != "delay"]
    config: dict[str, Any] = {"provider": s.provider, "model": model}
    config.update({o: getattr(s, o) for o in options if o != "model" and getattr(s, o, "")})
    if task.name != "hotpotqa":  # only then, so results files made before tasks existed still resume
        config["task"] = task.name
    config["presets"] = {role: presets.get(role) or task.presets[role] for role in ROLES[strategy]}
    if strategy in ("standard", "cot") or strategy in AGENTS:
        config["temperature"] = plan.temperature
    if strategy in AGENTS:
        config.update(max_calls=plan.max_calls, tools=list(plan.tools))
        if PROVIDERS[s.provider].constrained:  # the agent's steps were decoded under the dialect's grammar, or not
            config["grammar"] = bool(s.grammar)
        if set(plan.tools) & {"search", "lookup"}:
            config.update(knowledge=s.knowledge, sentences=plan.sentences)
            config.update({k: getattr(s, k) for k in ("wiki_url", "wiki_language") if getattr(s, k)})
    if plan.repetitions > 1:  # only then, so results files made before repetitions existed still resume
        config["repetitions"] = plan.repetitions
    if strategy in SAMPLING:
        config.update(samples=plan.samples, sc_temperature=plan.sc_temperature)
    return config
