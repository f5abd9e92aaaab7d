"""Whose keys a job's model calls may use, and how many calls a minute it may make: one value per person.

The app decides it once per browser session from its mode (``ui.shared.identity.allowance``); the CLI and local mode run
as the operator (``Allowance.OPERATOR``: the server's keys, to any endpoint, no limit). Every job (a chat turn, an
evaluation, and whatever runs models next) gets one: the job machinery runs the job's work under ``keys()``, and
whatever builds the job's provider wraps it with ``limit()`` (``EvalPlan.run`` takes the allowance and does both).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from react_core.providers import keys
from react_core.providers.base import Provider
from react_core.providers.quota import CallWindow, QuotaLimited

__all__ = ["Allowance", "CallWindow", "T"]

T = TypeVar("T")


@dataclass(frozen=True)
class Allowance:
    owner: str = ""  # whose history, evaluations and call window these are ('' in local mode and on the CLI)
    server_keys: bool = True  # the operator's keys may be used (public demo mode: only with REACT_DEMO_SERVER_KEYS=1)
    own_endpoints: bool = False  # a base URL from the settings is the person's: never given the operator's key
    window: CallWindow | None = None  # the person's model calls a minute (public demo mode); None: no limit

    OPERATOR: ClassVar[Allowance]  # the server's keys, to any endpoint, no limit: the CLI, local mode, fine-tuning

    def keys(self) -> AbstractContextManager[None]:
        """The key rules for providers built within (on this thread)."""
        return keys.lending(self.server_keys, self.own_endpoints, self.owner)

    def build(self, make: Callable[[], T]) -> T:
        """``make()`` (which builds a provider, or a run config holding one) under these key rules."""
        with self.keys():
            return make()

    def limit(self, provider: Provider) -> Provider:
        """The provider as this person may call it: within their call window, if they have one."""
        return provider if self.window is None else QuotaLimited(provider, self.window)  # type: ignore[return-value]


Allowance.OPERATOR = Allowance()
