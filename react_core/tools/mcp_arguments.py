"""An MCP tool's arguments from an action's one text, held to the tool's whole input JSON Schema before the call.

An action's input is one text. A tool whose only required argument is a string takes the text as that argument, or a
JSON object of its arguments (to set optional ones too); any other tool takes a JSON object (the function dialect
writes it as keywords: ``demo_add(a=2, b=40)``). The object is then validated against the tool's whole input schema
with ``jsonschema`` (installed with the SDK), in the dialect the schema names (``$schema``) or JSON Schema 2020-12, the
MCP specification's default: types, enums, bounds, lengths, ``oneOf`` and the rest. Text that does not fit is a
``ToolError`` whose message quotes where it failed and the schema, so the model hears it and tries again, and the
server never receives it.

Three things are left to the server, which answers a value outside them with an error of its own: ``format`` (an
assertion only where a schema opts in, and the spec's vocabulary is open), the schema's regular expressions
(``pattern``, ``patternProperties``: Python's ``re`` may take exponential time on a hostile pattern, and the rule here
is linear work on a model's text), and a ``$ref`` that is not inside the schema (nothing is fetched). A schema that is
not valid JSON Schema is not held against the call either: the server decides.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from react_core.base.errors import ToolError

# The validator and the schema it checked, cached by the schema's text (a run calls a tool many times).
_CACHED_SCHEMAS = 256
# How much of the failing value an error quotes.
_QUOTED_CHARS = 120


def compact(schema: dict[str, Any]) -> str:
    """The schema's properties and required arguments as one short JSON line (titles left out)."""
    props = {
        k: {n: v for n, v in (p or {}).items() if n != "title"} for k, p in (schema.get("properties") or {}).items()
    }
    shown = {"properties": props, "required": schema.get("required") or []}
    return json.dumps(shown, ensure_ascii=False, separators=(",", ":"))


def single(schema: dict[str, Any]) -> str:
    """The one required argument when it is a string ('' when the tool needs a JSON object)."""
    required = schema.get("required") or []
    props = schema.get("properties") or {}
    if len(required) == 1 and (props.get(required[0]) or {}).get("type") == "string":
        return str(required[0])
    return ""


def arguments(tool: Any, text: str) -> dict[str, Any]:
    """The call's arguments for ``tool`` (an ``McpTool``) from the action's one text; ToolError (quoting the schema)
    when it does not fit."""
    given = _shaped(tool, text.strip())
    problem = violation(tool.schema, given)
    if problem:
        raise ToolError(f"{tool.name} was not called: {problem}. Its input schema: {compact(tool.schema)}")
    return given


def _shaped(tool: Any, text: str) -> dict[str, Any]:
    """The text as an object of arguments, with the required ones present."""
    given: Any = None
    if text.startswith("{"):
        try:
            given = json.loads(text)
        except ValueError:
            given = None
    one = single(tool.schema)
    if isinstance(given, dict):
        missing = [k for k in tool.schema.get("required") or [] if k not in given]
        if not missing:
            return given
        if not one:
            raise ToolError(f"{tool.name} needs the arguments {', '.join(missing)}: {compact(tool.schema)}")
    if one:
        return {one: text}
    if not (tool.schema.get("required") or []) and not text.strip("{} "):
        return {}
    raise ToolError(f"{tool.name} takes a JSON object of its arguments: {compact(tool.schema)}")


def violation(
    schema: dict[str, Any], value: dict[str, Any], what: str = "the arguments do not fit its input schema"
) -> str:
    """'' when ``value`` fits ``schema`` (as far as it is checked here: the module says what is not), else ``what``
    with where and how it does not, in one line."""
    validator = _validator(json.dumps(schema, sort_keys=True))
    if validator is None:
        return ""
    from jsonschema.exceptions import best_match
    from referencing.exceptions import Unresolvable

    try:
        error = best_match(validator.iter_errors(value))
    except (Unresolvable, RecursionError):  # a $ref outside the schema (never fetched), or one that loops
        return ""
    if error is None:
        return ""
    where = "/".join(str(p) for p in error.absolute_path)
    message = " ".join(error.message.split())
    if len(message) > _QUOTED_CHARS * 2:
        message = message[: _QUOTED_CHARS * 2] + "…"
    return f"{what}{f' at {where!r}' if where else ''}: {message}"


@lru_cache(maxsize=_CACHED_SCHEMAS)
def _validator(schema_text: str) -> Any:
    """A validator for the schema (its own dialect, else 2020-12) that runs none of its regular expressions; None
    for a schema that is not one."""
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import SchemaError
    from referencing import Registry

    schema = _local_refs_only(json.loads(schema_text))
    if not isinstance(schema, dict):
        return None
    try:
        base = validators.validator_for(schema, default=Draft202012Validator)
        base.check_schema(schema)
    except (SchemaError, RecursionError):
        return None
    # Checks that would run one of the schema's regular expressions do nothing: the server holds a value to them.
    skipped = ["pattern", "patternProperties"]
    if "patternProperties" in schema_text:  # which keys a pattern matches decides what is additional, anywhere
        skipped += ["additionalProperties", "unevaluatedProperties"]
    linear = validators.extend(base, dict.fromkeys(skipped, _not_checked))
    # An empty registry besides: jsonschema's default one fetches a remote $ref with urllib, and a server's schema
    # must never make this process fetch a URL.
    return linear(schema, registry=Registry())


def _local_refs_only(schema: Any) -> Any:
    """The schema with every ``$ref`` / ``$dynamicRef`` that points outside it dropped (that part then allows any
    value: the server checks it), walked without recursion."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in ("$ref", "$dynamicRef"):
                if key in node and not (isinstance(node[key], str) and node[key].startswith("#")):
                    del node[key]
            stack += node.values()
        elif isinstance(node, list):
            stack += node
    return schema


def _not_checked(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
    yield from ()
