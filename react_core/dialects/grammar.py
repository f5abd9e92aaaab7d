"""GBNF grammars (llama.cpp's constrained decoding) for a dialect's replies, derived from the format object itself.

Each allowed reply is the dialect's own rendering of a step with a placeholder thought and input, for every enabled
tool and for the final answer, minus the step prefix the prompt already ends with. The text around the placeholders
becomes literals; the thought becomes one bounded line and the input a bounded run of characters that cannot end it
early: not a newline, not the first character of the text that follows it (``]`` in ``Search[…]``), JSON-safe inside
a JSON string, and never the start of a stop sequence. So a new dialect gets a grammar for free, and anything the
grammar allows parses with the dialect's parser into an enabled tool or a final answer (a model test samples it).
An MCP tool is one more name; where its input is a JSON object of arguments, the input may start with a brace.
"""

from __future__ import annotations

from typing import Protocol

from react_core.base.tool_specs import FINISH, spec
from react_core.base.trace import Action, Step


class Dialect(Protocol):
    """What a grammar needs of a format (``Dialect`` has it; named here so base can import this module)."""

    name: str
    stop: tuple[str, ...]

    def step_prefix(self, index: int) -> str: ...

    def render_model_part(self, step: Step) -> str: ...


_THOUGHT, _INPUT = "QQTHOUGHTQQ", "QQINPUTQQ"
MAX_THOUGHT_CHARS = 160
MAX_INPUT_CHARS = 80
MAX_JSON_INPUT_CHARS = 400
# Every character Python's str.split() takes for a blank: parsing trims them, so an input cannot start with one.
BLANKS = "".join(chr(i) for i in range(0x3001) if chr(i).isspace())
# A thought may not start with a blank or with what the parsers read as the environment's part or as markup
# ("Observation", "> quote", "**bold**", "# heading").
_THOUGHT_FIRST_EXCLUDED = BLANKS + "*_#>`Oo"
# A tool input may not start with a blank, a quote or a brace: parsing trims blanks, strips a matching pair of quotes
# and, in the mrkl dialect, decodes JSON (`{"query": ""}` would be an empty input).
_INPUT_FIRST_EXCLUDED = BLANKS + "\"'`{"
# Never in a line: line ends, and NUL, which parsing drops.
_DROPPED = "\n\r\x00"
_JSON_ESCAPE = '"\\\\" ["\\\\/bfnrt]'


def _escaped(c: str, special: str) -> str:
    """One character as GBNF writes it inside a literal or a class (``special``: those taking a backslash)."""
    if c in special:
        return "\\" + c
    if c == "\n":
        return "\\n"
    if ord(c) < 0x20:
        return f"\\x{ord(c):02x}"
    return c


def literal(text: str) -> str:
    return '"' + "".join(_escaped(c, '"\\') for c in text) + '"'


def char_class(excluded: str) -> str:
    """``[^…]``: any character but these."""
    return "[^" + "".join(_escaped(c, "\\]^-[") for c in dict.fromkeys(excluded)) + "]"


def _stop_pairs(stops: tuple[str, ...]) -> dict[str, str]:
    """For each stop sequence that can occur inside a line, its first character -> the characters that may not
    follow it. Forbidding those two-character starts keeps every stop sequence out of a line, at the cost of a few
    harmless pairs (``PA`` in the pause dialect)."""
    pairs: dict[str, str] = {}
    for stop in stops:
        if len(stop) >= 2 and stop[0] != "\n":
            pairs[stop[0]] = pairs.get(stop[0], "") + stop[1]
    return pairs


def _run_rule(name: str, first_excluded: str, excluded: str, pairs: dict[str, str], most: int) -> list[str]:
    """Rules for ``name``: one line of 1..``most`` characters none of which is in ``excluded``, the first not in
    ``first_excluded`` either, and no forbidden two-character start of a stop sequence."""
    starts = "".join(pairs)
    plain = char_class(excluded + starts)
    options = [plain] + [f"{literal(a)} {char_class(excluded + starts + follow)}" for a, follow in pairs.items()]
    first = [char_class(excluded + starts + first_excluded)]
    first += [
        f"{literal(a)} {char_class(excluded + starts + follow)}"
        for a, follow in pairs.items()
        if a not in first_excluded
    ]
    tail = f" ({' | '.join(literal(a) for a in pairs)})?" if pairs else ""
    return [
        f"{name}-first ::= {' | '.join(first)}",
        f"{name}-char ::= {' | '.join(options)}",
        f"{name} ::= {name}-first {name}-char{{0,{most - 1}}}{tail}",
    ]


def _json_rule(name: str, pairs: dict[str, str]) -> list[str]:
    """A JSON string's content: no raw quote, backslash or control character, escapes allowed; non-empty."""
    controls = "".join(chr(i) for i in range(0x20))
    excluded = '"\\' + controls + "".join(pairs)
    options = [char_class(excluded), _JSON_ESCAPE]
    options += [f"{literal(a)} {char_class(excluded + follow)}" for a, follow in pairs.items()]
    first = [char_class(excluded + _INPUT_FIRST_EXCLUDED)]
    return [
        f"{name}-first ::= {' | '.join(first)}",
        f"{name}-char ::= {' | '.join(options)}",
        f"{name} ::= {name}-first {name}-char{{0,{MAX_INPUT_CHARS - 1}}}",
    ]


def grammar_for(fmt: Dialect, tools: list[str], index: int) -> str:
    prefix = fmt.step_prefix(index)
    pairs = _stop_pairs(fmt.stop)
    leads: set[tuple[str, bool]] = set()
    alternatives: list[str] = []
    rules: list[str] = []
    for n, tool in enumerate([*dict.fromkeys(t for t in tools if t != FINISH), FINISH]):
        action = None if tool == FINISH else Action(tool, _INPUT)
        body = fmt.render_model_part(
            Step(index, thought=_THOUGHT, action=action, final_answer=_INPUT if action is None else None)
        )
        if not body.startswith(prefix) or body.count(_INPUT) != 1 or body.count(_THOUGHT) > 1:
            raise ValueError(f"the {fmt.name} dialect does not write a step as its step prefix and one action")
        body = body[len(prefix) :]
        has_thought = _THOUGHT in body  # the Act-only dialect writes no thought
        lead, _, body = body.partition(_THOUGHT) if has_thought else ("", "", body)
        leads.add((lead, has_thought))
        before, _, after = body.partition(_INPUT)
        name = f"input{n}"
        if before.endswith('"') and after.startswith('"'):
            rules += _json_rule(name, pairs)
        else:
            follows = after[:1] if after[:1] not in ("", "\n") else ""
            # A tool taking a JSON object of arguments (an MCP tool's) may start its input with a brace, and is longer.
            known = spec(tool)
            json_input = bool(known and known.takes_json) and follows != "{"
            first = _INPUT_FIRST_EXCLUDED.replace("{", "") if json_input else _INPUT_FIRST_EXCLUDED
            most = MAX_JSON_INPUT_CHARS if json_input else MAX_INPUT_CHARS
            rules += _run_rule(name, first + follows, _DROPPED + follows, pairs, most)
        alternatives.append(f"{literal(before)} {name} {literal(after)}")
    if len(leads) != 1:
        raise ValueError(f"the {fmt.name} dialect starts its steps differently for different actions")
    (lead, has_thought) = leads.pop()
    root = f"root ::= {literal(lead)} " + ("thought " if has_thought else "") + f"( {' | '.join(alternatives)} )"
    if has_thought:
        rules += _run_rule("thought", _THOUGHT_FIRST_EXCLUDED, _DROPPED, pairs, MAX_THOUGHT_CHARS)
    return "\n".join([root, *rules]) + "\n"
