"""A trajectory as the text a model learns from: exactly the prompts the app will send and the replies it should give.

Whatever its source (a gold trajectory, a person's run, a teacher's), a trajectory is a ``Trace``. To learn from it,
the trace is replayed through the real loop (``Agent``) with the fine-tuning preset: a provider that answers each call
with the step's own canonical text (the dialect's ``render_model_part``) and tools that answer with the recorded
observations. What the provider is asked is what the app will ask the fine-tuned model, byte for byte, so the text
learned is the text met. The direct methods (Standard, CoT) build their one call with the evaluation's own
``direct_request``.

An example is a list of ``Segment``s: the prompt's text (read, not learned) and the model's replies (learned), each
reply followed by the stop sequence that ends it, so a model run without a grammar also learns where to stop.
UI-free.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from react_core.base.errors import ConfigError
from react_core.base.events import final_trace
from react_core.base.trace import Observation, Step, Trace, Usage
from react_core.dialects import get_dialect
from react_core.evaluation.strategies import DIRECT_STOPS, direct_request
from react_core.loop.agent import RunConfig
from react_core.loop.keeping import UNKEPT
from react_core.loop.service import Run, RunRequest
from react_core.presets.preset import Preset
from react_core.providers.base import Chunk, CompletionRequest, Provider
from react_core.tools.registry import Tool, ToolRegistry


@dataclass(frozen=True)
class Segment:
    text: str
    kind: str  # "prompt" (the model reads it), "reply" (it writes it), "stop" (it writes it to end its reply)

    @property
    def learned(self) -> bool:
        return self.kind != "prompt"


def _stop_rest(reply: str, stop: str) -> str:
    """What of ``stop`` the model still writes after ``reply`` (a reply ending in its first characters has begun it)."""
    for k in range(min(len(stop), len(reply)), 0, -1):
        if reply.endswith(stop[:k]):
            return stop[k:]
    return stop


class _Replay(Provider):
    """Answers each call with the next step's canonical text, and keeps every request it was sent."""

    name = "replay"
    label = "Replay"
    default_model = "replay"

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.model = "replay"
        self.requests: list[CompletionRequest] = []

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        if len(self.requests) >= len(self.replies):
            raise ConfigError("the trajectory has no step for this call")
        reply = self.replies[len(self.requests)]
        self.requests.append(request)
        yield Chunk(text=reply)
        yield Chunk(usage=Usage(0, 0), finish_reason="stop")


def _recorded_tools(steps: Sequence[Step], names: Sequence[str]) -> ToolRegistry:
    """Tools named ``names`` that answer, in order, with the steps' recorded observations."""
    observations = iter([s.observation for s in steps if s.action is not None])

    def answer(_: str) -> Observation:
        recorded = next(observations, None)
        if recorded is None:
            raise ConfigError("the trajectory has no observation for this action")
        return Observation.from_dict(recorded.to_dict())

    return ToolRegistry(Tool(name, answer) for name in names)


def agent_segments(trace: Trace, preset: Preset, tools: Sequence[str]) -> list[Segment]:
    """The agent run of ``trace`` (its steps' thoughts, actions and observations) as the fine-tuning preset asks it,
    with ``tools`` enabled."""
    dialect = get_dialect(preset.dialect)
    if dialect.native_tools:
        raise ConfigError("fine-tuning writes text dialects only: a native tool-calling reply is the API's, not text.")
    replies = [dialect.render_model_part(s)[len(dialect.step_prefix(s.index)) :] for s in trace.steps]
    provider = _Replay(replies)
    config = RunConfig(
        provider=provider, preset=preset, tools=_recorded_tools(trace.steps, tools), max_calls=len(replies)
    )
    replayed = final_trace(Run(RunRequest(trace.question, config=config), UNKEPT))  # a replay: not kept
    if replayed.stop_reason != "finished" or len(replayed.steps) != len(trace.steps):
        raise ConfigError(
            f"the trajectory does not replay in the {dialect.name} dialect ({replayed.stop_reason}: "
            f"{replayed.error or 'its steps read back differently'})"
        )
    for step, again in zip(trace.steps, replayed.steps, strict=True):
        if (step.action, step.final_answer) != (again.action, again.final_answer):
            raise ConfigError(f"step {step.index} reads back as a different action in the {dialect.name} dialect")
    segments: list[Segment] = []
    read = ""  # the text already in the segments
    for request, reply in zip(provider.requests, replies, strict=True):
        prompt = request.text
        if not prompt.startswith(read):
            raise ConfigError("a step's prompt does not continue the previous one: the replay is not exact")
        segments.append(Segment(prompt[len(read) :], "prompt"))
        stop = _stop_rest(reply, dialect.stop[0])
        segments.append(Segment(reply, "reply"))
        read = prompt + reply
        if stop:
            segments.append(Segment(stop, "stop"))
            read += stop
    return [s for s in segments if s.text]


def direct_segments(trace: Trace, preset: Preset) -> list[Segment]:
    """A Standard or CoT trajectory (one step: a thought for CoT, and the answer) as its direct prompt asks it."""
    step = trace.steps[-1] if trace.steps else None
    if step is None or step.final_answer is None:
        raise ConfigError("a direct-answer trajectory ends with its answer")
    request = direct_request(preset, trace.question)
    if preset.mode == "standard":
        reply = f" {step.final_answer}"
    else:
        reply = f" {' '.join(step.thought.split())}\nAnswer: {step.final_answer}"
    return [Segment(request.text, "prompt"), Segment(reply, "reply"), Segment(DIRECT_STOPS[preset.mode][0], "stop")]


def segments_for(trace: Trace, preset: Preset, tools: Sequence[str]) -> list[Segment]:
    """``trace`` as ``preset`` asks it: the agent's steps for an agent prompt, one reply for a direct-answer one."""
    return agent_segments(trace, preset, tools) if preset.mode == "react" else direct_segments(trace, preset)
