"""The default offline pack: where it lives and building it on first need from the shared HotpotQA files.

``default_pack_path()`` is ``REACT_PACK`` or ``<user cache>/react-lab/hotpotqa-pack.sqlite``. ``ensure_default_pack()``
returns that path once a usable pack is there, building it (about a second) from the shared data's
``hotpotqa/dev_distractor_*.json`` when missing; None when there is nothing to build from. Depends on pack and
pack_build; reads the shared data folder through ``react_core.prompts.shared_data_dir`` (imported when needed).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from react_core.errors import ConfigError
from react_core.knowledge.pack import PackSource

PACK_FILE = "hotpotqa-pack.sqlite"
_build_lock = threading.Lock()


def default_pack_path() -> Path:
    if os.environ.get("REACT_PACK"):
        return Path(os.environ["REACT_PACK"]).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("react-lab", appauthor=False)) / PACK_FILE


def hotpotqa_sources() -> list[Path]:
    """The shared distractor-format files the default pack is built from (empty when the shared data is absent)."""
    from react_core.prompts import shared_data_dir

    return sorted((shared_data_dir() / "hotpotqa").glob("dev_distractor_*.json"))


def _usable(path: Path) -> bool:
    try:
        PackSource(path).close()
        return True
    except ConfigError:
        return False


def ensure_default_pack() -> Path | None:
    """The default pack's path, built first if needed; None when it is missing and cannot be built."""
    path = default_pack_path()
    with _build_lock:
        if path.is_file() and _usable(path):
            return path
        sources = hotpotqa_sources()
        if not sources:
            return None
        from react_core.knowledge.pack_build import build_pack

        try:
            build_pack(sources, path)
        except (ConfigError, OSError, sqlite3.Error):  # a read-only or full disk: the run goes on without it
            return None
        return path
