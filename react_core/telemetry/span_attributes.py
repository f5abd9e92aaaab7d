"""The attributes of a run's spans, named by the semantic-convention packages themselves: the GenAI and MCP
conventions' (``opentelemetry-semantic-conventions``, generated from the conventions' registry) and OpenInference's
(``openinference-semantic-conventions``), never by string literals, so a name the conventions do not have cannot be
written. What is ReAct Lab's own is namespaced ``reactlab.*``.

Which attribute goes on which span follows ``gen-ai-agent-spans.md``, ``gen-ai-spans.md`` and ``mcp.md`` of the GenAI
conventions: the agent (``invoke_agent``), each model call (inference: the request's model, limits, whether it
streamed and its time to first chunk, the server it went to) and each tool (``execute_tool``; an MCP tool's also
carries the MCP attributes of a ``tools/call``). Content (messages, arguments, results, tool definitions) is opt-in
there and here.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from openinference.semconv.trace import OpenInferenceMimeTypeValues as Mime
from openinference.semconv.trace import OpenInferenceSpanKindValues as Kind
from openinference.semconv.trace import SpanAttributes as OI
from openinference.semconv.trace import ToolAttributes
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv._incubating.attributes import mcp_attributes as mcp
from opentelemetry.semconv.attributes import error_attributes, network_attributes, server_attributes

from react_core.base import tool_specs
from react_core.base.call_records import CallTexts
from react_core.base.trace import STOP_REASONS, Step, Trace
from react_core.telemetry import run_facts
from react_core.telemetry.run_facts import AGENT_DESCRIPTION, AGENT_NAME
from react_core.telemetry.span_messages import arguments, input_attributes, message, output_attributes, text, to_json

Op = gen_ai.GenAiOperationNameValues
TOOL_ERROR = "tool_error"  # error.type of a failed tool, as the conventions name it
_TRANSPORTS = {"stdio": network_attributes.NetworkTransportValues.PIPE.value}  # else an HTTP server: tcp
_DEFAULT_PORTS = {"https": 443, "http": 80}


def _common(trace: Trace) -> dict[str, Any]:
    cls = run_facts.provider_class(trace)
    name = (cls.genai_name if cls else "") or trace.settings.get("provider")
    out: dict[str, Any] = {gen_ai.GEN_AI_PROVIDER_NAME: name}
    out[gen_ai.GEN_AI_REQUEST_MODEL] = run_facts.request_model(trace)
    return {k: v for k, v in out.items() if v}


def _session(conversation: str) -> dict[str, Any]:
    """The chat a run was a turn of, so a conversation's runs are one session (GenAI's and OpenInference's)."""
    return {gen_ai.GEN_AI_CONVERSATION_ID: conversation, OI.SESSION_ID: conversation} if conversation else {}


def _tools(trace: Trace) -> dict[str, Any]:
    """The run's tools as definitions (opt-in content in the conventions), and as OpenInference's ``llm.tools``."""
    definitions = run_facts.tool_definitions(trace)
    out: dict[str, Any] = {gen_ai.GEN_AI_TOOL_DEFINITIONS: to_json(definitions)}
    for i, d in enumerate(definitions):
        schema = {"type": "function", "function": {k: v for k, v in d.items() if k != "type"}}
        out[f"{OI.LLM_TOOLS}.{i}.{ToolAttributes.TOOL_JSON_SCHEMA}"] = to_json(schema)
    return out


def run_attributes(trace: Trace, content: bool, conversation: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {
        gen_ai.GEN_AI_OPERATION_NAME: Op.INVOKE_AGENT.value,
        gen_ai.GEN_AI_AGENT_NAME: AGENT_NAME,
        gen_ai.GEN_AI_AGENT_DESCRIPTION: AGENT_DESCRIPTION,
        **_common(trace),
        **_session(conversation),
        OI.OPENINFERENCE_SPAN_KIND: Kind.AGENT.value,
        OI.AGENT_NAME: AGENT_NAME,
        "reactlab.settings": to_json(trace.settings),
        "reactlab.steps": len(trace.steps),
    }
    if run_facts.agent_version(trace):
        out[gen_ai.GEN_AI_AGENT_VERSION] = run_facts.agent_version(trace)
    if trace.settings.get("preset"):
        out["reactlab.preset"] = str(trace.settings["preset"])
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
    out[gen_ai.GEN_AI_USAGE_INPUT_TOKENS] = out[OI.LLM_TOKEN_COUNT_PROMPT] = totals["prompt_tokens"]
    out[gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS] = out[OI.LLM_TOKEN_COUNT_COMPLETION] = totals["completion_tokens"]
    out[OI.LLM_TOKEN_COUNT_TOTAL] = totals["tokens"]
    if not content:
        return out
    out["reactlab.content"] = True
    out["reactlab.question"] = out[OI.INPUT_VALUE] = trace.question
    out[OI.INPUT_MIME_TYPE] = Mime.TEXT.value
    out[gen_ai.GEN_AI_INPUT_MESSAGES] = to_json([message("user", [text(trace.question)])])
    out[gen_ai.GEN_AI_TOOL_DEFINITIONS] = _tools(trace)[gen_ai.GEN_AI_TOOL_DEFINITIONS]
    if trace.final_answer is not None:
        out["reactlab.final_answer"] = out[OI.OUTPUT_VALUE] = trace.final_answer
        out[OI.OUTPUT_MIME_TYPE] = Mime.TEXT.value
        out[gen_ai.GEN_AI_OUTPUT_MESSAGES] = to_json([message("assistant", [text(trace.final_answer)])])
    if trace.error:
        out["reactlab.error"] = trace.error
    if trace.expected_answer is not None:
        out["reactlab.expected_answer"] = trace.expected_answer
    if trace.context:
        out["reactlab.context"] = to_json([t.to_dict() for t in trace.context])
    return out


def call_name(attributes: dict[str, Any]) -> str:
    model = attributes.get(gen_ai.GEN_AI_REQUEST_MODEL)
    operation = attributes[gen_ai.GEN_AI_OPERATION_NAME]
    return f"{operation} {model}" if model else str(operation)


# The request's limits by the names ``_limits`` reads them under, and the conventions' names for them.
LIMIT_NAMES = {
    "temperature": gen_ai.GEN_AI_REQUEST_TEMPERATURE,
    "stop_sequences": gen_ai.GEN_AI_REQUEST_STOP_SEQUENCES,
    "max_tokens": gen_ai.GEN_AI_REQUEST_MAX_TOKENS,
}


def _limits(step: Step) -> dict[str, Any]:
    """Temperature, stop sequences and the output budget as the request sent them (each API spells them its own way).
    The stops the loop applied itself by cutting the reply were never sent: they are ``reactlab.stop_local``."""
    body = step.call.body if step.call else {}
    config = body.get("generationConfig") or body.get("config") or {}
    config = config if isinstance(config, dict) else {}
    out: dict[str, Any] = {}
    temperature = body.get("temperature", config.get("temperature"))
    if isinstance(temperature, int | float) and not isinstance(temperature, bool):
        out["temperature"] = float(temperature)
    stops = body.get("stop", config.get("stopSequences", config.get("stop_sequences")))
    stops = [stops] if isinstance(stops, str) else stops if isinstance(stops, list) else []
    if stops and all(isinstance(s, str) for s in stops):
        out["stop_sequences"] = stops
    for key in ("max_tokens", "max_completion_tokens", "n_predict"):
        if isinstance(body.get(key), int):
            out["max_tokens"] = body[key]
    if isinstance(config.get("maxOutputTokens"), int):
        out["max_tokens"] = config["maxOutputTokens"]
    return out


def _server(endpoint: str) -> dict[str, Any]:
    """Where a request went (``server.address`` / ``server.port``): what tells a vLLM or Ollama server apart from
    OpenAI's when both are reached with OpenAI's API. Nothing for an in-process model."""
    parts = urlsplit(endpoint) if endpoint else None
    if parts is None or not parts.hostname:
        return {}
    port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    return {server_attributes.SERVER_ADDRESS: parts.hostname} | ({server_attributes.SERVER_PORT: port} if port else {})


def inference(trace: Trace, conversation: bool, index: int, session: str = "") -> dict[str, Any]:
    """What every model call's span says: the operation (a native-tools conversation is a chat, whoever serves it),
    the provider and model, the chat it belongs to, the span kind, the step it writes."""
    cls = run_facts.provider_class(trace)
    out: dict[str, Any] = {
        gen_ai.GEN_AI_OPERATION_NAME: Op.CHAT.value if conversation or cls is None else cls.genai_operation,
        **_common(trace),
        **_session(session),
        OI.OPENINFERENCE_SPAN_KIND: Kind.LLM.value,
        "reactlab.step.index": index,
    }
    if out.get(gen_ai.GEN_AI_REQUEST_MODEL):
        out[OI.LLM_MODEL_NAME] = out[gen_ai.GEN_AI_REQUEST_MODEL]
    provider = run_facts.openinference_provider(trace)
    if provider:
        out[OI.LLM_PROVIDER] = provider
    if trace.settings.get("dialect"):
        out["reactlab.dialect"] = str(trace.settings["dialect"])
    return out


def call_attributes(
    trace: Trace, step: Step, prompt: CallTexts | None, content: bool, session: str = ""
) -> dict[str, Any]:
    limits = _limits(step)
    if "temperature" not in limits and isinstance(trace.settings.get("temperature"), int | float):
        limits["temperature"] = float(trace.settings["temperature"])
    usage = step.usage
    call = step.call
    out: dict[str, Any] = {
        **inference(trace, bool(call and call.conversation), step.index, session),
        gen_ai.GEN_AI_USAGE_INPUT_TOKENS: usage.prompt_tokens,
        gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: usage.completion_tokens,
        OI.LLM_TOKEN_COUNT_PROMPT: usage.prompt_tokens,
        OI.LLM_TOKEN_COUNT_COMPLETION: usage.completion_tokens,
        OI.LLM_TOKEN_COUNT_TOTAL: usage.prompt_tokens + usage.completion_tokens,
        "reactlab.step.seconds": step.seconds,
    }
    out.update({LIMIT_NAMES[k]: v for k, v in limits.items()})
    out[OI.LLM_INVOCATION_PARAMETERS] = to_json(limits)
    if call is not None:
        out.update(_server(call.endpoint))
        streamed = call.body.get("stream") is True or "stream" in call.api.lower()
        out[gen_ai.GEN_AI_REQUEST_STREAM] = streamed
        if streamed and call.first_token_seconds:
            out[gen_ai.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = call.first_token_seconds
        if call.finish_reason:
            out[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] = [call.finish_reason]
        if call.response_id:
            out[gen_ai.GEN_AI_RESPONSE_ID] = call.response_id
        if call.response_model:
            out[gen_ai.GEN_AI_RESPONSE_MODEL] = call.response_model
        if call.api:
            out["reactlab.api"] = call.api
        if call.stop_local:
            out["reactlab.stop_local"] = list(call.stop_local)
        if call.cut_at is not None:
            out["reactlab.stop_cut_offset"] = call.cut_at
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
    out.update(_tools(trace))
    if prompt is not None:
        out.update(input_attributes(prompt))
    out.update(output_attributes(step))
    return out


def tool_attributes(step: Step, content: bool) -> dict[str, Any]:
    assert step.action is not None
    obs = step.observation
    spec = tool_specs.spec(step.action.tool)
    out: dict[str, Any] = {
        gen_ai.GEN_AI_OPERATION_NAME: Op.EXECUTE_TOOL.value,
        gen_ai.GEN_AI_TOOL_NAME: step.action.tool,
        gen_ai.GEN_AI_TOOL_TYPE: "function",
        OI.OPENINFERENCE_SPAN_KIND: Kind.TOOL.value,
        OI.TOOL_NAME: step.action.tool,
        "reactlab.step.index": step.index,
    }
    if spec is not None:  # a built-in tool's (an MCP tool's description lives on its server)
        out[gen_ai.GEN_AI_TOOL_DESCRIPTION] = out[OI.TOOL_DESCRIPTION] = spec.description
        out[OI.TOOL_PARAMETERS] = to_json(spec.parameters())  # the parameters' schema, as a function declares it
        definition = {"name": spec.name, "description": spec.description, "parameters": spec.parameters()}
        out[ToolAttributes.TOOL_JSON_SCHEMA] = to_json({"type": "function", "function": definition})
    if step.tool_call is not None and step.tool_call.id:
        out[gen_ai.GEN_AI_TOOL_CALL_ID] = out[OI.TOOL_ID] = step.tool_call.id
    if obs is not None:
        out["reactlab.observation.error"] = obs.is_error
        out["reactlab.observation.evidence"] = obs.evidence
        out["reactlab.http_requests"] = obs.stats.http_requests
        out["reactlab.observation.written"] = bool(obs.written_by)  # by a person in step mode: the tool did not run
        if obs.mcp is not None:
            out.update(_mcp(obs))
    if not content:
        return out
    if obs is not None and obs.written_by:
        out["reactlab.observation.written_by"] = obs.written_by
    # The conventions' arguments (an object, as JSON) are OpenInference's input.
    out[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS] = out[OI.INPUT_VALUE] = to_json(arguments(step))
    out[OI.INPUT_MIME_TYPE] = Mime.JSON.value
    if obs is not None:
        out[gen_ai.GEN_AI_TOOL_CALL_RESULT] = out[OI.OUTPUT_VALUE] = obs.text
        out[OI.OUTPUT_MIME_TYPE] = Mime.TEXT.value
        if obs.sources:
            out["reactlab.sources"] = to_json([s.to_dict() for s in obs.sources])
    return out


def _mcp(obs: Any) -> dict[str, Any]:
    """An MCP tool's call as the MCP conventions describe a request that a GenAI tool span already covers: the
    method (``tools/call``, or ``resources/read`` for a resource link followed), the protocol version the session
    agreed, the transport, the server (HTTP), ``tool_error`` when the server said the call failed. Never
    ``mcp.session.id``: whoever holds an HTTP session's id can act in it, and the app's connection to a server is
    everyone's."""
    call = obs.mcp
    out: dict[str, Any] = {mcp.MCP_METHOD_NAME: call.method, "reactlab.mcp.server": call.server}
    if call.protocol_version:
        out[mcp.MCP_PROTOCOL_VERSION] = call.protocol_version
    if call.transport:
        transport = _TRANSPORTS.get(call.transport, network_attributes.NetworkTransportValues.TCP.value)
        out[network_attributes.NETWORK_TRANSPORT] = transport
    out.update(_server(call.url))
    if obs.is_error:
        out[error_attributes.ERROR_TYPE] = TOOL_ERROR
    return out
