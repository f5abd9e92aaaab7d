"""Exports: JSON round-trips exactly and passes the import validation; Markdown reads well (escaping only what
Markdown would read), says where the answer occurs in the evidence and what answer was expected, and never lets model
or Wikipedia text act as Markdown."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from react_core.base.text import fenced, md_escape, md_text, safe_url
from react_core.base.trace import STOP_REASONS, Action, Exchange, Observation, Source, Step, Trace, Usage
from react_core.base.trace_schema import parse_trace_json
from react_core.report.exports import file_stem, to_json, to_markdown


def trace_with(answer: str | None, observations: list[str], fmt: str = "paper", error_last: bool = False) -> Trace:
    steps = [
        Step(
            i,
            thought=f"think {i}",
            action=Action("search", f"E{i}"),
            observation=Observation(text, is_error=error_last and i == len(observations), evidence=True),
            usage=Usage(10, 2),
        )
        for i, text in enumerate(observations, 1)
    ]
    if answer is not None:
        steps.append(Step(len(steps) + 1, thought="done", final_answer=answer))
    return Trace(
        question="Q?",
        settings={"dialect": fmt},
        steps=steps,
        final_answer=answer,
        stop_reason="finished" if answer is not None else "max_calls",
    )


def test_json_export_is_the_trace_and_imports_back_exactly():
    trace = trace_with("Paris", ["Paris is the capital of France."])
    trace.context = [Exchange("Earlier?", "Yes")]
    assert Trace.from_dict(json.loads(to_json(trace))).to_dict() == trace.to_dict()


def test_markdown_export_has_the_run_in_its_own_dialect_with_sources_and_credit():
    trace = trace_with("Paris", ["Paris is the capital of France."], fmt="xml")
    trace.steps[0].observation.sources = [Source("Paris (city)", "https://en.wikipedia.org/wiki/Paris_(city)")]
    md = to_markdown(trace)
    assert md.startswith("# Q?\n")
    assert "- **Final Answer:** Paris" in md
    assert "- **Evidence:** Occurs in step 1's Search result: «Paris is the capital of France.»" in md
    assert "## Step 1 · \\<search\\>E1\\</search\\>" in md
    assert "```text\nParis is the capital of France.\n```" in md
    assert "[Paris (city)](https://en.wikipedia.org/wiki/Paris_%28city%29)" in md
    assert "CC BY-SA" in md and "HotpotQA" in md


def test_model_text_cannot_break_out_of_its_block_or_become_markdown():
    nasty = "```\n# Heading\n<script>alert(1)</script> [x](javascript:alert(1))"
    trace = trace_with(nasty.replace("\n", " "), [nasty])
    trace.question = "**bold** <b>q</b>"
    md = to_markdown(trace)
    assert "# \\*\\*bold\\*\\* \\<b\\>q\\</b\\>" in md
    assert "````text\n" + nasty + "\n````" in md  # a longer fence than any backtick run inside
    outside = re.sub(r"(?ms)^(`{3,})text\n.*?\n\1$", "", md)  # everything but the fenced blocks
    assert "[x](javascript" not in outside and "<script>" not in outside and "\n# Heading" not in outside


@given(st.text(max_size=200))
def test_escaped_text_has_no_unescaped_markdown_specials(text):
    out = md_escape(text)
    i = 0
    while i < len(out):
        if out[i] == "\\":
            i += 2
            continue
        assert out[i] not in "`*_[]()<>#!|~$&:\\"
        i += 1


def test_markdown_export_escapes_only_what_markdown_would_read_there():
    # Prose full of punctuation that Markdown leaves alone in the middle of a line reads as written: no backslashes.
    trace = trace_with("George Washington (1732-1799)", ["He was the 1st president."])
    trace.question = "Who was the 1st U.S. president - and why? A #1 pick + 100% sure: yes! snake_case {x} | y"
    trace.steps[0].observation.sources = [Source("Washington (state)", "https://en.wikipedia.org/wiki/W_(state)")]
    md = to_markdown(trace)
    assert md.startswith(f"# {trace.question}\n")
    assert "- **Final Answer:** George Washington (1732-1799)\n" in md
    assert "- Source: [Washington (state)](https://en.wikipedia.org/wiki/W_%28state%29)" in md
    assert "\\" not in md.split("## Step")[0]
    # What Markdown would read is escaped: emphasis, code, links, HTML, math, entities, a heading's closing #s.
    assert md_text("**a** _b_ `c` [d](e) <f> ~~g~~ $h$ &amp; i_j_k end #") == (
        "\\*\\*a\\*\\* \\_b\\_ \\`c\\` \\[d\\](e) \\<f\\> \\~\\~g\\~\\~ \\$h\\$ \\&amp; i_j_k end \\#"
    )
    assert md_text("C:\\Users\\me and \\*") == "C:\\Users\\me and \\\\\\*"  # only a backslash that would escape


@given(st.text(max_size=60))
def test_export_escaping_keeps_the_text_and_leaves_no_markdown_special_bare(text):
    out = md_text(text)
    # As CommonMark reads it (a backslash escapes ASCII punctuation only), it is the text: the escapes are all it adds.
    assert re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", out) == " ".join(text.split())
    i = 0
    while i < len(out):
        if out[i] == "\\":
            i += 2
            continue
        assert out[i] not in "`*[]<>~$", out
        if out[i] == "_":
            assert out[i - 1 : i].isalnum() and out[i + 1 : i + 2].isalnum(), out  # inside a word only
        if out[i] == "&":
            assert not re.match(r"&#?[0-9A-Za-z]+;", out[i:]), out
        i += 1


def test_only_web_urls_become_links():
    assert safe_url("https://en.wikipedia.org/wiki/A (b)") == "https://en.wikipedia.org/wiki/A%20%28b%29"
    assert safe_url("javascript:alert(1)") == "" and safe_url("") == ""
    assert fenced("a ``` b").startswith("````text")


def test_file_stem_is_a_safe_name():
    assert file_stem(trace_with("x", []), 12) == "react-run-12-q"
    trace = Trace(question="Who was the 1st président, really?/../")
    assert file_stem(trace) == "react-run-who-was-the-1st-pr-sident-really"


def test_a_runs_files_hold_each_formats_own_text_under_its_own_name():
    from react_core.base.errors import ConfigError
    from react_core.report.downloads import RunExport
    from react_core.report.html import to_html
    from react_core.telemetry.atif import to_atif_json

    trace = trace_with("Paris", ["Paris is the capital of France."])
    export = RunExport(trace, 12, "chat-1")
    made = {fmt: export.download(fmt) for fmt in RunExport.FORMATS}
    assert {fmt: (f.file_name, f.mime) for fmt, f in made.items()} == {
        "json": ("react-run-12-q.json", "application/json"),
        "markdown": ("react-run-12-q.md", "text/markdown"),
        "html": ("react-run-12-q.html", "text/html"),
        "atif": ("react-run-12-q.atif.json", "application/json"),
        "otlp": ("react-run-12-q.otlp.json", "application/json"),
    }
    assert made["json"].data == to_json(trace) and made["markdown"].data == to_markdown(trace)
    assert made["html"].data == to_html(trace, 12) and "Run #12" in made["html"].data
    assert made["atif"].data == to_atif_json(trace, conversation="chat-1")
    # OpenTelemetry's spans (their times are the export's when the run recorded none) leave messages out unless asked.
    assert "resourceSpans" in json.loads(made["otlp"].data) and "capital of France" not in made["otlp"].data
    assert "chat-1" in made["otlp"].data and "capital of France" in export.download("otlp", include_content=True).data
    shared = RunExport(trace, calls_left_out="Its model calls are not shared.").download("html")
    assert shared.file_name == "react-run-q.html" and "Its model calls are not shared." in shared.data
    with pytest.raises(ConfigError, match="Unknown export format"):
        export.download("pdf")


_texts = st.text(max_size=30)
_counts = st.integers(min_value=0, max_value=10**9)
_seconds = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
_observations = st.builds(
    Observation,
    text=_texts,
    is_error=st.booleans(),
    sources=st.lists(st.builds(Source, _texts, _texts, st.none() | _counts), max_size=2),
    note=_texts,
    evidence=st.booleans(),
)
_steps = st.lists(
    st.builds(
        Step,
        index=st.just(0),
        thought=_texts,
        action=st.none() | st.builds(Action, _texts, _texts),
        observation=st.none() | _observations,
        final_answer=st.none() | _texts,
        raw_output=_texts,
        usage=st.builds(Usage, _counts, _counts),
        seconds=_seconds,
        leaked_observation=st.booleans(),
    ),
    max_size=4,
)


@given(
    question=_texts,
    steps=_steps,
    gaps=st.lists(st.integers(min_value=1, max_value=3), min_size=4, max_size=4),
    answer=st.none() | _texts,
    stop=st.sampled_from([None, *STOP_REASONS]),
    context=st.lists(st.builds(Exchange, _texts, _texts), max_size=2),
    expected=st.none() | _texts,
)
def test_every_json_export_passes_import_validation_and_imports_back_exactly(
    question, steps, gaps, answer, stop, context, expected
):
    index = 0
    for step, gap in zip(steps, gaps, strict=False):
        index += gap
        step.index = index
    trace = Trace(
        question=question,
        settings={"provider": "scripted", "temperature": 0.5, "tools": ["search"]},
        steps=steps,
        final_answer=answer,
        stop_reason=stop,
        context=context,
        started_at="2026-01-01T00:00:00+00:00",
        expected_answer=expected,
    )
    assert parse_trace_json(to_json(trace)).to_dict() == trace.to_dict()
