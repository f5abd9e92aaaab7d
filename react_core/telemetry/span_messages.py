"""A model call's prompt and reply as the conventions' messages, and an action's arguments as the tool received them.

The GenAI conventions write the messages as JSON (``gen_ai.input.messages`` / ``gen_ai.output.messages``, following
``gen-ai-input-messages.json`` / ``gen-ai-output-messages.json``; a ``tool_call`` part has ``id``, ``name`` and
``arguments`` as an object) with the system prompt apart (``gen_ai.system_instructions``). OpenInference flattens the
same messages (``llm.input_messages.N.message.role``…) with the system prompt as the first input message and each
tool call under ``message.tool_calls.M.tool_call.*``. Phoenix derives OpenInference's from the GenAI attributes only
for a span that has none of its own (``phoenix.trace.otel._merge_synthesized_attributes``), and these spans carry
their own, so they must be whole here: a system message missing here is missing in Phoenix.
"""

from __future__ import annotations

import json
from typing import Any

from openinference.semconv.trace import MessageAttributes as Message
from openinference.semconv.trace import OpenInferenceMimeTypeValues as Mime
from openinference.semconv.trace import SpanAttributes as OI
from openinference.semconv.trace import ToolCallAttributes as Call
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

from react_core.base import tool_specs
from react_core.base.call_records import CallTexts
from react_core.base.trace import Action, Step


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def message(role: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    """A message as the conventions write one: its role and its parts. (An output message's ``finish_reason`` is
    deprecated there: the reason is the span's ``gen_ai.response.finish_reasons``.)"""
    return {"role": role, "parts": parts}


def text(content: str) -> dict[str, Any]:
    return {"type": "text", "content": content}


def arguments(step: Step) -> Any:
    """What the step's tool was called with, as an object (the conventions' ``gen_ai.tool.call.arguments``): the
    arguments an MCP server received, a native call's as the model wrote them, else the action as a call."""
    assert step.action is not None
    mcp = step.observation.mcp if step.observation is not None else None
    if mcp is not None and (mcp.arguments or mcp.result is not None):  # else the call never reached the server
        return mcp.arguments
    if step.tool_call is not None:
        return _loads(step.tool_call.arguments)
    return _as_call(step.action)


def _as_call(action: Action) -> Any:
    """A text dialect's action as the call it stands for: a built-in tool's one input under the parameter native
    tool calling declares for it (``{"expression": "6 * 7"}``), another tool's JSON input as the object it is."""
    if action.tool not in tool_specs.BUILTIN:
        value = _loads(action.input)
        if isinstance(value, dict):
            return value
    return {tool_specs.param(action.tool): action.input}


def _loads(arguments: str) -> Any:
    """Arguments written as JSON, as their object; text that is not JSON stays as it was written."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _requested(step: Step) -> dict[str, Any] | None:
    """The call the model asked for, as a ``tool_call`` part: a native call (a Finish too), a text dialect's action;
    None when it asked for none, or when a person changed the action in step mode (the reply shows what it wrote)."""
    if any(note.kind == "edit" for note in step.interventions):
        return None
    if step.tool_call is not None:
        call = step.tool_call
        part: dict[str, Any] = {"type": "tool_call", "id": call.id, "name": call.name}
        if not call.id:
            del part["id"]
        return {**part, "arguments": _loads(call.arguments)}
    if step.action is not None:
        return {"type": "tool_call", "name": step.action.tool, "arguments": _as_call(step.action)}
    return None


def input_attributes(prompt: CallTexts) -> dict[str, Any]:
    """The prompt of a call: the GenAI messages and system instructions, OpenInference's messages and input."""
    if prompt.messages is not None:
        messages = [_conversation_message(m) for m in prompt.messages]
    else:
        messages = [message("user", [text(prompt.prompt)])]
    out: dict[str, Any] = {}
    if prompt.system:
        out[gen_ai.GEN_AI_SYSTEM_INSTRUCTIONS] = to_json([text(prompt.system)])
    out[gen_ai.GEN_AI_INPUT_MESSAGES] = to_json(messages)
    out[OI.INPUT_VALUE] = prompt.prompt if prompt.messages is None else to_json(list(prompt.messages))
    out[OI.INPUT_MIME_TYPE] = (Mime.TEXT if prompt.messages is None else Mime.JSON).value
    flat = [(m["role"], "\n".join(p.get("content", "") for p in m["parts"])) for m in messages]
    if prompt.system and not any(role == "system" for role, _ in flat):  # a conversation may hold it already
        flat.insert(0, ("system", prompt.system))
    for i, (role, content) in enumerate(flat):
        out[f"{OI.LLM_INPUT_MESSAGES}.{i}.{Message.MESSAGE_ROLE}"] = role
        out[f"{OI.LLM_INPUT_MESSAGES}.{i}.{Message.MESSAGE_CONTENT}"] = content
    return out


def output_attributes(step: Step) -> dict[str, Any]:
    """The reply of a call, each thing once: its text as the model wrote it (the Thought is in it, written by the
    model as text, not as reasoning apart) and the call it asked for."""
    requested = _requested(step)
    parts = [text(step.raw_output)] if step.raw_output else []
    if requested is not None:
        parts.append(requested)
    out: dict[str, Any] = {
        gen_ai.GEN_AI_OUTPUT_MESSAGES: to_json([message("assistant", parts)]),
        OI.OUTPUT_VALUE: step.raw_output,
        OI.OUTPUT_MIME_TYPE: Mime.TEXT.value,
        f"{OI.LLM_OUTPUT_MESSAGES}.0.{Message.MESSAGE_ROLE}": "assistant",
        f"{OI.LLM_OUTPUT_MESSAGES}.0.{Message.MESSAGE_CONTENT}": step.raw_output,
    }
    if requested is not None:
        call = f"{OI.LLM_OUTPUT_MESSAGES}.0.{Message.MESSAGE_TOOL_CALLS}.0"
        if requested.get("id"):
            out[f"{call}.{Call.TOOL_CALL_ID}"] = requested["id"]
        out[f"{call}.{Call.TOOL_CALL_FUNCTION_NAME}"] = requested["name"]
        out[f"{call}.{Call.TOOL_CALL_FUNCTION_ARGUMENTS_JSON}"] = to_json(requested["arguments"])
    return out


def _conversation_message(value: Any) -> dict[str, Any]:
    """A message of a native-tools conversation as the conventions' input message: its role and its text."""
    if isinstance(value, dict):
        role = str(value.get("role", "user"))
        body = value.get("content", value.get("parts", ""))
        return message(role, [text(body if isinstance(body, str) else to_json(body))])
    return message("user", [text(to_json(value))])
