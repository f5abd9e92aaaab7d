"""The paper's prompting strategies for HotpotQA and FEVER, each turning one question (or claim) into a Trace.

``standard`` and ``cot`` ask once (``Answer: …`` / ``Thought: … Answer: …``); ``cot-sc`` samples CoT n times at
temperature 0.7 and takes the majority; ``act`` and ``react`` run the agent; ``react-cot-sc`` backs off to CoT-SC
when ReAct does not finish within its budget; ``cot-sc-react`` backs off to ReAct when the majority answer has
fewer than half the votes. A run that ends any other way than ``finished`` (``max_calls``, ``context``, ``loop``)
is a run that did not answer. Act and ReAct are runs of the run service (``loop.service``), kept like every run: the
question's gold answer as their expected answer, sent to the live OpenTelemetry endpoint. The hybrids take their
first half (and their back-off) from ``known`` when the same question already ran as ``react`` or ``cot-sc`` with the
same settings, instead of running it again. The prompts are presets (``prompts/hotpotqa-*.toml``,
``prompts/fever-*.toml``) whose examples are read at run time from the shared data (the paper's prompts_naive.json and
fever.json), never copied. UI-free.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from react_core.base import call_records, cancel
from react_core.base.answers import normalize_answer
from react_core.base.errors import ContextOverflowError
from react_core.base.events import final_trace
from react_core.base.trace import Step, Trace
from react_core.loop.keeping import Keeping
from react_core.loop.model_call import Reply, call_record, sample_replies, stream_completion
from react_core.loop.service import Run, RunRequest
from react_core.loop.settings import RunSettings
from react_core.presets.preset import Preset
from react_core.presets.render import render_prefix, render_question
from react_core.presets.store import PresetStore
from react_core.providers.base import CompletionRequest, Provider
from react_core.telemetry.live import LiveTarget

__all__ = [
    "AGENTS",
    "COMPONENTS",
    "DEFAULT_PRESETS",
    "DIRECT_LEADS",
    "DIRECT_STOPS",
    "EvalContext",
    "Outcome",
    "PAPER_REACT_STEPS",
    "PAPER_SC_SAMPLES",
    "PAPER_TEMPERATURE",
    "PAPER_TOOLS",
    "ROLES",
    "ROLE_MODES",
    "SAMPLING",
    "SC_TEMPERATURE",
    "STRATEGIES",
    "UNSCORED",
    "direct_request",
    "role_of",
    "role_presets",
    "run_agent_strategy",
    "run_cot_sc",
    "run_direct",
    "run_strategy",
]

STRATEGIES = ("standard", "cot", "cot-sc", "act", "react", "cot-sc-react", "react-cot-sc")
# The prompts (roles) each strategy uses: a preset per role, of the role's mode.
ROLES = {
    "standard": ("standard",),
    "cot": ("cot",),
    "cot-sc": ("cot",),
    "act": ("act",),
    "react": ("react",),
    "cot-sc-react": ("cot", "react"),
    "react-cot-sc": ("react", "cot"),
}
ROLE_MODES = {"standard": "standard", "cot": "cot", "act": "react", "react": "react"}
# Strategies that sample CoT (samples and their temperature apply), and those that run the agent (budget and tools).
SAMPLING = ("cot-sc", "cot-sc-react", "react-cot-sc")
AGENTS = ("act", "react", "cot-sc-react", "react-cot-sc")
# The hybrids and the plain strategies they are made of, in the order they run them.
COMPONENTS = {"cot-sc-react": ("cot-sc", "react"), "react-cot-sc": ("react", "cot-sc")}
# Runs that end like this are not scored: a failure stops the evaluation, Stop leaves the question for a resume.
UNSCORED = ("error", "cancelled")
DEFAULT_PRESETS = {
    "standard": "hotpotqa-standard",
    "cot": "hotpotqa-cot",
    "act": "hotpotqa-act",
    "react": "hotpotqa-react",
}


def role_of(preset: Preset) -> str:
    """The role a prompt plays in the paper's strategies: its mode for a direct answer, else Act or ReAct."""
    if preset.mode != "react":
        return preset.mode
    return "act" if preset.dialect == "act" else "react"


def role_presets(
    settings: Mapping[str, Any], chosen: Mapping[str, str] | None = None, owner: str = ""
) -> dict[str, str]:
    """Each role's prompt for a model: the one chosen (a paper prompt counts as not chosen), else the one the model
    learned (a fine-tuned adapter answers its own prompt, for the role that prompt plays), else the paper's."""
    from react_core.providers import PROVIDERS

    out = dict(DEFAULT_PRESETS)
    learned = PROVIDERS[str(settings.get("provider") or "")].preset_for(settings) if settings.get("provider") else ""
    if learned:
        out[role_of(PresetStore(owner).load(learned))] = learned
    out.update({role: name for role, name in (chosen or {}).items() if name and name != DEFAULT_PRESETS.get(role)})
    return out


# The paper's setup: 7 steps for ReAct on HotpotQA (its notebook loops over range(1, 8)) with Search and Lookup
# only, 21 CoT-SC samples at temperature 0.7, greedy decoding otherwise.
PAPER_REACT_STEPS = 7
PAPER_TOOLS = ("search", "lookup")
PAPER_TEMPERATURE = 0.0
PAPER_SC_SAMPLES = 21
SC_TEMPERATURE = 0.7
_ANSWER = re.compile(r"^\s*Answer\s*:\s*(.*)$", re.IGNORECASE | re.MULTILINE)


@dataclass
class EvalContext:
    """What every question of an evaluation shares: settings, one provider (a script is consumed in order)."""

    settings: RunSettings
    provider: Provider
    samples: int = PAPER_SC_SAMPLES
    sc_temperature: float = SC_TEMPERATURE
    presets: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_PRESETS))
    cancel: threading.Event | None = None
    owner: str = ""  # whose prompts a preset name means
    # Hears a direct answer's text as it arrives (delta, text so far): the arena streams its Standard and CoT columns.
    on_text: Callable[[str, str], None] | None = None
    export: LiveTarget | None = field(default_factory=LiveTarget)  # where the agent runs are sent (None: nowhere)
    _loaded: dict[str, Preset] = field(default_factory=dict)

    def preset(self, role: str) -> Preset:
        name = self.presets[role]
        if name not in self._loaded:
            self._loaded[name] = PresetStore(self.owner).load(name)
        return self._loaded[name]


@dataclass
class Outcome:
    trace: Trace
    extra: dict[str, Any] = field(default_factory=dict)


def _new_trace(question: str, ctx: EvalContext, strategy: str, preset: Preset, temperature: float) -> Trace:
    return Trace(
        question=question,
        settings={
            "provider": ctx.provider.name,
            "model": ctx.provider.model,
            "dialect": preset.dialect,
            "preset": preset.name,
            **({"prompt_version": preset.ref} if preset.ref else {}),
            "temperature": temperature,
            "strategy": strategy,
            "knowledge": ctx.settings.knowledge,
        },
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


# How a direct-answer prompt's reply starts (the prompt ends with it) and what ends it, by the preset's mode.
DIRECT_LEADS = {"standard": "Answer:", "cot": "Thought:"}
DIRECT_STOPS = {"standard": ("\n",), "cot": ("\nQuestion:",)}


def direct_request(
    preset: Preset, question: str, temperature: float = 0.0, extra_stops: tuple[str, ...] = ()
) -> CompletionRequest:
    """The one call of a Standard (``Answer: …``) or CoT (``Thought: … Answer: …``) prompt; fine-tuning writes its
    examples from the same request."""
    stops = DIRECT_STOPS[preset.mode]
    if preset.mode == "cot":  # it ends where the model starts the next example's claim or question, not 256 tokens on
        stops += ("\n" + (preset.question.split("{question}", 1)[0].strip() or "Question:"),)
    return CompletionRequest(
        system=render_prefix(preset, []),
        prompt=render_question(preset, question) + DIRECT_LEADS[preset.mode],
        stop=tuple(dict.fromkeys(stops + tuple(extra_stops))),
        temperature=temperature,
        max_tokens=256,
    )


def _direct_step(
    ctx: EvalContext,
    preset: Preset,
    question: str,
    temperature: float,
    index: int = 1,
    previous: call_records.CallTexts | None = None,
    drawn: Reply | None = None,
) -> Step:
    """One Standard (``Answer:``) or CoT (``Thought: … Answer:``) completion as a step, with its model call recorded
    relative to ``previous`` (the sample before it: CoT-SC resends the same prompt, so it is stored once). ``drawn``:
    its reply, already drawn with the other samples (``sample_replies``)."""
    request = direct_request(preset, question, temperature, ctx.provider.extra_stops)
    started = time.perf_counter()
    if drawn is None:
        with cancel.scope(ctx.cancel):
            reply = stream_completion(ctx.provider, request, on_text=ctx.on_text)
    else:
        reply = drawn
    raw, usage = reply.text, reply.usage
    text = raw
    for s in request.stop:
        text = text.split(s, 1)[0] if s else text
    if preset.mode == "standard":
        thought, answer = "", text.strip() or None
    else:
        m = _ANSWER.search(text)
        thought = (text[: m.start()] if m else text).strip()
        answer = m.group(1).strip() if m else None
    if reply.cut:
        answer = None  # cut before the model ended it (out of tokens, a content filter): maybe half an answer
    return Step(
        index=index,
        thought=thought,
        final_answer=answer,
        raw_output=raw,
        usage=usage,
        seconds=reply.seconds if drawn is not None else round(time.perf_counter() - started, 6),
        call=call_record(request, reply, previous),
    )


def run_direct(question: str, ctx: EvalContext, strategy: str) -> Outcome:
    preset = ctx.preset(strategy)
    temperature = ctx.settings.temperature
    trace = _new_trace(question, ctx, strategy, preset, temperature)
    try:
        step = _direct_step(ctx, preset, question, temperature)
    except ContextOverflowError as e:
        trace.stop_reason, trace.error = "context", str(e)
        return Outcome(trace)
    trace.steps.append(step)
    trace.final_answer = step.final_answer
    trace.stop_reason = "finished" if step.final_answer else "max_calls"
    return Outcome(trace)


def run_cot_sc(question: str, ctx: EvalContext, strategy: str = "cot-sc") -> Outcome:
    preset = ctx.preset("cot")
    trace = _new_trace(question, ctx, strategy, preset, ctx.sc_temperature)
    request = direct_request(preset, question, ctx.sc_temperature, ctx.provider.extra_stops)
    drawn: list[Reply] = []
    for i in range(1, ctx.samples + 1):
        previous = call_records.CallTexts.of(trace.steps)[-1] if trace.steps else None
        try:
            if i == 1:  # all at once where the provider can (the on-device model's batch), else one by one
                with cancel.scope(ctx.cancel):
                    drawn = sample_replies(ctx.provider, request, ctx.samples, on_text=ctx.on_text) or []
            step = _direct_step(ctx, preset, question, ctx.sc_temperature, i, previous, drawn[i - 1] if drawn else None)
            trace.steps.append(step)
        except ContextOverflowError as e:
            # Every sample sends the same prompt: if one does not fit, none will, and nothing is voted on.
            trace.stop_reason, trace.error = "context", str(e)
            return Outcome(trace, {"votes": 0, "samples": ctx.samples})
    answers = [s.final_answer for s in trace.steps if s.final_answer]
    votes = Counter(normalize_answer(a) for a in answers)
    if votes:
        top, count = votes.most_common(1)[0]
        trace.final_answer = next(a for a in answers if normalize_answer(a) == top)
    else:
        count = 0
    trace.stop_reason = "finished" if trace.final_answer else "max_calls"
    return Outcome(trace, {"votes": count, "samples": ctx.samples})


def run_agent_strategy(
    question: str, ctx: EvalContext, strategy: str, role: str, expected: str | None = None
) -> Outcome:
    """Act or ReAct (a hybrid's ReAct half) as a run: not saved (the results file keeps it), ``expected`` the gold
    answer. A configuration that cannot run raises, and stops the evaluation with its message."""
    preset = ctx.preset(role)
    request = RunRequest(
        question,
        replace(ctx.settings, dialect="", preset=preset.name),
        preset=preset,
        provider=ctx.provider,
        recorded={"strategy": strategy},
        cancel=ctx.cancel,
    )
    run = Run(request, Keeping(expected=expected, look_up=False, export=ctx.export))
    run.prepare()
    return Outcome(final_trace(run))


def _as(strategy: str, outcome: Outcome) -> Outcome:
    """A component's outcome as the hybrid's: the trace says which strategy it answered for."""
    outcome.trace.settings["strategy"] = strategy
    return outcome


def run_strategy(
    strategy: str,
    question: str,
    ctx: EvalContext,
    *,
    known: Mapping[str, Outcome] | None = None,
    expected: str | None = None,
) -> Outcome:
    """One question with one strategy. ``known``: outcomes of this question under ``react`` / ``cot-sc`` with the
    same settings, which a hybrid uses instead of running them again (it says so in ``extra["reused"]``).
    ``expected``: the question's gold answer."""
    known = known or {}
    if strategy in ("standard", "cot"):
        return run_direct(question, ctx, strategy)
    if strategy == "cot-sc":
        return run_cot_sc(question, ctx)
    if strategy in ("act", "react"):
        return run_agent_strategy(question, ctx, strategy, strategy, expected)
    if strategy not in COMPONENTS:
        raise ValueError(f"unknown strategy {strategy!r}")
    first_name, backoff_name = COMPONENTS[strategy]
    run = {
        "react": lambda: run_agent_strategy(question, ctx, strategy, "react", expected),
        "cot-sc": lambda: run_cot_sc(question, ctx, strategy),
    }
    reused = [name for name in (first_name, backoff_name) if name in known]
    first = _as(strategy, known[first_name]) if first_name in known else run[first_name]()
    if first.trace.stop_reason in UNSCORED or not _backs_off(strategy, first):
        first.extra.update(fallback=False, reused=[first_name] if first_name in known else [])
        return first
    backoff = _as(strategy, known[backoff_name]) if backoff_name in known else run[backoff_name]()
    sampled = first if first_name == "cot-sc" else backoff
    backoff.extra = {
        "votes": sampled.extra["votes"],
        "samples": sampled.extra["samples"],
        "fallback": True,
        "reused": reused,
        "first_prediction": first.trace.final_answer,
        "first_trace": first.trace.to_dict(),
    }
    return backoff


def _backs_off(strategy: str, first: Outcome) -> bool:
    if strategy == "react-cot-sc":
        # ReAct did not answer within its budget: out of calls, out of context, or stuck in a loop.
        return first.trace.stop_reason != "finished"
    # CoT-SC -> ReAct: the majority answer has fewer than half of the n votes (none at all when nothing answered).
    return first.extra["votes"] < first.extra["samples"] / 2
