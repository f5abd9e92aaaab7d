"""A run as a worked example: its question and steps written in a prompt's own dialect (``Dialect.render_step``, the
same writing the next prompt uses); ``PromptEdit.with_run`` appends it to that prompt's examples and checks it by the
dialect's parser.

A model copies what its examples show, so ``PromptEdit.example_warnings`` says before the run is taken what it would
teach that a person may not want taught: a step a person edited or wrote, an action repeated for nothing, an answer
that is wrong or that nobody checked; and, for a run imported from a file, what happens to it.
"""

from __future__ import annotations

from react_core.base.errors import ConfigError
from react_core.base.trace import Trace
from react_core.dialects import get_dialect
from react_core.presets.preset import Preset
from react_core.presets.render import render_question

__all__ = ["example_text"]


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
