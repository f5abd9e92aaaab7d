"""A tool's JSON Schema as GBNF for the one-line JSON object of its arguments (an MCP tool's input), where it can.

llama.cpp ships a converter (``llama_cpp.llama_grammar.json_schema_to_gbnf``), but its strings and arrays are
unbounded, its whitespace may break the line, and its strings may hold any character, so an input could run on
forever, end the dialect's line early (``]`` in ``Search[…]``, ``</search>``) or spell a stop sequence. This is a
small converter for the subset tools use, written in the dialect grammars' own terms: one line, every repetition
bounded, string contents kept from what would end the input or stop the model. Its number and integer rules, the
``"{" … "}"`` shape and the properties written in the schema's order follow llama.cpp's.

The subset: an object whose properties are strings, integers, numbers, booleans, nulls, enums or consts of those,
arrays of those, ``anyOf`` or a ``type`` list of those (``Optional[int]``), and objects of those one level down;
required properties are always written, optional ones may be left out. Value constraints that do not change a
value's type (``minimum``, ``pattern``, ``format``, lengths) are left to the server. Anything else (``$ref``,
``oneOf``, ``allOf``, deeper objects, a property of any type, more than ``MAX_PROPERTIES`` properties, a required
name the schema does not describe) is not expressible: ``object_rules`` returns None and the grammar falls back to
the free form (an input that may open with a brace).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from react_core.dialects.gbnf import JSON_ESCAPE, char_class, literal

MAX_DEPTH = 2  # the arguments object, and objects as its properties' values
MAX_PROPERTIES = 12
MAX_STRING_CHARS = 60
MAX_ITEMS = 6
# The longest object a grammar may allow: the dialects' parsers read at most 2,000 characters of an input.
MAX_OBJECT_CHARS = 1_500
_KEY = re.compile(r"^[A-Za-z0-9_.$-]{1,64}$")
# Keywords that change which values are valid in ways this subset cannot write down.
_UNSUPPORTED = ("$ref", "oneOf", "allOf", "not", "if", "then", "else", "patternProperties", "dependentSchemas")
_INTEGER = '"-"? ([0-9] | [1-9] [0-9]{1,15})'
_NUMBER = _INTEGER + ' ("." [0-9]{1,15})? ([eE] [-+]? [0-9]{1,2})?'


@dataclass
class JsonContext:
    """Where the object is written: ``quoted`` inside a JSON string literal of the dialect (its quotes escaped, no
    escapes of its own); ``excluded``: characters a string value may not hold (what follows the input, line ends);
    ``pairs``: two-character starts of stop sequences a line may not hold (``grammar._stop_pairs``)."""

    quoted: bool = False
    excluded: str = ""
    pairs: Mapping[str, str] = field(default_factory=dict)


class _Unsupported(Exception):
    pass


class _Builder:
    def __init__(self, name: str, ctx: JsonContext) -> None:
        self.name, self.ctx, self.rules, self.count = name, ctx, [], 0
        self.quote = '\\"' if ctx.quoted else '"'
        self._string = ""

    def rule(self, body: str) -> str:
        self.count += 1
        rule = f"{self.name}-{self.count}"
        self.rules.append(f"{rule} ::= {body}")
        return rule

    def token(self, value: Any) -> tuple[str, int]:
        """A JSON literal (a key, an enum member) as a grammar literal, when this context can hold it."""
        text = json.dumps(value, ensure_ascii=False)
        if self.ctx.quoted:
            if "\\" in text:
                raise _Unsupported
            text = text.replace('"', '\\"')
        inner = text[1:-1] if isinstance(value, str) else text
        if any(c in self.ctx.excluded or ord(c) < 0x20 for c in inner):
            raise _Unsupported
        if any(a + b in text for a, follow in self.ctx.pairs.items() for b in follow):
            raise _Unsupported
        return literal(text), len(text)

    def string(self) -> tuple[str, int]:
        if not self._string:
            pairs = self.ctx.pairs
            excluded = '"\\' + "".join(chr(i) for i in range(0x20)) + self.ctx.excluded + "".join(pairs)
            options = [char_class(excluded)] + [f"{literal(a)} {char_class(excluded + f)}" for a, f in pairs.items()]
            if not self.ctx.quoted:
                options.append(JSON_ESCAPE)
            char = self.rule(" | ".join(options))
            self._string = self.rule(f"{literal(self.quote)} {char}{{0,{MAX_STRING_CHARS}}} {literal(self.quote)}")
        return self._string, 2 * len(self.quote) + 2 * MAX_STRING_CHARS

    def value(self, schema: Any, depth: int, items: bool = True) -> tuple[str, int]:
        """The grammar expression of one value of ``schema`` and its longest length."""
        if not isinstance(schema, Mapping) or any(k in schema for k in _UNSUPPORTED):
            raise _Unsupported
        if "const" in schema:
            return self.token(schema["const"])
        if "enum" in schema:
            members = schema["enum"]
            if not isinstance(members, list) or not members or not all(_scalar(m) for m in members):
                raise _Unsupported
            options = [self.token(m) for m in members]
            return "(" + " | ".join(o for o, _ in options) + ")", max(n for _, n in options)
        if "anyOf" in schema or isinstance(schema.get("type"), list):
            members = schema["anyOf"] if "anyOf" in schema else [{**schema, "type": t} for t in schema["type"]]
            if not isinstance(members, list) or not members:
                raise _Unsupported
            options = [self.value(m, depth, items) for m in members]
            return "(" + " | ".join(o for o, _ in options) + ")", max(n for _, n in options)
        kind = schema.get("type") or ("object" if "properties" in schema else None)
        if kind == "string":
            return self.string()
        if kind == "integer":
            return f"({_INTEGER})", 17
        if kind == "number":
            return f"({_NUMBER})", 38
        if kind == "boolean":
            return '("true" | "false")', 5
        if kind == "null":
            return '"null"', 4
        if kind == "array" and items:
            # Arrays of scalars only: at the deepest level no object is written, and items=False: no array.
            item, most = self.value(schema.get("items") or {}, MAX_DEPTH, items=False)
            body = f'"[" " "? ({item} ("," " "? {item}){{0,{MAX_ITEMS - 1}}})? " "? "]"'
            return self.rule(body), 4 + MAX_ITEMS * (most + 2)
        if kind == "object" and depth < MAX_DEPTH:
            return self.object(schema, depth + 1)
        raise _Unsupported

    def object(self, schema: Mapping[str, Any], depth: int) -> tuple[str, int]:
        props = schema.get("properties") or {}
        required = schema.get("required") or []
        if not isinstance(props, Mapping) or not isinstance(required, list) or len(props) > MAX_PROPERTIES:
            raise _Unsupported
        if set(required) - set(props) or not all(isinstance(k, str) and _KEY.match(k) for k in props):
            raise _Unsupported
        pairs = []  # (key and value as one expression, its length, required)
        for key, prop in props.items():
            name, key_chars = self.token(key)
            value, value_chars = self.value(prop, depth)
            pairs.append((self.rule(f'{name} ":" " "? {value}'), key_chars + 2 + value_chars, key in required))
        most = 4 + sum(n + 2 for _, n, _ in pairs)
        if not pairs:
            return '("{" " "? "}")', 3
        # tail(i): properties i.. after one was written (each after a comma); head(i): the first one written is i or
        # a later optional one. Rules, not inlined text, so the grammar grows with the square of the count at most.
        tails: dict[int, str] = {len(pairs): ""}

        def tail(i: int) -> str:
            if i not in tails:
                kv, _, needed = pairs[i]
                item = f'"," " "? {kv}' if needed else f'("," " "? {kv})?'
                tails[i] = self.rule(f"{item} {tail(i + 1)}".strip())
            return tails[i]

        def head(i: int) -> str:
            kv, _, needed = pairs[i]
            first = f"{kv} {tail(i + 1)}".strip()
            return self.rule(first if needed or i + 1 == len(pairs) else f"{first} | {head(i + 1)}")

        optional_all = not any(needed for _, _, needed in pairs)
        body = head(0) + ("?" if optional_all else "")
        return self.rule(f'"{{" " "? {body} " "? "}}"'), most


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | bool) or (isinstance(value, float) and math.isfinite(value))


def object_rules(name: str, schema: Any, ctx: JsonContext) -> list[str] | None:
    """GBNF rules whose rule ``name`` is a one-line JSON object matching ``schema``, or None when the schema is outside
    the subset (or its longest object would be over ``MAX_OBJECT_CHARS``): the caller falls back to free text."""
    builder = _Builder(name, ctx)
    try:
        if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
            raise _Unsupported
        top, most = builder.object(schema, 1)
    except Exception:  # a server's schema is data: whatever it holds, the free form serves
        return None
    if most > MAX_OBJECT_CHARS:
        return None
    return [f"{name} ::= {top}", *builder.rules]
