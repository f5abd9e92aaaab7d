"""The HTML export: one self-contained file with every step, source and model call of a run, where nothing the run
holds ever becomes markup (no element, no attribute, no link that is not http(s)), under a policy that allows no
script and no network request; and the command line that writes it."""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from react_core.base.trace import Action, Observation, Source, Step, Trace, Usage
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import Preset
from react_core.providers.scripted import ScriptedProvider
from react_core.report.html import CSP, STYLE, to_html
from react_core.tools.registry import Tool, ToolRegistry

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "</style><script>alert(2)</script>",
    "</pre></section><a href='javascript:alert(3)'>x</a>",
    "' onmouseover='alert(4)",
    "<!-- --><iframe src=https://evil.example>",
    "&lt;script&gt; &amp; &#60;b&#62;",
    "lone \ud800 surrogate \udfff",
    "</title></head><body onload=alert(5)>",
    "]]><![CDATA[<svg onload=alert(6)>",
]


class Shape(HTMLParser):
    """The document's elements with their attribute names (and values), and all its character data."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, tuple[str, ...]]] = []
        self.attrs: list[tuple[str, str, str | None]] = []
        self.data: list[str] = []
        self.style: list[str] = []
        self._in_style = False
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, tuple(name for name, _ in attrs)))
        self.attrs += [(tag, name, value) for name, value in attrs]
        self._in_style = tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        (self.style if self._in_style else self.data).append(data)

    def handle_comment(self, data):
        raise AssertionError(f"a comment in the output: {data!r}")

    def unknown_decl(self, data):
        raise AssertionError(f"a declaration in the output: {data!r}")


def made_of(text: str, url: str | None = None) -> Trace:
    """A two-step run where every text the run holds is ``text``, and its source's address ``url``."""
    source = Source(text, url if url is not None else "https://en.wikipedia.org/wiki/" + text)
    steps = [
        Step(
            1,
            thought=text,
            action=Action("search", text),
            observation=Observation(text, sources=[source], note=text, evidence=True),
            usage=Usage(10, 3),
            raw_output=text,
        ),
        Step(2, thought=text, final_answer=text, raw_output=text),
    ]
    return Trace(
        question=text,
        settings={"provider": "scripted", "dialect": "paper", "knowledge": "wikipedia", "tools": ["search"]},
        steps=steps,
        final_answer=text,
        stop_reason="finished",
        expected_answer=text,
        started_at=text,
    )


def test_hostile_text_never_becomes_markup_and_is_shown_as_written():
    plain = Shape(to_html(made_of("plain words")))
    for text in HOSTILE:
        page = to_html(made_of(text))
        page.encode("utf-8")  # a lone surrogate would make writing the file fail
        shape = Shape(page)
        assert shape.elements == plain.elements, text  # the same elements and attributes as a harmless run
        assert "".join(shape.style) == STYLE  # nothing reached the stylesheet
        shown = text.replace("\ud800", "\ufffd").replace("\udfff", "\ufffd")
        assert shown in "".join(shape.data), text
        for _tag, name, value in shape.attrs:
            assert not name.startswith("on")
            if name == "href":
                assert value.startswith("https://en.wikipedia.org/wiki/") and not set(value) & set(" \"'<>`")


def test_only_http_links_and_a_policy_that_allows_no_script_and_no_request():
    for url in ("javascript:alert(1)", " javascript:alert(1)", "data:text/html,<script>x</script>", "vbscript:x", ""):
        shape = Shape(to_html(made_of("Page", url)))
        assert not [v for _t, n, v in shape.attrs if n == "href"], url
        assert "Page" in "".join(shape.data)
    shape = Shape(to_html(made_of("Page")))
    policy = [v for t, n, v in shape.attrs if t == "meta" and n == "content" and "default-src" in (v or "")]
    assert policy == [CSP] and "default-src 'none'" in CSP and "script-src" not in CSP
    tags = {tag for tag, _ in shape.elements}
    assert not tags & {"script", "img", "iframe", "link", "object", "embed", "form", "base", "svg"}
    # No address anywhere but the source's own link: nothing to fetch.
    assert [v for _t, n, v in shape.attrs if n in ("src", "srcset", "action", "poster", "data")] == []


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=80))
def test_any_text_keeps_the_documents_shape(text):
    expected = Shape(to_html(made_of("x")))
    shape = Shape(to_html(made_of(text)))
    assert shape.elements == expected.elements
    assert "".join(shape.style) == STYLE


def scripted_run(outputs: list[str], page: str = "Paris is the capital of France.") -> Trace:
    preset = Preset(name="t", dialect="paper", instructions="Use tools:\n{tools}", examples="Question: q\nThought 1: …")
    tools = ToolRegistry(
        [
            Tool(
                "search",
                lambda q: Observation(page, sources=[Source(q, "https://en.wikipedia.org/wiki/Paris")], evidence=True),
            )
        ]
    )
    config = RunConfig(provider=ScriptedProvider(outputs), preset=preset, tools=tools, max_calls=len(outputs))
    return Agent(config).run("What is the capital of France?")


RUN = [
    "Thought 1: Search <b>France</b>.\nAction 1: Search[France]",
    "Thought 2: It is Paris.\nAction 2: Finish[Paris]",
]


def test_every_step_source_and_model_call_is_in_the_file():
    trace = scripted_run(RUN)
    trace.expected_answer = "Paris"
    page = to_html(trace, run_id=7)
    shape = Shape(page)
    text = "".join(shape.data)
    ids = [v for t, n, v in shape.attrs if n == "id"]
    assert ids == ["step-1", "step-2", "answer"]
    for step in trace.steps:
        assert step.thought in text and step.raw_output in text
    assert "Search[France]" in text and "Finish[Paris]" in text  # the actions in the run's own dialect
    assert "Step 1 · Search[France]" in text
    assert "Paris is the capital of France." in text
    assert [v for _t, n, v in shape.attrs if n == "href"] == ["https://en.wikipedia.org/wiki/Paris"] * 2
    assert "CC BY-SA" in text and "HotpotQA" in text
    # Each model call: the prompt the model was sent (rebuilt from the trace), its finish reason and tokens.
    from react_core.base import call_records

    for rebuilt in call_records.CallTexts.of(trace.steps):
        assert rebuilt.prompt in text
    assert text.count("finish reason:") == 2 and "prompt tokens" in text
    assert "Expected answer: Paris (exact match)" in text
    assert "Evidence: Occurs in step 1's Search result" in text
    assert "Run #7" in text


def test_the_command_line_writes_the_file_and_refuses_a_bad_trace(tmp_path):
    trace = scripted_run(RUN)
    source = tmp_path / "trace.json"
    source.write_text(json.dumps(trace.to_dict()), encoding="utf-8")
    out = tmp_path / "run.html"
    done = subprocess.run(
        [sys.executable, "-m", "react_core", "export-html", str(source), "-o", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == to_html(trace)
    bad = tmp_path / "bad.json"
    bad.write_text('{"question": 3}', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "react_core", "export-html", str(bad), "-o", str(tmp_path / "x.html")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "export-html: error:" in done.stderr
    assert not (tmp_path / "x.html").exists()


ALLOWED = {
    "html": {"lang"},
    "head": set(),
    "meta": {"charset", "http-equiv", "content", "name"},
    "title": set(),
    "style": set(),
    "body": set(),
    "header": set(),
    "main": set(),
    "section": {"class", "id"},
    "h1": set(),
    "h2": set(),
    "h3": set(),
    "p": {"class"},
    "pre": {"class"},
    "del": set(),
    "details": set(),
    "summary": set(),
    "ul": set(),
    "li": set(),
    "a": {"href", "rel"},
}


def test_hostile_model_replies_and_prompts_stay_text_in_the_model_call_sections():
    bad = "</pre></details><script>alert(1)</script><a href=javascript:x>"
    trace = scripted_run([f"Thought 1: {bad}\nAction 1: Search[{bad}]", f"Thought 2: ok\nAction 2: Finish[{bad}]"])
    trace.question = bad
    page = to_html(trace)
    shape = Shape(page)
    for tag, names in shape.elements:
        assert tag in ALLOWED and set(names) <= ALLOWED[tag], (tag, names)
    text = "".join(shape.data)
    assert text.count(bad) >= 6  # question, thought, action, observation, raw reply, prompt, answer…
    assert all(v.startswith("https://") for _t, n, v in shape.attrs if n == "href")


def test_text_after_a_stop_sequence_cut_is_struck_out_as_text_never_markup():
    bad = "<script>alert(1)</script><del>x</del></pre>"  # one piece of the stream, read with the stop sequence
    reply = f"Thought 1: Look.\nAction 1: Search[France]\nObservation{bad} more"
    trace = scripted_run([reply, "Thought 2: Done.\nAction 2: Finish[Paris]"])
    call = trace.steps[0].call
    assert call.cut_at is not None and bad in trace.steps[0].raw_output[call.cut_at :]  # what the loop set aside
    shape = Shape(to_html(trace))
    for tag, names in shape.elements:
        assert tag in ALLOWED and set(names) <= ALLOWED[tag], (tag, names)
    assert "del" in {tag for tag, _ in shape.elements}
    assert f"\nObservation{bad}" in "".join(shape.data)  # the struck-out part, shown as it was written


def test_an_export_says_the_offline_pack_answered_when_wikipedia_could_not_be_reached():
    from wiki_helpers import closed_port, hotpot_pack, live_source

    from react_core.report.exports import to_markdown

    source = live_source(f"http://127.0.0.1:{closed_port()}/w/api.php", fallback_pack=str(hotpot_pack()))
    outcome = source.search("Ed Wood")  # Wikipedia refuses: the pack answers, and its note says so
    obs = Observation(
        " ".join(outcome.page.sentences[:2]), sources=[Source("Ed Wood", "https://en.wikipedia.org/wiki/Ed_Wood")]
    )
    obs.note, obs.evidence = outcome.note, True
    trace = Trace(
        "Who was Ed Wood?",
        settings={"provider": "scripted", "knowledge": "wikipedia"},
        steps=[Step(1, "Search.", Action("search", "Ed Wood"), obs), Step(2, "Done.", final_answer="a filmmaker")],
        final_answer="a filmmaker",
        stop_reason="finished",
    )
    page = to_html(trace)
    answered = "knowledge wikipedia (unreachable: the offline pack answered step 1)"
    assert answered in page and "knowledge wikipedia ·" not in page  # before: "knowledge wikipedia", as if it had
    assert "Text: Wikipedia opening paragraphs (2017)" in page  # the pack's licence line under its text
    assert "Text: Wikipedia, CC BY-SA 4.0." not in page
    assert "knowledge `wikipedia (unreachable: the offline pack answered step 1)`" in to_markdown(trace)
    trace.steps[0].observation.note = ""  # Wikipedia itself answered: the setting as it is
    assert "knowledge wikipedia" in to_html(trace) and "unreachable" not in to_html(trace)
