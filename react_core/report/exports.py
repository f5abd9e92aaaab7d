"""Exports of a run: JSON (exactly ``Trace.to_dict``, so it imports back and matches ``ask --json``) and Markdown.

The Markdown export is written to be read on its own: question, answer, stop reason and totals, the settings the run
used, then every step in the run's own dialect. Text written by the model or taken from Wikipedia is put in fenced
blocks, or escaped where it stands in a line (only what Markdown would read there: ``md_text``), so nothing in it is
ever interpreted as Markdown or HTML by whoever renders the file. A known expected answer is shown beside the answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from react_core.base.events import Writing
from react_core.base.text import fenced, md_link, md_text
from react_core.base.trace import Alternative, Source, Step, Trace
from react_core.dialects import DIALECTS
from react_core.dialects.base import Dialect
from react_core.knowledge.spec import knowledge_answered
from react_core.report.expected import check_expected
from react_core.report.grounding import check_grounding

__all__ = [
    "Saying",
    "answered_settings",
    "file_stem",
    "to_json",
    "to_markdown",
]


@dataclass(frozen=True)
class Saying:
    """An action as a person reads it: of a step, an alternative or the step being written (``said``), in the run's
    own dialect (a trace from elsewhere may name one we do not have: it reads as paper's)."""

    STOPPED: ClassVar[str] = "(stopped while writing)"  # a step Stop reached while the model wrote it

    said: Step | Alternative | Writing
    dialect: str

    @property
    def text(self) -> str:
        """The action (or Finish) as the model wrote it, e.g. ``Search[Colorado orogeny]``; a step Stop reached
        while it was written says so."""
        if getattr(self.said, "stopped", False):
            return self.STOPPED
        answer = getattr(self.said, "final_answer", None)  # the step being written has none until it is a step
        if self.said.action is None and answer is None:
            return "(no action)"
        return self._dialect.render_action(self.said.action, answer)

    @property
    def title(self) -> str:
        """The same as one short line, for the title of a step's panel or of the step being written
        (``Dialect.title``)."""
        if getattr(self.said, "stopped", False):
            return self.STOPPED
        return self._dialect.title(self.said.action, getattr(self.said, "final_answer", None))

    @property
    def _dialect(self) -> Dialect:
        return DIALECTS.get(self.dialect) or DIALECTS["paper"]


def to_json(trace: Trace) -> str:
    return json.dumps(trace.to_dict(), ensure_ascii=False, indent=2)


def answered_settings(trace: Trace) -> dict[str, Any]:
    """The settings a run recorded, its knowledge said as what answered it (``knowledge_answered``)."""
    if "knowledge" not in trace.settings:
        return dict(trace.settings)
    return {**trace.settings, "knowledge": knowledge_answered(trace)}


def to_markdown(trace: Trace) -> str:
    fmt = trace.settings.get("dialect", "paper")
    out = [f"# {md_text(trace.question)}", ""]
    expected = check_expected(trace)
    if trace.final_answer is not None:
        out.append(f"- **Final Answer:** {md_text(trace.final_answer)}")
    if expected is not None:
        out.append(f"- **Expected answer:** {md_text(expected.expected)} ({md_text(expected.verdict)})")
    if trace.final_answer is not None:
        out.append(f"- **Evidence:** {md_text(check_grounding(trace).message)}")
    out.append(f"- **Run:** {md_text(trace.summary())}")
    if trace.error:
        out.append(f"- **Error:** {md_text(trace.error)}")
    settings = ", ".join(f"{k} `{_inline(v)}`" for k, v in answered_settings(trace).items())
    if settings:
        out.append(f"- **Settings:** {settings}")
    if trace.started_at:
        out.append(f"- **Started:** {md_text(trace.started_at)}")
    if trace.context:
        out += ["", "## Earlier in the conversation", ""]
        for turn in trace.context:
            out.append(f"- **Q:** {md_text(turn.question)} — **A:** {md_text(turn.answer or '(no answer)')}")
    for step in trace.steps:
        said = Saying(step, fmt).text
        out += ["", f"## Step {step.index} · {md_text(said)}", ""]
        out += ["**Thought**", "", fenced(step.thought), ""]
        out += ["**Action**", "", fenced(said), ""]
        if step.observation is not None:
            label = "**Observation (error)**" if step.observation.is_error else "**Observation**"
            out += [label, "", fenced(step.observation.text), ""]
            if step.observation.note:
                out += [f"_Note: {md_text(step.observation.note)}_", ""]
            for src in step.observation.sources:
                out.append(f"- Source: {md_link(src.title, src.url)}")
        out += _decisions(step, fmt)
        tokens = step.usage.prompt_tokens + step.usage.completion_tokens
        out.append(f"_{tokens:,} tokens · {step.seconds:.2f} s_")
    if trace.sources:
        out += ["", "## Sources", ""]
        out += [f"- {md_link(s.title, s.url)}" for s in trace.sources]
        out += ["", f"_{Source.CREDIT}_"]
    return "\n".join(out).rstrip() + "\n"


def _decisions(step: Step, fmt: str) -> list[str]:
    """Step mode: where the step waits, what a person decided on it, and every alternative drawn for it."""
    out: list[str] = []
    if step.pending:
        out += [f"_Paused {md_text(Step.BREAKPOINTS.get(step.pending, step.pending))}: waiting for a decision._", ""]
    for note in step.interventions:
        what = f"- **{md_text(note.by)}** decided **{md_text(note.kind)}** at the {md_text(note.at)} breakpoint"
        out.append(what + (f": {_code(note.before)} → {_code(note.after)}" if note.before != note.after else ""))
        out += [f"  - {line}" for line in _alternatives(note.alternatives, fmt, note.picked)]
    if step.offered:
        out.append("- Alternatives drawn, none picked yet:")
        out += [f"  - {line}" for line in _alternatives(step.offered, fmt, None)]
    return [*out, ""] if out and out[-1] else out


def _alternatives(alternatives: list[Alternative], fmt: str, picked: int | None) -> list[str]:
    lines = []
    for n, alt in enumerate(alternatives, 1):
        said = md_text(alt.error) if alt.error else _code(Saying(alt, fmt).text)
        mark = " (picked)" if n == picked else ""
        lines.append(f"Alternative {n}{mark} at temperature {alt.temperature:g}: {said}")
    return lines


def _code(text: str, limit: int = 300) -> str:
    """``text`` as one inline code span on one line (a line break could start a Markdown block), shortened."""
    flat = " ".join(text.replace("`", "'").split())
    return f"`{flat[:limit]}{'…' if len(flat) > limit else ''}`" if flat else "(nothing)"


def _inline(value: Any) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text.replace("`", "'")


def file_stem(trace: Trace, run_id: int | str | None = None, kind: str = "run") -> str:
    """A file name for downloads: ``react-run-12-who-was-…`` (``react-arena-<id>-…`` for an arena)."""
    slug = re.sub(r"[^a-z0-9]+", "-", trace.question.lower()).strip("-")[:40].strip("-") or kind
    ident = re.sub(r"[^A-Za-z0-9]+", "", str(run_id)) if run_id is not None else ""
    return f"react-{kind}-{ident}-{slug}" if ident else f"react-{kind}-{slug}"
