"""The default offline pack: where it lives and building it on first need from the shared HotpotQA files.

``react_core.base.paths.pack_file()`` says where it lives. ``ensure_default_pack()`` returns that path once a usable
pack
is there, building it (about a second) from the shared data's ``hotpotqa/dev_distractor_*.json`` when it is missing,
unreadable, or of an older pack format (``PACK_VERSION``); None when there is nothing to build from. A pack the
person names (``pack:PATH``) is never rebuilt behind their back: it is refused with the rebuild command instead.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from react_core.base.errors import ConfigError
from react_core.base.paths import pack_file, shared_data_dir
from react_core.knowledge.pack import PackSource

_build_lock = threading.Lock()


def hotpotqa_sources() -> list[Path]:
    """The shared distractor-format files the default pack is built from (empty when the shared data is absent)."""
    return sorted((shared_data_dir() / "hotpotqa").glob("dev_distractor_*.json"))


def _usable(path: Path) -> bool:
    try:
        PackSource(path).close()
        return True
    except ConfigError:
        return False


def ensure_default_pack() -> Path | None:
    """The default pack's path, built first if needed; None when it is missing and cannot be built."""
    path = pack_file()
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
