"""LoRA adapters for the on-device model: which one a setting means, and what its manifest says.

An adapter is a llama.cpp LoRA GGUF (a few MB) applied at load time on the packaged Q4_K_M model, and beside it an
``adapter.json`` manifest: its title, the method it learned and the prompt it answers (a zero-shot preset), how it
was made (the fine-tuning recipe, the data and their digests, the base model's digest) and what it scored on
held-out questions. The setting (``RunSettings.adapter``, ``--adapter``, ``REACT_ADAPTER``) is ``shipped`` (the
default: the adapter in ``adapters/`` this app ships), ``none`` (the base model alone) or a path to a ``.gguf`` file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from react_core.base.errors import ConfigError
from react_core.base.paths import SHIPPED_ADAPTERS_DIR, finetune_dir

__all__ = [
    "ADAPTER_FILE",
    "Adapter",
    "DEFAULT_ADAPTER",
    "MANIFEST_FILE",
    "Manifest",
    "NONE",
    "SHIPPED",
    "adapter_label",
    "file_sha256",
    "read_manifest",
    "resolve",
    "setting_of",
    "shipped_adapter",
    "shipped_path",
    "write_manifest",
]

SHIPPED = "shipped"
NONE = "none"
DEFAULT_ADAPTER = "react-hotpotqa"  # the shipped adapter the on-device default runs with
ADAPTER_FILE = "adapter.gguf"
MANIFEST_FILE = "adapter.json"


@dataclass
class Manifest:
    name: str  # its folder's name
    title: str  # what the app calls it ("ReAct on HotpotQA")
    method: str  # react, act, cot or standard
    preset: str  # the zero-shot prompt it learned to answer
    tools: list[str] = field(default_factory=list)  # the tools its trajectories used
    recipe: dict[str, Any] = field(default_factory=dict)  # react_core.training.recipe.Recipe, as a dict
    data: dict[str, Any] = field(default_factory=dict)  # where the trajectories came from, their counts and digests
    base_model: dict[str, Any] = field(default_factory=dict)  # the model it applies to: file name, sha256
    training: dict[str, Any] = field(default_factory=dict)  # time, CPU, memory, library versions
    scores: dict[str, Any] = field(default_factory=dict)  # measured on held-out questions (docs/evaluation.md)
    adapter_sha256: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Manifest:
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in known})


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def shipped_path(name: str = DEFAULT_ADAPTER) -> Path:
    return SHIPPED_ADAPTERS_DIR / name / ADAPTER_FILE


def resolve(setting: str | None) -> Path | None:
    """The adapter file a setting means (None: the base model alone). A path must be a GGUF file that exists."""
    value = (setting or SHIPPED).strip()
    if value == NONE:
        return None
    if value == SHIPPED:
        path = shipped_path()
        return path if path.is_file() else None  # a checkout without it runs the base model
    path = Path(value).expanduser()
    if not path.is_file():
        raise ConfigError(f"Adapter file {path} does not exist: give a LoRA .gguf file, '{SHIPPED}' or '{NONE}'.")
    return path


def setting_of(adapter: Path) -> str:
    """How a run records the adapter it ran with: ``shipped`` for the app's own (so a run read elsewhere finds it in
    that checkout), else the file's path."""
    return SHIPPED if adapter.resolve() == shipped_path().resolve() else str(adapter)


def read_manifest(adapter: Path) -> Manifest | None:
    """The manifest beside an adapter file, or None when there is none (an adapter made elsewhere)."""
    path = adapter.with_name(MANIFEST_FILE)
    try:
        return Manifest.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def write_manifest(adapter: Path, manifest: Manifest) -> Path:
    path = adapter.with_name(MANIFEST_FILE)
    path.write_text(json.dumps(manifest.to_dict(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def shipped_adapter() -> Path | None:
    """The shipped adapter's file, when this checkout has it."""
    path = shipped_path()
    return path if path.is_file() else None


def adapter_label(adapter: Path | None) -> str:
    """How the model label names the adapter: its manifest's title, else its file name."""
    return "" if adapter is None else Adapter.at(adapter).title


@dataclass(frozen=True)
class Adapter:
    """An adapter file there is, with its manifest (None: one made elsewhere)."""

    path: Path
    manifest: Manifest | None = None

    @classmethod
    def found(cls) -> list[Adapter]:
        """The adapters there are: the shipped ones, then those fine-tuning wrote (newest first)."""
        shipped = sorted(SHIPPED_ADAPTERS_DIR.glob(f"*/{ADAPTER_FILE}"))
        made = sorted(finetune_dir().glob(f"*/{ADAPTER_FILE}"), key=lambda p: p.stat().st_mtime, reverse=True)
        return [cls.at(p) for p in [*shipped, *made]]

    @classmethod
    def at(cls, path: Path) -> Adapter:
        """The adapter file at ``path`` with its manifest as it is now."""
        return cls(Path(path), read_manifest(Path(path)))

    @property
    def title(self) -> str:
        """What it is called: its manifest's title, else its file name."""
        return self.manifest.title if self.manifest and self.manifest.title else self.path.name

    @property
    def is_default(self) -> bool:
        """Whether it is the shipped adapter the on-device default runs with (the setting ``shipped``)."""
        return setting_of(self.path) == SHIPPED

    @staticmethod
    def setting_label(setting: str) -> str:
        """An adapter setting as a person chooses it: the shipped one (by its title), none, or a file, by its name."""
        if setting in ("", SHIPPED):
            shipped = shipped_adapter()
            return f"the shipped one: {adapter_label(shipped)}" if shipped else "the shipped one (not in this checkout)"
        return "none: the base model alone" if setting == NONE else Path(setting).name
