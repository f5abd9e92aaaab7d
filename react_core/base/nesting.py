"""JSON and TOML from outside (an upload, a file, an attribute inside one) parsed without exhausting the stack.

Python's parsers recurse once per level of nesting, so text nested a few hundred levels deep raises RecursionError
(tomllib) or gives a value that the next recursive reader (``copy.deepcopy``, a validator, ``json.dumps``) cannot
walk. Here a RecursionError while parsing and a value nested deeper than ``MAX_DEPTH`` both become ``TooDeep``, a
ValueError (so a caller that refuses text which does not parse refuses this too) whose message is one line.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

MAX_DEPTH = 32  # a real trace nests 6 levels deep, a prompt file 2


class TooDeep(ValueError):
    problem = f"is nested deeper than {MAX_DEPTH} levels"

    def __init__(self, kind: str) -> None:
        super().__init__(f"the {kind} {self.problem}")


def check_depth(value: Any, kind: str = "JSON") -> Any:
    """``value`` when no list or table in it is more than ``MAX_DEPTH`` levels deep; else ``TooDeep``."""
    stack = [(value, 1)]  # iterative, so a hostile depth cannot exhaust the stack before it is refused
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise TooDeep(kind)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return value


def loads_json(text: str | bytes) -> Any:
    """``json.loads`` that refuses deep nesting with ``TooDeep`` (other faults raise ValueError as it does)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep("JSON") from None
    return check_depth(value)


def loads_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads`` that refuses deep nesting with ``TooDeep`` (other faults raise ``TOMLDecodeError``)."""
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise TooDeep("TOML") from None
    return check_depth(value, "TOML")
