"""The on-device grammar with MCP tools (``react_core.dialects.json_grammar``): a tool whose input schema is an object
of simple properties gets its input held to a one-line JSON object of that schema in every dialect (required keys
present, each value of its type); a tool with one required string keeps the one-text form; a schema outside the
subset falls back to the free form. As in test_formats_grammar.py, llama.cpp's own parser accepts each grammar, and
hypothesis draws replies from the grammar turned into a regular expression: each parses into an enabled tool or an
answer, and a shaped tool's input is a JSON object the schema validates."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_formats_grammar import ALL, assert_enabled_action_or_answer, draw_reply, gbnf_to_regex, llama_cpp_accepts

from react_core.base import tool_specs
from react_core.base.errors import ToolError
from react_core.base.trace import Action, Step
from react_core.dialects import DIALECTS
from react_core.dialects.gbnf import literal
from react_core.dialects.json_grammar import JsonContext, object_rules
from react_core.tools.mcp import McpTool, arguments

SCHEMAS = {
    "add": {  # two required integers
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
    "find": {  # every simple kind, required and optional, as pydantic writes Optional (anyOf with null)
        "type": "object",
        "properties": {
            "query": {"type": "string", "title": "Query"},
            "limit": {"type": "integer", "minimum": 1},
            "score": {"type": "number"},
            "exact": {"type": "boolean", "default": False},
            "mode": {"enum": ["fast", "full"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "since": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["query", "limit"],
    },
    "nested": {  # an object one level down; every property optional
        "type": "object",
        "properties": {
            "filter": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "sizes": {"type": "array", "items": {"type": "number"}}},
                "required": ["name"],
            },
            "flag": {"type": ["boolean", "null"]},
        },
    },
    "none": {"type": "object", "properties": {}},  # no arguments at all: {}
    "echo": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},  # one text
    "linked": {  # $ref: outside the subset, the free form
        "type": "object",
        "properties": {"item": {"$ref": "#/$defs/Item"}, "n": {"type": "integer"}},
        "required": ["item", "n"],
        "$defs": {"Item": {"type": "object", "properties": {"id": {"type": "integer"}}}},
    },
}
TOOLS = {
    f"demo_{name}": McpTool(f"demo_{name}", "demo", name, f"The {name} tool.", schema)
    for name, schema in SCHEMAS.items()
}
SHAPED = {"demo_add", "demo_find", "demo_nested", "demo_none"}
MCP_SETS = [["demo_add", "search"], ["demo_find", "demo_nested"], ["demo_echo", "demo_linked", "demo_none"]]


def types_only(schema):
    """The schema without the value constraints the grammar leaves to the server (``minimum`` and the like)."""
    if isinstance(schema, dict):
        return {k: types_only(v) for k, v in schema.items() if k not in ("minimum", "maximum", "pattern", "format")}
    return [types_only(v) for v in schema] if isinstance(schema, list) else schema


@pytest.fixture(autouse=True)
def specs():
    with tool_specs.known(tool.spec() for tool in TOOLS.values()):
        yield


def reply(fmt: str, tool: str, arguments: str, shaped: bool = True) -> str:
    """A one-step reply calling ``tool`` with ``arguments``: a one-line JSON object placed as each dialect places one
    (``shaped``), else a text placed as each dialect places a text."""
    f = DIALECTS[fmt]
    written = f.render_model_part(Step(2, thought="Go.", action=Action(tool, "QQINPUTQQ")))[len(f.step_prefix(2)) :]
    if fmt == "json" and shaped:  # the JSON dialect's action_input is the object itself
        return written.replace('"QQINPUTQQ"', arguments)
    if fmt == "json":
        return written.replace("QQINPUTQQ", json.dumps(arguments)[1:-1])
    if fmt in ("function", "tools"):  # inside the call's quoted string
        return written.replace("QQINPUTQQ", json.dumps(arguments)[1:-1])
    return written.replace("QQINPUTQQ", arguments)


@pytest.mark.parametrize("fmt", ALL)
@pytest.mark.parametrize("tools", MCP_SETS)
def test_llama_cpp_accepts_every_dialects_grammar_with_mcp_tools(fmt, tools):
    grammar = DIALECTS[fmt].grammar(tools, 2)
    assert llama_cpp_accepts(grammar), grammar


@pytest.mark.parametrize("fmt", ALL)
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much], deadline=None)
@given(data=st.data())
def test_every_reply_a_grammar_allows_parses_and_a_shaped_input_fits_its_schema(fmt, data):
    tools, text = draw_reply(data, fmt, MCP_SETS)
    result = DIALECTS[fmt].parse(text)
    assert_enabled_action_or_answer(result, tools)
    if result.action is not None and result.action.tool in SHAPED:
        given_arguments = json.loads(result.action.input)
        schema = TOOLS[result.action.tool].schema
        jsonschema.validate(given_arguments, types_only(schema))
        if jsonschema.Draft202012Validator(schema).is_valid(given_arguments):
            assert arguments(TOOLS[result.action.tool], result.action.input) == given_arguments  # the call takes it
        else:  # a value outside a bound the grammar leaves (minimum): refused before the call, quoting the schema
            with pytest.raises(ToolError, match="was not called: the arguments do not fit its input schema"):
                arguments(TOOLS[result.action.tool], result.action.input)


@pytest.mark.parametrize("fmt", ALL)
def test_a_reply_that_breaks_the_schema_is_refused(fmt):
    pattern = gbnf_to_regex(DIALECTS[fmt].grammar(["demo_add", "demo_find"], 2))

    def allowed(tool: str, arguments: str) -> bool:
        return re.fullmatch(pattern, reply(fmt, tool, arguments), re.DOTALL) is not None

    assert allowed("demo_add", '{"a": 2, "b": 40}')
    assert allowed("demo_find", '{"query": "x y", "limit": 3, "mode": "full", "tags": ["a", "b"]}')
    assert not allowed("demo_add", '{"a": "two", "b": 40}')  # a string for an integer
    assert not allowed("demo_add", '{"a": 2}')  # a required key missing
    assert not allowed("demo_add", '{"a": 2, "b": 40, "c": 1}')  # a key the schema does not have
    assert not allowed("demo_add", '{"a": 2.5, "b": 40}')  # a number for an integer
    assert not allowed("demo_find", '{"query": "x", "limit": 3, "mode": "slow"}')  # not one of the enum
    assert not allowed("demo_find", '{"query": "x", "limit": 3, "exact": "yes"}')  # a string for a boolean
    assert not allowed("demo_add", "2 + 40")  # not an object at all


@pytest.mark.parametrize("fmt", ALL)
def test_one_text_tools_and_schemas_outside_the_subset_keep_the_free_form(fmt):
    pattern = gbnf_to_regex(DIALECTS[fmt].grammar(["demo_echo", "demo_linked"], 2))

    assert re.fullmatch(pattern, reply(fmt, "demo_echo", "hello world", False), re.DOTALL)  # the one text, as before
    free = reply(fmt, "demo_linked", '{"item": {"id": 1}, "n": "anything goes"}', shaped=False)
    assert re.fullmatch(pattern, free, re.DOTALL)  # not shaped: the free form takes it


def test_what_the_subset_leaves_out_falls_back():
    ctx = JsonContext()
    simple = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert object_rules("x", simple, ctx) is not None
    deeper = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": simple}}}}
    for schema in (
        {"type": "object", "properties": {"a": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}},
        {"type": "object", "properties": {"a": {"allOf": [{"type": "integer"}]}}},
        {"type": "object", "properties": {"a": {}}},  # any value
        {"type": "object", "properties": {"a": {"type": "array", "items": simple}}},  # arrays of objects
        deeper,  # an object in an object in the arguments
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["b"]},  # b undescribed
        {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(13)}},  # too many
        {"type": "array", "items": {"type": "integer"}},  # arguments are an object
        # Hostile or broken schemas fall back too, never an exception out of the grammar.
        {"type": "object", "properties": {"a": {"anyOf": []}}},
        {"type": "object", "properties": {"a": {"enum": [float("inf")]}}},
        {"type": "object", "properties": {"a": {"enum": [{"x": 1}]}}},
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": [{"not": "hashable"}]},
        {"type": "object", "properties": ["a"]},
        {"type": "object", "properties": {"a": {"type": 7}}},
    ):
        assert object_rules("x", schema, ctx) is None, schema
    # A key that would end the input early (here "]" before Search's closing bracket) is not written either.
    bracket = {"type": "object", "properties": {"a]": {"type": "integer"}}}
    assert object_rules("x", bracket, JsonContext(excluded="]")) is None


# -- the on-device model, sampling under a grammar with shaped MCP tools ------------------------------------------


@pytest.mark.model
@pytest.mark.timeout(600)
@pytest.mark.parametrize("fmt", ["paper", "function", "json"])  # the object in the line, in a quoted string, bare
def test_the_on_device_model_writes_arguments_its_schema_allows(fmt):
    # The step is written up to the tool's input (a thought that calls for it), and the model writes the input under
    # that input's rules of the dialect's grammar: what it samples must be arguments the schema allows.
    from llama_cpp import LlamaGrammar

    from react_core.presets.preset import Preset, load_preset
    from react_core.presets.render import render_prefix, render_question
    from react_core.providers.local import LocalProvider

    llama = LocalProvider(on_progress=None).llama
    f = DIALECTS[fmt]
    tools = ["demo_add", "demo_find"]
    preset = load_preset(Preset.default_for(fmt))
    # The instructions and the tools' descriptions without the worked examples: the grammar, not the examples, is
    # what this is about, and a prompt a tenth as long keeps the suite quick.
    preset = replace(preset, examples="")
    prompt = render_prefix(preset, tools) + render_question(preset, "What is 1234 plus 4321?")
    grammar = f.grammar(tools, 1).split("\n")
    for n, tool in enumerate(tools):
        step = Step(1, thought=f"I will call {tool} with its arguments.", action=Action(tool, "QQINPUTQQ"))
        written = f.render_model_part(step)
        marker = '"QQINPUTQQ"' if fmt == "json" else "QQINPUTQQ"
        before, after = written.split(marker)
        rules = [line for line in grammar if line.startswith(f"input{n}")]
        root = f"root ::= input{n} {literal(after[:1])}"  # the input, then the character that closes it
        out = llama.create_completion(
            prompt + before,
            max_tokens=200,
            temperature=0.0,  # greedy: the provider's own sampler for a constrained step (llama_grammar)
            grammar=LlamaGrammar.from_string("\n".join([root, *rules]), verbose=False),
        )
        text = out["choices"][0]["text"]
        result = f.parse((before + text[:-1] + after)[len(f.step_prefix(1)) :])
        assert result.action is not None and result.action.tool == tool, (text, result)
        jsonschema.validate(json.loads(result.action.input), types_only(TOOLS[tool].schema))
