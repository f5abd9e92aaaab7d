"""A run as a worked example: its question and steps written in a prompt's own dialect (``Dialect.render_step``, the
same writing the next prompt uses), appended to that prompt's examples and checked by the dialect's parser. The run's
id is kept beside the example, under its question (``Preset.example_sources``), so a version says where each such
example came from.
"""

from __future__ import annotations

from dataclasses import replace

from react_core.base.errors import ConfigError
from react_core.base.trace import Trace
from react_core.dialects import get_dialect
from react_core.presets.check import validate_preset
from react_core.presets.preset import Preset
from react_core.presets.render import render_question


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


def example_from_run(trace: Trace, preset: Preset, run_id: int) -> Preset:
    """``preset`` with the run appended to its examples (an unsaved edit), checked as the editor checks a prompt;
    ConfigError says what is wrong, with the line."""
    text = example_text(trace, preset).strip("\n")
    gap = "\n\n" if "\n\n" in preset.examples.strip("\n") else "\n"
    examples = preset.examples.rstrip("\n") + gap + text + "\n" if preset.examples.strip() else text + "\n"
    edited = replace(
        preset,
        examples=examples,
        example_sources={**preset.example_sources, " ".join(trace.question.split()): int(run_id)},
        version=0,
        builtin=False,
        path="",
        name=preset.name if preset.name.endswith(" (edited)") else f"{preset.name} (edited)",
    )
    problems = validate_preset(edited, since=preset)
    if problems:
        raise ConfigError(f"Run #{run_id} written as an example does not check: {problems[0]}")
    return edited
