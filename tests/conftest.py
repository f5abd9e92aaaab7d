"""Test-wide guards and fixtures: no test reaches beyond 127.0.0.1, user folders point into a temp dir, and
property tests run the same examples on every run."""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
# The PostgreSQL server fixtures (and open_store on either database), and our MCP server (our_url), for every test
# module, whichever runs alone.
pytest_plugins = ("pg_helpers", "mcp_helpers")

# Property tests are deterministic by default: the same examples every run (derandomize), nothing remembered
# between runs (no database), a fixed number of examples, no per-example deadline (CI machines are slow; a hang
# guard per test is pytest-timeout's job). HYPOTHESIS_PROFILE=dev explores at random with more examples instead;
# pin anything it finds with @example.
settings.register_profile("deterministic", derandomize=True, database=None, max_examples=200, deadline=None)
settings.register_profile("dev", derandomize=False, max_examples=2_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
_real_connect = socket.socket.connect


def _is_local(address: object) -> bool:
    if isinstance(address, str):  # AF_UNIX
        return True
    host = address[0] if isinstance(address, tuple) else address
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_local(address):
        raise OSError(f"tests must stay offline: blocked a connection to {address!r}")
    return _real_connect(self, address)


@pytest.fixture(autouse=True, scope="session")
def _offline_and_isolated(tmp_path_factory: pytest.TempPathFactory):
    """Block non-loopback connections in this process and keep user data out of the real home folders."""
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    home = tmp_path_factory.mktemp("user")
    hidden = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "REACT_PROVIDER", "REACT_MODEL")
    saved = {
        k: os.environ.get(k)
        for k in (
            "REACT_DATA_DIR",
            "REACT_CACHE_DIR",
            "REACT_PRESETS_DIR",
            "REACT_HISTORY_DB",
            "REACT_PACK",
            "REACT_SECRETS_PATH",
            *hidden,
        )
    }
    # No test may pick up a developer's real key or secrets file.
    for k in hidden:
        os.environ.pop(k, None)
    os.environ["REACT_SECRETS_PATH"] = ""
    # Whatever a test does not point elsewhere (evaluation results, the on-device model) stays in this folder too.
    os.environ["REACT_DATA_DIR"] = str(home / "data")
    os.environ["REACT_CACHE_DIR"] = str(home / "cache")
    os.environ["REACT_PRESETS_DIR"] = str(home / "presets")
    os.environ["REACT_HISTORY_DB"] = str(home / "history.sqlite")
    # The default offline pack (the stand-in for unreachable Wikipedia) is built here, not in the user's cache.
    os.environ["REACT_PACK"] = str(home / "hotpotqa-pack.sqlite")
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared reference data (HotpotQA, the paper's prompts). CI places ../shared beside the clone."""
    path = Path(os.environ.get("REACT_SHARED_DATA") or ROOT.parent / "shared" / "data")
    if not (path / "hotpotqa").is_dir():
        pytest.fail(f"shared data not found at {path}: set REACT_SHARED_DATA or place ../shared beside the project")
    return path


# The files that start a model server, a browser or Phoenix (the longest ones) are collected first: make test hands
# whole files to its two workers in the order collected, and a long file handed out last keeps one worker busy while
# the other has nothing left to do.
_FIRST = ("model_server", "training", "browser", "server")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank: dict[Path, int] = {}
    for item in items:
        marks = {m.name for m in item.iter_markers()}
        here = min((i for i, name in enumerate(_FIRST) if name in marks), default=len(_FIRST))
        rank[item.path] = min(rank.get(item.path, here), here)
    items.sort(key=lambda item: rank[item.path])  # stable: a file's tests keep their order
