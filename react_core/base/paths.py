"""Every folder and file location, once: the project, the shared data, the user's data and cache folders and what lives
in them. Each has an environment override (``react_core.base.environment``); the user folders come from platformdirs
(imported only when needed).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from react_core.base.environment import environment_value, is_set

__all__ = [
    "APP_NAME",
    "BUILTIN_PRESETS_DIR",
    "PACK_FILE",
    "PROJECT_ROOT",
    "SAMPLE_SCRIPTS_DIR",
    "SHIPPED_ADAPTERS_DIR",
    "cache_dir",
    "data_dir",
    "evaluations_dir",
    "finetune_dir",
    "history_db",
    "llama_states_dir",
    "model_cache_dir",
    "pack_file",
    "presets_dir",
    "secrets_files",
    "shared_data_dir",
    "training_python",
]

APP_NAME = "react-lab"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
BUILTIN_PRESETS_DIR = PROJECT_ROOT / "prompts"
# The scripted provider's sample scripts: the offline examples in every chat dialect (``providers.samples``).
SAMPLE_SCRIPTS_DIR = PROJECT_ROOT / "sample_scripts"
# The LoRA adapters shipped with the app, one folder each (adapter.gguf and its manifest, adapter.json).
SHIPPED_ADAPTERS_DIR = PROJECT_ROOT / "adapters"
PACK_FILE = "hotpotqa-pack.sqlite"


def _override(name: str) -> Path | None:
    text = environment_value(name)
    return Path(text).expanduser() if text else None


def data_dir() -> Path:
    """The user's data folder (history, saved presets, evaluation results): REACT_DATA_DIR, else the platform's."""
    override = _override("REACT_DATA_DIR")
    if override:
        return override
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    """The user's cache folder (the offline pack, the on-device model): REACT_CACHE_DIR, else the platform's."""
    override = _override("REACT_CACHE_DIR")
    if override:
        return override
    from platformdirs import user_cache_dir

    return Path(user_cache_dir(APP_NAME, appauthor=False))


def shared_data_dir() -> Path:
    """The shared reference data (HotpotQA, the paper's prompts): REACT_SHARED_DATA, else ../shared/data."""
    return _override("REACT_SHARED_DATA") or PROJECT_ROOT.parent / "shared" / "data"


def history_db() -> Path:
    return _override("REACT_HISTORY_DB") or data_dir() / "history.sqlite"


def presets_dir() -> Path:
    return _override("REACT_PRESETS_DIR") or data_dir() / "presets"


def evaluations_dir(owner: str = "") -> Path:
    """Evaluation results: one folder for local mode and the CLI (owner ''), and for every other owner (a signed-in
    person, a public-demo session) a folder of its own named by a digest of the owner id, so no id names another's
    folder or reaches outside."""
    if not owner:
        return data_dir() / "evaluations"
    digest = hashlib.sha256(owner.encode("utf-8", "surrogatepass")).hexdigest()
    return data_dir() / "evaluations-by-owner" / digest


def finetune_dir() -> Path:
    """Fine-tuning runs (trajectories, tokens, checkpoints, the adapter): one folder each under here."""
    return data_dir() / "finetune"


def training_python() -> Path:
    """The training environment's Python (torch, transformers, peft: ``make finetune-env``): REACT_TRAIN_PYTHON,
    else ``.venv-train`` beside the app."""
    return _override("REACT_TRAIN_PYTHON") or PROJECT_ROOT / ".venv-train" / "bin" / "python"


def pack_file() -> Path:
    """The default offline pack."""
    return _override("REACT_PACK") or cache_dir() / PACK_FILE


def model_cache_dir() -> Path:
    return _override("REACT_MODEL_CACHE") or cache_dir() / "models"


def llama_states_dir() -> Path:
    """The on-device model's saved prompt-prefix states (``providers.llama_states``); deleting it clears them."""
    return model_cache_dir() / "states"


def secrets_files(env: Mapping[str, str] | None = None) -> list[Path]:
    """Where keys may be kept, as Streamlit looks for secrets: the working folder's, the project's, then the user's.
    REACT_SECRETS_PATH replaces the list (empty: no file at all)."""
    if is_set("REACT_SECRETS_PATH", env):
        return [Path(p) for p in environment_value("REACT_SECRETS_PATH", env).split(os.pathsep) if p.strip()]
    paths = [Path.cwd() / ".streamlit" / "secrets.toml", PROJECT_ROOT / ".streamlit" / "secrets.toml"]
    paths.append(Path.home() / ".streamlit" / "secrets.toml")
    return list(dict.fromkeys(paths))
