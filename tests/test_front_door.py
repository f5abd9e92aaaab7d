"""The engine's front door (react_core/__init__.py): every name it offers is there, importing it is cheap, and a
person's script runs a question through it alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import react_core

ROOT = Path(__file__).resolve().parent.parent


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


def test_importing_the_front_door_loads_none_of_its_parts():
    code = "import sys, react_core; print(sorted(n for n in sys.modules if n.startswith('react_core.')))"
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
