"""A script for the scripted provider as a person handles one: uploaded in Settings (its bytes checked as a file's
are, and kept small: it is kept in a session and remembered with its settings), or a finished run written back as one
("Save as script"), so a run recorded once with a hosted model replays offline in class.

A run is written as each model reply of the run, in order (the text it wrote, or for native tool calls the text and
its calls). A reply that no longer reads as its step (a fork's edited thought, an action edited in step mode) is
written as the step was recorded, and the notes say which; observations are never in a script: a replay runs the
tools again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from react_core.base.errors import ConfigError
from react_core.base.trace import Step, Trace
from react_core.dialects import get_dialect
from react_core.dialects.tools import replies
from react_core.providers.scripted import checked_outputs

__all__ = ["Script"]


# The format, as a person reads it beside the script's box (Settings) and in the docs.
_FORMAT = """A JSON array with one item per model call, used in order (one script can drive several questions):

- a string: the model's reply, word for word, e.g. `" I should compute it.\\nAction 1: Calculator[6 * 7]"` in the
  paper dialect (the reply goes on from the prompt's `Thought 1:`; the loop cuts it at the dialect's stop sequences);
- or an object: `{"text": …, "delay": seconds, "error": "a failure to raise", "usage": {"prompt_tokens": …,
  "completion_tokens": …}, "tool_calls": [{"name": "search", "arguments": {"query": "…"}}]}` (`tool_calls`: a reply
  that calls tools natively, for the tools dialect).

Observations are not in a script: the tools run as in any run. History's **Save as script** writes a run in this
format; the samples show it in every dialect."""


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


@dataclass(frozen=True)
class Script:
    """A scripted provider's outputs, one per model call, and notes on what a replay will not repeat."""

    outputs: list[Any]
    notes: list[str] = field(default_factory=list)

    MAX_BYTES: ClassVar[int] = 1_000_000  # an upload, kept in a session and remembered with its settings
    FORMAT: ClassVar[str] = _FORMAT

    @classmethod
    def upload(cls, data: bytes) -> Script:
        """A script a person uploaded (its bytes): the same checks as a file's, and a size limit."""
        if len(data) > cls.MAX_BYTES:
            raise ConfigError(f"The script is larger than {cls.MAX_BYTES:,} bytes.")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ConfigError("The script is not UTF-8 text.") from None
        return cls(checked_outputs(text, "The script"))

    @classmethod
    def from_run(cls, trace: Trace) -> Script:
        """The run's model replies as a script, with notes on what a replay will not repeat."""
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
                if obs is not None and (obs.written_by or obs.edited_in_fork):
                    notes.append(f"Step {step.index}'s observation was written by a person: a replay runs the tool.")
        if not outputs:
            notes.append("This run has no model reply to replay.")
        return cls(outputs, notes)

    @property
    def json(self) -> str:
        """The script's file text: a JSON array, one output per line's worth, readable and diffable."""
        return json.dumps(self.outputs, ensure_ascii=False, indent=2) + "\n"
