"""The spans of an OTLP/JSON file (an ``ExportTraceServiceRequest`` in the OTLP specification's JSON form), read
with a check of every field they use that names the first wrong one, e.g.
``resourceSpans[0].scopeSpans[0].spans[3].spanId must be 16 hexadecimal digits``. Strings are made safe
(``text.scrub``); counts are capped so that a hostile file is refused, never followed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from react_core.base.errors import ConfigError
from react_core.base.text import scrub
from react_core.base.trace_schema import MAX_ITEMS

MAX_ATTRIBUTES = 1_000  # per span; an instrumentation writes a few dozen
MAX_NANOS = 2**63 - 1
LLM_OPERATIONS = ("chat", "text_completion", "generate_content")


class InvalidOtlp(ConfigError):
    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"Not an OTLP/JSON trace: {field + ' ' if field else ''}{problem}.")


@dataclass
class Span:
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    error: bool
    message: str
    attributes: dict[str, Any] = field(default_factory=dict)
    producer: str = ""  # what wrote it: its resource's service.name, else its instrumentation scope's name

    @property
    def seconds(self) -> float:
        return max(self.end - self.start, 0) / 1e9

    @property
    def kind(self) -> str:
        """agent, llm, tool or other, by OpenInference's span kind or the GenAI operation."""
        oi = str(self.attributes.get("openinference.span.kind", "")).upper()
        op = self.attributes.get("gen_ai.operation.name", "")
        if oi == "AGENT" or op in ("invoke_agent", "create_agent"):
            return "agent"
        if oi == "LLM" or op in LLM_OPERATIONS:
            return "llm"
        if oi == "TOOL" or op == "execute_tool":
            return "tool"
        return "other"

    def text(self, *keys: str) -> str | None:
        for key in keys:
            value = self.attributes.get(key)
            if isinstance(value, str):
                return value
        return None

    def count(self, *keys: str) -> int:
        for key in keys:
            value = self.attributes.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return 0


def parse_spans(value: dict[str, Any]) -> list[Span]:
    out: list[Span] = []
    for i, resource in enumerate(_list(value, "resourceSpans", "")):
        where = f"resourceSpans[{i}]"
        service = _name(_object(resource, where), "resource", where, "service.name")
        for j, scope in enumerate(_list(_object(resource, where), "scopeSpans", where)):
            inner = f"{where}.scopeSpans[{j}]"
            scope_name = _name(_object(scope, inner), "scope", inner)
            for k, span in enumerate(_list(_object(scope, inner), "spans", inner)):
                if len(out) >= MAX_ITEMS:
                    raise InvalidOtlp("resourceSpans", f"holds more than {MAX_ITEMS:,} spans")
                out.append(_span(_object(span, f"{inner}.spans[{k}]"), f"{inner}.spans[{k}]"))
                out[-1].producer = service or scope_name
    return out


def _name(value: dict[str, Any], key: str, where: str, attribute: str = "") -> str:
    """A resource's ``service.name`` attribute, or a scope's ``name`` ('' when there is none)."""
    item = _object(value.get(key, {}), f"{where}.{key}")
    if not attribute:
        name = item.get("name", "")
        return scrub(name) if isinstance(name, str) else ""
    for n, pair in enumerate(_list(item, "attributes", f"{where}.{key}")):
        found, text = _key_value(pair, f"{where}.{key}.attributes[{n}]")
        if found == attribute and isinstance(text, str):
            return text
    return ""


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidOtlp(where, "must be an object")
    return value


def _list(value: dict[str, Any], key: str, where: str) -> list[Any]:
    path = f"{where}.{key}" if where else key
    item = value.get(key, [])
    if not isinstance(item, list):
        raise InvalidOtlp(path, "must be a list")
    if len(item) > MAX_ITEMS:
        raise InvalidOtlp(path, f"has more than {MAX_ITEMS:,} items")
    return item


def _id(span: dict[str, Any], key: str, where: str, length: int, required: bool = True) -> str:
    value = span.get(key, "")
    ok = isinstance(value, str) and (value == "" and not required or len(value) == length)
    if not ok or any(c not in "0123456789abcdefABCDEF" for c in value):
        raise InvalidOtlp(f"{where}.{key}", f"must be {length} hexadecimal digits")
    return value.lower()


def _nanos(span: dict[str, Any], key: str, where: str) -> int:
    value = span.get(key, 0)
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_NANOS:
        raise InvalidOtlp(f"{where}.{key}", "must be a time in nanoseconds since 1970")
    return value


def _span(span: dict[str, Any], where: str) -> Span:
    name = span.get("name", "")
    if not isinstance(name, str):
        raise InvalidOtlp(f"{where}.name", "must be text")
    status = _object(span.get("status", {}), f"{where}.status")
    code = status.get("code", 0)
    if code not in (0, 1, 2, "STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"):
        raise InvalidOtlp(f"{where}.status.code", "must be 0, 1 or 2")
    message = status.get("message", "")
    if not isinstance(message, str):
        raise InvalidOtlp(f"{where}.status.message", "must be text")
    items = _list(span, "attributes", where)
    if len(items) > MAX_ATTRIBUTES:
        raise InvalidOtlp(f"{where}.attributes", f"has more than {MAX_ATTRIBUTES:,} items")
    attributes = {}
    for n, item in enumerate(items):
        key, value = _key_value(item, f"{where}.attributes[{n}]")
        attributes[key] = value
    return Span(
        trace_id=_id(span, "traceId", where, 32),
        span_id=_id(span, "spanId", where, 16),
        parent_id=_id(span, "parentSpanId", where, 16, required=False),
        name=scrub(name),
        start=_nanos(span, "startTimeUnixNano", where),
        end=_nanos(span, "endTimeUnixNano", where),
        error=code in (2, "STATUS_CODE_ERROR"),
        message=scrub(message),
        attributes=attributes,
    )


def _key_value(item: Any, where: str) -> tuple[str, Any]:
    item = _object(item, where)
    key = item.get("key")
    if not isinstance(key, str):
        raise InvalidOtlp(f"{where}.key", "must be text")
    return scrub(key), _any_value(item.get("value", {}), f"{where}.value")


def _any_value(value: Any, where: str) -> Any:
    """An OTLP AnyValue as a Python value (integers may be written as decimal strings, as protobuf's JSON does)."""
    value = _object(value, where)
    if not value:
        return None
    if len(value) != 1:
        raise InvalidOtlp(where, "must hold exactly one value")
    (kind, item), path = next(iter(value.items())), f"{where}.{next(iter(value))}"
    if kind == "stringValue" and isinstance(item, str):
        return scrub(item)
    if kind == "boolValue" and isinstance(item, bool):
        return item
    if kind == "intValue":
        if isinstance(item, str) and item.lstrip("-").isdigit() and len(item) <= 20:
            item = int(item)
        if isinstance(item, int) and not isinstance(item, bool) and abs(item) <= MAX_NANOS:
            return item
        raise InvalidOtlp(path, "must be a 64-bit integer")
    if kind == "doubleValue":
        if isinstance(item, int | float) and not isinstance(item, bool) and math.isfinite(item):
            return float(item)
        raise InvalidOtlp(path, "must be a finite number")
    if kind == "arrayValue":
        values = _list(_object(item, path), "values", path)
        return [_any_value(v, f"{path}.values[{i}]") for i, v in enumerate(values)]
    if kind == "kvlistValue":
        values = _list(_object(item, path), "values", path)
        return dict(_key_value(v, f"{path}.values[{i}]") for i, v in enumerate(values))
    if kind == "bytesValue" and isinstance(item, str):
        return None  # binary data has no place in a step
    if kind in ("stringValue", "boolValue", "bytesValue"):
        raise InvalidOtlp(path, "has the wrong type")
    raise InvalidOtlp(where, f"has an unknown value kind {json.dumps(scrub(kind[:40]))}")


def descendants(root: Span, spans: list[Span]) -> list[Span]:
    children: dict[str, list[Span]] = {}
    for s in spans:
        children.setdefault(s.parent_id, []).append(s)
    found, stack, seen = [], [root.span_id], {root.span_id}
    while stack:  # iterative, and each span once: a file whose parent links loop cannot run forever
        for child in children.get(stack.pop(), []):
            if child.span_id not in seen:
                seen.add(child.span_id)
                found.append(child)
                stack.append(child.span_id)
    order = {id(s): n for n, s in enumerate(spans)}
    return sorted(found, key=lambda s: (s.start, order[id(s)]))
