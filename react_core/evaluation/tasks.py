"""The two tasks of the paper's Table 1, each with its prompts, its score and its column of the paper's figures.

HotpotQA: questions, scored by exact match and token F1 after SQuAD normalisation. FEVER: claims, each answered with
a label (SUPPORTS, REFUTES, NOT ENOUGH INFO) and scored by accuracy: 1 when ``normalize_answer(label) ==
normalize_answer(answer)``, as the paper's ``FeverWrapper`` rewards it (which records that reward as EM and F1 too; so
do our results files). A dataset file says its task (``data.is_fever_file``) unless one is named (``eval --task``). A
person's own question sets are HotpotQA-style: questions and answers. UI-free.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from react_core.base.answers import exact_match, f1_score
from react_core.base.errors import ConfigError
from react_core.base.paths import shared_data_dir
from react_core.evaluation.data import is_fever_file
from react_core.evaluation.paper import PAPER_FEVER_ACC, PAPER_HOTPOTQA_EM
from react_core.evaluation.strategies import DEFAULT_PRESETS

__all__ = [
    "FEVER",
    "HOTPOTQA",
    "TASKS",
    "Task",
    "fever_scores",
    "is_dev_name",
    "paper_data",
    "qa_scores",
    "task_for",
    "task_named",
]

_PAPER_ROWS = "react_paper_eval_500_indices.json"  # the rows the paper scored, beside each task's dev file


def qa_scores(prediction: str | None, gold: str) -> tuple[float, float]:
    return exact_match(prediction, gold), round(f1_score(prediction, gold), 4)


def fever_scores(prediction: str | None, label: str) -> tuple[float, float]:
    """The paper's FEVER reward, recorded as EM and F1 alike as its wrapper does."""
    accuracy = exact_match(prediction, label)
    return accuracy, accuracy


@dataclass(frozen=True, eq=False)  # one object per task, compared and hashed as itself
class Task:
    PAPER_MODEL: ClassVar[str] = "PaLM-540B"  # the model of the paper's Table 1
    PAPER_N: ClassVar[int] = 500  # the dev questions (claims) each column of it scored
    # Set below, once the tasks exist: every task by name, and HotpotQA (results that name no task are its).
    ALL: ClassVar[Mapping[str, Task]]
    HOTPOTQA: ClassVar[Task]

    name: str
    label: str
    metric: str  # the headline figure's name: what the tables call the EM column
    measure: str  # the same in words
    items: str  # what a row of the dataset is, in words
    presets: Mapping[str, str]  # the paper's prompt for each role
    paper: Mapping[str, float]  # the paper's Table 1 column (PaLM-540B), per strategy
    source: str  # the dataset, its authors and licence
    shown: str  # what of it the app shows, in the credit line
    scores: Callable[[str | None, str], tuple[float, float]]  # (EM, F1) of an answer against the gold one
    folder: str  # its folder in the shared data
    dev_file: str  # the dev file the paper's 500 rows (``paper_rows``, in the same folder) are rows of
    f1: bool = True  # whether F1 says anything beside the metric

    @property
    def credit(self) -> str:
        """The line wherever the app shows the dataset's text."""
        return f"{self.shown}: {self.source}."

    def paper_files(self) -> tuple[Path, Path]:
        """The paper's dev file and its 500 row indices, in the shared data."""
        dev = shared_data_dir() / self.folder / self.dev_file
        return dev, Task.paper_rows(dev)

    @staticmethod
    def paper_rows(dataset: str | Path) -> Path:
        """The file of the rows the paper scored (indices into its dev file), beside a dataset file."""
        return Path(dataset).parent / _PAPER_ROWS

    def dataset_files(self) -> list[Path]:
        """The task's dataset files in the shared data, by name (without the paper's list of rows)."""
        folder = shared_data_dir() / self.folder
        return [p for p in sorted(folder.glob("*.json*")) if p.name != _PAPER_ROWS] if folder.is_dir() else []

    @staticmethod
    def shared_data() -> Path:
        """The shared data folder (``REACT_SHARED_DATA``) whose task folders hold the datasets."""
        return shared_data_dir()

    @staticmethod
    def shared_files() -> dict[str, Path]:
        """Every task's dataset files in the shared data, by file name."""
        return {p.name: p for task in TASKS.values() for p in task.dataset_files()}

    @staticmethod
    def of(path: str | Path) -> Task:
        """The task a dataset file holds: FEVER's claims, else HotpotQA-style questions."""
        return FEVER if is_fever_file(path) else HOTPOTQA


HOTPOTQA = Task(
    name="hotpotqa",
    label="HotpotQA",
    metric="EM",
    measure="exact match",
    items="questions",
    presets=DEFAULT_PRESETS,
    paper=PAPER_HOTPOTQA_EM,
    source="HotpotQA (CC BY-SA 4.0)",
    shown="Questions and Wikipedia paragraphs",
    scores=qa_scores,
    folder="hotpotqa",
    dev_file="hotpot_dev_v1_simplified.json",
)
FEVER = Task(
    name="fever",
    label="FEVER",
    metric="accuracy",
    measure="accuracy",
    items="claims",
    presets={"standard": "fever-standard", "cot": "fever-cot", "act": "fever-act", "react": "fever-react"},
    paper=PAPER_FEVER_ACC,
    source="FEVER (Thorne et al. 2018, CC BY-SA 3.0)",
    shown="Claims",
    scores=fever_scores,
    folder="fever",
    dev_file="paper_dev.jsonl",
    f1=False,
)
TASKS = {t.name: t for t in (HOTPOTQA, FEVER)}
Task.ALL, Task.HOTPOTQA = TASKS, HOTPOTQA


def task_named(name: str | None) -> Task:
    """A task by name; results written before tasks existed (no name) are HotpotQA's."""
    if not name:
        return HOTPOTQA
    if name not in TASKS:
        raise ConfigError(f"Unknown task {name!r}: choose one of {', '.join(TASKS)}.")
    return TASKS[name]


def task_for(datasets: Sequence[str | Path], named: str = "") -> Task:
    """The task of an evaluation: the one named, else the one its dataset files hold (all the same one)."""
    if named:
        return task_named(named)
    found = {Task.of(d).name for d in datasets}
    if len(found) > 1:
        raise ConfigError(
            "These dataset files hold different tasks (HotpotQA questions and FEVER claims); evaluate them separately."
        )
    return TASKS[found.pop()] if found else HOTPOTQA


def is_dev_name(name: str) -> bool:
    """A dev file's name (``hotpot_dev_v1_simplified.json``, ``dev_distractor_first100.json``, ``paper_dev.jsonl``):
    the split the paper's Table 1 was scored on, not a training file."""
    return "dev" in Path(name).stem.lower().split("_")


def paper_data(datasets: Sequence[str | Path]) -> bool:
    """Whether every dataset file is a dev file of a task's own folder in the shared data: the paper's data, the only
    questions the paper's Table 1 column belongs beside (a person's own questions are not)."""
    folders = {(shared_data_dir() / t.folder).resolve() for t in TASKS.values()}
    return bool(datasets) and all(Path(d).resolve().parent in folders and is_dev_name(Path(d).name) for d in datasets)
