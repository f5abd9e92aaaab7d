"""A trace from outside (an imported file, a stored row) checked before ``Trace.from_dict`` ever sees it.

The shape is read from the dataclasses themselves (``dataclasses.fields`` and ``typing.get_type_hints`` of ``Trace``
and everything it holds), so a field added to a dataclass is checked without touching this file. On top of the types
come the rules types cannot say: a known stop reason, an ISO-8601 start time, numbers that are finite and not
negative (every number a trace holds is a count, a size or a duration), step indexes from 1 upwards, bounded nesting,
list lengths and file size, and only the settings a trace records, each of its own type. Strings are kept, with lone
surrogates replaced (``safe_text.scrub``). Every refusal is one line that names the field, e.g.
``steps[0].index must be an integer``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import types
from datetime import datetime
from functools import cache
from typing import Any, Union, get_args, get_origin, get_type_hints

from react_core.base.errors import ConfigError
from react_core.base.nesting import TooDeep, check_depth, loads_json
from react_core.base.recorded_settings import current_names
from react_core.base.text import scrub, scrub_value
from react_core.base.trace import STOP_REASONS, Step, Trace

MAX_IMPORT_BYTES = 5_000_000
MAX_ITEMS = 10_000  # per list: steps, sources, context turns, tools
MAX_NUMBER = 10**12  # a trillion tokens, requests or seconds is beyond any run (and far inside a 64-bit column)
# The type of each setting a trace records (``recorded_settings.SETTINGS_FIELDS``), as ``RunSettings`` declares it; a
# test keeps the two in step. ``strategy`` is the evaluation's; ``arena`` and ``arena_column`` the arena's.
SETTING_TYPES: dict[str, Any] = {
    "provider": str,
    "model": str,
    "adapter": str,
    "dialect": str,
    "preset": str,
    "prompt_version": str,  # the prompt version used ("name@3"); older traces have none
    "examples_chosen": list[str],  # the question lines of the dynamic examples chosen for this question
    "temperature": float,
    "max_calls": int,
    "knowledge": str,
    "tools": list[str],
    "strategy": str,
    "grammar": bool,
    "pause_before": list[str],
    "early_stopping": str,
    "arena": str,
    "arena_column": int,
}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,40}")


class InvalidTrace(ConfigError):
    """The value is not a ReAct Lab trace; ``field`` is the path of the first problem ('' for the whole value)."""

    def __init__(self, field: str, problem: str) -> None:
        self.field, self.problem = field, problem
        super().__init__(f"Not a ReAct Lab trace: {field + ' ' if field else ''}{problem}.")


def parse_trace_json(data: bytes | str) -> Trace:
    """A Trace from exported JSON (the app's Export JSON, ``ask --json``); InvalidTrace says what is wrong."""
    return Trace.from_dict(validate_trace(read_import(data)))


def read_import(data: bytes | str) -> Any:
    """The JSON value of a file a person imports (a trace, or an OTLP/JSON file of spans), refused when it is larger
    than ``MAX_IMPORT_BYTES``, not JSON, or nested deeper than ``nesting.MAX_DEPTH``: the limits every import shares."""
    if len(data) > MAX_IMPORT_BYTES:
        raise ConfigError(f"The file is larger than {MAX_IMPORT_BYTES // 1_000_000} MB; a trace is far smaller.")
    value = _json_value(data)
    _check_depth(value)
    return value


def load_trace_json(data: bytes | str) -> Trace:
    """A Trace from JSON text of any size (a stored row); InvalidTrace when it does not validate."""
    return Trace.from_dict(validate_trace(_json_value(data)))


def _json_value(data: bytes | str) -> Any:
    try:
        return loads_json(data)
    except TooDeep as e:
        raise InvalidTrace("", str(e)) from None
    except ValueError as e:  # UnicodeDecodeError is one
        raise ConfigError(f"Not valid JSON: {scrub(str(e))}.") from None


def validate_trace(value: Any) -> dict[str, Any]:
    """``value`` checked against ``Trace`` and made safe (lone surrogates replaced, derived keys dropped), ready for
    ``Trace.from_dict``; raises InvalidTrace naming the first field that is wrong."""
    if not isinstance(value, dict):
        raise InvalidTrace("", "expected a JSON object with a 'question' and 'steps'")
    _check_depth(value)
    return _object(value, Trace, "")


def _check_depth(value: Any) -> None:
    try:
        check_depth(value)
    except TooDeep as e:
        raise InvalidTrace("", str(e)) from None


def _join(path: str, key: str) -> str:
    shown = key if _IDENTIFIER.fullmatch(key) else json.dumps(scrub(key[:40]), ensure_ascii=True)
    return f"{path}.{shown}" if path else shown


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


@cache
def _derived(cls: type) -> frozenset[str]:
    """Keys ``to_dict`` writes beyond the fields (Trace's ``totals``): accepted and dropped, never read back."""
    return frozenset(_example(cls).to_dict()) - {f.name for f in dataclasses.fields(cls)}


def _example(cls: type) -> Any:
    required = [f for f in dataclasses.fields(cls) if _required(f)]
    return cls(**{f.name: _zero(_hints(cls)[f.name]) for f in required})


def _zero(hint: Any) -> Any:
    if dataclasses.is_dataclass(hint):
        return _example(hint)
    origin = get_origin(hint) or hint
    return None if origin in (Union, types.UnionType) else origin()


def _required(f: dataclasses.Field) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _object(value: Any, cls: type, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidTrace(path, "must be an object")
    names = {f.name for f in dataclasses.fields(cls)}
    for key in value:
        if key not in names and key not in _derived(cls):
            raise InvalidTrace(_join(path, key), "is not a known field")
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        where = _join(path, f.name)
        if f.name in value:
            out[f.name] = _value(value[f.name], _hints(cls)[f.name], where)
        elif _required(f):
            raise InvalidTrace(where, "is missing")
    rule = _RULES.get(cls)
    if rule:
        rule(out, path)
    return out


def _value(value: Any, hint: Any, path: str) -> Any:
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return scrub_value(value)
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if value is None and len(options) < len(args):
            return None
        if len(options) != 1:
            raise TypeError(f"trace_schema has no rule for {hint}")
        try:
            return _value(value, options[0], path)
        except InvalidTrace as e:
            if e.field != path:
                raise
            raise InvalidTrace(path, f"{e.problem} or null") from None
    if origin is list:
        if not isinstance(value, list):
            raise InvalidTrace(path, "must be a list")
        if len(value) > MAX_ITEMS:
            raise InvalidTrace(path, f"has more than {MAX_ITEMS:,} items")
        return [_value(v, args[0], f"{path}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise InvalidTrace(path, "must be an object")
        return {scrub(k): _value(v, args[1], _join(path, k)) for k, v in value.items()}
    if dataclasses.is_dataclass(hint):
        return _object(value, hint, path)
    if hint is str:
        if not isinstance(value, str):
            raise InvalidTrace(path, "must be text")
        return scrub(value)
    if hint is bool:
        if not isinstance(value, bool):
            raise InvalidTrace(path, "must be true or false")
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidTrace(path, "must be an integer")
        return _amount(value, path)
    if hint is float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise InvalidTrace(path, "must be a number")
        return _amount(value, path)
    raise TypeError(f"trace_schema has no rule for {hint}")  # a new kind of field in trace.py: add its rule here


def _amount(value: int | float, path: str) -> int | float:
    if not math.isfinite(value):
        raise InvalidTrace(path, "must be a finite number")
    if value < 0:
        raise InvalidTrace(path, "must not be negative")
    if value > MAX_NUMBER:
        raise InvalidTrace(path, f"must be at most {MAX_NUMBER:,}")
    return value


def _trace_rules(trace: dict[str, Any], path: str) -> None:
    if trace.get("stop_reason") not in (*STOP_REASONS, None):
        raise InvalidTrace("stop_reason", f"must be one of {', '.join(STOP_REASONS)} or null")
    started = trace.get("started_at", "")
    if started:
        try:
            datetime.fromisoformat(started)
        except ValueError:
            raise InvalidTrace("started_at", "must be an ISO-8601 time such as 2026-01-01T12:00:00+00:00") from None
    for name, value in current_names(trace.get("settings", {})).items():
        where = _join("settings", name)
        if name not in SETTING_TYPES:
            raise InvalidTrace(where, "is not a setting a trace records")
        _value(value, SETTING_TYPES[name] | None, where)
    steps = trace.get("steps", [])
    waiting = [i for i, step in enumerate(steps) if step.get("pending")]
    if waiting and (waiting != [len(steps) - 1] or trace.get("stop_reason") != "paused"):
        raise InvalidTrace(f"steps[{waiting[0]}].pending", "is allowed only on the last step of a paused run")
    previous = 0
    for i, step in enumerate(trace.get("steps", [])):
        if step["index"] <= previous:
            problem = "must be at least 1" if i == 0 else f"must be greater than steps[{i - 1}].index"
            raise InvalidTrace(f"steps[{i}].index", problem)
        previous = step["index"]


def _step_rules(step: dict[str, Any], path: str) -> None:
    if step.get("pending", "") not in ("", *Step.BREAKPOINTS):
        raise InvalidTrace(_join(path, "pending"), f"must be one of {', '.join(Step.BREAKPOINTS)} or empty")
    for i, note in enumerate(step.get("interventions", [])):
        picked, drawn = note.get("picked"), len(note.get("alternatives", []))
        if picked is not None and not 1 <= picked <= drawn:
            raise InvalidTrace(f"{path}.interventions[{i}].picked", f"must be between 1 and {drawn}")


_RULES = {Trace: _trace_rules, Step: _step_rules}
