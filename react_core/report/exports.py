"""Exports of a run: JSON (exactly ``Trace.to_dict``, so it imports back and matches ``ask --json``) and Markdown.

The Markdown export is written to be read on its own: question, answer, stop reason and totals, the settings the run
used, then every step in the run's own dialect. Text written by the model or taken from Wikipedia is put in fenced
blocks, or escaped where it stands in a line (only what Markdown would read there: ``md_text``), so nothing in it is
ever interpreted as Markdown or HTML by whoever renders the file. A known expected answer is shown beside the answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from react_core.base.text import fenced, md_link, md_text
from react_core.base.trace import STOP_REASONS, Step, Trace
from react_core.dialects import DIALECTS
from react_core.dialects.base import Dialect
from react_core.report.expected import check_expected
from react_core.report.grounding import check_grounding

CREDIT = (
    "Observation text comes from Wikipedia (CC BY-SA 4.0); offline packs hold the opening paragraphs from the "
    "HotpotQA corpus (Yang et al. 2018, CC BY-SA 4.0)."
)
def action_text(step: Step, dialect: str) -> str:
    """The step's action as the model wrote it in the run's own dialect, e.g. ``Search[Colorado orogeny]``."""
    if step.action is None and step.final_answer is None:
        return "(no action)"
    return _dialect(dialect).render_action(step.action, step.final_answer)


def action_title(step: Step, dialect: str) -> str:
    """The step's action as one short line in the run's dialect, for a step panel's title (``Dialect.title``)."""
    return _dialect(dialect).title(step.action, step.final_answer)


def _dialect(name: str) -> Dialect:
    return DIALECTS.get(name) or DIALECTS["paper"]  # a trace from elsewhere may name a dialect we do not have


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def figures(trace: Trace) -> str:
    """Steps, seconds and tokens of a run, e.g. ``3 steps · 4.2 s · 1,234 tokens``."""
    t = trace.totals
    return f"{plural(t['steps'], 'step')} · {t['seconds']:.1f} s · {plural(t['tokens'], 'token')}"


def summary_line(trace: Trace) -> str:
    """How the run ended, e.g. ``Answered · 3 steps · 4.2 s · 1,234 tokens``."""
    return f"{STOP_REASONS.get(trace.stop_reason or '', 'Unfinished')} · {figures(trace)}"


def to_json(trace: Trace) -> str:
    return json.dumps(trace.to_dict(), ensure_ascii=False, indent=2)


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
    out.append(f"- **Run:** {md_text(summary_line(trace))}")
    if trace.error:
        out.append(f"- **Error:** {md_text(trace.error)}")
    settings = ", ".join(f"{k} `{_inline(v)}`" for k, v in trace.settings.items())
    if settings:
        out.append(f"- **Settings:** {settings}")
    if trace.started_at:
        out.append(f"- **Started:** {md_text(trace.started_at)}")
    if trace.context:
        out += ["", "## Earlier in the conversation", ""]
        for turn in trace.context:
            out.append(f"- **Q:** {md_text(turn.question)} — **A:** {md_text(turn.answer or '(no answer)')}")
    for step in trace.steps:
        out += ["", f"## Step {step.index} · {md_text(action_text(step, fmt))}", ""]
        out += ["**Thought**", "", fenced(step.thought), ""]
        out += ["**Action**", "", fenced(action_text(step, fmt)), ""]
        if step.observation is not None:
            label = "**Observation (error)**" if step.observation.is_error else "**Observation**"
            out += [label, "", fenced(step.observation.text), ""]
            if step.observation.note:
                out += [f"_Note: {md_text(step.observation.note)}_", ""]
            for src in step.observation.sources:
                out.append(f"- Source: {md_link(src.title, src.url)}")
        tokens = step.usage.prompt_tokens + step.usage.completion_tokens
        out.append(f"_{tokens:,} tokens · {step.seconds:.2f} s_")
    if trace.sources:
        out += ["", "## Sources", ""]
        out += [f"- {md_link(s.title, s.url)}" for s in trace.sources]
        out += ["", f"_{CREDIT}_"]
    return "\n".join(out).rstrip() + "\n"


def _inline(value: Any) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text.replace("`", "'")


def file_stem(trace: Trace, run_id: int | None = None) -> str:
    """A file name for downloads: ``react-run-12-who-was-…``."""
    slug = re.sub(r"[^a-z0-9]+", "-", trace.question.lower()).strip("-")[:40].strip("-") or "run"
    return f"react-run-{run_id}-{slug}" if run_id is not None else f"react-run-{slug}"
