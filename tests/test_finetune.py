"""Fine-tuning end to end in the training environment (``make finetune-env``), on one core: gold trajectories of a few
questions -> a LoRA adapter as llama.cpp's GGUF with its manifest -> loaded on the packaged model -> a run. A run
stopped after its first step and started again ends with the same adapter, byte for byte, as one never stopped."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from training_helpers import write_records

from react_core.base.paths import PROJECT_ROOT, training_python
from react_core.providers.adapters import ADAPTER_FILE, file_sha256, read_manifest
from react_core.training.finetune import FinetunePlan
from react_core.training.recipe import Recipe

pytestmark = [
    pytest.mark.training,
    pytest.mark.timeout(900),
    pytest.mark.skipif(not training_python().is_file(), reason="no training environment: make finetune-env"),
]


def _plan(folder: Path, data: Path) -> FinetunePlan:
    recipe = Recipe(gold=(str(data),), arithmetic=1, rank=2, alpha=4, epochs=1, batch=2, checkpoint_every=1)
    return FinetunePlan(recipe=recipe, out=folder, title="Tiny test adapter", threads=1)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("finetune")
    data = write_records(folder)
    events: list[dict] = []
    result = _plan(folder / "run", data).run(on_progress=events.append)
    return result, data, events


def test_gold_trajectories_become_an_adapter_llama_cpp_loads_with_a_manifest_of_how(trained):
    result, data, events = trained
    assert not result.stopped and result.adapter == result.folder / ADAPTER_FILE
    assert 0 < result.adapter.stat().st_size < 10_000_000
    manifest = read_manifest(result.adapter)
    assert manifest.recipe == _plan(result.folder, data).recipe.to_dict() and manifest.preset == "tuned-react"
    assert manifest.data["trajectories"] == 6 and manifest.data["by_source"] == {"gold": 6}
    assert manifest.adapter_sha256 == file_sha256(result.adapter) and manifest.title == "Tiny test adapter"
    steps = [e for e in events if e["kind"] == "step"]
    assert [e["step"] for e in steps] == [1, 2, 3] and all(e["loss"] > 0 and e["eta"] >= 0 for e in steps)
    # A run on the packaged model with the adapter, on one core, in a process of its own.
    pack = f"pack:{result.folder / 'gold-pack.sqlite'}"
    command = [
        sys.executable,
        "-m",
        "react_core",
        "ask",
        "Which band released the album Doolittle?",
        "--provider",
        "local",
        "--adapter",
        str(result.adapter),
        "--knowledge",
        pack,
        "--max-calls",
        "2",
        "--json",
    ]
    env = {**os.environ, "REACT_LLAMA_THREADS": "1"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=PROJECT_ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"adapter":' in done.stdout and "Tiny test adapter" in done.stdout  # the run records what it ran with
    assert '"preset": "tuned-react"' in done.stdout  # the adapter's own prompt, chosen for it


def test_a_stopped_run_resumes_from_its_checkpoint_to_the_same_adapter(trained, tmp_path):
    result, data, _ = trained
    stop = threading.Event()

    before: list[dict] = []

    def stop_after_first_step(event: dict) -> None:
        before.append(event)
        if event["kind"] == "step":
            stop.set()

    first = _plan(tmp_path / "run", data).run(on_progress=stop_after_first_step, cancel=stop)
    assert first.stopped and first.adapter is None and (tmp_path / "run" / "checkpoint" / "state.pt").is_file()
    events: list[dict] = []
    again = _plan(tmp_path / "run", data).run(on_progress=events.append)
    resumed = [e for e in events if e["kind"] in ("resumed", "step")][0]
    assert resumed["kind"] == "resumed"
    assert file_sha256(again.adapter) == file_sha256(result.adapter)
    # What training cost counts every process it took, as its wall time does: the CPU-seconds of the run before the
    # Stop are carried by the checkpoint into the manifest, not only the last process's own.
    (stopped,) = [e for e in before if e["kind"] == "stopped"]
    assert stopped["cpu_seconds"] > 0 and resumed["cpu_seconds"] == stopped["cpu_seconds"]
    training = read_manifest(again.adapter).training
    assert training["cpu_seconds"] > stopped["cpu_seconds"] and training["peak_mb"] > 0
