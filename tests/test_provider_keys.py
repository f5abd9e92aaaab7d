"""Key and base-URL resolution (explicit > environment > .streamlit/secrets.toml), the messages for a missing or
rejected key, redaction, and the provider factory's handling of names and options."""

from __future__ import annotations

from pathlib import Path

import pytest

from react_core.base.errors import ConfigError, MissingKeyError
from react_core.base.paths import secrets_files
from react_core.providers import PROVIDERS, create_provider, default_provider_name
from react_core.providers.keys import (
    configured,
    missing_key,
    read_secrets,
    redact,
    rejected_key,
    resolve_base_url,
    resolve_key,
)

GEMINI, OPENAI = PROVIDERS["gemini"], PROVIDERS["openai"]


@pytest.fixture
def secrets_file(tmp_path: Path) -> Path:
    path = tmp_path / "secrets.toml"
    path.write_text(
        'GEMINI_API_KEY = "from-secrets-gemini"\nOPENAI_API_KEY = "from-secrets-openai"\n'
        'OPENAI_BASE_URL = "http://127.0.0.1:9/v1"\n[section]\nGEMINI_API_KEY = "nested-is-ignored"\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture(autouse=True)
def no_ambient_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Neither the machine's environment nor a real secrets file may decide these tests."""
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REACT_SECRETS_PATH", str(tmp_path / "absent.toml"))


def test_explicit_key_beats_environment_and_secrets(secrets_file: Path) -> None:
    env = {"GEMINI_API_KEY": "from-env"}
    secrets = read_secrets([secrets_file])
    assert resolve_key(GEMINI, "  typed-in  ", env=env, secrets=secrets) == "typed-in"
    assert resolve_key(GEMINI, None, env=env, secrets=secrets) == "from-env"
    assert resolve_key(GEMINI, "", env={}, secrets=secrets) == "from-secrets-gemini"
    assert resolve_key(GEMINI, None, env={}, secrets={}) is None


def test_gemini_reads_either_variable_gemini_first() -> None:
    assert resolve_key(GEMINI, env={"GOOGLE_API_KEY": "g"}, secrets={}) == "g"
    assert resolve_key(GEMINI, env={"GOOGLE_API_KEY": "g", "GEMINI_API_KEY": "m"}, secrets={}) == "m"
    assert resolve_key(GEMINI, env={"GEMINI_API_KEY": "  "}, secrets={}) is None


def test_secrets_file_top_level_only_and_bad_files_skipped(secrets_file: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("this is = = not toml", encoding="utf-8")
    secrets = read_secrets([broken, tmp_path / "missing.toml", secrets_file])
    assert secrets["GEMINI_API_KEY"] == "from-secrets-gemini"
    assert "section" not in secrets
    assert resolve_base_url(OPENAI, env={}, secrets=secrets) == "http://127.0.0.1:9/v1"
    assert resolve_base_url(OPENAI, "http://x/v1", env={"OPENAI_BASE_URL": "http://y/v1"}) == "http://x/v1"


def test_secrets_path_variable_replaces_the_default_places(secrets_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REACT_SECRETS_PATH", str(secrets_file))
    assert secrets_files() == [secrets_file]
    assert resolve_key(OPENAI) == "from-secrets-openai"
    assert configured(GEMINI)
    monkeypatch.setenv("REACT_SECRETS_PATH", "")
    assert secrets_files() == []
    assert not configured(GEMINI)


def test_default_places_are_where_streamlit_looks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REACT_SECRETS_PATH")
    names = [str(p) for p in secrets_files()]
    assert all(n.endswith(".streamlit/secrets.toml") for n in names)
    assert str(Path.home() / ".streamlit" / "secrets.toml") in names


@pytest.mark.parametrize("name, variable", [("gemini", "GEMINI_API_KEY"), ("openai", "OPENAI_API_KEY")])
def test_missing_and_rejected_key_messages_say_where_to_set_it(name: str, variable: str) -> None:
    provider = PROVIDERS[name]
    for error in (missing_key(provider), rejected_key(provider, "HTTP 401: bad key")):
        assert isinstance(error, MissingKeyError)
        text = str(error)
        assert "\n" not in text
        assert variable in text and "secrets.toml" in text and "Settings page" in text
    assert "GOOGLE_API_KEY" in str(missing_key(GEMINI))
    assert "OPENAI_BASE_URL" in str(missing_key(OPENAI))


def test_redact_replaces_every_occurrence() -> None:
    assert redact("key sk-secret-1 and sk-secret-1 again", ["sk-secret-1", None, ""]) == "key *** and *** again"
    assert redact("short abc", ["abc"]) == "short abc"  # too short to be a key; never mangle ordinary words


def test_factory_hosted_providers_need_a_key() -> None:
    with pytest.raises(MissingKeyError, match="GEMINI_API_KEY"):
        create_provider("gemini")
    with pytest.raises(MissingKeyError, match="OPENAI_API_KEY"):
        create_provider("openai")


def test_factory_openai_key_optional_with_a_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    p = create_provider("openai", base_url="http://127.0.0.1:9/v1", model="llama", script="ignored", delay=1)
    assert p.name == "openai" and p.model == "llama" and p.base_url == "http://127.0.0.1:9/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8/v1")
    assert create_provider("openai").base_url == "http://127.0.0.1:8/v1"


def test_factory_unknown_name_and_missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Unknown provider 'bard'"):
        create_provider("bard")
    with pytest.raises(ConfigError, match="does not exist"):
        create_provider("local", model_path=str(tmp_path / "nope.gguf"))


def test_local_provider_is_labelled_a_demo_unless_the_person_chose_a_file(tmp_path: Path) -> None:
    demo = create_provider("local", model="ignored", api_key="ignored")
    # The base model's notice says it is often wrong; with the shipped adapter it says how often it is right.
    assert demo.is_demo and ("often wrong" in demo.demo_notice or "held-out" in demo.demo_notice)
    assert "GEMINI_API_KEY" in demo.demo_notice and "OPENAI_API_KEY" in demo.demo_notice
    assert PROVIDERS["local"].demo_for({"model_path": ""})
    own = tmp_path / "mine.gguf"
    own.write_bytes(b"GGUF")
    chosen = create_provider("local", model_path=str(own))
    assert not chosen.is_demo and chosen.model == "mine.gguf"
    assert not PROVIDERS["local"].demo_for({"model_path": str(own)})
    assert "\nQuestion:" in chosen.extra_stops


def test_every_provider_describes_itself_for_menus_keys_and_scheduling() -> None:
    settings_fields = {"model", "base_url", "model_path", "adapter", "script", "delay"}
    for name, cls in PROVIDERS.items():
        assert cls.name == name and cls.label and cls.choice and cls.default_model
        assert set(cls.options) <= settings_fields, name
        if cls.key_vars:  # a key is read from the variables it declares, and the messages name them
            assert cls.hosted and all(v in str(missing_key(cls)) for v in cls.key_vars)
        assert cls.demo_notice or not cls.is_demo
    # What callers rely on instead of names: the evaluation's scheduling and the session's sharing.
    assert not PROVIDERS["scripted"].concurrent and not PROVIDERS["local"].concurrent
    assert PROVIDERS["local"].shared and not any(PROVIDERS[n].shared for n in ("openai", "gemini", "scripted"))


def test_without_a_configured_key_the_default_is_the_on_device_model(secrets_file: Path) -> None:
    assert default_provider_name(env={}) == "local"
    assert default_provider_name(env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}) == "openai"
    assert default_provider_name(env={"OPENAI_API_KEY": "k", "GEMINI_API_KEY": "g"}) == "gemini"
    assert default_provider_name(env={"REACT_SECRETS_PATH": str(secrets_file)}) == "gemini"
