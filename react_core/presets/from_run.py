"""A run as a worked example: its question and steps written in a prompt's own dialect (``Dialect.render_step``, the
same writing the next prompt uses); ``PromptEdit.with_run`` appends it to that prompt's examples and checks it by the
dialect's parser.

A model copies what its examples show, so ``example_warnings`` says before the run is taken what it would teach that
a person may not want taught: a step a person edited or wrote, an action repeated for nothing, an answer that is
wrong or that nobody checked; and, for a run imported from a file, what happens to it.
"""

from __future__ import annotations

from react_core.base.errors import ConfigError
from react_core.base.trace import Step, Trace
from react_core.dialects import get_dialect
from react_core.history.records import IMPORTED
from react_core.presets.preset import Preset
from react_core.presets.render import render_question
from react_core.report.edits import hand_edits
from react_core.report.expected import check_expected
from react_core.report.grounding import check_grounding

__all__ = ["example_text", "example_warnings"]


def example_text(trace: Trace, preset: Preset) -> str:
    """The run's question and steps as one example in ``preset``'s dialect; ConfigError when it cannot be one."""
    if not trace.steps or trace.steps[-1].final_answer is None:
        raise ConfigError("Only a run that ended with an answer can be an example: a model copies what it is shown.")
    for step in trace.steps:
        if step.action is None and step.final_answer is None:
            raise ConfigError(f"Step {step.index} has no readable action, so this run cannot be an example.")
    dialect = get_dialect(preset.dialect)
    steps = "".join(dialect.render_step(step) for step in trace.steps)
    return render_question(preset, trace.question) + steps


def _move(step: Step) -> tuple[str, str] | None:
    if step.action is None:
        return None
    return step.action.tool, " ".join(step.action.input.lower().split())


def example_warnings(trace: Trace, *, fork_step: int | None = None, origin: str = "") -> list[str]:
    """What taking this run as an example would teach that a person may not mean to teach, one sentence each ([] when
    nothing). ``fork_step`` and ``origin``: the run's history row's (a fork's edit is known from them)."""
    out = []
    if origin == IMPORTED:
        out.append(
            "This run was imported from a file: its question and steps are written into your prompt as they are, in "
            "your prompt's dialect. The prompt, model and settings it ran with elsewhere play no part, and nothing "
            "here checked its observations."
        )
    for edit in hand_edits(trace, fork_step, origin):
        out.append(
            f"Step {edit.index}'s {edit.part} was {edit.how}, not written by the model or returned by a tool: the "
            "model would learn it as if it were."
        )
    seen: dict[tuple[str, str], int] = {}
    for step in trace.steps:
        move = _move(step)
        if move is None:
            continue
        if move in seen:
            out.append(
                f"Step {step.index} repeats step {seen[move]}'s action ({step.action.tool} {step.action.input!r}): a "
                "wasted step the model would learn to copy."
            )
        else:
            seen[move] = step.index
    expected = check_expected(trace)
    if expected is not None and expected.kind != "match":
        out.append(f"The answer is wrong: {expected.message}. The model would learn to give it.")
    elif expected is None and trace.final_answer is not None:
        grounding = check_grounding(trace)
        where = " and it occurs in no tool's evidence" if grounding.kind == "not_found" else ""
        out.append(f"The answer is unverified: no expected answer is known for this question{where}. Check it first.")
    return out
