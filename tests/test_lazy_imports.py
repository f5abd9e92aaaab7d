"""The benchmarks, and the tests that need the on-device model or a browser, import the engine lazily (inside
functions, so they start fast and can run workers in fresh processes), and a quick run never reaches them. This reads
every engine import in ``bench/`` and ``tests/`` and checks it still resolves, so a module moved or a name renamed in
the engine fails in every run, not in the next ``make bench`` or full suite."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


FILES = sorted([*(ROOT / "bench").glob("*.py"), *(ROOT / "tests").glob("*.py")])


def _unresolved(module: str, name: str) -> bool:
    try:
        imported = importlib.import_module(module)
        if not hasattr(imported, name):
            importlib.import_module(f"{module}.{name}")  # a submodule imported by name
    except ImportError:
        return True
    return False


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_engine_import_resolves(path: Path) -> None:
    broken = [
        f"line {node.lineno}: from {node.module} import {alias.name}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "react_core"
        for alias in node.names
        if _unresolved(node.module, alias.name)
    ]
    assert not broken, broken
