"""The visitor rule for settings that name a file or an endpoint of the server: a visitor chooses, the operator offers.

In public demo and signed-in modes (``react_core.providers.keys.visitor``) a visitor's settings must not make the
server read a file, fetch a URL or load a model beyond what the operator allowed. So each such setting (the
MediaWiki API URL, the offline pack, the scripted provider's script, the on-device model file) takes only the
operator's values: their environment's and the shipped ones. The choices themselves live with their parts
(``knowledge.choices``, ``providers.file_choices``); the comparison and the wording of a refusal live here.

A refusal is decided on the text alone, before anything is looked up on the disk or the network, and it says the same
whatever the path names: that it exists, is a folder, JSON or a database is never told.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from react_core.base.errors import ConfigError


def _lexical(path: str) -> str:
    # Folded as text (``~``, ``.``, ``..``, a relative path made absolute), never resolved on the disk.
    return os.path.normpath(os.path.abspath(os.path.expanduser(path.strip())))


def among_paths(chosen: str, choices: Iterable[str]) -> bool:
    """Whether the path ``chosen`` is one of ``choices``, compared as written."""
    if not chosen.strip():
        return False
    return _lexical(chosen) in {_lexical(c) for c in choices if c and c.strip()}


def refusal(what: str, instead: str) -> ConfigError:
    """The one message for a visitor's value the operator did not offer (it names neither the value nor the choices)."""
    return ConfigError(
        f"In this deployment {what} is the operator's choice, not a visitor's: {instead}. "
        "Nothing on the server was read or fetched for the value you gave."
    )
