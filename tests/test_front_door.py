"""The engine's front door (react_core/__init__.py): plain imports of the run's types and verbs, each one used by
the app, the command line or the docs' examples; importing it loads no SDK; a person's script runs a question through
it alone."""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import react_core

ROOT = Path(__file__).resolve().parent.parent
FRONT_DOOR = ROOT / "react_core" / "__init__.py"

# Names the front door offers that no app file, command or docs example uses, and why.
UNUSED_ON_PURPOSE = {
    # The typed events ``stream`` yields: a person's script tells them apart by type (docs/engine.md lists them).
    "StepStarted": "an event stream yields",
    "TextDelta": "an event stream yields",
    "ActionParsed": "an event stream yields",
    "ToolProgress": "an event stream yields",
    "StepDone": "an event stream yields",
    "Paused": "an event stream yields",
}


def _front_door_imports() -> list[ast.ImportFrom]:
    tree = ast.parse(FRONT_DOOR.read_text(encoding="utf-8"))
    return [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module != "__future__"]


def _app_and_docs_text() -> str:
    app = [*ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py", *ROOT.glob("react_core/cli/*.py")]
    code = [p.read_text(encoding="utf-8") for p in app]
    for doc in [*ROOT.glob("docs/*.md"), ROOT / "README.md"]:
        code += re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    return "\n".join(code)


def test_the_front_door_is_plain_imports_without_aliases():
    imports = _front_door_imports()
    imported = [a.name for n in imports for a in n.names]
    assert not [a.name for n in imports for a in n.names if a.asname], "the front door renames a name"
    assert sorted(imported) == sorted(react_core.__all__), "__all__ and the imports differ"
    assert len(imported) == len(set(imported))
    for node in imports:
        module = importlib.import_module(node.module)
        declared = getattr(module, "__all__", None)
        assert declared is not None, f"{node.module} declares no __all__"
        names = [a.name for a in node.names]
        assert set(names) <= set(declared), f"{node.module}.__all__ lacks {set(names) - set(declared)}"
        assert not [n for n in names if isinstance(getattr(module, n), type(sys))], "a whole module is exported"
    assert not hasattr(react_core, "__getattr__"), "names are imported, not looked up on first use"


def test_every_name_is_used_by_the_app_the_command_line_or_the_docs():
    text = _app_and_docs_text()
    used = set(re.findall(r"react_core\.(\w+)", text))
    for block in re.findall(r"from react_core import (\([^)]*\)|[^\n]*)", text):
        used.update(re.findall(r"\w+", block))
    unused = sorted(set(react_core.__all__) - used - set(UNUSED_ON_PURPOSE))
    assert not unused, f"front-door names nothing outside the engine uses: {unused}"
    assert set(UNUSED_ON_PURPOSE) <= set(react_core.__all__)


def test_every_name_the_front_door_offers_resolves():
    missing = [name for name in react_core.__all__ if getattr(react_core, name, None) is None]
    assert not missing
    assert {"ask", "stream", "Trace", "Step", "RunSettings", "DIALECTS", "PROVIDERS", "open_history"} <= set(
        react_core.__all__
    )
    assert set(react_core.__all__) <= set(dir(react_core))


def test_an_unknown_name_is_an_attribute_error():
    try:
        react_core.NoSuchThing  # noqa: B018
    except AttributeError as e:
        assert "NoSuchThing" in str(e)
    else:
        raise AssertionError("an unknown name resolved")


def test_importing_the_front_door_loads_no_sdk_llama_cpp_or_training_stack():
    # The OpenTelemetry semantic conventions (attribute names, loaded by the span modules) are a few constants; the
    # SDK and its exporter are not.
    heavy = ["openai", "google.genai", "llama_cpp", "torch", "transformers", "peft", "jsonschema", "opentelemetry.sdk"]
    heavy += ["opentelemetry.exporter", "psycopg", "httpx", "mcp", "streamlit", "pandas"]
    code = f"import sys, react_core; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_script_asks_and_streams_a_question_through_the_front_door(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([" Compute.\nAction 1: Calculator[6 * 7]", " So.\nAction 2: Finish[42]"] * 2))
    settings = react_core.RunSettings(provider="scripted", script=str(script), tools=["calculator"])
    events = list(react_core.stream("What is 6 * 7?", settings))
    assert isinstance(events[-1], react_core.RunDone)
    trace = events[-1].trace
    assert trace.final_answer == "42" and [s.index for s in trace.steps] == [1, 2]
    assert [e.step for e in events if isinstance(e, react_core.StepDone)] == trace.steps
    assert react_core.ask("What is 6 * 7?", settings).final_answer == "42"
