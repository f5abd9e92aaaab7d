"""The lenient reading every dialect shares: undoing models' harmless sloppiness, cutting what the model should not
have written, cleaning an action input, and reading literal values without ever raising.

Every regular expression here and in the dialects runs in linear time on any text: runs of blanks are possessive
(``[ \\t]*+``), so two runs next to each other can never trade characters back and forth, and no lazy body is followed
by optional text and blanks. ``tests/test_formats_adversarial.py`` holds the shapes that once broke that rule.
"""

from __future__ import annotations

import ast
import json
import re
import warnings

from react_core.base.text import scrub

# Model text longer than this is not worth reading in full; the cap keeps every parser fast.
MAX_PARSE_CHARS = 20_000
MAX_INPUT_CHARS = 2_000
# An integer with more digits than an input may hold is refused before str() (which raises past 4,300 digits).
_MAX_INT_BITS = MAX_INPUT_CHARS * 4

# A label's optional step number and the blanks around it ("Action", "Action 3", "Action  3 ").
NUM = r"(?:[ \t]*+\d++)?+[ \t]*+"


def line_label(words: str) -> str:
    """A pattern for ``words`` as a label at the start of a line, with its optional step number."""
    return r"^[ \t]*+(?:" + words + r")\b" + NUM


_LABELS = r"(?:Thought|Action|Observation|Final Answer|Answer|Question|Step|Action Input)"
# "**Thought 1:**", "*Action*:", "__Observation__" at the start of a line -> the bare label. Only there: an input
# such as Search[*Thought*] keeps its asterisks.
_BOLD_LABEL = re.compile(
    r"^([ \t]*+)(\*{1,2}|_{2})[ \t]*+(" + _LABELS + NUM + r":?+)[ \t]*+\2", re.IGNORECASE | re.MULTILINE
)
# "**Action 1: Search[x]**" (the whole line in bold) -> "Action 1: Search[x]". The line is taken whole and its closing
# marker removed in Python: a lazy body followed by an optional marker and blanks backtracks quadratically.
_BOLD_LINE = re.compile(r"^([ \t]*+)(\*{1,2}|_{2})(" + _LABELS + r"\b[^\n]*+)", re.IGNORECASE | re.MULTILINE)
_FENCE_LINE = re.compile(r"^[ \t]*+```[\w-]*+[ \t]*+$", re.MULTILINE)
# A line where the model started writing the environment's part: its own Observation (a leak) or a new Question.
_OBSERVATION_LINE = re.compile(r"^[ \t>*_#]*+Observation\b", re.IGNORECASE | re.MULTILINE)
_QUESTION_LINE = re.compile(r"^[ \t>*_#]*+(?:Question|Claim)\b[ \t\d]*+(?::|$)", re.IGNORECASE | re.MULTILINE)
# "Thought 2:", "Thought:", "Thought 2" or "Thought" alone on its line; not "Thought experiments show …".
_LABEL_END = r"(?:[ \t]*+\d++[ \t]*+:?+|[ \t]*+:|[ \t]*+(?=\n)|[ \t]*+$)"
# A "Thought 2:" label a model repeated at the start of a later line of the same thought.
_THOUGHT_LABEL_LINE = re.compile(r"^[ \t]*+Thought\b" + _LABEL_END + r"[ \t]*+", re.IGNORECASE | re.MULTILINE)
# Where a multi-line final answer or action input stops: the model went on to write another step.
_NEXT_STEP_LINE = re.compile(
    r"^[ \t]*+(?:(?:Thought|Action|Step)\b"
    + NUM
    + r"[:.]?+[ \t]*+$|(?:Thought|Action|Final[ \t]++Answer)\b"
    + NUM
    + ":)",
    re.IGNORECASE | re.MULTILINE,
)
_LEADING_LABELS: dict[str, re.Pattern[str]] = {}


def normalize(text: str) -> str:
    """Undo the harmless sloppiness of models: CRLF, markdown bold around labels, NUL bytes, lone surrogates."""
    text = scrub(text[:MAX_PARSE_CHARS].replace("\r\n", "\n").replace("\r", "\n").replace("\x00", ""))
    text = _BOLD_LABEL.sub(r"\1\3", text)
    return _BOLD_LINE.sub(_unbold_line, text)


def _unbold_line(m: re.Match[str]) -> str:
    body, marker = m.group(3).rstrip(" \t"), m.group(2)
    return m.group(1) + (body[: -len(marker)] if body.endswith(marker) else body)


def cut_environment(text: str, start: int = 0) -> tuple[str, bool]:
    """Cut where the model began writing an Observation (a leak, flagged) or invented a new Question.

    Only lines after ``start`` count, so a dialect can protect text it already read. A question the model restated
    at the very beginning of its reply is protected too: it is before the thought, not after the action.
    """
    first = _QUESTION_LINE.search(text, start)
    if first and not text[start : first.start()].strip():
        newline = text.find("\n", first.end())
        start = len(text) if newline < 0 else newline + 1
    cut = len(text)
    leaked = False
    m = _OBSERVATION_LINE.search(text, start)
    if m:
        cut, leaked = m.start(), True
    q = _QUESTION_LINE.search(text, start)
    if q and q.start() < cut:
        cut, leaked = q.start(), False
    return text[:cut], leaked


def cut_at_stops(text: str, stops: tuple[str, ...]) -> str:
    """``text`` up to the first of the stop sequences (the provider may have sent a little more)."""
    cut = min((i for i in (text.find(s) for s in stops if s) if i >= 0), default=len(text))
    return text[:cut]


def strip_fences(text: str) -> str:
    return _FENCE_LINE.sub("", text)


def clean_input(value: str) -> str:
    """An action input as a tool should see it: one line of trimmed text, quotes and backticks removed.

    Every matching pair goes (```x``` or "'x'"), so cleaning twice changes nothing. Done with indices, not by
    re-slicing per pair, so a run of thousands of quotes costs one pass.
    """
    value = " ".join(value.split())
    while True:
        i, j = 0, len(value)
        while True:
            while i < j and value[i] == " ":
                i += 1
            while j > i and value[j - 1] == " ":
                j -= 1
            if j - i >= 2 and value[i] == value[j - 1] and value[i] in "\"'`":
                i, j = i + 1, j - 1
            else:
                break
        value = value[i:j]
        if len(value) <= MAX_INPUT_CHARS:
            return value
        value = value[:MAX_INPUT_CHARS]  # the cut may leave a blank or a new pair at the end: clean again


def clean_block(value: str) -> str:
    """An action input that keeps its lines (a code tool's, as LangChain's parsers pass it on): trimmed around, and
    matching quotes around it removed; backticks stay, since a code fence is part of what such a tool is given."""
    i, j = 0, len(value)
    while True:
        while i < j and value[i].isspace():
            i += 1
        while j > i and value[j - 1].isspace():
            j -= 1
        if j - i >= 2 and value[i] == value[j - 1] and value[i] in "\"'":
            i, j = i + 1, j - 1
        else:
            return value[i:j]


def strip_label(thought: str, label: str = "Thought") -> str:
    """Remove a leading "Thought 3:" (or "Thought 3" on its own line) that the model repeated.

    For the default label, "Thought k:" labels at the start of later lines go too: a model that wrote two thoughts
    in a row wrote one longer thought.
    """
    t = drop_label(thought.strip(), label)
    if label == "Thought":
        t = _THOUGHT_LABEL_LINE.sub("", t)
    return t.strip()


def drop_label(text: str, word: str) -> str:
    """``text`` without a leading ``word`` label ("Thought 3:", "Step 2") that restates the prompt's own prefix."""
    pattern = _LEADING_LABELS.get(word)
    if pattern is None:
        pattern = _LEADING_LABELS[word] = re.compile(r"^" + word + r"\b" + _LABEL_END + r"\s*+", re.IGNORECASE)
    m = pattern.match(text)
    return text[m.end() :] if m else text


def read_answer(text: str, stops: tuple[str, ...] = ()) -> tuple[str, bool]:
    """A final answer (or input) written after a label, and whether the reply shows where it ends.

    It runs up to a line where the model began another step, or up to a last line that is the first letters of one
    of the ``stops`` (``…\nObs``: the model had begun the environment's ``Observation`` when its reply was cut). The
    rest of the label's own line is always part of it (``Answer: Thought`` answers "Thought"), and so is a line alone
    after the label (``Final Answer:\nO`` answers "O"). Its end is known only when one of those lines follows it:
    without one, a reply cut at its length may have had more of it to write.
    """
    first_newline = text.find("\n")
    m = _NEXT_STEP_LINE.search(text, first_newline + 1) if first_newline >= 0 else None
    if m:
        return text[: m.start()].strip(), True
    head, newline, last = text.rstrip().rpartition("\n")
    last = last.strip()
    if newline and head.strip() and last and any(s.lstrip("\n").startswith(last) for s in stops if s.strip()):
        return head.strip(), True
    return text.strip(), False


def balanced_span(
    text: str, start: int, opening: str, closing: str, *, stop_at_newline: bool = False, limit: int | None = None
) -> str:
    """The text from ``start`` to the ``closing`` that balances the first ``opening`` (quoted text and escapes
    respected). Unbalanced: to the end of the text (or of the line with ``stop_at_newline``, or ``limit`` chars)."""
    depth, quote, i = 0, "", start
    end = len(text) if limit is None else min(len(text), start + limit)
    while i < end:
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
        elif c == "\n" and depth == 0 and stop_at_newline:
            break
        i += 1
    return text[start:i]


# Everything ast and the literal reader can raise on hostile text. SystemError: CPython 3.11 can raise a spurious one
# from ast in threaded servers (cpython#106905). ValueError covers int() past the digit limit and lone surrogates.
LITERAL_ERRORS = (SyntaxError, ValueError, TypeError, RecursionError, MemoryError, SystemError)


def parse_python(source: str) -> ast.expr:
    """``source`` as one Python expression tree, for literal reading only (nothing is ever compiled or run).

    The compiler's warnings (an invalid escape such as ``"a\\ b"``) are silenced: they would reach the person's log,
    or raise under ``-W error``, for what is only a model's sloppy string. Raises one of ``LITERAL_ERRORS``.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, mode="eval").body


def number_text(value: object) -> str | None:
    """A literal number as input text; None for anything else, and for integers too long to be an input."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value) if value.bit_length() <= _MAX_INT_BITS else None
    if isinstance(value, float):
        return repr(value)
    return None


def input_from_value(value: object, param: str, *, whole: bool = False) -> str | None:
    """A tool input from a JSON or Python value: a string as written, a number as its digits, an object's ``param``
    entry (the tool's named argument), the value of a one-entry object, or else the value's JSON text. ``whole``: the
    tool takes a JSON object of arguments (an MCP tool's), so an object is its JSON text as it stands.

    None when no input can be read (a number with more digits than an input may hold). Nested one-entry objects are
    unwrapped in a loop, so depth costs no recursion.
    """
    while isinstance(value, dict) and not whole:
        if param in value:
            value = value[param]
        elif len(value) == 1 and not isinstance(next(iter(value.values())), dict | list):
            value = next(iter(value.values()))
        else:
            break
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    number = number_text(value)
    if number is not None:
        return number
    if isinstance(value, int) and not isinstance(value, bool):
        return None
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        return None
