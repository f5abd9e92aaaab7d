"""Bootstrapping examples from runs, with scripted models whose right answers are known: only right and grounded
trajectories become examples, the candidate set that scores best on dev is chosen and written as a preset that
passes the check, a stopped bootstrap resumes without rerunning what finished, and no dev question ever becomes an
example."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from react_core.base.errors import ConfigError
from react_core.dialects import DIALECTS
from react_core.evaluation.bootstrap import BootstrapPlan, candidate_sets, write_example
from react_core.loop.settings import RunSettings
from react_core.presets.check import validate_preset
from react_core.presets.preset import Preset, load_preset, load_preset_file
from react_core.presets.store import PresetStore
from react_core.providers.scripted import ScriptedProvider

# Train: 2*3 and 3*3 are answered right with the Calculator (grounded); 4*3 right but from memory (not grounded);
# 5*3 wrong. Dev: 7*3, 8*3. Test: 9*3 (never run). 7*3 also appears in train (a duplicate): it must not be used.
ROWS = [
    ("t1", "What is 2 * 3?", "6"),
    ("t2", "What is 3 * 3?", "9"),
    ("t3", "What is 4 * 3?", "12"),
    ("t4", "What is 5 * 3?", "15"),
    ("t5", "What is 7 * 3?", "21"),
    ("d1", "What is 7 * 3?", "21"),
    ("d2", "What is 8 * 3?", "24"),
    ("x1", "What is 9 * 3?", "27"),
]
QUESTION = re.compile(r"Question: What is (\d+) \* 3\?\n", re.MULTILINE)


class Arithmetic(ScriptedProvider):
    """A model that works the question out from its prompt. As a teacher, it answers as ROWS' comment says; as a
    student, it answers dev questions right only when the examples show ``3 * 3`` worked out (a quirk, so that one
    candidate set is better than the others). ``stop_after``: sets ``cancel`` after that many calls."""

    def __init__(self, role: str, cancel: threading.Event | None = None, stop_after: int = 0) -> None:
        super().__init__([])
        self.role, self.cancel, self.stop_after, self.calls = role, cancel, stop_after, 0

    def _take(self, request):
        self.calls += 1
        if self.cancel is not None and self.calls == self.stop_after:
            self.cancel.set()
        self.requests.append(request)
        text = request.system + request.prompt
        asked = list(QUESTION.finditer(text))[-1]
        n, examples, tail = int(asked.group(1)), text[: asked.start()], text[asked.end() :]
        computed = "Observation 1" in tail
        if self.role == "teacher":
            if n == 4:
                return "Thought 1: I know this.\nAction 1: Finish[12]"
            if not computed:
                return f"Thought 1: I compute it.\nAction 1: Calculator[{n} * 3]"
            return f"Thought 2: Done.\nAction 2: Finish[{n * 3 + (1 if n == 5 else 0)}]"
        if "Calculator[3 * 3]" not in examples:
            return "Thought 1: A guess.\nAction 1: Finish[0]"
        if not computed:
            return f"Thought 1: I compute it.\nAction 1: Calculator[{n} * 3]"
        return f"Thought 2: Done.\nAction 2: Finish[{n * 3}]"


def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "arith.csv"
    path.write_text("id,question,answer\n" + "".join(f"{i},{q},{a}\n" for i, q, a in ROWS))
    return path


def plan(tmp_path: Path, **changes) -> BootstrapPlan:
    settings = RunSettings(provider="scripted", script="[]")
    base = dict(
        dataset=str(dataset(tmp_path)),
        start="paper",
        out=str(tmp_path / "new.toml"),
        settings=settings,
        train=5,
        dev=2,
        k=1,
        candidates=8,
        seed=3,
        tools=["calculator"],
    )
    return BootstrapPlan(**{**base, **changes})


def test_keeps_only_right_grounded_runs_and_picks_the_set_best_on_dev(tmp_path):
    result = plan(tmp_path).run(teacher=Arithmetic("teacher"), student=Arithmetic("student"))
    assert result.qualified == ["t1", "t2"]  # t3 right but not grounded, t4 wrong, t5 is a dev question
    assert sorted(c.example_ids[0] for c in result.candidates) == ["t1", "t2"]
    assert result.best.example_ids == ["t2"] and result.best.summary.em == 1.0 and result.start.em == 0.0
    preset = load_preset_file(result.out)
    assert validate_preset(preset, ["calculator"]) == []
    assert "Calculator[3 * 3]" in preset.examples and "2 * 3" not in preset.examples
    text = Path(result.out).read_text()
    assert text.startswith("# Bootstrapped from paper") and "Dev EM 100.0" in text and "against 0.0 / 0.0" in text
    for row in ROWS[5:]:  # no dev or test question in any example tried
        for toml in [result.out, *tmp_path.glob("new.bootstrap/candidate-*.toml")]:
            assert row[1] not in load_preset_file(toml).examples
    store = PresetStore()
    assert result.keep(store) == "new@1" and store.load("new@1").examples == preset.examples  # the person's own now


def test_the_same_seed_gives_the_same_candidate_sets():
    ids = [f"q{i}" for i in range(10)]
    assert candidate_sets(ids, 3, 8, seed=1) == candidate_sets(ids, 3, 8, seed=1)
    assert candidate_sets(ids, 3, 8, seed=1) != candidate_sets(ids, 3, 8, seed=2)
    assert len({tuple(s) for s in candidate_sets(ids, 3, 8, seed=1)}) == 8
    assert candidate_sets(ids[:2], 3, 8, seed=1) == [ids[:2]] and len(candidate_sets(ids[:3], 2, 8, 0)) == 3


def test_a_stopped_bootstrap_resumes_where_it_stopped(tmp_path):
    cancel = threading.Event()
    teacher = Arithmetic("teacher")
    first = plan(tmp_path).run(teacher=teacher, student=Arithmetic("student", cancel, stop_after=3), cancel=cancel)
    assert first.stopped and first.out is None and "resume" in first.message
    again_teacher, student = Arithmetic("teacher"), Arithmetic("student")
    second = plan(tmp_path).run(teacher=again_teacher, student=student)
    assert again_teacher.calls == 0  # the teacher's results were kept
    assert not second.stopped and second.best.example_ids == ["t2"] and Path(second.out).is_file()
    with pytest.raises(ConfigError, match="made differently"):
        plan(tmp_path, seed=4).run(teacher=Arithmetic("teacher"), student=Arithmetic("student"))


def test_says_plainly_when_no_trajectory_qualified(tmp_path):
    class Wrong(Arithmetic):
        def _take(self, request):
            self.requests.append(request)
            return "Thought 1: A guess.\nAction 1: Finish[0]"

    result = plan(tmp_path).run(teacher=Wrong("teacher"), student=Wrong("student"))
    assert result.out is None and not result.stopped and result.message.startswith("No trajectory qualified")
    assert not (tmp_path / "new.toml").exists()


def test_the_cli_bootstraps_with_a_teacher_of_its_own(tmp_path):
    data = dataset(tmp_path)
    teacher = tmp_path / "teacher.json"  # t1 right and grounded, t2 right from memory, t3 wrong
    teacher.write_text(
        json.dumps(
            [
                "Thought 1: Compute.\nAction 1: Calculator[2 * 3]",
                "Thought 2: Done.\nAction 2: Finish[6]",
                "Thought 1: I know.\nAction 1: Finish[9]",
                "Thought 1: Guess.\nAction 1: Finish[1]",
            ]
        )
    )
    student = (
        tmp_path / "student.json"
    )  # with --train 3 --dev 1 the dev question is row 4, 5 * 3: the start, then candidate 1
    student.write_text(
        json.dumps(
            [
                "Thought 1: Guess.\nAction 1: Finish[0]",
                "Thought 1: Compute.\nAction 1: Calculator[5 * 3]",
                "Thought 2: Done.\nAction 2: Finish[15]",
            ]
        )
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "react_core",
            "bootstrap",
            "--dataset",
            str(data),
            "--train",
            "3",
            "--dev",
            "1",
            "--from",
            "paper",
            "--k",
            "1",
            "--provider",
            "scripted",
            "--script",
            str(student),
            "--teacher-script",
            str(teacher),
            "--tools",
            "calculator",
            "--out",
            str(tmp_path / "new.toml"),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"Wrote {tmp_path / 'new.toml'}: dev EM 100.0 with candidate 1 of 1 vs 0.0 with paper")
    assert "(1 of 3 trajectories qualified)" in out.stdout
    assert "Calculator[2 * 3]" in load_preset_file(tmp_path / "new.toml").examples


@pytest.mark.parametrize("dialect", [d for d in DIALECTS if not DIALECTS[d].native_tools])
def test_a_run_is_written_as_an_example_every_text_dialect_reads_back(dialect):
    from react_core.base.trace import Action, Observation, Step, Trace

    preset = load_preset(Preset.default_for(dialect))
    steps = [Step(1, "I compute it.", Action("calculator", "6 * 7"), Observation("6 * 7 = 42", evidence=True))]
    steps.append(Step(2, "It is 42.", final_answer="42"))
    trace = Trace("What is 6 * 7?", steps=steps, final_answer="42", stop_reason="finished")
    example = write_example(trace, preset)
    assert "What is 6 * 7?" in example and "6 * 7 = 42" in example
    assert validate_preset(replace(preset, examples=example), ["calculator"]) == []


def test_a_right_yes_no_answer_qualifies_only_after_a_tool_returned_evidence():
    # A yes or a no never occurs in a page, so "grounded" cannot hold for it; a trajectory that read evidence before
    # it answers qualifies, one that answered from memory (or after a miss) does not.
    from react_core.base.trace import Action, Observation, Step, Trace
    from react_core.evaluation.bootstrap import qualified_examples

    def run(qid: str, observation: Observation | None) -> dict:
        steps = [] if observation is None else [Step(1, "Search A.", Action("search", "A"), observation=observation)]
        steps.append(Step(len(steps) + 1, "Both are.", final_answer="yes"))
        trace = Trace("Are A and B both films?", steps=steps, final_answer="yes", stop_reason="finished")
        return {"id": qid, "index": len(qid), "em": 1.0, "trace": trace.to_dict()}

    page = Observation("A is a 1999 film.", evidence=True)
    miss = Observation("Could not find [A]. Similar: ['A (film)'].", evidence=False)
    records = [run("read", page), run("memory", None), run("missed", miss)]
    assert list(qualified_examples(records, load_preset("paper"), ["search"])) == ["read"]


def test_a_wrong_answer_never_qualifies_even_when_grounded_finished_and_readable():
    # The teacher's wrong runs above are also ungrounded; this one read its answer in a page and is still wrong (its
    # F1 is high: only an exact match qualifies).
    from react_core.base.trace import Action, Observation, Step, Trace
    from react_core.evaluation.bootstrap import qualified_examples

    def run(qid: str, answer: str, em: float | None, f1: float) -> dict:
        page = Observation("Ed Wood was an American filmmaker born in 1924.", evidence=True)
        steps = [Step(1, "Search him.", Action("search", "Ed Wood"), observation=page)]
        steps.append(Step(2, "Found it.", final_answer=answer))
        trace = Trace("Where was Ed Wood from?", steps=steps, final_answer=answer, stop_reason="finished")
        record = {"id": qid, "index": len(qid), "f1": f1, "trace": trace.to_dict()}
        return record if em is None else {**record, "em": em}

    records = [
        run("right", "American", 1.0, 1.0),
        run("wrong", "American filmmaker", 0.0, 0.67),
        run("unscored", "American", None, 1.0),
    ]
    assert list(qualified_examples(records, load_preset("paper"), ["search"])) == ["right"]
