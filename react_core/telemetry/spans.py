"""A finished run as OpenTelemetry spans, made with the OpenTelemetry SDK (imported only when this is used).

The spans follow the GenAI semantic conventions (``gen-ai-agent-spans.md``, ``gen-ai-spans.md``): one
``invoke_agent ReAct Lab`` span for the run, a ``chat`` / ``text_completion`` / ``generate_content`` span per model
call and an ``execute_tool {tool}`` span per action, both children of the run's span; the grounding badge and the
expected answer's verdict are ``gen_ai.evaluation.result`` events of the run's span. The same spans carry
OpenInference's attributes (``openinference.span.kind`` AGENT / LLM / TOOL, ``llm.*``, ``tool.name``,
``input.value`` / ``output.value``) so Phoenix draws the run as an agent with its steps; the two sets do not collide.
``span_attributes`` writes each span's attributes.

Message content (the question, prompts, replies, tool arguments and results, sources, error texts) is opt-in in the
conventions and here: only with ``include_content``. With it, each model call's span also carries its whole step
(``reactlab.step``) and the run's span what the run recorded, so an export imports back exactly
(``react_core.telemetry.otlp_import``).

A run is one trace whenever it is exported: the trace id is the run's own (``run_facts.run_id``), and the span ids
follow from it, so the live export and a later file of the same run are the same spans. The
service is ``react-lab`` unless the operator names another (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``).

Times come from the trace, never from the clock: the run starts at ``started_at``, each step after the one before
for its ``seconds``; within a step the model call comes first (its recorded ``seconds``) and the tool after it (the
observation's ``seconds``), each cut to the step's end, so every child lies inside its parent.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes import error_attributes, exception_attributes, service_attributes

from react_core.base.call_records import CallTexts
from react_core.base.trace import Step, Trace
from react_core.dialects import DIALECTS
from react_core.telemetry.run_facts import AGENT_NAME, run_id
from react_core.telemetry.span_attributes import (
    TOOL_ERROR,
    call_attributes,
    call_name,
    inference,
    run_attributes,
    tool_attributes,
)
from react_core.telemetry.span_messages import to_json

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan

SERVICE_NAME = "react-lab"  # unless the operator names the service (OTEL_SERVICE_NAME)
SCOPE = "react_core.telemetry"
NS = 1_000_000_000
EVALUATION = "gen_ai.evaluation.result"


def resource() -> Resource:
    """The service the spans come from: the operator's ``OTEL_SERVICE_NAME`` (or ``service.name`` in
    ``OTEL_RESOURCE_ATTRIBUTES``, and their other resource attributes), else ``react-lab``."""
    from opentelemetry.sdk.resources import OTELResourceDetector, Resource

    named = OTELResourceDetector().detect().attributes
    return Resource.create({service_attributes.SERVICE_NAME: SERVICE_NAME, **named})


def _ids(trace: Trace, include_content: bool) -> Any:
    """The SDK's id generator for this run: its trace id is the run's id; each span id follows from it, whether
    messages are included, and the span's place, so the same export of the same run gives the same spans."""
    from opentelemetry.sdk.trace.id_generator import IdGenerator

    seed = f"{run_id(trace)}:{'with' if include_content else 'without'} messages"

    class RunIds(IdGenerator):
        def __init__(self) -> None:
            self.made = 0

        def generate_trace_id(self) -> int:
            return int(run_id(trace), 16) or 1

        def generate_span_id(self) -> int:
            self.made += 1
            return int(hashlib.sha256(f"{seed}:{self.made}".encode()).hexdigest()[:16], 16) or 1

    return RunIds()


def run_spans(trace: Trace, *, include_content: bool = False, conversation: str = "") -> list[ReadableSpan]:
    """The run's spans, finished, the run's own span first; ``conversation``: the chat the run was a turn of."""
    from opentelemetry import trace as api
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    finished: list[ReadableSpan] = []

    class Collect(SpanExporter):
        def export(self, spans):
            finished.extend(spans)
            return SpanExportResult.SUCCESS

    provider = TracerProvider(resource=resource(), id_generator=_ids(trace, include_content))
    provider.add_span_processor(SimpleSpanProcessor(Collect()))
    tracer = provider.get_tracer(SCOPE)
    start = _start_ns(trace.started_at)
    end = start + round(sum(s.seconds for s in trace.steps) * NS)
    attributes = run_attributes(trace, include_content, conversation)
    root = tracer.start_span(
        f"invoke_agent {AGENT_NAME}", kind=api.SpanKind.INTERNAL, attributes=attributes, start_time=start
    )
    if trace.stop_reason == "error":
        root.set_status(api.Status(api.StatusCode.ERROR, trace.error if include_content and trace.error else None))
        failure = trace.failed_call.error_type if trace.failed_call else "run_failed"
        root.set_attribute(error_attributes.ERROR_TYPE, failure)
    parent = api.set_span_in_context(root)
    prompts = CallTexts.of(trace.steps) if include_content else [None] * len(trace.steps)
    cursor = start
    for step, prompt in zip(trace.steps, prompts, strict=True):
        step_end = cursor + round(step.seconds * NS)
        tool_seconds = step.observation.stats.seconds if step.observation else 0.0
        model_seconds = step.call.seconds if step.call and step.call.seconds else max(step.seconds - tool_seconds, 0)
        model_end = min(cursor + round(model_seconds * NS), step_end)
        attributes = call_attributes(trace, step, prompt, include_content, conversation)
        call = tracer.start_span(
            call_name(attributes), context=parent, kind=api.SpanKind.CLIENT, attributes=attributes, start_time=cursor
        )
        for decision in _decisions(step, include_content):  # taken after the reply, before the tool ran
            call.add_event("reactlab.decision", decision, model_end)
        call.end(end_time=model_end)
        if step.action is not None:
            tool_end = min(model_end + round(tool_seconds * NS), step_end)
            tool = tracer.start_span(
                f"execute_tool {step.action.tool}", context=parent, kind=api.SpanKind.INTERNAL,
                attributes=tool_attributes(step, include_content), start_time=model_end,
            )  # fmt: skip
            if step.is_error:
                message = step.observation.text if include_content and step.observation else None
                tool.set_status(api.Status(api.StatusCode.ERROR, message))
                tool.set_attribute(error_attributes.ERROR_TYPE, TOOL_ERROR)
            tool.end(end_time=tool_end)
        cursor = step_end
    if trace.failed_call is not None:
        cursor = _failed_call(tracer, parent, trace, cursor, include_content, conversation)
    for name, attributes in _evaluations(trace, include_content):
        root.add_event(EVALUATION, {gen_ai.GEN_AI_EVALUATION_NAME: name, **attributes}, max(end, cursor))
    root.end(end_time=max(end, cursor))
    provider.shutdown()
    # The SDK hands spans over as they end (children first); the run's span leads, then the steps in order.
    return sorted(finished, key=_order)


def _evaluations(trace: Trace, content: bool) -> list[tuple[str, dict[str, Any]]]:
    """What ReAct Lab says about the answer, as the conventions' evaluation results: whether its words occur in the
    evidence (the grounding badge) and, when the question has a known answer, how it compares (EM / F1). The
    explanations quote the answer and the evidence, so they are content."""
    from react_core.report.expected import check_expected
    from react_core.report.grounding import check_grounding

    out: list[tuple[str, dict[str, Any]]] = []
    if trace.final_answer is not None:
        grounding = check_grounding(trace)
        result: dict[str, Any] = {gen_ai.GEN_AI_EVALUATION_SCORE_LABEL: grounding.kind}
        if content:
            result[gen_ai.GEN_AI_EVALUATION_EXPLANATION] = grounding.message
        out.append(("reactlab.grounding", result))
    expected = check_expected(trace)
    if expected is not None:
        result = {gen_ai.GEN_AI_EVALUATION_SCORE_LABEL: expected.kind}
        result[gen_ai.GEN_AI_EVALUATION_SCORE_VALUE] = expected.f1
        if content:
            result[gen_ai.GEN_AI_EVALUATION_EXPLANATION] = expected.message
        out.append(("reactlab.expected_answer", result))
    return out


def _failed_call(tracer: Any, parent: Any, trace: Trace, start: int, content: bool, conversation: str) -> int:
    """The model call that failed and ended the run, after the last step: an error span with the error's type (the
    GenAI conventions' ``error.type`` and an ``exception`` event, which Phoenix shows) and, as content, its message.
    Its end."""
    from opentelemetry import trace as api

    failed = trace.failed_call
    assert failed is not None
    chat = trace.settings.get("dialect") in DIALECTS and DIALECTS[trace.settings["dialect"]].native_tools
    index = trace.steps[-1].index + 1 if trace.steps else 1
    attributes = {
        **inference(trace, chat, index, conversation),
        error_attributes.ERROR_TYPE: failed.error_type,
        "reactlab.failed_call": to_json(failed.to_dict()),
    }
    span = tracer.start_span(call_name(attributes), context=parent, kind=api.SpanKind.CLIENT, attributes=attributes,
                             start_time=start)  # fmt: skip
    message = trace.error if content and trace.error else None
    end = start + round(failed.seconds * NS)
    exception = {exception_attributes.EXCEPTION_TYPE: failed.error_type}
    if message:
        exception[exception_attributes.EXCEPTION_MESSAGE] = message
    span.add_event("exception", exception, end)
    span.set_status(api.Status(api.StatusCode.ERROR, message))
    span.end(end_time=end)
    return end


def _decisions(step: Step, content: bool) -> list[dict[str, Any]]:
    """A person's decisions on the step in step mode (``Intervention``): the kind (edit, observe, pick, regenerate,
    run, stop) and the breakpoint; with content, who took it and what the step said before and after it."""
    out = []
    for note in step.interventions:
        decision: dict[str, Any] = {"reactlab.decision.kind": note.kind, "reactlab.decision.at": note.at}
        if note.picked is not None:
            decision["reactlab.decision.picked"] = note.picked
        if note.alternatives:
            decision["reactlab.decision.alternatives"] = len(note.alternatives)
        if content:
            decision["reactlab.decision.by"] = note.by
            if note.before or note.after:
                decision["reactlab.decision.before"], decision["reactlab.decision.after"] = note.before, note.after
        out.append(decision)
    return out


def _order(span: ReadableSpan) -> tuple[bool, int, bool]:
    attributes = span.attributes or {}
    index = attributes.get("reactlab.step.index", 0)
    return span.parent is not None, index if isinstance(index, int) else 0, span.kind.name == "INTERNAL"


def _start_ns(started_at: str) -> int:
    try:
        moment = datetime.fromisoformat(started_at) if started_at else None
    except ValueError:
        moment = None
    if moment is None:  # a trace from before runs recorded their start: the export's own time stands in
        moment = datetime.now(UTC)
    elif moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp()) * NS + moment.microsecond * 1000
