"""GBNF grammars (llama.cpp's constrained decoding) for a dialect's replies, derived from the format object itself.

Each allowed reply is the dialect's own rendering of a step with a placeholder thought and input, for every enabled
tool and for the final answer, minus the step prefix the prompt already ends with. The text around the placeholders
becomes literals; the thought becomes one bounded line and the input a bounded run of characters that cannot end it
early: not a newline, not the first character of the text that follows it (``]`` in ``Search[…]``), JSON-safe inside
a JSON string, and never the start of a stop sequence. So a new dialect gets a grammar for free, and anything the
grammar allows parses with the dialect's parser into an enabled tool or a final answer (a model test samples it).
An MCP tool is one more name. Where its input is a JSON object of arguments, the grammar writes that object from
the tool's input schema (``json_grammar``: required properties present, each value of its type), in the dialect's
place for the input: in the line, or inside the quoted string of the function dialects (its quotes escaped), or as
the JSON dialect's ``action_input`` object. A schema outside that subset falls back to a free input that may start
with a brace. A tool whose one required argument is a string keeps the one-text form.
"""

from __future__ import annotations

from typing import Protocol

from react_core.base.tool_specs import FINISH, spec
from react_core.base.trace import Action, Step
from react_core.dialects.gbnf import JSON_ESCAPE, char_class, literal
from react_core.dialects.json_grammar import JsonContext, object_rules


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
# ("Observation", "> quote", "**bold**", "# heading"). An O may start it when no b follows (the paper's own "Oneida
# Limited has no page of its own." does): "Ob" is where "Observation" parts from every other word worth keeping.
_THOUGHT_FIRST_EXCLUDED = BLANKS + "*_#>`Oo"
_THOUGHT_FIRST_PAIRS = {"O": "bB", "o": "bB"}
# A tool input may not start with a blank, a quote or a brace: parsing trims blanks, strips a matching pair of quotes
# and, in the mrkl dialect, decodes JSON (`{"query": ""}` would be an empty input).
_INPUT_FIRST_EXCLUDED = BLANKS + "\"'`{"
# Never in a line: line ends, and NUL, which parsing drops.
_DROPPED = "\n\r\x00"


def _stop_pairs(stops: tuple[str, ...]) -> dict[str, str]:
    """For each stop sequence that can occur inside a line, its first character -> the characters that may not
    follow it. Forbidding those two-character starts keeps every stop sequence out of a line, at the cost of a few
    harmless pairs (``PA`` in the pause dialect)."""
    pairs: dict[str, str] = {}
    for stop in stops:
        if len(stop) >= 2 and stop[0] != "\n":
            pairs[stop[0]] = pairs.get(stop[0], "") + stop[1]
    return pairs


def _run_rule(
    name: str,
    first_excluded: str,
    excluded: str,
    pairs: dict[str, str],
    most: int,
    first_pairs: dict[str, str] | None = None,
) -> list[str]:
    """Rules for ``name``: one line of 1..``most`` characters none of which is in ``excluded``, the first not in
    ``first_excluded`` either unless it is a key of ``first_pairs`` followed by none of its characters, and no
    forbidden two-character start of a stop sequence."""
    starts = "".join(pairs)
    plain = char_class(excluded + starts)
    options = [plain] + [f"{literal(a)} {char_class(excluded + starts + follow)}" for a, follow in pairs.items()]
    first = [char_class(excluded + starts + first_excluded)]
    first += [
        f"{literal(a)} {char_class(excluded + starts + follow)}"
        for a, follow in pairs.items()
        if a not in first_excluded
    ]
    first += [
        f"{literal(a)} {char_class(excluded + starts + follow + pairs.get(a, ''))}"
        for a, follow in (first_pairs or {}).items()
    ]
    tail = f" ({' | '.join(literal(a) for a in pairs)})?" if pairs else ""
    return [
        f"{name}-first ::= {' | '.join(first)}",
        f"{name}-char ::= {' | '.join(options)}",
        f"{name} ::= {name}-first {name}-char{{0,{most - 1}}}{tail}",
    ]


def _json_rule(name: str, pairs: dict[str, str], json_input: bool = False) -> list[str]:
    """A JSON string's content: no raw quote, backslash or control character, escapes allowed; non-empty. For a tool
    taking a JSON object (``json_input``), it may start with a brace, and is longer."""
    controls = "".join(chr(i) for i in range(0x20))
    excluded = '"\\' + controls + "".join(pairs)
    options = [char_class(excluded), JSON_ESCAPE]
    options += [f"{literal(a)} {char_class(excluded + follow)}" for a, follow in pairs.items()]
    first = [char_class(excluded + (_INPUT_FIRST_EXCLUDED.replace("{", "") if json_input else _INPUT_FIRST_EXCLUDED))]
    most = MAX_JSON_INPUT_CHARS if json_input else MAX_INPUT_CHARS
    return [
        f"{name}-first ::= {' | '.join(first)}",
        f"{name}-char ::= {' | '.join(options)}",
        f"{name} ::= {name}-first {name}-char{{0,{most - 1}}}",
    ]


def _object_sample(index: int, tool: str) -> Step:
    """A step calling ``tool`` with a JSON object, to see how the dialect writes one in its one-text form (the form
    the grammar holds a model to): compact, as ``json.dumps`` never writes it, so the function dialect does not write
    it as keywords (``tool(QQKEYQQ=1)``)."""
    return Step(index, thought=_THOUGHT, action=Action(tool, '{"QQKEYQQ":1}'))


def _object_input(
    fmt: Dialect, sample: Step, name: str, before: str, after: str, pairs: dict[str, str]
) -> tuple[str, str, list[str]] | None:
    """(text before the input, text after it, rules) for a tool whose input is a JSON object its schema shapes, or
    None (not such a tool, or a schema outside ``json_grammar``'s subset: the free form then)."""
    known = spec(sample.action.tool) if sample.action else None
    if not (known and known.takes_json and isinstance(known.schema, dict)):
        return None
    if before.endswith('"') and after.startswith('"'):
        if '\\"QQKEYQQ\\"' in fmt.render_model_part(sample):  # inside a quoted string: quotes escaped
            context = JsonContext(quoted=True, excluded="", pairs=pairs)
        else:  # the dialect writes the object itself (the JSON dialect's action_input)
            before, after = before[:-1], after[1:]
            context = JsonContext(excluded=after[:1] if after[:1] != "\n" else "", pairs=pairs)
    else:
        follows = after[:1] if after[:1] not in ("", "\n") else ""
        context = JsonContext(excluded=follows + _DROPPED, pairs=pairs)
    shaped = object_rules(name, known.schema, context)
    return None if shaped is None else (before, after, shaped)


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
        shaped = _object_input(fmt, _object_sample(index, tool), name, before, after, pairs)
        if shaped is not None:
            before, after, object_rules_ = shaped
            rules += object_rules_
        elif before.endswith('"') and after.startswith('"'):
            known = spec(tool)
            rules += _json_rule(name, pairs, json_input=bool(known and known.takes_json))
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
        rules += _run_rule("thought", _THOUGHT_FIRST_EXCLUDED, _DROPPED, pairs, MAX_THOUGHT_CHARS, _THOUGHT_FIRST_PAIRS)
    return "\n".join([root, *rules]) + "\n"
