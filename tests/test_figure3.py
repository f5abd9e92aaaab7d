"""Figure 3 in small, from its results files to what the app claims: a cell's scores, the table the command writes
between its markers in docs/evaluation.md, and a fine-tuned cell's held-out figures recorded in its adapter's
manifest, which the on-device notice then quotes. The cells here are scripted runs named as the command names them,
so what is checked is the bookkeeping, not the model (the model's figures live in docs/evaluation.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_evaluation import QUESTIONS, write_dataset

from react_core.evaluation import figure3, results, table
from react_core.evaluation.run import EvalPlan
from react_core.loop.settings import RunSettings
from react_core.providers.adapters import read_manifest, shipped_path
from react_core.providers.local import notice_for
from react_core.providers.scripted import ScriptedProvider

REPLIES = [
    " Both are American.\nAction 1: Finish[yes]",  # a yes/no answer: right, and not a span one could ground
    " I need the actress.\nAction 1: Search[Shirley Temple]",
    " She was Chief of Protocol.\nAction 2: Finish[Chief of Protocol]",  # right and in what it read
    " No idea.\nAction 1: Finish[First for Women]",  # wrong, and not in anything it read
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A Figure 3 folder holding one cell, the fine-tuned ReAct one, of the three questions."""
    from app_helpers import offline_pack

    tmp = tmp_path_factory.mktemp("figure3")
    plan = EvalPlan(
        datasets=[str(write_dataset(tmp, QUESTIONS))],
        strategies=["react"],
        out_dir=str(tmp / "out"),
        settings=RunSettings(provider="scripted", knowledge=f"pack:{offline_pack()}", max_calls=7),
        names={"react": "fine-tuned-react"},
    )
    plan.run(provider=ScriptedProvider(REPLIES))
    return tmp / "out"


def copy_of_shipped(folder: Path) -> Path:
    """A copy of the shipped adapter and its manifest in ``folder`` (the test is skipped in a checkout without it)."""
    if not shipped_path().is_file():
        pytest.skip("this checkout has no shipped adapter to copy")
    adapter = folder / "adapter.gguf"
    folder.mkdir(exist_ok=True)
    shutil.copy(shipped_path(), adapter)
    shutil.copy(shipped_path().with_name("adapter.json"), adapter.with_name("adapter.json"))
    return adapter


def test_a_fine_tuned_cell_measures_em_f1_finishing_and_grounded_answers(folder):
    records = results.read_results(results.result_path(folder, "fine-tuned-react"))
    scores = figure3.held_out_scores(records)
    assert (scores["n"], scores["em"], scores["finished"], scores["answered"]) == (3, 66.7, 3, 3)
    assert (scores["yes_no_answers"], scores["grounded_answers"]) == (1, 1)
    low, high = scores["em_interval"]
    assert 0 <= low <= scores["em"] <= high <= 100
    assert scores["notice"] == "right on about 67 % of 3 held-out HotpotQA questions (exact match)"
    assert "1 of the 2 answers that are not yes/no (50 %) grounded" in scores["summary"]


def test_the_table_has_every_method_and_a_dash_where_a_cell_is_not_measured(folder):
    rows = figure3.figure3_table(folder).splitlines()
    react = next(r for r in rows if r.startswith("| ReAct"))
    assert react.split("|")[2].strip() == "—" and react.split("|")[4].strip().startswith("66.7 [")
    assert [r.split("|")[1].strip() for r in rows[2:]] == ["Standard", "CoT", "Act", "ReAct"]
    assert figure3.figure3_table(folder / "nothing-here") == ""


def test_the_section_replaces_only_what_lies_between_the_markers(folder, tmp_path):
    doc = tmp_path / "evaluation.md"
    doc.write_text(f"# Before\n\n{figure3.BEGIN}\nold table\n{figure3.END}\n\n# After\n", encoding="utf-8")
    section = figure3.section(figure3.figure3_scores(folder), "_Generated._")
    table.rewrite_section(doc, section, figure3.BEGIN, figure3.END)
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Before\n") and text.endswith("# After\n") and "old table" not in text
    assert "_Generated._" in text and "| ReAct |" in text


def test_a_full_cells_figures_become_its_adapters_claim_and_the_notice_quotes_them(folder, tmp_path):
    adapter = copy_of_shipped(tmp_path / "mine")
    before = json.loads(adapter.with_name("adapter.json").read_text(encoding="utf-8"))

    figure3.record_scores({"react": str(adapter), "cot": ""}, folder, {"fine-tuned-react"})
    after = read_manifest(adapter)
    assert after.scores["em"] == 66.7 and after.scores["n"] == 3
    assert {k: v for k, v in after.to_dict().items() if k != "scores"} == {
        k: v for k, v in before.items() if k != "scores"
    }
    assert "right on about 67 % of 3 held-out HotpotQA questions" in notice_for(adapter)
    assert "fine-tuned for ReAct" in notice_for(adapter)
    # Figure 3's Act adapter measures itself as well: loaded as one's own, the notice does not call it ReAct.
    act = after.to_dict() | {"method": "act", "preset": "tuned-act", "title": "act on HotpotQA (Figure 3)"}
    adapter.with_name("adapter.json").write_text(json.dumps(act), encoding="utf-8")
    said = notice_for(adapter)
    assert "fine-tuned as act on HotpotQA (Figure 3)" in said and "ReAct" not in said and "67 %" in said


def test_a_cell_not_asked_for_leaves_its_adapter_as_it_was(folder, tmp_path):
    adapter = copy_of_shipped(tmp_path)
    before = adapter.with_name("adapter.json").read_bytes()
    figure3.record_scores({"react": str(adapter)}, folder, {"prompted-react"})
    assert adapter.with_name("adapter.json").read_bytes() == before


def test_each_cell_is_an_evaluation_of_its_own_named_as_the_folder_names_it():
    names = [c.name for c in figure3.cells(dict.fromkeys(figure3.METHODS, ""))]
    assert names == [f"{v}-{m}" for v in figure3.VARIANTS for m in figure3.METHODS]
    plan = figure3.plan_for(figure3.Cell("cot", "fine-tuned", "a.gguf"), RunSettings(), ["d.json"], Path("x"), 5)
    assert plan.names == {"cot": "fine-tuned-cot"} and plan.presets == {"cot": "tuned-cot"}
    assert (plan.settings.provider, plan.settings.adapter, plan.limit, plan.out_dir) == ("local", "a.gguf", 5, "x")
    prompted = figure3.plan_for(figure3.Cell("act", "prompted", "none"), RunSettings(), ["d.json"], Path("x"), None)
    assert prompted.settings.adapter == "none" and prompted.presets == {"act": figure3.DEFAULT_PRESETS["act"]}


def test_each_measured_cell_says_how_long_its_questions_took(folder):
    records = results.read_results(results.result_path(folder, "fine-tuned-react"))
    minutes = figure3.cell_minutes(folder)
    assert list(minutes) == ["fine-tuned-react"]
    assert minutes["fine-tuned-react"] == pytest.approx(sum(r["seconds"] for r in records) / 60)


def test_a_candidate_adapter_is_measured_in_a_folder_of_its_own_as_the_shipped_one_is(tmp_path):
    # `figure3 --adapter FILE`: the ReAct cell with that file instead of the shipped one, the other methods' adapters
    # as they were (none asked for here), and never the shipped adapter's results folder, whose file of results was
    # made with another adapter (a resume there is refused).
    from react_core.cli.figure3 import adapters, results_folder

    mine = tmp_path / "react-abc" / "adapter.gguf"
    mine.parent.mkdir()
    mine.write_bytes(b"GGUF")
    assert adapters(True, {"react"}, react=mine) == {"react": str(mine), "act": "", "cot": "", "standard": ""}
    assert results_folder(None, mine) == figure3.DEFAULT_DIR.with_name("figure3-react-abc")
    assert results_folder(None, None) == figure3.DEFAULT_DIR and results_folder("x", mine) == Path("x")


def test_a_missing_candidate_adapter_is_one_clear_message(capsys):
    from react_core.cli.main import main

    assert main(["figure3", "--adapter", "/nowhere/adapter.gguf", "--no-train"]) == 2
    assert "no adapter at /nowhere/adapter.gguf" in capsys.readouterr().err


@pytest.mark.model
def test_a_candidate_adapter_runs_its_cell_prints_the_table_and_leaves_the_docs_alone(tmp_path, capsys):
    # Two questions on the on-device model with a copy of the shipped adapter as the candidate: the ReAct cell alone
    # runs, with that file; the table is printed naming it; docs/evaluation.md is not touched; a partial cell (a
    # --limit) records no scores in the candidate's manifest.
    from react_core.cli.main import main

    mine = copy_of_shipped(tmp_path / "candidate")
    manifest, doc = mine.with_name("adapter.json").read_bytes(), figure3.DOC.read_bytes()
    out = tmp_path / "out"
    assert main(["figure3", "--adapter", str(mine), "--limit", "2", "--no-train", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"figure3 --adapter {mine} --limit 2" in printed and f"ReAct's is `{mine}`" in printed
    assert figure3.DOC.read_bytes() == doc and mine.with_name("adapter.json").read_bytes() == manifest
    header, records = results.read_file(results.result_path(out, "fine-tuned-react"))
    assert header["config"]["adapter"] == str(mine) and len(records) == 2
    assert sorted(p.name for p in out.glob("*.jsonl")) == ["fine-tuned-react.jsonl"]


def test_measure_adapter_runs_the_fine_tuned_react_cell_and_keeps_a_whole_cells_figures(tmp_path):
    # The Fine-tune page's Measure and `figure3 --adapter`: the 200 dev questions on the adapter's own prompt (a
    # scripted model stands in for the on-device one); a part of the cell (a limit) records nothing, the whole cell
    # its figures, in the adapter's manifest, which the notice then quotes.
    mine = copy_of_shipped(tmp_path / "candidate")
    before = mine.with_name("adapter.json").read_bytes()
    out = tmp_path / "out"
    assert figure3.measure_adapter(mine, out_dir=out, limit=2, provider=ScriptedProvider([REPLIES[0]] * 2))
    header, records = results.read_file(results.result_path(out, "fine-tuned-react"))
    assert header["config"]["adapter"] == str(mine) and header["config"]["presets"] == {"react": "tuned-react"}
    assert len(records) == 2 and mine.with_name("adapter.json").read_bytes() == before
    assert figure3.measure_adapter(mine, out_dir=out, provider=ScriptedProvider([REPLIES[0]] * 198))  # resumes
    scores = read_manifest(mine).scores
    assert scores["n"] == 200 and scores["finished"] == 200 and "of 200 held-out" in notice_for(mine)
    assert figure3.candidate_dir(mine) == figure3.DEFAULT_DIR.with_name("figure3-candidate")
