"""FEVER, the other half of the paper's Table 1: the paper's claims and its 500 rows, the task chosen by the dataset
(or named), the paper's FEVER prompts read in place and sent as its notebook sends them, accuracy as its wrapper
scores it, Act and ReAct checking claims against a local wiki, and eval / eval-report / eval-table with the paper's
FEVER column."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from wiki_helpers import close_shared_sources, shared_data_dir

from react_core.base.errors import ConfigError
from react_core.evaluation import table
from react_core.evaluation.data import load_indices
from react_core.evaluation.paper import PAPER_FEVER_ACC, PAPER_HOTPOTQA_EM
from react_core.evaluation.question_sets import load_any
from react_core.evaluation.results import read_file
from react_core.evaluation.run import EvalPlan
from react_core.evaluation.strategies import EvalContext, run_strategy
from react_core.evaluation.tasks import FEVER, HOTPOTQA, Task, fever_scores, task_for
from react_core.knowledge.pack_build import PackWriter
from react_core.knowledge.server import start_wiki_server
from react_core.loop.settings import RunSettings
from react_core.providers.scripted import ScriptedProvider

ROOT = Path(__file__).resolve().parent.parent


def fever_files() -> tuple[Path, Path]:
    folder = shared_data_dir() / "fever"
    return folder / "paper_dev.jsonl", folder / "react_paper_eval_500_indices.json"


def paper_prompt(name: str) -> str:
    return json.loads((shared_data_dir() / "react-prompts" / "fever.json").read_text(encoding="utf-8"))[name]


def test_the_papers_500_claims_load_in_its_order_with_their_labels():
    dev, rows = fever_files()
    claims = load_any(dev, indices=load_indices(rows))
    assert len(claims) == 500 and [c.answer for c in claims].count("NOT ENOUGH INFO") == 179
    assert [c.answer for c in claims].count("SUPPORTS") == 168 and [c.answer for c in claims].count("REFUTES") == 153
    first = claims[0]  # row 3687, as FeverWrapper.reset(idx=3687) reads it: the claim is the question
    assert (first.id, first.index, first.question, first.answer) == (
        "143807", 3687, "Paramore is not from Tennessee.", "REFUTES"
    )  # fmt: skip
    assert len(load_any(dev)) == 9_999  # not refused as a person's question set (those stop at 2 MB)


def test_the_task_is_the_datasets_unless_one_is_named(tmp_path):
    dev, _ = fever_files()
    hotpot = shared_data_dir() / "hotpotqa" / "dev_distractor_first100.json"
    own = tmp_path / "mine.jsonl"
    own.write_text(json.dumps({"question": "Is it?", "answer": "yes"}) + "\n")
    assert Task.of(dev) is FEVER and Task.of(hotpot) is HOTPOTQA and Task.of(own) is HOTPOTQA
    assert task_for([hotpot]) is HOTPOTQA and task_for([own], "fever") is FEVER
    with pytest.raises(ConfigError, match="different tasks"):
        task_for([hotpot, dev])
    with pytest.raises(ConfigError, match="Unknown task"):
        task_for([dev], "squad")


def test_fever_runs_the_papers_fever_prompts_also_on_a_model_fine_tuned_for_hotpotqa(monkeypatch):
    # An adapter answers the prompt it learned (HotpotQA's zero-shot ReAct): on HotpotQA it replaces the paper's, on
    # FEVER's claims the paper's FEVER prompt stays (a prompt chosen by hand still wins).
    monkeypatch.setattr(ScriptedProvider, "preset_for", classmethod(lambda cls, settings: "tuned-react"))
    dev, _ = fever_files()
    hotpot = str(shared_data_dir() / "hotpotqa" / "dev_distractor_first100.json")
    settings = RunSettings(provider="scripted")
    assert EvalPlan([hotpot], ["react"], "out", settings).role_presets()["react"] == "tuned-react"
    assert EvalPlan([str(dev)], ["react"], "out", settings).role_presets() == dict(FEVER.presets)
    chosen = EvalPlan([str(dev)], ["react"], "out", settings, presets={"react": "paper"})
    assert chosen.units()[0].presets["react"] == "paper"


def test_accuracy_is_the_papers_fever_reward():
    # FeverWrapper: reward 1 when normalize_answer(label) == normalize_answer(answer), recorded as EM and F1 alike.
    assert fever_scores("Supports", "SUPPORTS") == (1.0, 1.0)
    assert fever_scores("NOT ENOUGH INFO.", "NOT ENOUGH INFO") == (1.0, 1.0)
    assert fever_scores("REFUTES", "SUPPORTS") == (0.0, 0.0)
    assert fever_scores("NOT ENOUGH", "NOT ENOUGH INFO") == (0.0, 0.0)  # no partial credit, unlike HotpotQA's F1
    assert fever_scores(None, "REFUTES") == (0.0, 0.0)


def fever_ctx(outputs: list[str], **settings) -> EvalContext:
    base = RunSettings(provider="scripted", tools=["search", "lookup"], max_calls=3, **settings)
    return EvalContext(settings=base, provider=ScriptedProvider(outputs), samples=2, presets=dict(FEVER.presets))


def test_the_papers_fever_prompts_are_sent_as_its_notebook_sends_them():
    claim = "Paramore is not from Tennessee."
    ctx = fever_ctx([" REFUTES", " Paramore is from Tennessee.\nAnswer: REFUTES\n", " Finish[REFUTES]"])
    assert run_strategy("standard", claim, ctx).trace.final_answer == "REFUTES"
    assert run_strategy("cot", claim, ctx).trace.final_answer == "REFUTES"
    assert run_strategy("act", claim, ctx).trace.final_answer == "REFUTES"
    standard, cot, act = ctx.provider.requests
    # The paper's text read in place, a blank line before the claim as between its examples.
    assert standard.system + standard.prompt == paper_prompt("webqa_simple3") + f"\nClaim: {claim}\nAnswer:"
    assert cot.system + cot.prompt == paper_prompt("cotqa_simple3") + f"\nClaim: {claim}\nThought:"
    assert "\nClaim:" in cot.stop  # a CoT reply ends where the model starts the next claim
    assert act.system + act.prompt == paper_prompt("webact_simple3").lstrip("\n") + f"Claim: {claim}\nAction 1:"


def test_react_sends_the_notebooks_prompt():
    # FEVER.ipynb: prompt = webthink_simple3 + "Claim: …" + "\n", then f"Thought {i}:" (its first newline aside).
    claim = "Marnie is a film."
    ctx = fever_ctx([" I should search Marnie.\nAction 1: Finish[SUPPORTS]"])
    assert run_strategy("react", claim, ctx).trace.final_answer == "SUPPORTS"
    request = ctx.provider.requests[0]
    assert (
        request.system + request.prompt == paper_prompt("webthink_simple3").lstrip("\n") + f"Claim: {claim}\nThought 1:"
    )


# -- Act and ReAct against a local wiki --------------------------------------------------------------------------


def claims_pack(path: Path) -> Path:
    """The pages the first claims of the paper's 500 need (written for this test, Wikipedia-like)."""
    with PackWriter(path, description="pages for FEVER claims") as w:
        w.add_page("Paramore", ["Paramore is an American rock band from Franklin, Tennessee, formed in 2004."])
        w.add_page("Eric Church", ["Kenneth Eric Church is an American country music singer and songwriter."])
    return path


@pytest.fixture
def wiki(tmp_path):
    with start_wiki_server(claims_pack(tmp_path / "claims.sqlite")) as server:
        yield server
    close_shared_sources()


def test_act_and_react_check_the_papers_claims_against_a_local_wiki(tmp_path, wiki):
    dev, rows = fever_files()
    outputs = [" Search[Paramore]", " Finish[REFUTES]", " Search[Eric Church]", " Finish[REFUTES]"]  # act
    outputs += [
        " I need to search Paramore and find if it is from Tennessee.\nAction 1: Search[Paramore]",
        " Paramore is from Franklin, Tennessee, so the claim is refuted.\nAction 2: Finish[REFUTES]",
        " I need to search Eric Church.\nAction 1: Search[Eric Church]",
        " He is a singer; nothing says he mixes sound.\nAction 2: Finish[NOT ENOUGH INFO]",
    ]  # react
    provider = ScriptedProvider(outputs)
    plan = EvalPlan(
        datasets=[str(dev)],
        indices=str(rows),
        limit=2,
        strategies=["act", "react"],
        out_dir=str(tmp_path / "out"),
        settings=RunSettings(provider="scripted", knowledge="wikipedia", wiki_url=wiki.url),
    )
    result = plan.run(provider=provider)
    assert result.summaries["act"].em == 0.5 and result.summaries["react"].em == 1.0  # claim 2 is NOT ENOUGH INFO
    header, records = read_file(tmp_path / "out" / "react.jsonl")
    assert header["config"]["task"] == "fever" and header["config"]["presets"] == {"react": "fever-react"}
    assert header["config"]["knowledge"] == "wikipedia" and header["config"]["wiki_url"] == wiki.url
    assert [(r["question"], r["gold"], r["prediction"]) for r in records] == [
        ("Paramore is not from Tennessee.", "REFUTES", "REFUTES"),
        ("Eric Church is a sound mixer.", "NOT ENOUGH INFO", "NOT ENOUGH INFO"),
    ]
    # The local wiki's page reached the model as the paper's Observation, after the claim.
    second = provider.requests[5].prompt
    assert "Claim: Paramore is not from Tennessee.\nThought 1:" in second
    assert "Observation 1: Paramore is an American rock band from Franklin, Tennessee, formed in 2004." in second
    assert {entry["params"].get("titles") for entry in wiki.log} >= {"Paramore", "Eric Church"}


# -- the command line --------------------------------------------------------------------------------------------


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "react_core", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_eval_prints_accuracy_and_eval_report_sets_it_beside_the_papers_fever_column(tmp_path):
    dev, rows = fever_files()
    script = tmp_path / "s.json"
    script.write_text(json.dumps([" REFUTES", " SUPPORTS"]))
    args = ["eval", "--dataset", str(dev), "--indices", str(rows), "--limit", "2", "--strategy", "standard"]
    out = cli(*args, "--provider", "scripted", "--script", str(script), "--out", str(tmp_path / "r"), "--no-progress")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "accuracy 50.0  n=2\n"
    report = cli("eval-report", str(tmp_path / "r"))
    assert report.returncode == 0, report.stderr
    assert "| n | accuracy | well-formed steps |" in report.stdout and "| F1 |" not in report.stdout
    assert "| Standard | fever-standard@1 | 2 | 50.0 | 100.0% |" in report.stdout
    assert report.stdout.rstrip().endswith(f"| {PAPER_FEVER_ACC['standard']} |")
    named = cli(*args, "--task", "hotpotqa", "--provider", "scripted", "--script", str(script), "--out",
                str(tmp_path / "named"), "--no-progress")  # fmt: skip
    assert named.returncode == 0 and named.stdout.startswith("EM 50.0  F1 50.0")  # a named task wins
    assert read_file(tmp_path / "named" / "standard.jsonl")[0]["config"]["presets"] == {"standard": "hotpotqa-standard"}


def test_eval_table_writes_the_fever_section_and_leaves_hotpotqas_alone(tmp_path):
    # The first two of the paper's 500: REFUTES, NOT ENOUGH INFO.
    outputs = [" REFUTES", " SUPPORTS", " t\nAnswer: REFUTES", " t\nAnswer: NOT ENOUGH INFO"]  # standard, cot
    outputs += [" a\nAnswer: REFUTES", " b\nAnswer: REFUTES", " c\nAnswer: NOT ENOUGH INFO"] * 2  # cot-sc, 3 samples
    script = tmp_path / "s.json"
    script.write_text(json.dumps(outputs))
    doc = tmp_path / "evaluation.md"
    hotpot = f"{table.BEGIN}\nHotpotQA's table\n{table.END}"
    doc.write_text(f"# Before\n\n{hotpot}\n\nMiddle.\n\n{table.FEVER_BEGIN}\nold\n{table.FEVER_END}\n\nAfter.\n")
    args = ["eval-table", "--task", "fever", "--strategy", "standard", "cot", "cot-sc", "--limit", "2", "--samples"]
    args += ["3", "--out", str(tmp_path / "res"), "--doc", str(doc), "--provider", "scripted", "--script", str(script)]
    out = cli(*args, "--no-progress")
    assert out.returncode == 0, out.stderr
    text = doc.read_text()
    assert text.startswith(f"# Before\n\n{hotpot}\n\nMiddle.\n\n") and text.endswith(f"{table.FEVER_END}\n\nAfter.\n")
    section = text[text.index(table.FEVER_BEGIN) :]
    assert "old" not in section and "react_paper_eval_500_indices.json" in section and "--task fever" in section
    claims = "Claims: the first 2 of the rows of `paper_dev.jsonl` listed in `react_paper_eval_500_indices.json`"
    assert f"{claims}, from FEVER (Thorne et al. 2018, CC BY-SA 3.0). " in section  # credited once
    assert "Act, ReAct and the combinations were not run" in section
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    assert "| n | accuracy | well-formed steps |" in rows[0] and rows[0].endswith(
        "| paper accuracy (PaLM-540B, n=500) |"
    )
    cells = {r.split(" | ")[0][2:]: r.split(" | ") for r in rows[1:]}
    assert [cells[s][2] for s in ("Standard", "CoT", "CoT-SC")] == ["2", "2", "2"]
    assert [cells[s][3] for s in ("Standard", "CoT", "CoT-SC")] == ["50.0", "100.0", "50.0"]
    assert cells["ReAct"][2] == "not run" and len(cells) == 7
    assert [r.rsplit(" | ", 1)[1] for r in rows[1:]] == [f"{v} |" for v in PAPER_FEVER_ACC.values()]
    assert PAPER_FEVER_ACC != PAPER_HOTPOTQA_EM and not (tmp_path / "res" / "pack.sqlite").exists()
