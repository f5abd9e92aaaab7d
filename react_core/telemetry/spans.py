"""A finished run as OpenTelemetry spans, made with the OpenTelemetry SDK (imported only when this is used).

The spans follow the GenAI semantic conventions (``gen-ai-agent-spans.md``, ``gen-ai-spans.md``): one
``invoke_agent ReAct Lab`` span for the run, a ``chat`` / ``text_completion`` / ``generate_content`` span per model
call and an ``execute_tool {tool}`` span per action, both children of the run's span; the grounding badge and the
expected answer's verdict are ``gen_ai.evaluation.result`` events of the run's span. The same spans carry
OpenInference's attributes (``openinference.span.kind`` AGENT / LLM / TOOL, ``llm.*``, ``tool.name``,
``input.value`` / ``output.value``) so Phoenix draws the run as an agent with its steps; the two sets do not collide.
What is ReAct Lab's own is namespaced ``reactlab.*``.

Message content (the question, prompts, replies, tool arguments and results, sources, error texts) is opt-in in the
conventions and here: only with ``include_content``. With it, each model call's span also carries its whole step
(``reactlab.step``) and the run's span what the run recorded, so an export imports back exactly
(``react_core.telemetry.otlp_import``).

Times come from the trace, never from the clock: the run starts at ``started_at``, each step after the one before
for its ``seconds``; within a step the model call comes first (its recorded ``seconds``) and the tool after it (the
observation's ``seconds``), each cut to the step's end, so every child lies inside its parent.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from react_core.base.call_records import CallTexts, texts
from react_core.base.trace import STOP_REASONS, Step, Trace
from react_core.dialects import DIALECTS
from react_core.telemetry.span_messages import arguments, input_attributes, message, output_attributes, text, to_json

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

AGENT_NAME = "ReAct Lab"
SERVICE_NAME = "react-lab"
SCOPE = "react_core.telemetry"
NS = 1_000_000_000


def run_spans(trace: Trace, *, include_content: bool = False) -> list[ReadableSpan]:
    """The run's spans, finished, the run's own span first."""
    from opentelemetry import trace as api
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    finished: list[ReadableSpan] = []

    class Collect(SpanExporter):
        def export(self, spans):
            finished.extend(spans)
            return SpanExportResult.SUCCESS

    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE_NAME}))
    provider.add_span_processor(SimpleSpanProcessor(Collect()))
    tracer = provider.get_tracer(SCOPE)
    start = _start_ns(trace.started_at)
    end = start + round(sum(s.seconds for s in trace.steps) * NS)
    root = tracer.start_span(
        f"invoke_agent {AGENT_NAME}", kind=api.SpanKind.INTERNAL, attributes=_run_attributes(trace, include_content),
        start_time=start,
    )  # fmt: skip
    if trace.stop_reason == "error":
        root.set_status(api.Status(api.StatusCode.ERROR, trace.error if include_content and trace.error else None))
        root.set_attribute("error.type", trace.failed_call.error_type if trace.failed_call else "run_failed")
    parent = api.set_span_in_context(root)
    prompts = texts(trace.steps) if include_content else [None] * len(trace.steps)
    cursor = start
    for step, prompt in zip(trace.steps, prompts, strict=True):
        step_end = cursor + round(step.seconds * NS)
        tool_seconds = step.observation.stats.seconds if step.observation else 0.0
        model_seconds = step.call.seconds if step.call and step.call.seconds else max(step.seconds - tool_seconds, 0)
        model_end = min(cursor + round(model_seconds * NS), step_end)
        attributes = _call_attributes(trace, step, prompt, include_content)
        call = tracer.start_span(
            _call_name(attributes), context=parent, kind=api.SpanKind.CLIENT, attributes=attributes, start_time=cursor
        )
        for decision in _decisions(step, include_content):  # taken after the reply, before the tool ran
            call.add_event("reactlab.decision", decision, model_end)
        call.end(end_time=model_end)
        if step.action is not None:
            tool_end = min(model_end + round(tool_seconds * NS), step_end)
            tool = tracer.start_span(
                f"execute_tool {step.action.tool}", context=parent, kind=api.SpanKind.INTERNAL,
                attributes=_tool_attributes(step, include_content), start_time=model_end,
            )  # fmt: skip
            if step.is_error:
                message = step.observation.text if include_content and step.observation else None
                tool.set_status(api.Status(api.StatusCode.ERROR, message))
                tool.set_attribute("error.type", "tool_error")
            tool.end(end_time=tool_end)
        cursor = step_end
    if trace.failed_call is not None:
        cursor = _failed_call(tracer, parent, trace, cursor, include_content)
    for name, attributes in _evaluations(trace, include_content):
        root.add_event("gen_ai.evaluation.result", {"gen_ai.evaluation.name": name, **attributes}, max(end, cursor))
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
        result: dict[str, Any] = {"gen_ai.evaluation.score.label": grounding.kind}
        if content:
            result["gen_ai.evaluation.explanation"] = grounding.message
        out.append(("reactlab.grounding", result))
    expected = check_expected(trace)
    if expected is not None:
        result = {"gen_ai.evaluation.score.label": expected.kind, "gen_ai.evaluation.score.value": expected.f1}
        if content:
            result["gen_ai.evaluation.explanation"] = expected.message
        out.append(("reactlab.expected_answer", result))
    return out


def _failed_call(tracer: Any, parent: Any, trace: Trace, start: int, content: bool) -> int:
    """The model call that failed and ended the run, after the last step: an error span with the error's type (the
    GenAI conventions' ``error.type`` and an ``exception`` event, which Phoenix shows) and, as content, its message.
    Its end."""
    from opentelemetry import trace as api

    failed = trace.failed_call
    assert failed is not None
    conversation = trace.settings.get("dialect") in DIALECTS and DIALECTS[trace.settings["dialect"]].native_tools
    index = trace.steps[-1].index + 1 if trace.steps else 1
    attributes = {
        **_inference(trace, conversation, index),
        "error.type": failed.error_type,
        "reactlab.failed_call": to_json(failed.to_dict()),
    }
    span = tracer.start_span(_call_name(attributes), context=parent, kind=api.SpanKind.CLIENT, attributes=attributes,
                             start_time=start)  # fmt: skip
    message = trace.error if content and trace.error else None
    end = start + round(failed.seconds * NS)
    exception = {"exception.type": failed.error_type} | ({"exception.message": message} if message else {})
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


def _provider(trace: Trace) -> Any:  # a provider class, or None for a provider this version does not have
    from react_core.providers import CATALOGUE

    return CATALOGUE.get(str(trace.settings.get("provider", "")))


def _model(trace: Trace) -> str:
    cls = _provider(trace)
    return str(trace.settings.get("model") or (cls.default_model if cls else "") or "")


def _common(trace: Trace) -> dict[str, Any]:
    cls = _provider(trace)
    name = (cls.genai_name if cls else "") or str(trace.settings.get("provider", ""))
    out: dict[str, Any] = {"gen_ai.provider.name": name}
    if _model(trace):
        out["gen_ai.request.model"] = _model(trace)
    return {k: v for k, v in out.items() if v}


def _run_attributes(trace: Trace, content: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": AGENT_NAME,
        **_common(trace),
        "openinference.span.kind": "AGENT",
        "agent.name": AGENT_NAME,
        "reactlab.settings": to_json(trace.settings),
        "reactlab.steps": len(trace.steps),
    }
    if trace.settings.get("preset"):
        out["gen_ai.agent.version"] = str(trace.settings["preset"])
    if trace.settings.get("dialect"):
        out["reactlab.dialect"] = str(trace.settings["dialect"])
    if trace.stop_reason:
        out["reactlab.stop_reason"] = trace.stop_reason
        out["reactlab.outcome"] = STOP_REASONS.get(trace.stop_reason, trace.stop_reason)
    if trace.started_at:
        out["reactlab.started_at"] = trace.started_at
    if trace.imported_from is not None:
        out["reactlab.imported_from"] = to_json(trace.imported_from.to_dict())
    totals = trace.totals
    out["gen_ai.usage.input_tokens"] = totals["prompt_tokens"]
    out["gen_ai.usage.output_tokens"] = totals["completion_tokens"]
    out["llm.token_count.prompt"] = totals["prompt_tokens"]
    out["llm.token_count.completion"] = totals["completion_tokens"]
    out["llm.token_count.total"] = totals["tokens"]
    if not content:
        return out
    out["reactlab.content"] = True
    out["reactlab.question"] = trace.question
    out["input.value"] = trace.question
    out["input.mime_type"] = "text/plain"
    out["gen_ai.input.messages"] = to_json([message("user", [text(trace.question)])])
    if trace.final_answer is not None:
        out["reactlab.final_answer"] = trace.final_answer
        out["output.value"] = trace.final_answer
        out["output.mime_type"] = "text/plain"
        out["gen_ai.output.messages"] = to_json([message("assistant", [text(trace.final_answer)], "stop")])
    if trace.error:
        out["reactlab.error"] = trace.error
    if trace.expected_answer is not None:
        out["reactlab.expected_answer"] = trace.expected_answer
    if trace.context:
        out["reactlab.context"] = to_json([t.to_dict() for t in trace.context])
    return out


def _call_name(attributes: dict[str, Any]) -> str:
    model = attributes.get("gen_ai.request.model")
    return f"{attributes['gen_ai.operation.name']} {model}" if model else str(attributes["gen_ai.operation.name"])


def _limits(step: Step) -> dict[str, Any]:
    """Temperature, stop sequences and the output budget as the request sent them (each API spells them its own way)."""
    body = step.call.body if step.call else {}
    config = body.get("generationConfig") or body.get("config") or {}
    config = config if isinstance(config, dict) else {}
    out: dict[str, Any] = {}
    temperature = body.get("temperature", config.get("temperature"))
    if isinstance(temperature, int | float) and not isinstance(temperature, bool):
        out["temperature"] = float(temperature)
    stops = body.get("stop", config.get("stopSequences", config.get("stop_sequences")))
    stops = [stops] if isinstance(stops, str) else stops if isinstance(stops, list) else []
    stops = [*stops, *(s for s in (step.call.stop_local if step.call else []) if s not in stops)]
    if stops and all(isinstance(s, str) for s in stops):
        out["stop_sequences"] = stops
    for key in ("max_tokens", "max_completion_tokens", "n_predict"):
        if isinstance(body.get(key), int):
            out["max_tokens"] = body[key]
    if isinstance(config.get("maxOutputTokens"), int):
        out["max_tokens"] = config["maxOutputTokens"]
    return out


def _inference(trace: Trace, conversation: bool, index: int) -> dict[str, Any]:
    """What every model call's span says: the operation (a native-tools conversation is a chat, whoever serves it),
    the provider and model, the span kind, the step it writes."""
    cls = _provider(trace)
    out: dict[str, Any] = {
        "gen_ai.operation.name": "chat" if conversation else cls.genai_operation if cls else "chat",
        **_common(trace),
        "openinference.span.kind": "LLM",
        "reactlab.step.index": index,
    }
    if _model(trace):
        out["llm.model_name"] = _model(trace)
    if out.get("gen_ai.provider.name"):
        out["llm.provider"] = out["gen_ai.provider.name"]
    if trace.settings.get("dialect"):
        out["reactlab.dialect"] = str(trace.settings["dialect"])
    return out


def _call_attributes(trace: Trace, step: Step, prompt: CallTexts | None, content: bool) -> dict[str, Any]:
    limits = _limits(step)
    if "temperature" not in limits and isinstance(trace.settings.get("temperature"), int | float):
        limits["temperature"] = float(trace.settings["temperature"])
    usage = step.usage
    out: dict[str, Any] = {
        **_inference(trace, bool(step.call and step.call.conversation), step.index),
        "gen_ai.usage.input_tokens": usage.prompt_tokens,
        "gen_ai.usage.output_tokens": usage.completion_tokens,
        "llm.token_count.prompt": usage.prompt_tokens,
        "llm.token_count.completion": usage.completion_tokens,
        "llm.token_count.total": usage.prompt_tokens + usage.completion_tokens,
        "reactlab.step.seconds": step.seconds,
    }
    out.update({f"gen_ai.request.{k}": v for k, v in limits.items()})
    out["llm.invocation_parameters"] = to_json(limits)
    call = step.call
    if call is not None:
        if call.finish_reason:
            out["gen_ai.response.finish_reasons"] = [call.finish_reason]
        if call.api:
            out["reactlab.api"] = call.api
        if call.cut_at is not None:
            out["reactlab.stop_cut_offset"] = call.cut_at
        if call.first_token_seconds:
            out["reactlab.first_token_seconds"] = call.first_token_seconds
    if step.action is None and step.final_answer is None:
        out["reactlab.parse_error"] = True  # the reply held no action the dialect could read
    if step.final_answer is not None:
        out["reactlab.finish"] = True
    if step.leaked_observation:
        out["reactlab.leaked_observation"] = True
    if step.interventions:
        out["reactlab.decisions"] = [note.kind for note in step.interventions]
    if not content:
        return out
    out["reactlab.step"] = to_json(step.to_dict())
    if prompt is not None:
        out.update(input_attributes(prompt))
    out.update(output_attributes(step, call.finish_reason if call and call.finish_reason else None))
    return out


def _tool_attributes(step: Step, content: bool) -> dict[str, Any]:
    assert step.action is not None
    obs = step.observation
    out: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": step.action.tool,
        "gen_ai.tool.type": "function",
        "openinference.span.kind": "TOOL",
        "tool.name": step.action.tool,
        "reactlab.step.index": step.index,
    }
    if step.tool_call is not None and step.tool_call.id:
        out["gen_ai.tool.call.id"] = out["tool.id"] = step.tool_call.id
    if obs is not None:
        out["reactlab.observation.error"] = obs.is_error
        out["reactlab.observation.evidence"] = obs.evidence
        out["reactlab.http_requests"] = obs.stats.http_requests
        out["reactlab.observation.written"] = bool(obs.written_by)  # by a person in step mode: the tool did not run
    if not content:
        return out
    if obs is not None and obs.written_by:
        out["reactlab.observation.written_by"] = obs.written_by
    # The conventions' arguments (an object, as JSON) are OpenInference's input and, as Phoenix reads them, its
    # tool.parameters.
    out["gen_ai.tool.call.arguments"] = out["input.value"] = out["tool.parameters"] = to_json(arguments(step))
    out["input.mime_type"] = "application/json"
    if obs is not None:
        out["gen_ai.tool.call.result"] = obs.text
        out["output.value"] = obs.text
        out["output.mime_type"] = "text/plain"
        if obs.sources:
            out["reactlab.sources"] = to_json([s.to_dict() for s in obs.sources])
    return out
