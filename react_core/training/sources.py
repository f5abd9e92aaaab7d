"""Trajectories to learn from, from three sources, in one format: a ``Trace`` a line (``trajectories.jsonl``).

- **gold**: a HotpotQA-format file with ``supporting_facts``, written as a good run would go (``gold``), with the
  observations of a knowledge source that holds the file's paragraphs (by default a pack built from the file itself);
  and from those, trajectories that miss a Search and recover, or answer from what they read (``misses``, the v2
  recipe's ``miss`` and ``partial`` sources);
- **history**: a person's own runs that were right and grounded (the bootstrap's rule, ``checks.worth_learning``);
- **teacher**: any provider answering a question set (with a hosted key, the paper's own recipe: a large model's
  runs), kept by the same rule.

Each line is ``{"id", "source", "method", "trace"}``. UI-free.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from react_core.base.answers import exact_match, normalize_answer
from react_core.base.errors import ConfigError
from react_core.base.paths import shared_data_dir
from react_core.base.trace import Trace
from react_core.report.checks import worth_learning
from react_core.tools.registry import ToolRegistry
from react_core.tools.wiki import make_wiki_tools
from react_core.training import gold as golden
from react_core.training.recipe import Recipe

Progress = Callable[[dict[str, Any]], None]


@dataclass
class Trajectory:
    id: str
    source: str  # gold:FILE, history:RUN, teacher:MODEL
    method: str
    trace: Trace

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "source": self.source, "method": self.method, "trace": self.trace.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Trajectory:
        return cls(str(d["id"]), str(d["source"]), str(d["method"]), Trace.from_dict(d["trace"]))


def shared_path(name: str) -> Path:
    """A data file named relative to the shared data folder, or a path of its own."""
    path = Path(name).expanduser()
    return path if path.is_absolute() or path.exists() else shared_data_dir() / name


def read_records(path: Path) -> list[dict[str, Any]]:
    """A HotpotQA file's records, which must carry supporting facts and paragraphs."""
    from react_core.knowledge.pack_build import read_records as read

    data = read(path)
    if not all(isinstance(r, dict) and "supporting_facts" in r and "context" in r for r in data):
        raise ConfigError(f"{path} is not HotpotQA with supporting facts: each record needs them and its context.")
    return data


def gold_pack(files: Iterable[Path], out: Path) -> Path:
    """A pack of the files' own paragraphs (what the gold observations are read from), built once."""
    from react_core.knowledge.pack_build import build_pack

    if not out.is_file():
        partial = out.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        build_pack(list(files), partial, description="the paragraphs of the fine-tuning questions")
        partial.replace(out)
    return out


def gold_questions(files: Iterable[Path], *, limit: int = 0) -> Iterator[tuple[Path, golden.GoldQuestion]]:
    """Each question of ``files`` with its file, at most ``limit`` in all (0: every one)."""
    n = 0
    for path in files:
        for i, record in enumerate(read_records(path)):
            if limit and n >= limit:
                return
            n += 1
            yield path, golden.GoldQuestion.from_record(record, i)


def from_gold(
    files: Iterable[Path],
    method: str,
    knowledge: Any,
    *,
    sentences: int = 5,
    limit: int = 0,
    thoughts: Mapping[str, Any] | None = None,
) -> Iterator[Trajectory | None]:
    """Each question of ``files`` (at most ``limit`` in all, 0: every one) as a trajectory of ``method``, or None
    where it cannot be written faithfully. ``knowledge``: a knowledge source holding their paragraphs; ``thoughts``: how
    a ReAct trajectory's thoughts are written (``Recipe.thoughts``: ``gold.write_react``'s keywords)."""
    for path, question in gold_questions(files, limit=limit):
        tools = ToolRegistry(make_wiki_tools(knowledge, sentences=sentences))
        writer = {
            "react": lambda q, t=tools: golden.write_react(q, t, **(thoughts or {})),
            "act": lambda q, t=tools: golden.write_act(q, t),
            "cot": golden.write_cot,
            "standard": golden.write_standard,
        }[method]
        trace = writer(question)
        yield None if trace is None else Trajectory(question.id, f"gold:{path.name}", method, trace)


def from_misses(
    golds: Sequence[tuple[golden.GoldQuestion, Trajectory]],
    knowledge: Any,
    *,
    misses: int,
    partial: int,
    seed: int = 0,
    sentences: int = 5,
    terse: bool = False,
) -> list[Trajectory]:
    """``misses`` trajectories that miss a Search and recover and ``partial`` ones that answer from what they read
    after two misses, each from a ReAct gold trajectory of ``golds`` (its question beside it), the questions taken in
    an order drawn from ``seed``; fewer where the questions cannot give that many. ``knowledge``: the source the gold
    observations came from; ``terse``: a title picked from the list is named as the gold thoughts name it
    (``Recipe.terse``)."""
    from react_core.training.misses import DOUBLE_EVERY, write_miss, write_partial

    def tools() -> ToolRegistry:
        return ToolRegistry(make_wiki_tools(knowledge, sentences=sentences))

    found: list[Trajectory] = []
    for kind, wanted in (("miss", misses), ("partial", partial)):
        order = list(range(len(golds)))
        random.Random(f"{seed}:{kind}").shuffle(order)
        written = 0
        for n in order:
            if written >= wanted:
                break
            question, gold = golds[n]
            if kind == "miss":
                double = written % DOUBLE_EVERY == DOUBLE_EVERY - 1
                trace = write_miss(question, gold.trace, tools, seed=seed, double=double, terse=terse)
            else:
                trace = write_partial(question, gold.trace, tools, seed=seed)
            if trace is not None:
                source = f"{kind}:{gold.source.split(':', 1)[-1]}"
                found.append(Trajectory(f"{kind}-{gold.id}", source, gold.method, trace))
                written += 1
    return found


def question_key(text: str) -> str:
    """A question as the held-out check compares it (case, punctuation and spacing aside)."""
    return normalize_answer(text)


def held_out_questions(files: Iterable[str]) -> set[str]:
    """The questions of ``files`` (HotpotQA, named as a recipe names them), which no trajectory may hold."""
    from react_core.knowledge.pack_build import read_records as read

    return {question_key(str(r["question"])) for name in files for r in read(shared_path(name))}


def from_history(store: Any, method: str = "react", *, limit: int = 1000) -> list[Trajectory]:
    """A person's own runs that were right (an exact match with the expected answer), finished, backed by evidence
    and readable, in the method's dialect family (agent runs for Act and ReAct)."""
    if not Recipe.METHODS[method].agent:
        raise ConfigError("runs in History are agent runs: they teach Act or ReAct, not a direct answer.")
    found = []
    for record in store.list(limit=limit):
        full = store.get(record.id)
        trace = full.trace if full is not None else None
        if trace is None or trace.expected_answer is None:
            continue
        if worth_learning(trace, bool(exact_match(trace.final_answer, trace.expected_answer))):
            found.append(Trajectory(f"run-{record.id}", f"history:{record.id}", method, trace))
    return found


def from_teacher(
    questions: str,
    settings: Any,
    folder: Path,
    *,
    method: str = "react",
    limit: int | None = None,
    on_progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> list[Trajectory]:
    """A teacher (``settings``' provider and model) answers ``questions`` with the paper's setup; its right and
    grounded runs are kept. The evaluation's results file in ``folder`` makes it resumable."""
    from react_core.evaluation import results
    from react_core.evaluation.run import EvalPlan

    strategy = Recipe.METHODS[method].strategy
    if not Recipe.METHODS[method].agent:
        raise ConfigError("a teacher writes agent trajectories (Act or ReAct).")
    plan = EvalPlan(datasets=[questions], strategies=[strategy], out_dir=str(folder), settings=settings, limit=limit)
    plan.run(on_progress=on_progress, cancel=cancel)
    found = []
    for r in results.read_results(results.result_path(folder, strategy)):
        trace = Trace.from_dict(r["trace"])
        if worth_learning(trace, r.get("em") == 1.0):
            found.append(Trajectory(str(r["id"]), f"teacher:{trace.settings.get('model', '')}", method, trace))
    return found


def write_trajectories(path: Path, trajectories: Iterable[Trajectory]) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for t in trajectories:
            f.write(json.dumps(t.to_dict(), ensure_ascii=False) + "\n")
            n += 1
    return n


def read_trajectories(path: Path) -> list[Trajectory]:
    with path.open(encoding="utf-8") as f:
        return [Trajectory.from_dict(json.loads(line)) for line in f if line.strip()]
