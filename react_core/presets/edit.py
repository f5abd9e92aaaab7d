"""A prompt as the Settings editor holds it: the preset as edited, checked against the tools enabled by the run's own
parser (``check.validate_preset``), its size as sent with every step, and a run appended to its examples (with what
it would teach that a person may not mean to: ``example_warnings``).

A run taken as an example is written in the prompt's own dialect (``from_run.example_text``), and its id is kept beside
the example, under its question (``Preset.example_sources``), so a version says where each such example came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from react_core.base.errors import ConfigError
from react_core.base.trace import Step, Trace
from react_core.history.records import IMPORTED
from react_core.presets.check import Problem, validate_preset
from react_core.presets.from_run import example_text
from react_core.presets.preset import Preset
from react_core.presets.render import render_prefix
from react_core.providers.base import Provider
from react_core.report.edits import hand_edits
from react_core.report.expected import check_expected
from react_core.report.grounding import check_grounding

__all__ = ["PromptEdit"]


@dataclass(frozen=True)
class PromptEdit:
    """``preset`` as edited, with the ``tools`` enabled; ``since``: the version the edit started from, whose own steps
    stay valid whatever tools are off (the shipped examples call all three)."""

    preset: Preset
    tools: Sequence[str] | None = None
    since: Preset | None = None

    @property
    def problems(self) -> list[Problem]:
        """What keeps the edit from being applied ([] when nothing): a step a person writes may call only an enabled
        tool."""
        return validate_preset(self.preset, self.tools, since=self.since)

    @property
    def tokens(self) -> int:
        """About how many tokens of instructions and examples are sent with every step."""
        return Provider.estimate_tokens(render_prefix(self.preset, list(self.tools or [])))

    def with_run(self, trace: Trace, run_id: int) -> Preset:
        """The prompt with the run appended to its examples (an unsaved edit), checked as the editor checks a prompt;
        ConfigError says what is wrong, with the line."""
        preset = self.preset
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

    @staticmethod
    def example_warnings(trace: Trace, *, fork_step: int | None = None, origin: str = "") -> list[str]:
        """What taking this run as an example (``with_run``) would teach that a person may not mean to teach, one
        sentence each ([] when nothing). ``fork_step`` and ``origin``: the run's history row's (a fork's edit is known
        from them)."""
        out = []
        if origin == IMPORTED:
            out.append(
                "This run was imported from a file: its question and steps are written into your prompt as they are, "
                "in your prompt's dialect. The prompt, model and settings it ran with elsewhere play no part, and "
                "nothing here checked its observations."
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
                    f"Step {step.index} repeats step {seen[move]}'s action ({step.action.tool} "
                    f"{step.action.input!r}): a wasted step the model would learn to copy."
                )
            else:
                seen[move] = step.index
        expected = check_expected(trace)
        if expected is not None and expected.kind != "match":
            out.append(f"The answer is wrong: {expected.message}. The model would learn to give it.")
        elif expected is None and trace.final_answer is not None:
            grounding = check_grounding(trace)
            where = " and it occurs in no tool's evidence" if grounding.kind == "not_found" else ""
            out.append(
                f"The answer is unverified: no expected answer is known for this question{where}. Check it first."
            )
        return out


def _move(step: Step) -> tuple[str, str] | None:
    if step.action is None:
        return None
    return step.action.tool, " ".join(step.action.input.lower().split())
