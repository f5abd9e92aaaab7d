"""The benchmarks import the engine lazily (inside functions, so a bench starts fast and runs its workers in fresh
processes); nothing else runs them in the suite. This reads every engine import in ``bench/`` and checks it still
resolves, so a module moved or a name renamed in the engine fails here, not in the next person's ``make bench``."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _engine_imports() -> list[tuple[str, str, str, int]]:
    found = []
    for path in sorted(BENCH.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "react_core":
                found += [(path.name, node.module, alias.name, node.lineno) for alias in node.names]
    return found


@pytest.mark.parametrize(("bench", "module", "name", "line"), _engine_imports())
def test_bench_engine_import_resolves(bench: str, module: str, name: str, line: int) -> None:
    imported = importlib.import_module(module)
    if not hasattr(imported, name):
        importlib.import_module(f"{module}.{name}")  # a submodule imported by name; raises when it is gone too
