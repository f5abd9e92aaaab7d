"""Two prompt versions compared: the examples added, removed or changed, each shown whole, and every other field as a
text diff (``difflib``). The app draws what ``diff_versions`` returns; nothing here knows how it is drawn.

An example is one worked question: from its ``Question`` line to the next one. Two examples are the same example
when their question lines are the same, so an edited trajectory reads as changed, not as one removed and one added.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from react_core.dialects import DIALECTS
from react_core.dialects.base import Dialect
from react_core.presets.preset import Preset

ADDED, REMOVED, CHANGED = "added", "removed", "changed"
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
class ExampleChange:
    kind: str  # ADDED, REMOVED or CHANGED
    question: str  # the example's first line
    old: str = ""  # the whole example before ('' when added)
    new: str = ""  # the whole example after ('' when removed)
    lines: tuple[str, ...] = ()  # for CHANGED: the example's own unified diff


@dataclass(frozen=True)
class FieldDiff:
    field: str
    lines: tuple[str, ...]  # a unified diff of the field's text


@dataclass
class VersionDiff:
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
            out.fields.append(FieldDiff(name, _unified(a + "\n", b + "\n", left, right)))
    dialect = DIALECTS.get(new.dialect) or DIALECTS.get(old.dialect)
    out.examples, out.unchanged_examples = diff_examples(old.examples, new.examples, dialect)
    return out
