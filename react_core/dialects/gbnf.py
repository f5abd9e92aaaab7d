"""Writing GBNF (llama.cpp's grammar format): literals, character classes and a JSON string's escape, for the
dialects' grammars (``grammar``) and the JSON objects of tools' arguments (``json_grammar``)."""

from __future__ import annotations

# A JSON escape inside a string: a backslash and one of the characters JSON escapes (\\uXXXX is left out).
JSON_ESCAPE = '"\\\\" ["\\\\/bfnrt]'


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
