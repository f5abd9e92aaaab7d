"""Results on disk: an evaluation is a folder holding one JSON-lines file per strategy, ``<strategy>.jsonl``.

The first line of a file is its header, which says how the results were made::

    {"kind": "header", "version": 1, "strategy": "react", "created_at": "…", "updated_at": "…",
     "questions": {"datasets": [...], "indices": null, "limit": 100, "n": 100},
     "config": {"provider": "local", "model": "…", "max_calls": 7, "tools": ["search", "lookup"],
                "presets": {"react": "hotpotqa-react"}, "temperature": 0.0, "knowledge": "pack:…", …},
     "versions": {"react": "hotpotqa-react@1"}, "model": "On-device (llama.cpp) · gemma-3-270m-it-Q4_K_M.gguf"}

A FEVER file's config also says ``"task": "fever"`` (a file without one is HotpotQA's). ``versions`` is the prompt
version each role ran, by number (``StrategyResults.version``; ``Evaluation.by_version`` groups
results by it); files written before it existed name their version in their traces, if at all. ``model`` is the model
the results were made with, in words (``StrategyResults.model``; ``Evaluation.by_model`` groups by it); files written
before it existed are named from their config's provider and model.

Every other line is one question's result (``harness.result_record``), appended as the question finishes: a crash
loses at most a line cut short, which is skipped when read. A resumed run appends to the same file and refuses one
whose config differs. Files written before headers existed (results only, possibly of several strategies) are read
as they are. Nothing here knows about a UI; the Evaluate page lists and reopens folders through ``Evaluation``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from react_core.base.errors import ConfigError
from react_core.base.paths import evaluations_dir
from react_core.evaluation.paper import STRATEGY_LABELS
from react_core.evaluation.repeats import (
    RESAMPLES,
    Comparison,
    Scores,
    base_id,
    common_questions,
    compare_results,
    record_checks,
    score_results,
)
from react_core.evaluation.strategies import STRATEGIES
from react_core.evaluation.summary import Summary, summarize
from react_core.evaluation.tasks import HOTPOTQA, TASKS, Task, is_dev_name
from react_core.providers import PROVIDERS, model_choice_label
from react_core.report.checks import Checks

__all__ = [
    "ASSIGNMENT_NOTE",
    "Evaluation",
    "HEADER",
    "StrategyResults",
    "VERSION",
    "append",
    "load_file",
    "now",
    "prepare",
    "read_file",
    "read_results",
    "result_path",
]

HEADER = "header"
ASSIGNMENT_NOTE = "assignment.json"  # in an evaluation's folder: the assignment whose questions it ran
VERSION = 1


def result_path(folder: str | Path, strategy: str) -> Path:
    return Path(folder) / f"{strategy}.jsonl"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def read_file(path: str | Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The header (None when the file has none) and the results, in file order."""
    path = Path(path)
    if not path.exists():
        return None, []
    header, records = None, []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash: the question will simply run again
            if not isinstance(item, dict):
                continue
            if item.get("kind") == HEADER:
                header = header or item
            elif "id" in item:
                records.append(item)
    return header, records


def read_results(path: str | Path) -> list[dict[str, Any]]:
    return read_file(path)[1]


def _differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    keys = sorted(set(old) | set(new))
    return [f"{k} {old.get(k)!r} there, {new.get(k)!r} now" for k in keys if old.get(k) != new.get(k)]


def prepare(path: str | Path, header: dict[str, Any]) -> list[dict[str, Any]]:
    """Make ``path`` ready to take results made as ``header`` says, and return the results already in it.

    A new file gets the header. An existing one must have been made with the same strategy and config (else a
    ConfigError names what differs); its header is rewritten only when the questions changed (a resume with another
    ``--limit``)."""
    path = Path(path)
    old, records = read_file(path)
    if old is not None:
        if old.get("strategy") != header["strategy"]:
            raise ConfigError(f"{path} holds {old.get('strategy')} results, not {header['strategy']}.")
        diff = _differences(old.get("config", {}), header["config"])
        if diff:
            raise ConfigError(
                f"{path} holds results made differently ({'; '.join(diff)}). Use another output folder, or the "
                "same settings to resume."
            )
        before, after = old.get("versions"), header.get("versions")
        if before and after and before != after:  # the same address (a label, the newest) now names another version
            raise ConfigError(
                f"{path} holds results of prompt {', '.join(before.values())}, not {', '.join(after.values())}. Use "
                "another output folder, or the version those results were made with."
            )
        if old.get("questions") == header["questions"]:
            return records
        header = {**header, "created_at": old.get("created_at", header["created_at"])}
    _write_header(path, {"kind": HEADER, "version": VERSION, **header, "updated_at": now()})
    return records


def _write_header(path: Path, header: dict[str, Any]) -> None:
    """The header as the first line, the rest of the file kept: written beside and renamed, so never half done."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rest = ""
    if path.exists():
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        if lines and _is_header(lines[0]):
            lines = lines[1:]
        rest = "".join(lines)
        if rest and not rest.endswith("\n"):
            rest += "\n"  # a line cut short stays a line of its own
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(header, ensure_ascii=False) + "\n" + rest, encoding="utf-8")
    os.replace(partial, path)


def _is_header(line: str) -> bool:
    try:
        item = json.loads(line)
    except ValueError:
        return False
    return isinstance(item, dict) and item.get("kind") == HEADER


def append(path: str | Path, record: dict[str, Any]) -> None:
    """One result as one line (the caller serialises writers), on a line of its own after a line cut short."""
    with Path(path).open("a+b") as f:
        if f.seek(0, os.SEEK_END):
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))


# -- folders ----------------------------------------------------------------------------------------------


@dataclass
class StrategyResults:
    """One strategy's results in one file (a file of several strategies, from before headers, gives several)."""

    RESAMPLES: ClassVar[int] = RESAMPLES  # the bootstrap resamples behind each of its scores' 95 % intervals

    name: str  # the file's name without .jsonl (the strategy itself, or e.g. "react-ours")
    strategy: str
    path: Path
    header: dict[str, Any] | None
    records: list[dict[str, Any]]

    @property
    def planned(self) -> int:
        return int(((self.header or {}).get("questions") or {}).get("n") or 0)

    @property
    def config(self) -> dict[str, Any]:
        return dict((self.header or {}).get("config") or {})

    @property
    def task(self) -> Task:
        """The task these results score: HotpotQA when the header names none (or one this version does not know)."""
        return TASKS.get(self.config.get("task") or "", HOTPOTQA)

    def summary(self) -> Summary:
        return summarize(self.records, planned=self.planned or len(self.records))

    @property
    def paper_data(self) -> bool:
        """Whether these results ran on the paper's data (the task's dev questions in the shared data), the only
        results the paper's Table 1 figure belongs beside. The header says so; a header written before it did names
        its files (a person's set, ``arith.jsonl``, is no dev file), and files without a header ran the shared ones."""
        if self.header is None:
            return True
        questions = self.header.get("questions") or {}
        if "paper_data" in questions:
            return bool(questions["paper_data"])
        names = questions.get("datasets") or []
        return bool(names) and all(is_dev_name(str(n)) for n in names)

    @property
    def paper_figure(self) -> float | None:
        """The paper's Table 1 figure for this strategy, beside results on the paper's data only (else None)."""
        return self.task.paper.get(self.strategy) if self.paper_data else None

    @property
    def version(self) -> str:
        """The prompt version(s) these results were made with (``paper@2``; a hybrid's two joined by ``+``), from the
        header, else from the traces (files written before headers named versions); '' when none is known."""
        named = list(((self.header or {}).get("versions") or {}).values())
        if not named:
            named = [str((r.get("trace") or {}).get("settings", {}).get("prompt_version") or "") for r in self.records]
        return " + ".join(v for v in dict.fromkeys(named) if v)

    @property
    def model(self) -> str:
        """The model these results were made with (``OpenAI · gpt-4o-mini``): the header's, else read from its config
        or the first trace's settings as any run's model is labelled; '' when unknown."""
        named = (self.header or {}).get("model")
        if named:
            return str(named)
        settings = self.config or ((self.records[0].get("trace") or {}).get("settings") if self.records else None)
        if settings and settings.get("provider") in PROVIDERS:
            return model_choice_label(settings)
        return ""

    def label(self, groups: Sequence[StrategyResults] = ()) -> str:
        """The strategy's name in the paper's table, and the file's when another of ``groups`` holds the same
        strategy."""
        name = STRATEGY_LABELS.get(self.strategy, self.strategy)
        twins = [g for g in groups if g.strategy == self.strategy]
        return f"{name} ({self.name})" if len(twins) > 1 and self.name != self.strategy else name

    def scores(self, checks: Checks | None = None) -> Scores:
        """EM, F1 and the grounded rate with 95 % intervals, and ``checks``' pass rates (``repeats.score_results``)."""
        return score_results(self.records, checks)

    def checked(self, checks: Checks | None = None) -> list[dict[str, bool]]:
        """Each result's trajectory checks, in file order."""
        return [record_checks(record, checks) for record in self.records]

    def compare(self, baseline: StrategyResults) -> Comparison:
        """These results against ``baseline``'s, on the questions both answered (``repeats.compare_results``)."""
        return compare_results(baseline.records, self.records)

    def in_common(self, records: Iterable[dict[str, Any]]) -> list[str]:
        """The ids of the questions these results and ``records`` both answered (the same id and question)."""
        return common_questions(self.records, records)

    def first_run(self, qid: str) -> dict[str, Any] | None:
        """The first result of question ``qid`` (of its repeated runs, ``ID#1``)."""
        return next((r for r in self.records if base_id(r["id"]) == qid), None)


@dataclass
class Evaluation:
    folder: Path
    created_at: str
    results: list[StrategyResults] = field(default_factory=list)

    @property
    def strategies(self) -> list[str]:
        return [r.strategy for r in self.results]

    @property
    def task(self) -> Task:
        """The task of the folder's results (an evaluation runs one)."""
        return self.results[0].task if self.results else HOTPOTQA

    @property
    def planned(self) -> int:
        return max((r.planned or len(r.records) for r in self.results), default=0)

    @property
    def assignment(self) -> dict[str, str] | None:
        """The assignment whose questions this evaluation ran (its token and name, from its folder's note), or None."""
        try:
            found = json.loads((self.folder / ASSIGNMENT_NOTE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        ok = isinstance(found, dict) and isinstance(found.get("token"), str) and isinstance(found.get("name"), str)
        return {"token": found["token"], "name": found["name"]} if ok else None

    def ended(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for r in self.results:
            for reason, count in r.summary().ended.items():
                total[reason] = total.get(reason, 0) + count
        return total

    @classmethod
    def load(cls, folder: str | Path) -> Evaluation:
        """Every results file of a folder, in the order of the paper's table."""
        folder = Path(folder)
        results = [r for path in sorted(folder.glob("*.jsonl")) for r in load_file(path)]
        results.sort(key=lambda r: (_order(r.strategy), r.name))
        stamps = [r.header["created_at"] for r in results if r.header and r.header.get("created_at")]
        if stamps:
            created = min(stamps)
        else:
            when = folder.stat().st_mtime if folder.exists() else 0
            created = datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds")
        return cls(folder, created, results)

    @classmethod
    def load_all(
        cls, root: str | Path | None = None, load: Callable[[Path], Evaluation] | None = None
    ) -> list[Evaluation]:
        """The evaluations under ``root`` (default ``evaluations_dir()``) that hold results files, newest first;
        ``load`` reads one folder (default ``Evaluation.load``; the app passes a cached reader)."""
        root = Path(root) if root is not None else evaluations_dir()
        if not root.is_dir():
            return []
        load = load or cls.load
        found = [load(p) for p in root.iterdir() if p.is_dir() and any(p.glob("*.jsonl"))]
        return sorted(found, key=lambda e: (e.created_at, e.folder.name), reverse=True)

    @staticmethod
    def root(owner: str = "") -> Path:
        """The folder of ``owner``'s evaluations (``paths.evaluations_dir``): local mode's and the CLI's for ''."""
        return evaluations_dir(owner)

    @staticmethod
    def new_folder(root: str | Path | None = None) -> Path:
        """A fresh folder for an evaluation, named after the time it starts (UTC), under ``evaluations_dir()``."""
        root = Path(root) if root is not None else evaluations_dir()
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        for n in range(1, 1000):
            folder = root / (stamp if n == 1 else f"{stamp}-{n}")
            try:
                folder.mkdir(parents=True)
                return folder
            except FileExistsError:
                continue
        raise ConfigError(f"Cannot create a new evaluation folder in {root}.")

    @staticmethod
    def by_version(evaluations: list[Evaluation], version: str | None = None) -> Grouped:
        """Every results file of ``evaluations`` grouped by the prompt version it was made with (``''`` for files
        that name none), versions in order of name; only ``version``'s group when one is given."""
        return _grouped(evaluations, lambda r: r.version, version)

    @staticmethod
    def by_model(evaluations: list[Evaluation], model: str | None = None) -> Grouped:
        """Every results file of ``evaluations`` grouped by the model it was made with, as ``by_version`` by
        version."""
        return _grouped(evaluations, lambda r: r.model, model)


Grouped = dict[str, list[tuple[Evaluation, StrategyResults]]]


def _grouped(evaluations: list[Evaluation], key: Callable[[StrategyResults], str], only: str | None) -> Grouped:
    groups: Grouped = {}
    for e in evaluations:
        for r in e.results:
            if only is None or key(r) == only:
                groups.setdefault(key(r), []).append((e, r))
    return dict(sorted(groups.items()))


def _order(strategy: str) -> int:
    return STRATEGIES.index(strategy) if strategy in STRATEGIES else len(STRATEGIES)


def load_file(path: str | Path) -> list[StrategyResults]:
    path = Path(path)
    header, records = read_file(path)
    if header is not None:
        return [StrategyResults(path.stem, header.get("strategy", path.stem), path, header, records)]
    by_strategy: dict[str, dict[str, dict]] = {}
    for r in records:
        by_strategy.setdefault(r.get("strategy", path.stem), {})[r["id"]] = r  # the latest line for an id wins
    single = len(by_strategy) == 1
    return [
        StrategyResults(path.stem if single else f"{path.stem} · {s}", s, path, None, list(rs.values()))
        for s, rs in by_strategy.items()
    ]
