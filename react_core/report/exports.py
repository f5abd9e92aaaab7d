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

from react_core.base.trace import STOP_REASONS, Trace
from react_core.dialects import DIALECTS
from react_core.report.expected import check_expected
from react_core.report.grounding import check_grounding

CREDIT = (
    "Observation text comes from Wikipedia (CC BY-SA 4.0); offline packs hold the opening paragraphs from the "
    "HotpotQA corpus (Yang et al. 2018, CC BY-SA 4.0)."
)
# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping them all is the safe choice for
# Streamlit, whose Markdown adds its own syntax (colour codes, icons, math) to CommonMark's.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~:$&])")
# What a one-line text inside a line of an exported file (after "- **Answer:** ", in a heading, a link's text) needs
# escaped for CommonMark and GitHub's extensions to read it literally: a backslash that would escape what follows it,
# code, emphasis and strikethrough marks, link brackets, HTML and autolinks (< and >, so no tag survives even a lax
# reader), math ($), an entity reference, an underscore that is not inside a word (one inside a word never
# emphasises), and the #s that would close a heading. Block syntax (#, >, -, 1.) only counts at the start of a line,
# where run text never stands.
_MD_INLINE = re.compile(
    r"\\(?=[!-/:-@\[-`{-~]|$)|[`*\[\]<>~$]|&(?=#?[0-9A-Za-z]+;)|(?<![^\W_])_|_(?![^\W_])|(?:^|(?<=\s))#+$"
)


def md_escape(text: str) -> str:
    """Text as literal Markdown for Streamlit: every special backslash-escaped, newlines flattened to spaces."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def md_text(text: str) -> str:
    """Text as literal CommonMark inline content, newlines flattened to spaces: only what would be read as Markdown
    or HTML in that position is escaped, so an exported file reads cleanly as plain text too."""
    return _MD_INLINE.sub(lambda m: "".join("\\" + c for c in m.group()), " ".join(str(text).split()))


def fenced(text: str) -> str:
    """A fenced block that no backtick run inside ``text`` can close early."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def safe_url(url: str) -> str:
    """An http(s) URL with the characters that would end a Markdown link percent-encoded; anything else empty."""
    if not re.match(r"^https?://", url or "", re.IGNORECASE):
        return ""
    return "".join(c if c.isascii() and c.isprintable() and c not in " ()<>[]\"'`\\" else _pct(c) for c in url)


def _pct(c: str) -> str:
    return "".join(f"%{b:02X}" for b in c.encode("utf-8"))


def md_link(title: str, url: str) -> str:
    href = safe_url(url)
    return f"[{md_text(title)}]({href})" if href else md_text(title)


def action_text(step: dict[str, Any] | Any, fmt_name: str) -> str:
    """The step's action as the model wrote it in the run's own dialect, e.g. ``Search[Colorado orogeny]``."""
    from react_core.base.trace import Step

    step = step if isinstance(step, Step) else Step.from_dict(step)
    fmt = DIALECTS.get(fmt_name) or DIALECTS["paper"]
    if step.action is None and step.final_answer is None:
        return "(no action)"
    return fmt.render_action(step.action, step.final_answer)


def action_title(step: dict[str, Any] | Any, fmt_name: str) -> str:
    """The step's action as one short line in the run's dialect, for a step panel's title (``Dialect.title``)."""
    from react_core.base.trace import Step

    step = step if isinstance(step, Step) else Step.from_dict(step)
    return (DIALECTS.get(fmt_name) or DIALECTS["paper"]).title(step.action, step.final_answer)


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
