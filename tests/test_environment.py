"""Every environment variable has one home (react_core.base.environment), the code reads no other, settings and app
pins take their defaults from it, and the reference in docs/deployment.md documents every one, API keys included."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from react_core.base import environment
from react_core.loop.settings import RunSettings
from react_core.providers import PROVIDERS

ROOT = Path(__file__).resolve().parent.parent
_NAME = re.compile(r"^REACT_[A-Z0-9_]+$")


def _string_constants(paths):
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                yield path, node.value


def test_the_code_names_no_undeclared_react_variable():
    sources = [*ROOT.glob("react_core/**/*.py"), *ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]
    used = {value for _path, value in _string_constants(sources) if _NAME.match(value)}
    assert used, "the scan found no variable names at all"
    assert used <= set(environment.BY_NAME), sorted(used - set(environment.BY_NAME))


def test_reading_an_undeclared_variable_is_a_bug_not_a_silent_empty_value():
    with pytest.raises(KeyError, match="not declared"):
        environment.environment_value("REACT_NO_SUCH_THING")


def test_every_setting_variable_gives_its_setting_a_default():
    env = {name: "x" for name in environment.SETTING_VARIABLES.values()}
    env["REACT_PROVIDER"] = "scripted"
    settings = RunSettings.from_env(env).to_dict()
    for field, name in environment.SETTING_VARIABLES.items():
        assert field in settings, f"{name} names a setting {field!r} that RunSettings does not have"
        assert settings[field] == env[name]


def test_the_deployment_reference_documents_every_variable_and_every_key():
    page = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")
    reference = page.split("\n## Settings and environment reference\n", 1)[1].split("\n## ", 1)[0]
    keys = {v for cls in PROVIDERS.values() for v in (*cls.key_vars, *cls.base_url_vars)}
    missing = sorted(n for n in [*environment.BY_NAME, *keys] if f"`{n}`" not in reference)
    assert not missing, f"docs/deployment.md's settings and environment reference does not mention {missing}"


def test_the_command_line_help_lists_every_variable_with_its_meaning():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "react_core", "--help"], cwd=ROOT, capture_output=True, text=True)
    for variable in environment.VARIABLES:
        assert f"{variable.name}" in out.stdout and variable.meaning in out.stdout
