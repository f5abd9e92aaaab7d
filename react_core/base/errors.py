"""Exceptions, split by whose fault they are.

The model's mistakes (unparseable output, unknown tool, a tool failing) never raise out of the loop: they become error
observations. What raises is the infrastructure's: configuration, keys, providers and the network. Every message is
written for the person who must act on it.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "Conflict",
    "ContextOverflowError",
    "MissingKeyError",
    "ProviderError",
    "ReactLabError",
    "ToolError",
]


class ReactLabError(Exception):
    """Base class: something a person has to fix or retry; the message says what."""


class ConfigError(ReactLabError):
    """A setting, file or key is missing or invalid."""


class MissingKeyError(ConfigError):
    """A provider needs a key that is not configured."""


class Conflict(ReactLabError):
    """Two people (or tabs) acted on the same stored thing at once; this one came second and nothing was changed."""


class ProviderError(ReactLabError):
    """A model provider failed (network, authentication, rate limit after retries, a bad response)."""


class ContextOverflowError(ProviderError):
    """The prompt outgrew the model's context window: the run's budget is spent, not the service broken."""


class ToolError(Exception):
    """A tool could not do what the model asked. Becomes an error observation; the run goes on."""
