"""An MCP tool's arguments are held to its whole input JSON Schema before the call (jsonschema, in the schema's own
dialect), and text that does not fit is an error observation quoting where it failed and the schema: the server never
receives it. Regular expressions of a server's schema are never run here, and a $ref is never fetched. The function
dialect reads keyword calls (``t_add(a=2, b=40)``) as the JSON object an MCP tool takes, and writes them back alike."""

from __future__ import annotations

import json

import pytest
from mcp_helpers import our_server
from provider_helpers import FakeModelServer

from react_core.base import tool_specs
from react_core.base.errors import ToolError
from react_core.base.trace import Action, Step
from react_core.dialects import get_dialect
from react_core.loop.agent import Agent
from react_core.loop.settings import RunSettings, build_run_config
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.mcp import McpTool, arguments, mcp_tools
from react_core.tools.mcp_client import POOL
from react_core.tools.mcp_config import server_config
from react_core.tools.registry import ToolRegistry

FIND = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 2},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        "mode": {"enum": ["fast", "full"]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
        "where": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "required": ["lat", "lon"],
            "additionalProperties": False,
        },
        "id": {"oneOf": [{"type": "integer"}, {"type": "string", "format": "uuid"}]},
    },
    "required": ["query"],
    "additionalProperties": False,
}


def tool(schema: dict, name: str = "demo_find") -> McpTool:
    return McpTool(name, "demo", name.split("_", 1)[1], "A tool.", schema)


@pytest.mark.parametrize(
    ("given", "where", "says"),
    [
        ({"query": "x"}, "'query'", "is too short"),
        ({"query": "ok", "limit": 0}, "'limit'", "less than the minimum of 1"),
        ({"query": "ok", "limit": "3"}, "'limit'", "is not of type 'integer'"),
        ({"query": "ok", "mode": "slow"}, "'mode'", "is not one of ['fast', 'full']"),
        ({"query": "ok", "tags": ["a", "b", "c"]}, "'tags'", "is too long"),
        ({"query": "ok", "where": {"lat": 1}}, "'where'", "'lon' is a required property"),
        ({"query": "ok", "where": {"lat": 1, "lon": 2, "alt": 3}}, "'where'", "Additional properties"),
        ({"query": "ok", "id": 1.5}, "'id'", "is not valid under any of the given schemas"),
        ({"query": "ok", "extra": 1}, "", "Additional properties are not allowed ('extra' was unexpected)"),
    ],
)
def test_arguments_outside_the_whole_schema_are_refused_quoting_where_and_the_schema(given, where, says):
    with pytest.raises(ToolError) as refused:
        arguments(tool(FIND), json.dumps(given))
    text = str(refused.value)
    assert text.startswith("demo_find was not called: the arguments do not fit its input schema")
    assert (f" at {where}: " if where else "schema: ") in text and says in text
    assert text.endswith('"required":["query"]}')  # the schema, quoted for the model to try again


def test_arguments_that_fit_are_passed_on_as_given():
    given = {"query": "ok", "limit": 3, "mode": "full", "tags": ["a"], "where": {"lat": 1, "lon": 2.5}, "id": "x"}
    assert arguments(tool(FIND), json.dumps(given)) == given
    assert arguments(tool(FIND), "plain words") == {"query": "plain words"}  # the one required text


def test_the_schemas_own_dialect_is_used():
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": True}},
    }
    assert arguments(tool(draft4), '{"n": 4}') == {"n": 4}
    with pytest.raises(ToolError, match="greater than or equal to the maximum of 5"):
        arguments(tool(draft4), '{"n": 5}')  # draft 4's boolean exclusiveMaximum, which 2020-12 does not read


def test_the_schemas_regular_expressions_are_never_run_here():
    """A server's pattern could take exponential time in Python's re: the server holds a value to it."""
    hostile = {
        "type": "object",
        "properties": {"word": {"type": "string", "pattern": "^(a+)+$"}},
        "patternProperties": {"^(b+)+$": {"type": "integer"}},
        "additionalProperties": False,
        "required": ["word"],
    }
    given = {"word": "a" * 40 + "!", "b" * 40 + "!": "x"}
    assert arguments(tool(hostile), json.dumps(given)) == given


class SchemaHost(FakeModelServer):
    """A web server that would hand out a schema to whoever fetches it, and counts who did."""

    fetched = 0

    def _get(self, h):
        SchemaHost.fetched += 1
        self._json(h, 200, {"type": "integer"})


def test_a_ref_to_another_address_is_never_fetched():
    with SchemaHost() as host:
        remote = {
            "type": "object",
            "properties": {"n": {"$ref": f"{host.root}/n.json"}, "m": {"$ref": "#/$defs/M"}},
            "required": ["n"],
            "$defs": {"M": {"type": "integer"}},  # a $ref inside the schema is followed
        }
        assert arguments(tool(remote), '{"n": "anything"}') == {"n": "anything"}  # left to the server
        with pytest.raises(ToolError, match="is not of type 'integer'"):
            arguments(tool(remote), '{"n": 1, "m": "x"}')
    assert SchemaHost.fetched == 0


def test_a_schema_that_is_not_json_schema_leaves_the_arguments_to_the_server():
    broken = {"type": "object", "properties": {"n": {"type": "no-such-type"}}}
    assert arguments(tool(broken), '{"n": 1}') == {"n": 1}


@pytest.fixture(scope="module")
def ours():
    with our_server() as (url, _proc):
        yield server_config("t", {"url": url, "timeout": 5})
        POOL.close_all()


def test_a_call_that_does_not_fit_never_reaches_the_server(ours):
    tools = ToolRegistry(mcp_tools(["t_add"], [ours]))
    refused = tools.run(Action("t_add", '{"a": "two", "b": 40}'))
    assert refused.is_error and refused.text.startswith("t_add was not called: ")
    assert "at 'a': 'two' is not of type 'integer'" in refused.text and '"required":["a","b"]' in refused.text
    assert refused.mcp.result is None and refused.mcp.error == refused.text  # no result: the server never saw it
    assert tools.run(Action("t_add", '{"a": 2, "b": 40}')).text == "42"


ADD = McpTool(
    "t_add",
    "t",
    "add",
    "Adds two integers.",
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]},
)


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("t_add(a=2, b=40)", '{"a": 2, "b": 40}'),
        ("T_add(b=40, a=2)", '{"b": 40, "a": 2}'),
        ("t_add(a=2)", '{"a": 2}'),  # one keyword that is not the one-text argument: still an object
        ('t_add(input="{\\"a\\": 2, \\"b\\": 40}")', '{"a": 2, "b": 40}'),  # the one-text form reads as before
        ('other_find(q="x", tags=["a", "b"], near={"lat": 1.5}, exact=True, since=None)', None),
    ],
)
def test_the_function_dialect_reads_keyword_calls_of_mcp_tools(written, read):
    fmt = get_dialect("function")
    with tool_specs.known([ADD.spec()]):
        parsed = fmt.parse(f"Step 1\nThought: Add them.\nAction: {written}")
        assert parsed.error is None, parsed.error
        if read is None:
            read = json.dumps({"q": "x", "tags": ["a", "b"], "near": {"lat": 1.5}, "exact": True, "since": None})
        assert parsed.action.input == read
        # Written back the way the model wrote it, and read back as the same input.
        back = fmt.parse(fmt.render_model_part(Step(1, thought="Go.", action=parsed.action)))
        assert back.action == parsed.action


@pytest.mark.parametrize(
    "written",
    [
        "t_add(a=(1, 2), b=1)",  # a tuple is no JSON value
        "t_add(a=1, b=x)",  # a name: nothing is evaluated
        'search(query="a", keyword="b")',  # a built-in tool takes one argument
        "t_add(1, b=2)",  # positional and keyword at once
    ],
)
def test_keyword_calls_take_json_literals_only(written):
    with tool_specs.known([ADD.spec()]):
        parsed = get_dialect("function").parse(f"Thought: x\nAction: {written}")
    assert parsed.action is None and parsed.error.startswith("Could not read the action")


def test_a_run_in_the_function_dialect_calls_an_mcp_tool_with_keywords(ours, monkeypatch):
    monkeypatch.setenv("REACT_MCP_SERVERS", json.dumps({"t": {"url": ours.url, "timeout": 5}}))
    script = [
        "Step 1\nThought: Add them.\nAction: t_add(a=2, b=40)",
        'Step 2\nThought: It is 42.\nAction: finish(answer="42")',
    ]
    settings = RunSettings(provider="scripted", dialect="function", tools=["t_add"])
    trace = Agent(build_run_config(settings, provider=ScriptedProvider(script))).run("What is 2 + 40?")
    assert trace.final_answer == "42", trace.to_dict()
    first = trace.steps[0]
    assert first.observation.text == "42" and first.observation.mcp.arguments == {"a": 2, "b": 40}
    assert "t_add(a=1, b=1)" in first.call.system  # the tool list shows the keyword form
