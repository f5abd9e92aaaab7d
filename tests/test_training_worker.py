"""The training worker's process (``react_core/training/worker.py``) runs in the training environment, which holds
torch, transformers and peft and nothing of the app's: it must start there without the engine's front door."""

from __future__ import annotations

import sys

import pytest

from react_core.base.errors import ConfigError
from react_core.training.finetune import run_worker


def test_the_worker_starts_where_nothing_of_the_app_is_installed(tmp_path):
    # A python without site-packages stands in for the training environment: importing the front door there fails
    # on the app's first package, while the worker itself needs only the standard library until it asks for torch
    # (which it says is missing).
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    with pytest.raises(ConfigError, match="the training environment lacks torch"):
        run_worker(python, tmp_path, lambda report: None, None)
