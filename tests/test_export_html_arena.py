"""The arena's HTML export: 1 to 4 columns side by side in one self-contained file, where nothing a run holds (question,
thoughts, actions, observations, source titles, variant labels, answers, the gold answer) ever becomes markup and
nothing is loaded from anywhere; the first row where the columns' actions differ is marked by the engine's own rule;
EM and F1 show when a gold answer was given and only then; and the command line that writes it, from trace files or
from an arena in the history."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from dataclasses import replace

import pytest
from test_export_html import HOSTILE, ROOT, RUN, Shape, made_of, scripted_run

from react_core.base.errors import ConfigError
from react_core.base.trace import Action, Trace
from react_core.evaluation.arena import DIFFERENCE_MARK, Arena, ColumnResult, Variant, first_difference
from react_core.evaluation.arena_html import ARENA_STYLE, SideBySide
from react_core.evaluation.parting import Parting
from react_core.history import HistoryStore
from react_core.loop.settings import RunSettings
from react_core.providers.scripted import ScriptedProvider
from react_core.report.html import CSP

OTHER = [
    "Thought 1: Search France.\nAction 1: Search[France]",
    "Thought 2: Check the city too.\nAction 2: Search[Paris]",
    "Thought 3: It is Paris.\nAction 3: Finish[Paris]",
]


def columns(*traces: Trace) -> list[ColumnResult]:
    return [ColumnResult.of(t, i) for i, t in enumerate(traces)]


def hostile_arena(text: str) -> str:
    """Two columns where every text either run holds is ``text`` (the second takes another action at step 1): the
    question, gold answer, thoughts, actions, observations, notes, source titles, answers and the variant label
    (model, prompt and temperature of its settings)."""
    label = {"provider": "openai", "model": text, "preset": text, "temperature": text, "strategy": "react"}
    first = made_of(text)
    second = made_of(text)
    second.steps[0].action = Action("lookup", text)
    for trace in (first, second):
        trace.settings = {**trace.settings, **label}
    return SideBySide(columns(first, second), arena_id=text, saved_at=text).to_html()


def test_hostile_text_in_every_field_never_becomes_markup_and_is_shown_as_written():
    plain = Shape(hostile_arena("plain words"))
    assert "plain words" in Variant.label(made_of("x").settings | {"model": "plain words", "provider": "openai"})
    for text in HOSTILE:
        page = hostile_arena(text)
        page.encode("utf-8")  # a lone surrogate would make writing the file fail
        shape = Shape(page)
        assert shape.elements == plain.elements, text  # the same elements and attributes as a harmless arena
        assert "".join(shape.style) == ARENA_STYLE  # nothing reached the stylesheet
        shown = text.replace("\ud800", "\ufffd").replace("\udfff", "\ufffd")
        data = "".join(shape.data)
        assert data.count(shown) >= 20, text  # question, gold, labels, thoughts, actions, observations, answers…
        assert f"1. ReAct · {shown} · {shown} · temperature {shown}" in data  # the variant label, as text
        for _tag, name, value in shape.attrs:
            assert not name.startswith("on")
            if name == "href":
                assert value.startswith("https://en.wikipedia.org/wiki/") and not set(value) & set(" \"'<>`")


def test_nothing_is_loaded_from_anywhere_and_no_script_can_run():
    trace = scripted_run(RUN)
    shape = Shape(SideBySide(columns(trace, scripted_run(OTHER))).to_html())
    policy = [v for t, n, v in shape.attrs if t == "meta" and n == "content" and "default-src" in (v or "")]
    assert policy == [CSP] and "default-src 'none'" in CSP and "script-src" not in CSP
    tags = {tag for tag, _ in shape.elements}
    assert not tags & {"script", "img", "iframe", "link", "object", "embed", "form", "base", "svg", "video", "audio"}
    assert [v for _t, n, v in shape.attrs if n in ("src", "srcset", "action", "poster", "data", "style")] == []
    assert "url(" not in ARENA_STYLE and "@import" not in ARENA_STYLE and "http" not in ARENA_STYLE
    # The only addresses are the sources' own links, which a reader may follow; none is fetched.
    assert {v for _t, n, v in shape.attrs if n == "href"} == {"https://en.wikipedia.org/wiki/Paris"}


def _ids(page: str) -> list[str]:
    return [v for _t, n, v in Shape(page).attrs if n == "id"]


def test_the_columns_line_up_row_by_row_and_the_first_difference_is_marked_where_the_engine_finds_it():
    a, b = scripted_run(RUN), scripted_run(OTHER)
    assert first_difference([a.steps, b.steps]) == 1  # both search France first, then they part
    page = SideBySide(columns(a, b), arena_id="abc123").to_html()
    ids = _ids(page)
    assert ids == [
        "column-1",
        "column-2",
        "c1-step-1",
        "c2-step-1",
        "first-difference",  # just before the row where the actions part
        "c1-step-2",
        "c2-step-2",
        "c2-step-3",  # the first column has no third step: a gap stands in its cell
        "c1-answer",
        "c2-answer",
    ]
    shape = Shape(page)
    marked = [v for t, n, v in shape.attrs if t == "div" and n == "class"]
    assert marked == ["grid cols-2", "cell", "cell", "cell first-difference", "cell first-difference"] + ["cell"] * 4
    data = "".join(shape.data)
    assert f"▼ {DIFFERENCE_MARK}: step 2, where the columns' actions part" in data
    assert f"{DIFFERENCE_MARK}: step 2" in data and "Step 3: —" in data
    assert "Arena abc123 · 2 columns" in data
    for trace in (a, b):
        for step in trace.steps:
            assert step.thought in data
        assert Variant.label(trace.settings) in data
    assert data.count("Model call") == 5 and data.count("finish reason:") == 5  # every step's model call
    # The same actions in every column: no mark, and the header says so.
    same = SideBySide(columns(scripted_run(RUN), scripted_run(RUN))).to_html()
    assert "first-difference" not in _ids(same) and Parting.SAME_ACTIONS in "".join(Shape(same).data)


def footers(page: str) -> list[str]:
    """Each column's footer line (``EM 1 · F1 1.00 · 2 steps · …``)."""
    return [html.unescape(line) for line in re.findall(r'<p class="meta figures">([^<]*)</p>', page)]


def test_em_and_f1_show_when_a_gold_answer_was_given_and_only_then():
    a, b = scripted_run(RUN), scripted_run(OTHER)
    b.final_answer = "Lyon"
    without = SideBySide(columns(a, b)).to_html()
    assert [line.split(" · ")[0] for line in footers(without)] == ["2 steps", "3 steps"]
    assert "EM " not in without and "F1 " not in without and "Gold answer" not in without
    for trace in (a, b):
        trace.expected_answer = "Paris"
    page = SideBySide(columns(a, b)).to_html()
    data = "".join(Shape(page).data)
    assert "Gold answer: Paris" in data
    assert [line.split(" · ")[:3] for line in footers(page)] == [
        ["EM 1", "F1 1.00", "2 steps"],
        ["EM 0", "F1 0.00", "3 steps"],
    ]
    assert "Expected answer: Paris (exact match)" in data
    badges = [v for t, n, v in Shape(page).attrs if n == "class" and "badge" in (v or "")]
    assert "meta badge match" in badges and "meta badge differs" in badges


def test_columns_of_different_questions_each_name_theirs_and_the_count_is_checked():
    a, b = scripted_run(RUN), scripted_run(OTHER)
    b.question = "And the capital of Italy?"
    data = "".join(Shape(SideBySide(columns(a, b)).to_html()).data)
    assert "Question: What is the capital of France?" in data and "Question: And the capital of Italy?" in data
    with pytest.raises(ConfigError, match="2 to 4 columns"):
        SideBySide([]).to_html()
    with pytest.raises(ConfigError, match="got 5"):
        SideBySide(columns(*[scripted_run(RUN) for _ in range(5)])).to_html()
    # A saved arena that kept one column (the other failed before its first step) still exports.
    assert _ids(SideBySide(columns(a), arena_id="x").to_html())[:2] == ["column-1", "c1-step-1"]
    assert SideBySide(columns(a), "ab/../c").file_name() == "react-arena-abc-what-is-the-capital-of-france.html"


# -- the command line -----------------------------------------------------------------------------------------


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run(
        [sys.executable, "-m", "react_core", "export-html", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_the_command_line_exports_trace_files_as_columns_and_refuses_bad_input(tmp_path):
    a, b = scripted_run(RUN), scripted_run(OTHER)
    paths = []
    for n, trace in enumerate((a, b)):
        paths.append(tmp_path / f"t{n}.json")
        paths[-1].write_text(json.dumps(trace.to_dict()), encoding="utf-8")
    out = tmp_path / "arena.html"
    done = cli(*map(str, paths), "--gold", "Paris", "-o", str(out))
    assert done.returncode == 0, done.stderr
    for trace in (a, b):
        trace.expected_answer = "Paris"
    assert out.read_text(encoding="utf-8") == SideBySide(columns(a, b)).to_html()
    assert "EM 1 · F1 1.00" in out.read_text(encoding="utf-8")

    bad = tmp_path / "bad.json"
    bad.write_text('{"question": 3}', encoding="utf-8")
    for args, says in [
        ((), "give a trace file"),
        ((*map(str, paths * 3),), "2 to 4 columns (got 6 trace files)"),
        ((str(paths[0]), str(bad)), "export-html: error:"),
        ((str(paths[0]), "--arena", "abc"), "not both"),
        ((str(paths[0]), str(paths[1]), "--owner", "ann"), "--owner goes with --arena"),
    ]:
        done = cli(*args, "-o", str(tmp_path / "x.html"))
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, (args, done.stderr)
        assert not (tmp_path / "x.html").exists()


def test_the_command_line_exports_an_arena_from_the_history_by_its_id(tmp_path):
    db = tmp_path / "history.sqlite"
    store = HistoryStore(db)
    settings = RunSettings(provider="scripted", tools=["calculator"], max_calls=3)
    wrong = ["Thought 1: z.\nAction 1: Finish[41]"]
    calc = ["Thought 1: x.\nAction 1: Calculator[6 * 7]", "Thought 2: y.\nAction 2: Finish[42]"]
    variants = [
        Variant("react", settings, provider=ScriptedProvider(calc)),
        Variant("react", replace(settings, temperature=0.7), provider=ScriptedProvider(wrong)),
    ]
    arena = Arena("What is 6 * 7?", variants, gold="42", store=store)
    results = arena.run()
    saved = store.arena(arena.id)
    out = tmp_path / "saved.html"
    done = cli("--arena", arena.id, "-o", str(out), env={"REACT_HISTORY_DB": str(db), "REACT_HISTORY_URL": ""})
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert page == SideBySide.saved(saved.runs, arena_id=arena.id, saved_at=saved.saved_at).to_html()
    data = "".join(Shape(page).data)
    assert f"Arena {arena.id} · 2 columns" in data and "Gold answer: 42" in data
    assert f"runs #{results[0].history_id}, #{results[1].history_id}" in data
    assert "EM 1 · F1 1.00" in data and "EM 0 · F1 0.00" in data and f"{DIFFERENCE_MARK}: step 1" in data

    for args, says in [
        (("--arena", "feedbeef"), "no arena 'feedbeef'"),
        (("--arena", "x", "--owner", "ann"), "of 'ann'"),
    ]:
        done = cli(*args, env={"REACT_HISTORY_DB": str(db), "REACT_HISTORY_URL": ""})
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    done = cli("--arena", arena.id, env={"REACT_HISTORY_DB": str(tmp_path / "none.sqlite"), "REACT_HISTORY_URL": ""})
    assert done.returncode == 2 and "no history at" in done.stderr
    assert not (tmp_path / "none.sqlite").exists()
