"""The sample scripts shipped with the app, for the scripted provider (a run written as a script: ``script.Script``).

The samples (``sample_scripts/<dialect>/<example>.json``) are the offline examples in every chat dialect: the Chat
page's arithmetic question, answered with the Calculator, and a two-hop HotpotQA question that the offline pack
answers (two Searches). Each is what a model would write for that question with the dialect's shipped preset, so
choosing one in Settings and asking its question replays a whole ReAct run with no model and no network; a test runs
every one of them against the pack.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from react_core.base.paths import SAMPLE_SCRIPTS_DIR
from react_core.dialects import DIALECTS

__all__ = ["SAMPLE_QUESTIONS", "SampleScript"]

# The example each sample answers, by its file's name.
SAMPLE_QUESTIONS = {
    "calculator": "What is 17 * 23 + 4?",
    "kiss-and-tell": (
        "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
    ),
}


@dataclass(frozen=True)
class SampleScript:
    path: Path
    dialect: str
    example: str

    @property
    def question(self) -> str:
        return SAMPLE_QUESTIONS[self.example]

    @property
    def label(self) -> str:
        """``Sample · ReAct paper (Search[entity]) · What is 17 * 23 + 4?``"""
        dialect = DIALECTS[self.dialect].label if self.dialect in DIALECTS else self.dialect
        return f"Sample · {dialect} · {self.question}"

    @classmethod
    def all(cls, folder: Path | None = None) -> list[SampleScript]:
        """The shipped samples, dialect by dialect in the app's order, each example in the order above."""
        folder = folder or SAMPLE_SCRIPTS_DIR
        return [
            cls(folder / dialect / f"{example}.json", dialect, example)
            for dialect in DIALECTS
            for example in SAMPLE_QUESTIONS
            if (folder / dialect / f"{example}.json").is_file()
        ]

    @classmethod
    def at(cls, path: str | Path) -> SampleScript | None:
        """The shipped sample at ``path`` (None for any other file)."""
        try:
            wanted = Path(path).resolve()
        except (OSError, ValueError):
            return None
        return next((s for s in cls.all() if s.path.resolve() == wanted), None)

    @classmethod
    def label_of(cls, path: str | Path) -> str:
        """A script as a list shows it: a sample by its dialect and question, any other file by its name."""
        sample = cls.at(path) if path else None
        return sample.label if sample is not None else Path(str(path)).name
