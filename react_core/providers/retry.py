"""Retries and timeouts shared by the hosted providers: a few tries with jittered backoff, honouring Retry-After.

Each provider classifies its SDK's exceptions into a ``Failure``; this module decides whether and how long to wait. A
stream that fails or is cut short after it began is tried again too (the provider says so with a ``restart`` chunk,
and the text shown so far starts over). Waiting goes through the policy, by default ``cancel.sleep``, so Stop
interrupts a backoff and tests can record the waits instead of waiting; a call that Stop or its deadline has aborted
is never tried again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from react_core.base import cancel
from react_core.base.errors import ProviderError, ReactLabError
from react_core.providers.base import Chunk

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
    sleep: Callable[[float], None] = cancel.sleep
    rng: random.Random = field(default_factory=random.Random)
    # Set by an evaluation's rate limit (``rate_limit``): a wait the service asks for goes to ``paced`` (which holds
    # every call of the key and waits for this call's turn), and such a try is not one of ``attempts`` (up to
    # ``paced_tries`` tries in all): a 429 with Retry-After slows the evaluation instead of failing a question.
    paced: Callable[[float], None] | None = None
    paced_tries: int = 30

    def wait(self, attempt: int, failure: Failure, service: str) -> None:
        """Wait before try ``attempt + 1``: the backoff, or longer when the service asks (Retry-After); a service
        asking for more than ``max_retry_after`` is not waited for."""
        wait = self.backoff(attempt)
        if failure.retry_after is not None:
            if failure.retry_after > self.max_retry_after:
                raise ProviderError(
                    f"{service} is rate limiting this key ({failure.message}) and asks to wait "
                    f"{failure.retry_after:.0f} s. Try again then, or switch provider in the settings."
                ) from None
            if self.paced is not None:
                self.paced(failure.retry_after)
                return
            wait = max(wait, failure.retry_after)
        self.sleep(wait)

    def paces(self, failure: Failure, tries: int) -> bool:
        """Whether this failed try is tried again at the pace, whatever ``attempts`` says."""
        return self.paced is not None and failure.retry_after is not None and tries < self.paced_tries

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
            _try_again(
                failure, attempt, policy, f"{service}: {failure.message}", f"{service} failed {attempt} times", service
            )


class Truncated(Exception):
    """A stream ended before the API said the reply was complete (no finish reason, no end marker)."""


def stream_with_retries(
    attempt: Callable[[int], Iterator[Chunk]],
    classify: Callable[[Exception], Failure | None],
    policy: RetryPolicy,
    *,
    service: str,
) -> Iterator[Chunk]:
    """Chunks of ``attempt(1)``; when that stream fails or is cut short after it began, up to ``policy.attempts``
    tries in all, each after a backoff. Each try's first chunk is the provider's (its ``sent``, and ``restart`` from
    the second try on, so whoever shows the text starts over). A half-read reply is never passed off as whole."""
    tries = 0
    while True:
        tries += 1
        try:
            yield from attempt(tries)
            return
        except ReactLabError:
            raise
        except Exception as e:
            if isinstance(e, Truncated):
                failure = Failure("the stream ended before the answer was complete", retryable=True)
            else:
                failure = classify(e)
                if failure is None:
                    raise
            during = f"{service} stopped in the middle of an answer"
            _try_again(failure, tries, policy, f"{during}: {failure.message}", f"{during} {tries} times", service)


def _try_again(failure: Failure, tries: int, policy: RetryPolicy, refused: str, gave_up: str, service: str) -> None:
    """Wait before the next try, or raise what ends the trying: Stop, a failure that already says what to do, one
    not worth retrying (``refused``), or the last try spent (``gave_up`` … "in a row")."""
    cancel.check()  # a request that failed because Stop cut it is a stop, not a failure to retry
    if cancel.aborted() or not failure.retryable:
        if failure.error is not None:
            raise failure.error from None
        raise ProviderError(refused) from None
    if failure.error is not None:
        raise failure.error from None
    if tries >= policy.attempts and not policy.paces(failure, tries):
        raise ProviderError(
            f"{gave_up} in a row ({failure.message}); nothing it sent was used. "
            "Try again in a minute, or switch provider in the settings."
        ) from None
    policy.wait(tries, failure, service)
