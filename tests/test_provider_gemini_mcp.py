"""An MCP tool as a Gemini function: the google-genai SDK, against the local Gemini stand-in (tests/provider_helpers),
declares the tool with the MCP server's own JSON Schema (``parameters_json_schema``), and the model's call with that
schema's arguments reaches the real MCP server (tests/mcp_server.py) and comes back as the function's response."""

from __future__ import annotations

import json

import pytest
from mcp_helpers import our_server
from provider_helpers import FakeGemini, fast_retry

from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import load_preset
from react_core.providers import create_provider
from react_core.tools import build_tools
from react_core.tools.mcp_client import POOL
from react_core.tools.mcp_config import server_config


@pytest.fixture(scope="module")
def url():
    with our_server() as (address, _proc):
        yield address
        POOL.close_all()


def test_the_request_declares_the_mcp_tool_with_its_schema_and_the_call_reaches_the_server(url):
    replies = [
        {"text": "I will add them.", "tool_calls": [{"name": "t_add", "arguments": {"a": 2, "b": 40}}]},
        {"tool_calls": [{"name": "finish", "arguments": {"answer": "42"}}]},
    ]
    servers = [server_config("t", {"url": url})]
    with FakeGemini(replies) as gemini:
        provider = create_provider("gemini", api_key="k-0123456789", base_url=gemini.root, retry=fast_retry())
        tools = build_tools(None, ["t_add"], mcp_servers=servers)
        trace = Agent(RunConfig(provider=provider, preset=load_preset("tools"), tools=tools)).run("What is 2 + 40?")
    assert trace.stop_reason == "finished" and trace.final_answer == "42", trace.error
    first = gemini.requests[0].body
    declared = {d["name"]: d for d in first["tools"][0]["functionDeclarations"]}
    assert set(declared) == {"t_add", "finish"}
    add = declared["t_add"]
    assert "Adds two integers." in add["description"]
    assert "parameters" not in add  # the schema goes as JSON Schema, not squeezed into Gemini's Schema type
    # The SDK writes the field by its proto name; the API's JSON reading takes it as well as parametersJsonSchema.
    sent = add.get("parametersJsonSchema") or add["parameters_json_schema"]
    assert sent["type"] == "object" and sent["required"] == ["a", "b"]
    assert {k: v["type"] for k, v in sent["properties"].items()} == {"a": "integer", "b": "integer"}
    step = trace.steps[0]
    assert step.observation.mcp.arguments == {"a": 2, "b": 40} and step.observation.text.strip() == "42"
    answer = gemini.requests[1].body["contents"][-1]["parts"][0]["functionResponse"]
    assert answer["name"] == "t_add" and json.dumps(answer["response"]).count("42")
