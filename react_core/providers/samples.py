"""Scripts for the scripted provider: the samples shipped with the app, and any run written as a script.

The samples (``sample_scripts/<dialect>/<example>.json``) are the offline examples in every chat dialect: the Chat
page's arithmetic question, answered with the Calculator, and a two-hop HotpotQA question that the offline pack
answers (two Searches). Each is what a model would write for that question with the dialect's shipped preset, so
choosing one in Settings and asking its question replays a whole ReAct run with no model and no network; a test runs
every one of them against the pack.

``run_as_script`` writes a finished run back as a script: each model reply of the run, in order (the text it wrote,
or for native tool calls the text and its calls), so a run recorded once with a hosted model replays offline in class.
A reply that no longer reads as its step (a fork's edited thought, an action edited in step mode) is written as the
step was recorded, and the notes say which; observations are never in a script: a replay runs the tools again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from react_core.base.paths import SAMPLE_SCRIPTS_DIR
from react_core.base.trace import Step, Trace
from react_core.dialects import DIALECTS, get_dialect
from react_core.dialects.tools import replies
from react_core.report.edits import EDITED_NOTE

__all__ = [
    "SAMPLE_QUESTIONS",
    "SampleScript",
    "run_as_script",
    "sample_for",
    "sample_scripts",
    "script_json",
    "script_label",
]

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


def sample_scripts(folder: Path | None = None) -> list[SampleScript]:
    """The shipped samples, dialect by dialect in the app's order, each example in the order above."""
    folder = folder or SAMPLE_SCRIPTS_DIR
    return [
        SampleScript(folder / dialect / f"{example}.json", dialect, example)
        for dialect in DIALECTS
        for example in SAMPLE_QUESTIONS
        if (folder / dialect / f"{example}.json").is_file()
    ]


def sample_for(path: str | Path) -> SampleScript | None:
    """The shipped sample at ``path`` (None for any other file)."""
    try:
        wanted = Path(path).resolve()
    except (OSError, ValueError):
        return None
    return next((s for s in sample_scripts() if s.path.resolve() == wanted), None)


def script_label(path: str | Path) -> str:
    """A script as a list shows it: a sample by its dialect and question, any other file by its name."""
    sample = sample_for(path) if path else None
    return sample.label if sample is not None else Path(str(path)).name


# -- a run as a script ----------------------------------------------------------------------------------------


def _reads_as_recorded(dialect: Any, step: Step) -> bool:
    parsed = dialect.parse(step.raw_output)
    return (
        parsed.action == step.action
        and parsed.final_answer == step.final_answer
        and " ".join(parsed.thought.split()) == " ".join(step.thought.split())
    )


def _call_item(reply: list[Step]) -> dict[str, Any]:
    calls = [s.tool_call for s in reply if s.tool_call is not None]
    return {
        "text": reply[0].raw_output,
        "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls],
    }


def run_as_script(trace: Trace) -> tuple[list[Any], list[str]]:
    """(the run's model replies as a scripted provider's outputs, notes on what a replay will not repeat)."""
    dialect = get_dialect(str(trace.settings.get("dialect") or "paper"))
    outputs: list[Any] = []
    notes: list[str] = []
    for reply in replies(trace.steps):
        head = reply[0]
        if dialect.native_tools:
            outputs.append(_call_item(reply) if any(s.tool_call for s in reply) else head.raw_output)
        elif head.raw_output and _reads_as_recorded(dialect, head):
            outputs.append(head.raw_output)
        else:
            prefix = dialect.step_prefix(head.index)
            written = dialect.render_model_part(head)
            outputs.append(written[len(prefix) :] if written.startswith(prefix) else written)
            notes.append(f"Step {head.index} is written as the run recorded it, not as the model first wrote it.")
        for step in reply:
            obs = step.observation
            if obs is not None and (obs.written_by or obs.note == EDITED_NOTE):
                notes.append(f"Step {step.index}'s observation was written by a person: a replay runs the tool.")
    if not outputs:
        notes.append("This run has no model reply to replay.")
    return outputs, notes


def script_json(outputs: list[Any]) -> str:
    """A script's file text: a JSON array, one output per line's worth, readable and diffable."""
    return json.dumps(outputs, ensure_ascii=False, indent=2) + "\n"
