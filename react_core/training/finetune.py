"""Fine-tuning from start to adapter: trajectories -> examples -> tokens -> LoRA training -> a GGUF adapter.

Every phase writes its result into the run's folder and is skipped when the folder already holds it for the same
recipe, so a run stopped anywhere (Stop, a closed terminal, a crash) goes on where it stopped when started again with
the same folder; training itself resumes from its last checkpoint (``worker``). The training runs in its own
environment (``make finetune-env``: CPU-only torch, transformers, peft), never in the app's: ``training_python``.

Events for ``on_progress``: ``{"kind": "phase", "phase": ...}``, ``{"kind": "trajectories", "written", "skipped"}``,
``{"kind": "step", "step", "steps", "loss", "seconds", "eta"}`` (the trajectories' event also counts them by kind,
``KINDS``, and says how many were ``skipped`` or ``held_out``), ``{"kind": "done", "adapter"}``. UI-free.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from react_core.base.errors import ConfigError
from react_core.base.folder_lock import only_run
from react_core.base.paths import PROJECT_ROOT, finetune_dir, training_python
from react_core.presets.store import PresetStore
from react_core.providers.adapters import ADAPTER_FILE, Manifest, file_sha256, write_manifest
from react_core.training import worker
from react_core.training.examples import segments_for
from react_core.training.recipe import SOMETIMES, TOOLS, Recipe
from react_core.training.sources import (
    Trajectory,
    held_out_questions,
    question_key,
    read_trajectories,
    shared_path,
    write_trajectories,
)

__all__ = [
    "ARITHMETIC",
    "FinetunePlan",
    "FinetuneResult",
    "KINDS",
    "Progress",
    "STOPPED",
    "check_environment",
    "convert",
    "converter",
    "kinds",
    "prepare",
    "run_worker",
    "write_token_file",
    "write_trajectory_file",
]

Progress = Callable[[dict[str, Any]], None]
TRAJECTORIES, TOKENS, PLAN = "trajectories.jsonl", "tokens.jsonl", "plan.json"
BUSY = "a fine-tuning run, or its trajectories being written"  # what holds the folder (``only_run``)
STOPPED = 3  # the worker's exit status when asked to stop (it kept a checkpoint)
ARITHMETIC = "gold:arithmetic"


@dataclass
class FinetunePlan:
    recipe: Recipe
    out: Path | None = None  # the run's folder (default: finetune_dir()/<method>-<recipe digest>)
    title: str = ""  # what the app will call the adapter
    base_model: Path | None = None  # default: the packaged Gemma 3 270M
    history: Any = None  # a history store: add its right and grounded runs
    extra: list[Trajectory] = field(default_factory=list)  # more trajectories (a teacher's)
    export_chat: Path | None = None
    export_instructions: Path | None = None
    python: Path | None = None  # the training environment's Python
    threads: int = 0  # the cores training computes with (0: every one)

    @property
    def folder(self) -> Path:
        return self.out or finetune_dir() / f"{self.recipe.method}-{self.recipe.digest}"

    @property
    def environment(self) -> Path:
        """The Python the worker runs in: the plan's own, else the training environment's."""
        return self.python or self.default_environment()

    @staticmethod
    def default_environment() -> Path:
        """The training environment's Python (``make finetune-env``; ``training_python``), whatever the recipe."""
        return training_python()

    def run(self, *, on_progress: Progress | None = None, cancel: threading.Event | None = None) -> FinetuneResult:
        """Every phase to the adapter and its manifest; stopped (``cancel``), it keeps a checkpoint to resume from."""
        with only_run(self.folder, BUSY):
            return self._run(on_progress or (lambda _e: None), cancel)

    def _run(self, notify: Progress, cancel: threading.Event | None) -> FinetuneResult:
        python = self.environment
        check_environment(python)
        trajectories, base_model = prepare(self, notify)
        folder = self.folder
        recipe = {
            **self.recipe.to_dict(),
            "base_model": str(base_model),
            "threads": self.threads or os.cpu_count() or 1,
        }
        (folder / "recipe.json").write_text(json.dumps(recipe, indent=1), encoding="utf-8")
        notify({"kind": "phase", "phase": "training"})
        status, report = run_worker(python, folder, notify, cancel)
        if status == STOPPED:
            message = f"Stopped; run the same command to resume ({folder})."
            return FinetuneResult(folder, None, len(trajectories), True, message)
        notify({"kind": "phase", "phase": "converting"})
        adapter = convert(python, folder)
        write_manifest(adapter, _manifest(self, adapter, base_model, trajectories, report))
        notify({"kind": "done", "adapter": str(adapter)})
        size = adapter.stat().st_size
        return FinetuneResult(folder, adapter, len(trajectories), False, f"Wrote {adapter} ({size:,} bytes).")

    def write_only(self, *, on_progress: Progress | None = None) -> str:
        """The trajectories and examples (and the exports) without training: no training environment needed."""
        with only_run(self.folder, BUSY):
            trajectories, _ = prepare(self, on_progress or (lambda _e: None))
        return f"Wrote {len(trajectories)} trajectories and their examples in {self.folder}."


@dataclass
class FinetuneResult:
    folder: Path
    adapter: Path | None
    trajectories: int
    stopped: bool
    message: str


def check_environment(python: Path) -> None:
    """The training environment is there and has what the worker needs (one short process)."""
    if not python.is_file():
        raise ConfigError(
            f"The training environment is not installed ({python} is missing): run `make finetune-env` "
            "(CPU-only torch, transformers and peft, about 1.2 GB), or set REACT_TRAIN_PYTHON."
        )
    check = subprocess.run(
        [str(python), "-c", "import torch, transformers, peft, gguf"], capture_output=True, text=True, timeout=300
    )
    if check.returncode:
        last = (check.stderr.strip().splitlines() or ["?"])[-1]
        raise ConfigError(f"The training environment at {python} cannot train ({last}): run `make finetune-env`.")
    if not converter(python).is_file():
        raise ConfigError(f"llama.cpp's LoRA converter is missing from {converter(python).parent}: make finetune-env.")


def converter(python: Path) -> Path:
    """llama.cpp's ``convert_lora_to_gguf.py``, which ``make finetune-env`` takes from the llama-cpp-python sdist."""
    return python.parent.parent / "llama.cpp" / "convert_lora_to_gguf.py"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fresh(folder: Path, key: dict[str, Any]) -> bool:
    """Whether the folder's earlier phases were made for this same plan (else they are made again)."""
    path = folder / PLAN
    try:
        return json.loads(path.read_text(encoding="utf-8")) == key
    except (OSError, ValueError):
        return False


def write_trajectory_file(plan: FinetunePlan, notify: Progress) -> Path:
    """Phase 1: every trajectory of the plan, in one file; none of a held-out question (``Recipe.held_out``)."""
    from react_core.knowledge.pack import PackSource
    from react_core.training.misses import repeats_a_query
    from react_core.training.sources import from_gold, from_history, from_misses, gold_pack, gold_questions

    folder, recipe = plan.folder, plan.recipe
    files = [shared_path(f) for f in recipe.gold]
    held = held_out_questions(recipe.held_out)
    found: list[Trajectory] = []
    left_out = {"skipped": 0, "held_out": 0}

    def admit(t: Trajectory | None) -> None:
        """Keeps ``t`` unless it could not be written, breaks the recipe's rules, or asks a held-out question."""
        if t is not None and question_key(t.trace.question) in held:
            left_out["held_out"] += 1
        elif t is None or not recipe.repeats and repeats_a_query(t.trace.steps):
            left_out["skipped"] += 1
        else:
            found.append(t)

    if files:
        knowledge = PackSource(gold_pack(files, folder / "gold-pack.sqlite"))
        try:
            written = from_gold(
                files,
                recipe.method,
                knowledge,
                sentences=recipe.sentences,
                limit=recipe.limit,
                thoughts=recipe.thoughts,
            )
            for t in written:
                admit(t)
            if recipe.misses or recipe.partial:
                questions = {q.id: q for _, q in gold_questions(files, limit=recipe.limit)}
                golds = [(questions[t.id], t) for t in found]
                found += from_misses(
                    golds,
                    knowledge,
                    misses=recipe.misses,
                    partial=recipe.partial,
                    seed=recipe.seed,
                    sentences=recipe.sentences,
                    terse=recipe.terse,
                )
        finally:
            knowledge.close()
    if recipe.spec.agent and recipe.arithmetic:
        from react_core.training.arithmetic import write_arithmetic

        for n, trace in enumerate(write_arithmetic(recipe.arithmetic, recipe.seed)):
            if recipe.method == "act":
                for step in trace.steps:
                    step.thought = ""
            found.append(Trajectory(f"arithmetic-{n + 1}", ARITHMETIC, recipe.method, trace))
    for t in [*(from_history(plan.history, recipe.method) if plan.history is not None else []), *plan.extra]:
        admit(t)
    path = folder / TRAJECTORIES
    write_trajectories(path, found)
    notify({"kind": "trajectories", "written": len(found), **left_out, **kinds(found)})  # numbers only: pages show them
    return path


KINDS = ("gold", "miss", "partial", "arithmetic", "history", "teacher")  # where trajectories come from


def kinds(trajectories: list[Trajectory]) -> dict[str, int]:
    """How many trajectories of each kind (``KINDS``)."""
    counts: dict[str, int] = {}
    for t in trajectories:
        kind = "arithmetic" if t.source == ARITHMETIC else t.source.split(":", 1)[0]
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def _tools_for(trajectory: Trajectory) -> list[str]:
    """The tools its prompt lists: the paper's, and for half the trajectories (by id) also the Calculator (always
    where it is used)."""
    extra = trajectory.source == ARITHMETIC or hashlib.sha256(trajectory.id.encode()).digest()[0] % 2
    return list(TOOLS) + (list(SOMETIMES) if extra else [])


def write_token_file(plan: FinetunePlan, base_model: Path, notify: Progress) -> tuple[Path, int]:
    """Phase 2: each trajectory as the prompt text the app sends and the replies to learn, then as tokens; and the
    standard files, when asked for."""
    from react_core.presets.render import render_prefix
    from react_core.training import formats
    from react_core.training.tokens import Tokenizer, tokenize, write_examples

    folder = plan.folder
    preset = PresetStore().load(plan.recipe.spec.preset)
    tokenizer = Tokenizer(base_model)
    examples, chats, records = [], [], []
    for trajectory in read_trajectories(folder / TRAJECTORIES):
        tools = _tools_for(trajectory) if plan.recipe.spec.agent else []
        segments = segments_for(trajectory.trace, preset, tools)
        examples.append(tokenize(trajectory.id, segments, tokenizer))
        if plan.export_chat:
            chats.append((trajectory.id, formats.chat_messages(segments, render_prefix(preset, tools))))
        if plan.export_instructions:
            records += formats.instruction_records(segments)
    path = folder / TOKENS
    write_examples(path, examples)
    if plan.export_chat:
        formats.write_chat(plan.export_chat, chats)
    if plan.export_instructions:
        formats.write_instructions(plan.export_instructions, records)
    tokens = sum(len(e.ids) for e in examples)
    notify({"kind": "examples", "examples": len(examples), "tokens": tokens})
    return path, tokens


def run_worker(
    python: Path, folder: Path, notify: Progress, cancel: threading.Event | None
) -> tuple[int, dict[str, Any]]:
    """Phase 3: the worker in the training environment, its progress passed on; Stop asks it to keep a checkpoint
    and end. Returns its exit status and its last report."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "TOKENIZERS_PARALLELISM": "false"}
    # The worker runs as a file, not as ``-m react_core.training.worker``: the package's front door would import the
    # engine, whose packages the training environment does not hold.
    command = [str(python), worker.__file__, "--work", str(folder)]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(PROJECT_ROOT)
    )
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.extend(process.stderr), daemon=True)  # type: ignore[arg-type]
    reader.start()
    watcher = None
    if cancel is not None:

        def watch() -> None:
            while process.poll() is None:
                if cancel.wait(0.5):
                    process.send_signal(signal.SIGTERM)
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
    last: dict[str, Any] = {}
    try:
        for line in process.stdout:  # type: ignore[union-attr]
            try:
                report = json.loads(line)
            except ValueError:
                continue
            last = dict(report)
            if report.get("event") == "step":  # time left: the steps to go at the run's mean time a step so far
                report["eta"] = round(report["seconds"] / report["step"] * (report["steps"] - report["step"]), 1)
            notify({"kind": report.pop("event", "worker"), **report})
    except BaseException:  # Ctrl-C or a bug here: the worker keeps a checkpoint and ends, never left running
        process.send_signal(signal.SIGTERM)
        process.wait()
        raise
    status = process.wait()
    reader.join(timeout=5)
    if status not in (0, STOPPED):
        tail = "".join(errors[-20:]).strip()
        raise ConfigError(f"Training failed (exit {status}): {tail[-1500:] or last.get('message', '')}")
    return status, last


def convert(python: Path, folder: Path) -> Path:
    """Phase 4: the PEFT adapter as a llama.cpp LoRA GGUF (float16)."""
    out = folder / ADAPTER_FILE
    command = [
        str(python),
        str(converter(python)),
        "--base",
        str(folder / worker.BASE_CONFIG),
        "--outfile",
        str(out),
        "--outtype",
        "f16",
        str(folder / worker.ADAPTER),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    if done.returncode or not out.is_file():
        raise ConfigError(f"llama.cpp's converter failed: {done.stderr.strip()[-1500:]}")
    return out


def prepare(plan: FinetunePlan, notify: Progress) -> tuple[list[Trajectory], Path]:
    """Phases 1 and 2, each skipped when the folder holds it for this same plan: the trajectories and the token
    examples (and the standard files, when asked for). Returns the trajectories and the base model's file."""
    from react_core.providers.local import default_model_path

    folder = plan.folder
    folder.mkdir(parents=True, exist_ok=True)
    base_model = plan.base_model or default_model_path(None)
    key = {
        "recipe": plan.recipe.to_dict(),
        "base_model": _digest_cached(base_model),
        "history": plan.history is not None,
        "extra": len(plan.extra),
    }
    if not _fresh(folder, key):
        for stale in (TRAJECTORIES, TOKENS, worker.CHECKPOINT, ADAPTER_FILE):
            target = folder / stale
            if target.is_dir():
                shutil.rmtree(target)
            else:
                target.unlink(missing_ok=True)
        (folder / PLAN).write_text(json.dumps(key, indent=1), encoding="utf-8")
    notify({"kind": "phase", "phase": "trajectories"})
    if not (folder / TRAJECTORIES).is_file():
        write_trajectory_file(plan, notify)
    trajectories = read_trajectories(folder / TRAJECTORIES)
    if not trajectories:
        raise ConfigError("No trajectory to learn from: none of the questions could be written, and no run qualified.")
    notify({"kind": "phase", "phase": "examples"})
    if not (folder / TOKENS).is_file() or plan.export_chat or plan.export_instructions:
        write_token_file(plan, base_model, notify)
    return trajectories, base_model


_DIGESTS: dict[Path, str] = {}


def _digest_cached(path: Path) -> str:
    if path not in _DIGESTS:
        _DIGESTS[path] = file_sha256(path)
    return _DIGESTS[path]


def _manifest(
    plan: FinetunePlan, adapter: Path, base_model: Path, trajectories: list[Trajectory], report: dict[str, Any]
) -> Manifest:
    recipe = plan.recipe
    sources: dict[str, int] = {}
    for t in trajectories:
        kind = t.source.split(":", 1)[0]
        sources[kind] = sources.get(kind, 0) + 1
    files = {f: _digest(shared_path(f)) for f in recipe.gold}
    return Manifest(
        name=plan.folder.name,
        title=plan.title or f"{recipe.method} adapter ({len(trajectories)} trajectories)",
        method=recipe.method,
        preset=recipe.spec.preset,
        tools=list(TOOLS) if recipe.spec.agent else [],
        recipe=recipe.to_dict(),
        data={
            "gold_files_sha256": files,
            "trajectories": len(trajectories),
            "by_source": sources,
            "trajectories_sha256": _digest(plan.folder / TRAJECTORIES),
            "tokens_sha256": _digest(plan.folder / TOKENS),
        },
        base_model={"file": base_model.name, "sha256": _digest_cached(base_model)},
        training={k: v for k, v in report.items() if k not in ("event", "kind")}
        | {"finished": datetime.now(UTC).isoformat(timespec="seconds"), "python": sys.version.split()[0]},
        adapter_sha256=file_sha256(adapter),
    )
