"""Which settings a trace records, and names written before a rename read as today's: the one home of both, for
traces, settings, presets and evaluation results alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["RENAMED", "SETTINGS_FIELDS", "clean_settings", "current_names"]

# The settings a trace records. A key or any other secret is never one of them: Trace.from_dict and the
# constructor drop anything not listed here.
SETTINGS_FIELDS = (
    "provider",
    "model",
    "adapter",  # the on-device model's LoRA adapter: "shipped" or a file's path (none recorded: the base model)
    "dialect",
    "preset",
    "prompt_version",
    "examples_chosen",
    "temperature",
    "max_calls",
    "knowledge",
    "tools",
    "strategy",
    "grammar",
    "pause_before",
    "early_stopping",  # "generate" when a run stopped without an answer is asked for one (``loop.agent``)
    "arena",  # the arena a run was one column of (``react_core.evaluation.arena``), and which column
    "arena_column",
)


# Names that traces, settings, presets and evaluation results were written with before a rename: "format" became
# "dialect", the one word for an action format. Every reader of stored data goes through ``current_names``.
RENAMED = {"format": "dialect"}


def current_names(d: Mapping[str, Any]) -> dict[str, Any]:
    """``d`` with names written before a rename read as today's; a current name wins over its old one."""
    out = dict(d)
    for old, new in RENAMED.items():
        if old in out:
            value = out.pop(old)
            out.setdefault(new, value)
    return out


def clean_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Keep only the recorded setting names, so a key can never ride along into a trace."""
    settings = current_names(settings)
    return {k: settings[k] for k in SETTINGS_FIELDS if k in settings}
