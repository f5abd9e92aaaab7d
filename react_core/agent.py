"""The ReAct loop: one model call per step, a budget, an explicit stop reason, events for whoever is watching.

Each step sends the fixed prefix (instructions + examples) and the question, the past steps rendered by the format, and
the next step's prefix. Partial text is streamed to ``on_event`` as it arrives, and cut locally at the format's stop
sequences (providers may ignore them). The model's mistakes become error observations and the loop goes on; provider and
configuration failures end the run with ``error`` and a message for the person, keeping every step already taken.

    {"kind": "step_started", "index": k}
    {"kind": "text", "index": k, "delta": "...", "text": "...so far"}
    {"kind": "action", "index": k, "action": {"tool": ..., "input": ...}}
    {"kind": "step", "step": Step.to_dict()}
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from react_core import cancel as cancellation
from react_core.cancel import Cancelled
from react_core.errors import ContextOverflowError, ProviderError, ReactLabError
from react_core.formats.base import ActionFormat
from react_core.prompts import Preset, render_prefix, render_question
from react_core.providers.base import CompletionRequest, Provider, cut_at_stop, estimate_tokens
from react_core.tools.registry import ToolRegistry
from react_core.trace import Exchange, Observation, Step, Trace, Usage

EventHandler = Callable[[dict[str, Any]], None]
DEFAULT_MAX_CALLS = 8
LOOP_REPEATS = 3
MAX_OBSERVATION_CHARS = 4_000


@dataclass
class RunConfig:
    provider: Provider
    preset: Preset
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    max_calls: int = DEFAULT_MAX_CALLS
    temperature: float = 0.0
    max_tokens: int = 400
    # What else the trace records about how it ran (the knowledge source, the evaluation strategy). Never a key:
    # Trace drops names it does not know.
    recorded: dict[str, Any] = field(default_factory=dict)


def _truncate(text: str, limit: int = MAX_OBSERVATION_CHARS) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + " … [truncated]"


class Agent:
    """Runs one question to a stop reason. Holds no state between runs except the config."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.format: ActionFormat = config.preset.action_format
        self.stops = tuple(dict.fromkeys(self.format.stop + config.provider.extra_stops))

    def run(
        self,
        question: str,
        *,
        context: Sequence[Exchange] = (),
        on_event: EventHandler | None = None,
        cancel: threading.Event | None = None,
        prior_steps: Sequence[Step] = (),
        resume_thought: str | None = None,
    ) -> Trace:
        """Run to a stop reason. ``prior_steps`` (a fork) are kept and written into the prompt; the run then
        takes up to ``max_calls`` new steps, the first starting from ``resume_thought`` when given (the model
        continues that thought)."""
        cfg = self.config
        trace = Trace(
            question=question,
            settings={
                "provider": cfg.provider.name,
                "model": cfg.provider.model,
                "format": self.format.name,
                "preset": cfg.preset.name,
                "temperature": cfg.temperature,
                "max_calls": cfg.max_calls,
                "tools": cfg.tools.names,
                **cfg.recorded,
            },
            context=list(context),
            steps=[Step.from_dict(s.to_dict()) for s in prior_steps],
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        emit = on_event or (lambda _e: None)
        prefix = render_prefix(cfg.preset, cfg.tools.names)
        question_block = render_question(cfg.preset, question, trace.context)
        try:
            # Within the scope, whatever waits for this run (a stream, a backoff, a Wikipedia request) hears Stop.
            with cancellation.scope(cancel) if cancel is not None else contextlib.nullcontext():
                self._loop(trace, prefix, question_block, emit, cancel, resume_thought)
        except Cancelled:
            trace.stop_reason = "cancelled"
        except ContextOverflowError as e:
            # The context window is a budget too: the run ends without an answer, and says why.
            trace.stop_reason, trace.error = "context", str(e)
        except ReactLabError as e:
            trace.stop_reason, trace.error = "error", str(e)
        return trace

    def _check(self, cancel: threading.Event | None) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled

    def _loop(
        self,
        trace: Trace,
        prefix: str,
        question_block: str,
        emit: EventHandler,
        cancel: threading.Event | None,
        seed: str | None = None,
    ) -> None:
        cfg = self.config
        scratchpad = "".join(self.format.render_step(s) for s in trace.steps)
        first = len(trace.steps) + 1
        for index in range(first, first + cfg.max_calls):
            self._check(cancel)
            emit({"kind": "step_started", "index": index})
            started = time.perf_counter()
            step_prefix = self.format.step_prefix(index)
            if seed:
                # A forked step: the model continues the edited thought instead of starting its own.
                step_prefix += ("" if step_prefix.endswith("\n") else " ") + seed.strip()
            request = CompletionRequest(
                system=prefix,
                prompt=question_block + scratchpad + step_prefix,
                stop=self.stops,
                temperature=cfg.temperature,
                max_tokens=cfg.max_tokens,
            )
            raw, usage = self._generate(request, index, emit, cancel)
            parsed = self.format.parse(seed.strip() + raw if seed else raw)
            seed = None
            step = Step(
                index=index,
                thought=parsed.thought,
                action=parsed.action,
                final_answer=parsed.final_answer,
                raw_output=raw,
                usage=usage,
                leaked_observation=parsed.leaked_observation,
            )
            trace.steps.append(step)
            if parsed.error:
                step.observation = Observation.error(f"{parsed.error} {self.format.reminder(cfg.tools.names)}")
            elif parsed.final_answer is not None:
                trace.final_answer, trace.stop_reason = parsed.final_answer, "finished"
            elif self._repeats(trace.steps) >= LOOP_REPEATS:
                step.observation = Observation.error(
                    f"Stopped: {self.format.render_action(step.action)} was repeated {LOOP_REPEATS} times in a row."
                )
                trace.stop_reason = "loop"
            else:
                assert parsed.action is not None
                emit({"kind": "action", "index": index, "action": parsed.action.to_dict()})
                self._check(cancel)
                step.observation = self._act(step)
            step.seconds = round(time.perf_counter() - started, 6)
            emit({"kind": "step", "step": step.to_dict()})
            if trace.stop_reason:
                return
            scratchpad += self.format.render_step(step)
        trace.stop_reason = "max_calls"

    def _generate(
        self, request: CompletionRequest, index: int, emit: EventHandler, cancel: threading.Event | None
    ) -> tuple[str, Usage]:
        def on_text(delta: str, text: str) -> None:
            emit({"kind": "text", "index": index, "delta": delta, "text": text})

        return stream_completion(self.config.provider, request, on_text=on_text, cancel=cancel)

    def _act(self, step: Step) -> Observation:
        tools = self.config.tools
        assert step.action is not None
        if step.action.tool not in tools:
            return tools.unknown_tool(step.action.tool)
        obs = tools.run(step.action)
        obs.text = _truncate(obs.text)
        return obs

    @staticmethod
    def _repeats(steps: list[Step]) -> int:
        """How many of the latest steps in a row took the same action with the same input."""
        last = steps[-1].action
        if last is None:
            return 0
        key = (last.tool, " ".join(last.input.lower().split()))
        count = 0
        for s in reversed(steps):
            if s.action is None or (s.action.tool, " ".join(s.action.input.lower().split())) != key:
                break
            count += 1
        return count


def stream_completion(
    provider: Provider,
    request: CompletionRequest,
    *,
    on_text: Callable[[str, str], None] | None = None,
    cancel: threading.Event | None = None,
) -> tuple[str, Usage]:
    """One model call: stream it, report text as it arrives, stop reading at the request's stop sequences.

    Returns the exact text received (the caller's parser cuts at the stop sequence) and the usage. Raises Cancelled
    when ``cancel`` is set, and a ReactLabError for any failure of the provider.
    """
    text, usage = "", None
    longest_stop = max((len(s) for s in request.stop), default=0)
    stream = provider.stream(request)
    try:
        for chunk in stream:
            if cancel is not None and cancel.is_set():
                raise Cancelled
            if chunk.usage is not None:
                usage = chunk.usage
            if not chunk.text:
                continue
            before = len(text)
            text += chunk.text
            if on_text is not None:
                on_text(chunk.text, text)
            # Enforce stop sequences locally: only the new text (plus a stop's length of overlap) can hold one.
            _, hit = cut_at_stop(text[max(0, before - longest_stop) :], request.stop)
            if hit is not None:
                break
    except (ReactLabError, Cancelled):
        raise
    except Exception as e:  # an SDK's own exception: still the provider's failure, reported as such
        raise _provider_failure(provider, e) from e
    finally:
        close = getattr(stream, "close", None)
        if close:
            close()
    if usage is None:
        usage = Usage(estimate_tokens(request.text), estimate_tokens(text))
    return text, usage


def _provider_failure(provider: Provider, error: Exception) -> ReactLabError:
    return ProviderError(f"{provider.label} provider failed: {type(error).__name__}: {error}")
