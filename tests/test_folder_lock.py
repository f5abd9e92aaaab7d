"""One run at a time in a folder a long job writes and resumes from: a second fine-tuning of the same recipe (another
terminal, the Fine-tune page while the command trains) or a second evaluation into the same results folder is refused
in words before it reads or writes anything, since it would rewrite or append to the files the first is using (and a
fine-tuning plan of its own would delete the first's checkpoint). The lock goes with the process that held it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_evaluation import QUESTIONS, write_dataset

from react_core.base.errors import ConfigError
from react_core.base.folder_lock import LOCK, only_run
from react_core.base.paths import PROJECT_ROOT as ROOT
from react_core.evaluation.run import EvalPlan
from react_core.loop.settings import RunSettings
from react_core.providers.scripted import ScriptedProvider
from react_core.training.finetune import FinetunePlan
from react_core.training.recipe import Recipe


def test_a_second_run_in_a_folder_in_use_is_refused_before_it_touches_anything(tmp_path):
    folder = tmp_path / "run"
    plan = FinetunePlan(recipe=Recipe(gold=(), arithmetic=1), out=folder, python=tmp_path / "no-python")
    with only_run(folder, "the first"):
        (folder / "trajectories.jsonl").write_text("the first run's\n", encoding="utf-8")
        for second in (plan.run, plan.write_only):
            with pytest.raises(ConfigError, match=f"Another run is using {folder} now"):
                second()
        assert (folder / "trajectories.jsonl").read_text(encoding="utf-8") == "the first run's\n"
        assert sorted(p.name for p in folder.iterdir()) == [LOCK, "trajectories.jsonl"]
    with only_run(folder, "the first"):  # let go of when the first ended
        pass


def test_a_second_evaluation_into_a_results_folder_in_use_is_refused_and_appends_nothing(tmp_path):
    out = tmp_path / "out"
    plan = EvalPlan(
        datasets=[str(write_dataset(tmp_path, QUESTIONS))],
        strategies=["cot"],
        out_dir=str(out),
        settings=RunSettings(provider="scripted"),
    )
    with only_run(out, "the first"):
        with pytest.raises(ConfigError, match=f"Another run is using {out} now"):
            plan.run(provider=ScriptedProvider(["Answer: x"] * 9))
        assert sorted(p.name for p in out.iterdir()) == [LOCK]
    done = plan.run(provider=ScriptedProvider(["Thought: so.\nAnswer: x"] * 9))  # free again: it runs
    assert not done.stopped and any(out.glob("*.jsonl"))


def test_a_run_that_ends_without_letting_go_leaves_the_folder_free(tmp_path):
    # A run killed mid-training never leaves its `with`: what it held must not outlive it, or the same command could
    # never resume (a marker file would).
    folder = tmp_path / "run"
    holder = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from react_core.base.folder_lock import only_run\n"
        "with only_run(Path(sys.argv[1]), 'the first'):\n"
        "    print('held', flush=True)\n"
        "    os._exit(9)\n"
    )
    done = subprocess.run([sys.executable, "-c", holder, str(folder)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 9 and done.stdout.strip() == "held", done.stderr
    with only_run(folder, "the second"):
        pass
