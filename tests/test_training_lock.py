"""One run in a fine-tuning folder at a time: a second one (another terminal, the Fine-tune page while the command
trains the same recipe) is refused in words before it reads or writes anything, since it would rewrite the files the
first is reading and, with a plan of its own, delete its checkpoint. The lock goes with the process that held it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from react_core.base.errors import ConfigError
from react_core.base.paths import PROJECT_ROOT as ROOT
from react_core.training.finetune import LOCK, FinetunePlan, only_run
from react_core.training.recipe import Recipe


def test_a_second_run_in_a_folder_in_use_is_refused_before_it_touches_anything(tmp_path):
    folder = tmp_path / "run"
    plan = FinetunePlan(recipe=Recipe(gold=(), arithmetic=1), out=folder, python=tmp_path / "no-python")
    with only_run(folder):
        (folder / "trajectories.jsonl").write_text("the first run's\n", encoding="utf-8")
        for second in (plan.run, plan.write_only):
            with pytest.raises(ConfigError, match=f"Another run is using {folder} now"):
                second()
        assert (folder / "trajectories.jsonl").read_text(encoding="utf-8") == "the first run's\n"
        assert sorted(p.name for p in folder.iterdir()) == [LOCK, "trajectories.jsonl"]
    with only_run(folder):  # let go of when the first ended
        pass


def test_a_run_that_ends_without_letting_go_leaves_the_folder_free(tmp_path):
    # A run killed mid-training never leaves its `with`: what it held must not outlive it, or the same command could
    # never resume (a marker file would).
    folder = tmp_path / "run"
    holder = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from react_core.training.finetune import only_run\n"
        "with only_run(Path(sys.argv[1])):\n"
        "    print('held', flush=True)\n"
        "    os._exit(9)\n"
    )
    done = subprocess.run([sys.executable, "-c", holder, str(folder)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 9 and done.stdout.strip() == "held", done.stderr
    with only_run(folder):
        pass
