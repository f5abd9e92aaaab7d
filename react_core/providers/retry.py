"""Retries and timeouts shared by the hosted providers: a few tries with jittered backoff, honouring Retry-After.

Only the opening of a stream is retried (the request and its first piece of text): once text has been streamed to the
person, a retry would repeat it, so a failure after that ends the run with a clear message instead. Each provider
classifies its SDK's exceptions into a ``Failure``; this module decides whether and how long to wait. Sleeping goes
through the policy so tests can record the waits instead of waiting.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from react_core.errors import ProviderError, ReactLabError

T = TypeVar("T")

CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 60.0
# HTTP statuses worth another try: the service is busy or briefly broken, not refusing this request.
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


@dataclass
class Failure:
    """What went wrong, as a person should read it, and whether trying again may help."""

    message: str
    retryable: bool = False
    retry_after: float | None = None
    # A ready-made error to raise as is (a rejected key); otherwise a ProviderError is built from ``message``.
    error: ReactLabError | None = None


@dataclass
class RetryPolicy:
    attempts: int = 3
    base_delay: float = 1.0
    max_delay: float = 20.0
    # A service asking for a longer pause than this is not waited for: the run stops and says when to retry.
    max_retry_after: float = 30.0
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    def backoff(self, attempt: int) -> float:
        """Wait after failed try ``attempt`` (1-based): exponential, with half of it random so clients spread out."""
        cap = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return cap / 2 + self.rng.uniform(0, cap / 2)


def split_timeout(timeout: float | tuple[float, float] | None) -> tuple[float, float]:
    """(read, connect) from a number (the read timeout) or a pair; the defaults are 60 s and 10 s."""
    if timeout is None:
        return READ_TIMEOUT, CONNECT_TIMEOUT
    if isinstance(timeout, tuple):
        return float(timeout[0]), float(timeout[1])
    return float(timeout), min(CONNECT_TIMEOUT, float(timeout))


def with_retries(
    action: Callable[[], T],
    classify: Callable[[Exception], Failure | None],
    policy: RetryPolicy,
    *,
    service: str,
) -> T:
    """Run ``action`` up to ``policy.attempts`` times. ``classify`` returns None for exceptions it does not know
    (they propagate unchanged); a non-retryable Failure raises at once."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return action()
        except ReactLabError:
            raise
        except Exception as e:
            failure = classify(e)
            if failure is None:
                raise
            if failure.error is not None:
                raise failure.error from None
            if not failure.retryable:
                raise ProviderError(f"{service}: {failure.message}") from None
            if attempt >= policy.attempts:
                raise ProviderError(
                    f"{service} failed {attempt} times in a row ({failure.message}). "
                    "Try again in a minute, or switch provider in the settings."
                ) from None
            wait = policy.backoff(attempt)
            if failure.retry_after is not None:
                if failure.retry_after > policy.max_retry_after:
                    raise ProviderError(
                        f"{service} is rate limiting this key ({failure.message}) and asks to wait "
                        f"{failure.retry_after:.0f} s. Try again then, or switch provider in the settings."
                    ) from None
                wait = max(wait, failure.retry_after)
            policy.sleep(wait)
