"""Bootstrapping few-shot examples from runs, as DSPy's BootstrapFewShot (with random search) does for its programs:
run the agent on train questions, keep what the metric accepts, try candidate sets on dev, keep the best.

1. The split: the first ``train`` questions of the file are train, the next ``dev`` are dev, the rest are test and
   never run. A train question whose text is also a dev or test question's is dropped from train.
2. The teacher (any provider; by default the student itself) answers the train questions with the starting preset.
3. A trajectory qualifies when its answer is an exact match, it finished, its answer is grounded in a tool's evidence
   (a yes/no answer, never literally in a page: given after a tool returned evidence) and every step was readable;
   it is written as an example in the preset's dialect (``Dialect.render_step``) and must pass the preset check on
   its own.
4. ``candidates`` sets of ``k`` qualified examples, drawn by ``random.Random(seed)`` (the same seed, the same sets),
   replace the preset's examples; the student answers the dev questions with each, and with the starting preset.
5. The set with the best dev EM (then F1, then the earlier candidate) is written as a preset TOML file, its dev
   score and the starting preset's in a comment and in its description.

Every phase is an evaluation with a results file in the work folder (``teacher.jsonl``, ``dev-start.jsonl``,
``dev-candidate-N.jsonl``; the split in ``questions/``), so a bootstrap stopped anywhere resumes where it
stopped. UI-free.
"""

from __future__ import annotations

import itertools
import json
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from react_core.base import cancel as cancel_scope
from react_core.base.answers import normalize_answer
from react_core.base.errors import ConfigError
from react_core.base.trace import Trace
from react_core.dialects import get_dialect
from react_core.evaluation import results
from react_core.evaluation.question_sets import dump_jsonl, load_any
from react_core.evaluation.run import EvalPlan
from react_core.evaluation.strategies import PAPER_REACT_STEPS, PAPER_TOOLS
from react_core.evaluation.summary import Summary
from react_core.loop.settings import RunSettings, provider_for
from react_core.presets.check import validate_preset
from react_core.presets.preset import Preset, dump_preset, load_preset, load_preset_file, preset_from_toml
from react_core.presets.render import render_question
from react_core.presets.store import PresetStore
from react_core.providers.allowance import Allowance
from react_core.providers.base import Provider
from react_core.report.checks import worth_learning
from react_core.telemetry.live import LiveTarget

__all__ = [
    "BootstrapPlan",
    "BootstrapResult",
    "Candidate",
    "ProgressHandler",
    "candidate_sets",
    "check_bootstrap",
    "qualified_examples",
    "split",
    "write_example",
]

ProgressHandler = Callable[[dict[str, Any]], None]


@dataclass
class BootstrapPlan:
    dataset: str  # a HotpotQA file or a person's set (.csv / .jsonl)
    start: str  # the starting preset (name or .toml path)
    out: str  # the new preset's .toml path
    settings: RunSettings  # the student: the model the prompt is for, and the knowledge source
    teacher: RunSettings | None = None  # the model that writes the trajectories (default: the student)
    train: int = 20
    dev: int = 20
    k: int = 3
    candidates: int = 8
    seed: int = 0
    work_dir: str = ""  # default: beside ``out``, named after it (NEW.bootstrap/)
    max_calls: int = PAPER_REACT_STEPS
    tools: list[str] = field(default_factory=lambda: list(PAPER_TOOLS))
    temperature: float = 0.0
    sentences: int = 5

    @property
    def folder(self) -> Path:
        return Path(self.work_dir) if self.work_dir else Path(self.out).with_suffix(".bootstrap")

    def run(
        self,
        *,
        allowance: Allowance = Allowance.OPERATOR,
        student: Provider | None = None,
        teacher: Provider | None = None,
        on_progress: ProgressHandler | None = None,
        cancel: threading.Event | None = None,
        api_key: str | None = None,
        export: LiveTarget | None = None,
    ) -> BootstrapResult:
        """Run the phases (each resumable) and write the best candidate set as a new preset. ``api_key``: the student's
        (and the teacher's when it is the same provider), as an evaluation takes it; else the allowance's key rules.
        ``export``: where each run is sent, as an evaluation's are."""
        notify = on_progress or (lambda _e: None)
        cancel = cancel or cancel_scope.current() or threading.Event()
        preset = check_bootstrap(self)
        train, dev, held_out = split(self)
        folder = self.folder
        _check_folder(folder, self, train, dev)
        (folder / "questions").mkdir(exist_ok=True)  # beside the results files, never read as one
        (folder / "questions" / "train.jsonl").write_text(dump_jsonl(train), encoding="utf-8")
        (folder / "questions" / "dev.jsonl").write_text(dump_jsonl(dev), encoding="utf-8")
        teacher_settings = self.teacher or self.settings
        own: list[Provider] = []

        def build(settings: RunSettings) -> Provider:
            key = api_key if settings.provider == self.settings.provider else None
            made = allowance.build(lambda: provider_for(settings, api_key=key))
            own.append(made)
            return made

        try:
            student = student or build(self.settings)
            if teacher is None:
                teacher = student if self.teacher is None else build(teacher_settings)

            def phase(name: str, dataset: str, preset_ref: str, settings: RunSettings, provider: Provider) -> Any:
                notify({"kind": "phase", "phase": name})
                evaluation = EvalPlan(
                    datasets=[str(folder / "questions" / dataset)],
                    strategies=["react"],
                    out_dir=str(folder),
                    settings=settings,
                    max_calls=self.max_calls,
                    tools=list(self.tools),
                    temperature=self.temperature,
                    sentences=self.sentences,
                    presets={"react": preset_ref},
                    names={"react": name},
                    reuse=False,
                )
                run = evaluation.run(
                    provider=provider,
                    allowance=allowance,
                    cancel=cancel,
                    on_progress=lambda e: notify({**e, "phase": name}),
                    export=export,
                )
                return run.summaries.get("react"), run.stopped

            def stopped(message: str, **done: Any) -> BootstrapResult:
                base = {"qualified": [], "candidates": [], "start": None, "best": None}
                return BootstrapResult(
                    len(train), len(dev), out=None, stopped=True, message=message, **{**base, **done}
                )

            _, halted = phase("teacher", "train.jsonl", self.start, teacher_settings, teacher)
            if halted:
                return stopped(f"Stopped while the teacher ran; run the same command to resume ({folder}).")
            examples = qualified_examples(
                results.read_results(results.result_path(folder, "teacher")), preset, self.tools
            )
            asked = {q.id: q.question for q in train}
            examples = {i: t for i, t in examples.items() if not _held_out(asked.get(i), held_out)}  # checked again
            if not examples:
                message = (
                    f"No trajectory qualified: of {len(train)} train questions, none was answered right (exact match), "
                    "finished, grounded in a tool's evidence (or, for yes/no, after one) and readable at every step. "
                    "No preset was written."
                )
                return BootstrapResult(len(train), len(dev), [], [], None, None, None, False, message)
            sets = candidate_sets(list(examples), self.k, self.candidates, self.seed)
            candidates = [Candidate(n, ids) for n, ids in enumerate(sets, 1)]
            start_summary, halted = phase("dev-start", "dev.jsonl", self.start, self.settings, student)
            if halted:
                return stopped(f"Stopped on dev; run the same command to resume ({folder}).", qualified=list(examples))
            for c in candidates:
                path = folder / f"candidate-{c.number}.toml"
                text = "\n".join(examples[i] for i in c.example_ids)
                path.write_text(dump_preset(replace(preset, examples=text, name=path.stem)), encoding="utf-8")
                c.summary, halted = phase(f"dev-candidate-{c.number}", "dev.jsonl", str(path), self.settings, student)
                if halted:
                    return stopped(
                        f"Stopped on dev; run the same command to resume ({folder}).",
                        qualified=list(examples),
                        candidates=candidates,
                        start=start_summary,
                    )
            best = max(candidates, key=lambda c: (c.summary.em, c.summary.f1, -c.number))  # type: ignore[union-attr]
            if any(_held_out(asked.get(i), held_out) for i in best.example_ids):
                raise ConfigError("An example's question is a dev or test question; no preset was written.")
            out = _write_new_preset(self, preset, best, examples, start_summary, len(candidates))
            best_em, tried = best.summary.em * 100, len(candidates)  # type: ignore[union-attr]
            message = (
                f"Wrote {out}: dev EM {best_em:.1f} with candidate {best.number} of {tried} vs "
                f"{start_summary.em * 100:.1f} with {preset.name} "
                f"({len(examples)} of {len(train)} trajectories qualified)."
            )
            return BootstrapResult(
                len(train), len(dev), list(examples), candidates, start_summary, best, out, False, message
            )
        finally:
            for made in own:
                if not made.shared:
                    made.close()


@dataclass
class Candidate:
    number: int  # 1-based
    example_ids: list[str]
    summary: Summary | None = None


@dataclass
class BootstrapResult:
    train: int
    dev: int
    qualified: list[str]  # train question ids whose trajectories qualified
    candidates: list[Candidate]
    start: Summary | None  # the starting preset on dev
    best: Candidate | None
    out: Path | None  # the preset written (None when stopped or nothing qualified)
    stopped: bool
    message: str

    def keep(self, store: PresetStore) -> str:
        """Save the preset written (``out``) in ``store`` as the next version of the line named after its file, its
        dev score (the preset's description) as the version's note; returns the version's address."""
        if self.out is None:
            raise ConfigError("This bootstrap wrote no preset to keep.")
        path = Path(self.out)
        preset = preset_from_toml(path.read_text(encoding="utf-8"), path.stem, where=str(path))
        return store.save_version(preset, path.stem, note=preset.description)


def check_bootstrap(plan: BootstrapPlan) -> Preset:
    if plan.train < 1 or plan.dev < 1 or plan.k < 1 or plan.candidates < 1:
        raise ConfigError("--train, --dev, --k and --candidates must each be at least 1.")
    if not plan.out.endswith(".toml"):
        raise ConfigError(f"The new preset is a .toml file (got {plan.out}).")
    preset = load_preset(plan.start)
    if preset.mode != "react":
        raise ConfigError(f"Preset {preset.name!r} is a {preset.mode} prompt; bootstrapping needs an agent prompt.")
    return preset


def split(plan: BootstrapPlan) -> tuple[list[Any], list[Any], set[str]]:
    """Train and dev questions, and every normalised question text outside train (dev and test)."""
    questions = load_any(plan.dataset)
    if len(questions) < plan.train + plan.dev:
        raise ConfigError(
            f"{plan.dataset} has {len(questions)} questions; --train and --dev need {plan.train + plan.dev}."
        )
    dev = questions[plan.train : plan.train + plan.dev]
    held_out = {normalize_answer(q.question) for q in questions[plan.train :]}
    train = [q for q in questions[: plan.train] if normalize_answer(q.question) not in held_out]
    return train, dev, held_out


def write_example(trace: Trace, preset: Preset) -> str:
    """A run as an example in the preset's dialect: its question, then each step as the next prompt holds it."""
    fmt = get_dialect(preset.dialect)
    return render_question(preset, trace.question) + "".join(fmt.render_step(s) for s in trace.steps)


def qualified_examples(records: list[dict[str, Any]], preset: Preset, tools: list[str]) -> dict[str, str]:
    """Train results whose trajectories qualify (right, finished, backed by evidence, readable, and a valid example on
    their own), as examples by question id, in dataset order."""
    found: dict[str, str] = {}
    for r in sorted(records, key=lambda r: r.get("index", 0)):
        trace = Trace.from_dict(r["trace"])
        if not worth_learning(trace, r.get("em") == 1.0):
            continue
        example = write_example(trace, preset)
        if not validate_preset(replace(preset, examples=example), tools):
            found[r["id"]] = example
    return found


def candidate_sets(ids: list[str], k: int, count: int, seed: int) -> list[list[str]]:
    """Up to ``count`` different sets of ``k`` ids (all of them when there are at most ``k``), from ``seed`` alone."""
    if len(ids) <= k:
        return [list(ids)]
    possible = len(list(itertools.islice(itertools.combinations(ids, k), count)))
    rng, sets, seen = random.Random(seed), [], set()
    while len(sets) < min(count, possible):
        chosen = tuple(sorted(rng.sample(range(len(ids)), k)))
        if chosen not in seen:
            seen.add(chosen)
            sets.append([ids[i] for i in chosen])
    return sets


def _held_out(question: str | None, held_out: set[str]) -> bool:
    """Whether an example's question is a dev or test question (or unknown): such an example is never used."""
    return question is None or normalize_answer(question) in held_out


def _check_folder(folder: Path, plan: BootstrapPlan, train: list[Any], dev: list[Any]) -> None:
    """A work folder holds one bootstrap: resuming with other questions, another start or another seed is refused."""
    folder.mkdir(parents=True, exist_ok=True)
    record = {
        "dataset": Path(plan.dataset).name,
        "start": plan.start,
        "train": [q.id for q in train],
        "dev": [q.id for q in dev],
        "k": plan.k,
        "candidates": plan.candidates,
        "seed": plan.seed,
    }
    path = folder / "bootstrap.json"
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            old = None
        if old != record:
            raise ConfigError(
                f"{folder} holds a bootstrap made differently; give another --work folder or the same options."
            )
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")


def _write_new_preset(
    plan: BootstrapPlan,
    preset: Preset,
    best: Candidate,
    examples: dict[str, str],
    start: Summary | None,
    tried: int,
) -> Path:
    assert best.summary is not None and start is not None
    out = Path(plan.out)
    score = (
        f"Dev EM {best.summary.em * 100:.1f} / F1 {best.summary.f1 * 100:.1f} on {best.summary.n} dev questions, "
        f"against {start.em * 100:.1f} / {start.f1 * 100:.1f} for {preset.name}'s own examples."
    )
    origin = (
        f"Bootstrapped from {preset.name} on {Path(plan.dataset).name}: examples are the teacher's right and grounded "
        f"runs of train questions {', '.join(best.example_ids)} (candidate {best.number} of {tried}, k={plan.k}, "
        f"seed {plan.seed})."
    )
    new = replace(
        preset,
        name=out.stem,
        title=f"{preset.title or preset.name} (bootstrapped: {len(best.example_ids)} examples from runs)",
        description=f"{origin} {score}",
        examples="\n".join(examples[i] for i in best.example_ids),
    )
    comment = f"# {origin}\n# {score}\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(comment + dump_preset(new), encoding="utf-8")
    problems = validate_preset(load_preset_file(partial), plan.tools)
    if problems:
        partial.unlink()
        raise ConfigError(f"The bootstrapped preset does not pass its check ({problems[0]}).")
    partial.replace(out)
    return out
