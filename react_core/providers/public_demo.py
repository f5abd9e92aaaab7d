"""The public demo as the operator configured it: whether the app is one (REACT_PUBLIC_DEMO), whether its visitors may
use the server's own keys (REACT_DEMO_SERVER_KEYS), and how many model calls a minute each visitor and all of them
together may make (REACT_DEMO_CALLS_PER_MINUTE, REACT_DEMO_TOTAL_CALLS_PER_MINUTE).

The app decides each session's mode and ``Allowance`` from these (``ui.shared.identity``); the call windows that
hold a visitor to the limits are ``quota.CallWindows``. Each value is read when it is asked for, so a limit the
operator got wrong is refused where a limit is wanted (the app asks at start), not in a mode that has none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from react_core.base.environment import environment_value
from react_core.base.errors import ConfigError

__all__ = ["PublicDemo"]


@dataclass(frozen=True)
class PublicDemo:
    CALLS_PER_MINUTE: ClassVar[int] = 20  # a visitor's limit when the operator set none
    TOTAL_CALLS_PER_MINUTE: ClassVar[int] = 200  # all visitors' together, likewise

    env: Mapping[str, str] | None = None  # None: the process's environment

    @property
    def on(self) -> bool:
        return environment_value("REACT_PUBLIC_DEMO", self.env) == "1"

    @property
    def server_keys(self) -> bool:
        """Whether visitors may use the server's own API keys (else they bring theirs)."""
        return environment_value("REACT_DEMO_SERVER_KEYS", self.env) == "1"

    @property
    def calls_per_minute(self) -> int:
        """Each visitor's model calls a minute; ConfigError when the operator's value is not a limit."""
        return self._per_minute("REACT_DEMO_CALLS_PER_MINUTE", self.CALLS_PER_MINUTE)

    @property
    def total_calls_per_minute(self) -> int:
        """All visitors' model calls a minute together; ConfigError likewise."""
        return self._per_minute("REACT_DEMO_TOTAL_CALLS_PER_MINUTE", self.TOTAL_CALLS_PER_MINUTE)

    def _per_minute(self, name: str, default: int) -> int:
        # A limit that is not a whole number above 0 is refused, never read as the default: the operator meant
        # something.
        text = environment_value(name, self.env)
        if not text:
            return default
        if not re.fullmatch(r"[0-9]{1,9}", text) or int(text) == 0:
            raise ConfigError(f"{name} must be a whole number of model calls a minute, at least 1 (got {text[:40]!r}).")
        return int(text)
