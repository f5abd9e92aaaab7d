"""A server's questions for a person in the middle of a tool call (an MCP elicitation), as a run keeps them, and the
person's answer.

At today's revision (2026-07-28) a server that needs a person's input answers ``tools/call`` with an
``InputRequiredResult``: its questions (``elicitation/create`` requests, each a message and a flat JSON Schema of the
fields it wants) and an opaque ``request_state``. The call is then over, with nothing held open, so the run can stop
like a step-mode pause and be resumed later, in another process too: the trace keeps the questions and the state on
the step's MCP record (``McpCall.asks``, ``asked``), and the person's answer (``answered``: accept with the fields,
decline or cancel) goes back with the call sent again. In a run without a person to ask (the ``input`` breakpoint not
chosen: an evaluation, ``ask`` without ``--pause-before input``) every question is declined (``declined``), and the
server says what it does without the answer.

A server of the revision before (2025-11-25) asks in the middle of its call instead, which a run here cannot pause:
its questions are declined (``decline_mid_call``). A server's request to sample a model or list roots is not
supported: that call fails and says so.
"""

from __future__ import annotations

import json
from typing import Any

from react_core.base.errors import ConfigError
from react_core.tools.mcp_arguments import violation

ELICIT = "elicitation/create"
ACTIONS = ("accept", "decline", "cancel")
# A request_state larger than this is not kept in a trace (it is the server's opaque data: a few KB at most).
MAX_STATE_CHARS = 64_000


def asked(result: Any) -> dict[str, Any]:
    """An ``InputRequiredResult`` as the trace keeps it: {"questions": {key: {"message", "schema"}}, "request_state"};
    ConfigError when it asks for what cannot be given here (a model's sample, the roots, a URL to open)."""
    questions = {}
    for key, request in (result.input_requests or {}).items():
        params = getattr(request, "params", None)
        if request.method != ELICIT or getattr(params, "mode", "form") != "form":
            what = "a URL to open" if request.method == ELICIT else f"a {request.method} request"
            raise ConfigError(f"the server asked for {what}, which ReAct Lab does not support")
        schema = json.loads(json.dumps(params.requested_schema, default=str))  # a plain JSON object, kept as sent
        questions[str(key)] = {"message": params.message, "schema": schema}
    state = result.request_state
    if state is not None and len(state) > MAX_STATE_CHARS:
        raise ConfigError(f"the server's request state is over {MAX_STATE_CHARS:,} characters, too large to keep")
    return {"questions": questions, "request_state": state}


def summary(asks: dict[str, Any]) -> str:
    """The questions as one text for people: each message and the fields it wants."""
    lines = []
    for question in (asks.get("questions") or {}).values():
        fields = ", ".join((question.get("schema") or {}).get("properties") or {})
        lines.append(question.get("message", "") + (f" (fields: {fields})" if fields else ""))
    return " ".join(lines)


def declined(asks: dict[str, Any], action: str = "decline") -> dict[str, Any]:
    """The answer that declines (or cancels) every question."""
    responses = {k: {"action": action} for k in asks.get("questions") or {}}
    return {"responses": responses, "state": asks.get("request_state")}


def answered(asks: dict[str, Any], text: str) -> dict[str, Any]:
    """The person's answer from one line: ``decline``, ``cancel``, or the fields as a JSON object (for several
    questions, an object of each question's fields by its key). ConfigError saying what does not fit a question's
    schema."""
    text = text.strip()
    if text.lower() in ("decline", "cancel"):
        return declined(asks, text.lower())
    questions = asks.get("questions") or {}
    try:
        given = json.loads(text)
    except ValueError:
        given = None
    if not isinstance(given, dict):
        raise ConfigError('Answer with the fields as a JSON object, e.g. {"name": "Ada"}, or decline, or cancel.')
    by_key = given if len(questions) > 1 else dict.fromkeys(questions, given)
    responses = {}
    for key, question in questions.items():
        fields = by_key.get(key)
        if not isinstance(fields, dict):
            raise ConfigError(f"Give the answer to question {key!r} as an object of its fields.")
        problem = violation(question.get("schema") or {}, fields, "the answer does not fit the fields it asked for")
        if problem:
            raise ConfigError(f"Not sent: {problem}.")
        responses[key] = {"action": "accept", "content": fields}
    return {"responses": responses, "state": asks.get("request_state")}


def input_responses(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer as the SDK sends it (``InputResponses``: an ``ElicitResult`` by question key)."""
    from mcp.types import ElicitResult

    return {key: ElicitResult.model_validate(r) for key, r in (answer.get("responses") or {}).items()}


async def decline_mid_call(context: Any, params: Any) -> Any:
    """The SDK's elicitation callback: a question asked in the middle of a call (a server of the revision before
    today's) is declined, since a run here cannot wait inside a call for a person."""
    from mcp.types import ElicitResult

    return ElicitResult(action="decline")
