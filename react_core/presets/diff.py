"""Two prompt versions compared: the examples added, removed or changed, each shown whole, and every other field as a
text diff (``difflib``). A changed example or field also comes as marked lines (``mark_lines``): every line kept,
removed or added, and within a changed line the words that changed, so one edited line in a 30-line example is found
at a glance. The app draws what ``diff_versions`` returns; nothing here knows how it is drawn.

An example is one worked question: from its ``Question`` line to the next one. Two examples are the same example
when their question lines are the same, so an edited trajectory reads as changed, not as one removed and one added.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import ClassVar

from react_core.dialects import DIALECTS
from react_core.dialects.base import Dialect
from react_core.presets.preset import Preset

__all__ = [
    "ADDED",
    "CHANGED",
    "ExampleChange",
    "FieldDiff",
    "MarkedLine",
    "REMOVED",
    "SAME",
    "SIMILAR",
    "Span",
    "TEXT_FIELDS",
    "VersionDiff",
    "diff_examples",
    "diff_versions",
    "example_key",
    "mark_lines",
    "split_examples",
]

ADDED, REMOVED, CHANGED = "added", "removed", "changed"
SAME = "same"  # a line or a word that both sides have
_WORDS = re.compile(r"\s+|\w+|[^\w\s]")  # words, runs of spaces and single signs: what a word diff pairs up
# The fields compared as text, in the order a person reads a preset.
TEXT_FIELDS = (
    "dialect",
    "mode",
    "title",
    "description",
    "instructions",
    "question",
    "tools",
    "dynamic_examples",
    "run",
)


@dataclass(frozen=True)
class Span:
    """A piece of a marked line: SAME, REMOVED or ADDED text."""

    kind: str
    text: str


@dataclass(frozen=True)
class MarkedLine:
    """One line of a marked diff: SAME (in both), REMOVED (only before) or ADDED (only after). ``spans`` mark the
    words that changed when the line was edited rather than removed or added whole."""

    kind: str
    spans: tuple[Span, ...]

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.spans)


@dataclass(frozen=True)
class ExampleChange:
    kind: str  # ADDED, REMOVED or CHANGED
    question: str  # the example's first line
    old: str = ""  # the whole example before ('' when added)
    new: str = ""  # the whole example after ('' when removed)
    lines: tuple[str, ...] = ()  # for CHANGED: the example's own unified diff

    @property
    def marked(self) -> list[MarkedLine]:
        """The whole example, its changed lines and words marked (CHANGED); every line added or removed otherwise."""
        return mark_lines(self.old, self.new)


@dataclass(frozen=True)
class FieldDiff:
    field: str
    lines: tuple[str, ...]  # a unified diff of the field's text
    old: str = ""
    new: str = ""

    @property
    def marked(self) -> list[MarkedLine]:
        return mark_lines(self.old, self.new)


@dataclass
class VersionDiff:
    # The kinds its changes, marked lines and spans are of, for whoever reads one.
    ADDED: ClassVar[str] = ADDED
    REMOVED: ClassVar[str] = REMOVED
    CHANGED: ClassVar[str] = CHANGED
    SAME: ClassVar[str] = SAME

    left: str  # the two addresses, as a person chose them
    right: str
    fields: list[FieldDiff] = field(default_factory=list)
    examples: list[ExampleChange] = field(default_factory=list)
    unchanged_examples: int = 0

    @property
    def same(self) -> bool:
        return not self.fields and not self.examples


def split_examples(examples: str, dialect: Dialect | None = None) -> list[str]:
    """The examples text as whole examples, each starting at a question line (text before the first one, if any,
    is one piece of its own). Blank lines around an example are not part of it."""
    header = (dialect or next(iter(DIALECTS.values()))).question_header
    pieces: list[list[str]] = []
    for line in examples.split("\n"):
        if header.match(line) or not pieces:
            pieces.append([])
        pieces[-1].append(line)
    return [text for text in ("\n".join(p).strip("\n") for p in pieces) if text.strip()]


def example_key(example: str) -> str:
    """The example's question line; where the question stands on the line after its header (the xml dialect's
    ``Question`` line), both."""
    lines = [line.strip() for line in example.split("\n") if line.strip()]
    first = " ".join(lines[0].split()) if lines else ""
    if first.rstrip(":").lower() in ("question", "claim") and len(lines) > 1:
        first += " " + " ".join(lines[1].split())
    return first


def _text(preset: Preset, name: str) -> str:
    if name == "tools":
        return "".join(f"{k} = {v}\n" for k, v in sorted(preset.tools.items()))
    if name == "run":  # the agent setup the version keeps, if it keeps one
        tools = "" if preset.run_tools is None else f"tools enabled = {', '.join(preset.run_tools) or 'none'}\n"
        grammar = "" if preset.grammar is None else f"grammar = {'on' if preset.grammar else 'off'}\n"
        return tools + grammar
    return str(getattr(preset, name))


def _unified(old: str, new: str, left: str, right: str) -> tuple[str, ...]:
    return tuple(
        line.rstrip("\n")
        for line in difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), left, right, lineterm="\n"
        )
    )


SIMILAR = 0.5  # two lines at least this alike (difflib's ratio of their words) are one line edited, not two


def _split(text: str) -> list[str]:
    return text.removesuffix("\n").split("\n") if text else []


def _words(old: str, new: str) -> tuple[MarkedLine, MarkedLine] | None:
    """One line edited: the line before and the line after, with the words that changed marked on each; None when the
    two have too little in common to be read as one line edited."""
    a, b = _WORDS.findall(old), _WORDS.findall(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < SIMILAR:
        return None
    before: list[Span] = []
    after: list[Span] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            before.append(Span(SAME, "".join(a[i1:i2])))
            after.append(Span(SAME, "".join(b[j1:j2])))
            continue
        if i2 > i1:
            before.append(Span(REMOVED, "".join(a[i1:i2])))
        if j2 > j1:
            after.append(Span(ADDED, "".join(b[j1:j2])))
    return MarkedLine(REMOVED, tuple(before)), MarkedLine(ADDED, tuple(after))


def mark_lines(old: str, new: str) -> list[MarkedLine]:
    """``new`` as a reader compares it with ``old``: every line in order, kept, removed or added. Lines replaced one
    for one are paired, and each pair marks the words that changed; the removed lines of a block come before the added
    ones, as in a unified diff."""
    a, b = _split(old), _split(new)
    out: list[MarkedLine] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out += [MarkedLine(SAME, (Span(SAME, line),)) for line in a[i1:i2]]
            continue
        removed = [MarkedLine(REMOVED, (Span(REMOVED, line),)) for line in a[i1:i2]]
        added = [MarkedLine(ADDED, (Span(ADDED, line),)) for line in b[j1:j2]]
        if op == "replace":
            for k in range(min(len(removed), len(added))):
                pair = _words(a[i1 + k], b[j1 + k])
                if pair is not None:
                    removed[k], added[k] = pair
        out += removed + added
    return out


def diff_examples(old: str, new: str, dialect: Dialect | None = None) -> tuple[list[ExampleChange], int]:
    """(the examples removed, changed or added, in the new order with removed ones where they stood; how many are the
    same). Examples with the same question line are paired in order."""
    before, after = split_examples(old, dialect), split_examples(new, dialect)
    waiting: dict[str, list[int]] = {}
    for i, ex in enumerate(before):
        waiting.setdefault(example_key(ex), []).append(i)
    paired: dict[int, int] = {}  # new index -> old index
    for j, ex in enumerate(after):
        if waiting.get(example_key(ex)):
            paired[j] = waiting[example_key(ex)].pop(0)
    used = set(paired.values())
    changes: list[ExampleChange] = []
    same = 0
    removed = [i for i in range(len(before)) if i not in used]
    for j, ex in enumerate(after):
        i = paired.get(j)
        # Removed examples that stood before this one's old place are said first, so the order reads naturally.
        while removed and i is not None and removed[0] < i:
            k = removed.pop(0)
            changes.append(ExampleChange(REMOVED, example_key(before[k]), old=before[k]))
        if i is None:
            changes.append(ExampleChange(ADDED, example_key(ex), new=ex))
        elif before[i] == ex:
            same += 1
        else:
            lines = _unified(before[i] + "\n", ex + "\n", "before", "after")
            changes.append(ExampleChange(CHANGED, example_key(ex), old=before[i], new=ex, lines=lines))
    changes += [ExampleChange(REMOVED, example_key(before[k]), old=before[k]) for k in removed]
    return changes, same


def diff_versions(old: Preset, new: Preset, left: str = "left", right: str = "right") -> VersionDiff:
    """What changed from ``old`` (at address ``left``) to ``new`` (at ``right``)."""
    out = VersionDiff(left, right)
    for name in TEXT_FIELDS:
        a, b = _text(old, name), _text(new, name)
        if a != b:
            out.fields.append(FieldDiff(name, _unified(a + "\n", b + "\n", left, right), a, b))
    dialect = DIALECTS.get(new.dialect) or DIALECTS.get(old.dialect)
    out.examples, out.unchanged_examples = diff_examples(old.examples, new.examples, dialect)
    return out
