"""A preset as prompt text: the fixed prefix (instructions with the enabled tools' descriptions, and the examples)
and the question block (with the earlier questions and answers of a conversation). Placeholders are replaced
literally (no ``str.format``), so examples may contain braces."""

from __future__ import annotations

from react_core.base import tool_specs
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import Exchange
from react_core.dialects import get_dialect
from react_core.dialects.base import example_action
from react_core.presets.dynamic import chosen_examples
from react_core.presets.preset import Preset

__all__ = ["render_first_prompt", "render_prefix", "render_question", "tools_block"]


def tools_block(preset: Preset, tool_names: list[str]) -> str:
    """The enabled tools' descriptions, numbered as in the paper, Finish last. A preset's own wording wins; a tool
    it does not describe gets its call in the preset's dialect and the tool's own description."""
    fmt = get_dialect(preset.dialect)
    descriptions = []
    for name in [t for t in ToolSpec.ORDER if t in tool_names] + [t for t in tool_names if t not in ToolSpec.ORDER]:
        spec = tool_specs.spec(name)
        fallback = fmt.render_action(example_action(name)) + (f": {spec.description}" if spec else "")
        descriptions.append(preset.tools.get(name) or fallback)
    finish = tool_specs.FINISH
    descriptions.append(
        preset.tools.get("finish") or f"{fmt.render_action(None, finish.example)}: {finish.description}"
    )
    return "\n".join(f"({i}) {d}" for i, d in enumerate(descriptions, 1))


def render_prefix(preset: Preset, tool_names: list[str], question: str | None = None) -> str:
    """Instructions and examples: the part of the prompt that never changes during a run. With ``question``, a
    version with dynamic examples shows the ones chosen for it (``react_core.presets.dynamic``); without, all."""
    text = preset.instructions.replace("{tools}", tools_block(preset, tool_names)).rstrip("\n")
    text = text + "\n" if text else ""
    examples = preset.examples if question is None else chosen_examples(preset, question)[0]
    if examples.strip():
        text += examples.strip("\n") + "\n"
    return text


def render_question(preset: Preset, question: str, context: list[Exchange] | tuple[Exchange, ...] = ()) -> str:
    """The question block, after the earlier questions and answers of the conversation (for follow-ups)."""
    out = ""
    if context:
        out = (
            "Earlier in this conversation:\n"
            + "".join(
                f"Q: {' '.join(t.question.split())}\nA: {' '.join((t.answer or '(no answer)').split())}\n"
                for t in context
            )
            + "\n"
        )
    return out + preset.question.replace("{question}", question.strip())


def render_first_prompt(preset: Preset, tool_names: list[str], question: str) -> str:
    """The whole text a raw-completion model reads for a new question's first step (prefix, question, step label):
    what the warm-up reads ahead for the question a person is likely to ask first."""
    return (
        render_prefix(preset, tool_names, question)
        + render_question(preset, question)
        + get_dialect(preset.dialect).step_prefix(1)
    )
