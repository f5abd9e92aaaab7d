"""The files a provider reads that a visitor may choose (public demo and signed-in modes): the operator's only.

The scripted provider's script is REACT_SCRIPT's file, one of the samples shipped with the app (the offline examples in
every dialect, ``react_core.providers.samples``), or a script the visitor uploaded: its outputs, kept in their
session (a list in the ``script`` setting, never a path), without ``gate`` items (a gate names a file on the server,
which the provider removes as it passes). The on-device model is the bundled one or REACT_MODEL_PATH's file: llama.cpp
loads it into the process every session shares. Anything else is refused by the rule of
``react_core.base.visitor_rule`` before the path is looked at.
"""

from __future__ import annotations

from typing import Any

from react_core.base.environment import environment_value
from react_core.base.errors import ConfigError
from react_core.base.visitor_rule import among_paths, refusal
from react_core.providers.base import Provider

__all__ = ["check_files", "offered_files"]


def offered_files(option: str) -> list[str]:
    """The values the operator offers visitors for a provider's option that names a file on the server: ``script``
    (REACT_SCRIPT's, then the shipped samples), ``model_path`` ('' the bundled model first, then REACT_MODEL_PATH's)
    or ``adapter`` ('' and ``shipped``: the shipped one, ``none``, then REACT_ADAPTER's); [] for any other option."""
    if option == "script":
        from react_core.providers.samples import SampleScript

        return _set("REACT_SCRIPT") + [str(s.path) for s in SampleScript.all()]
    if option == "model_path":
        return ["", *_set("REACT_MODEL_PATH")]
    if option == "adapter":
        from react_core.providers.adapters import NONE, SHIPPED

        return ["", SHIPPED, NONE, *_set("REACT_ADAPTER")]
    return []


def _set(variable: str) -> list[str]:
    return [environment_value(variable)] if environment_value(variable) else []


def check_files(
    provider: type[Provider], *, script: Any = None, model_path: str = "", adapter: str = "", visitor: bool
) -> None:
    """ConfigError when a visitor's settings for ``provider`` name a script or a model file the operator did not
    offer (only the options the provider reads count)."""
    if not visitor:
        return
    if "script" in provider.options:
        if isinstance(script, list):
            if any(isinstance(item, dict) and item.get("gate") for item in script):
                raise ConfigError("An uploaded script cannot have gate items: a gate names a file on the server.")
        elif script and not among_paths(str(script), offered_files("script")):
            instead = "choose the operator's script or upload your own in Settings"
            raise refusal(
                "the scripted provider's script", instead if offered_files("script") else "upload your own script"
            )
    if "model_path" in provider.options and model_path and not among_paths(model_path, offered_files("model_path")):
        raise refusal("the on-device model file", "choose the bundled model or the operator's in Settings")
    if (
        "adapter" in provider.options
        and adapter not in offered_files("adapter")[:3]
        and not among_paths(adapter, offered_files("adapter")[3:])
    ):
        raise refusal(
            "the on-device model's adapter", "choose the shipped adapter, none, or the operator's in Settings"
        )
