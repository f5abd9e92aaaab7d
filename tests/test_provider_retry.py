"""The retry policy on its own: Retry-After parsing, jittered backoff, which failures are retried and how often,
and the messages when it gives up. Waits are recorded, never slept."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from provider_helpers import RecordingSleep

from react_core.base.errors import MissingKeyError, ProviderError
from react_core.base.retry_after import parse_retry_after
from react_core.providers.retry import Failure, RetryPolicy, split_timeout, with_retries


def test_retry_after_seconds_date_and_garbage() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now=now) == 30.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=30), usegmt=True), now=now) == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None


@given(st.integers(min_value=1, max_value=30), st.integers(min_value=0, max_value=2**32))
def test_backoff_grows_is_jittered_and_capped(attempt: int, seed: int) -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=20.0, rng=random.Random(seed))
    cap = min(20.0, 2.0 ** (attempt - 1))
    assert cap / 2 <= policy.backoff(attempt) <= cap


def test_split_timeout() -> None:
    assert split_timeout(None) == (60.0, 10.0)
    assert split_timeout(0.5) == (0.5, 0.5)
    assert split_timeout((30, 5)) == (30.0, 5.0)


class Flaky(Exception):
    pass


def _classify(e: Exception) -> Failure | None:
    if isinstance(e, Flaky):
        return Failure(str(e), retryable=True, retry_after=getattr(e, "after", None))
    if isinstance(e, KeyError):
        return Failure("bad request")
    if isinstance(e, PermissionError):
        return Failure("refused", error=MissingKeyError("Set the key."))
    return None


def _script(*outcomes: object):
    calls = []

    def action():
        calls.append(1)
        outcome = outcomes[len(calls) - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return action, calls


def test_transient_failures_are_retried_then_succeed() -> None:
    sleep = RecordingSleep()
    action, calls = _script(Flaky("HTTP 503"), Flaky("HTTP 503"), "ok")
    assert with_retries(action, _classify, RetryPolicy(sleep=sleep), service="S") == "ok"
    assert len(calls) == 3 and len(sleep.waits) == 2
    assert 0.5 <= sleep.waits[0] <= 1.0 and 1.0 <= sleep.waits[1] <= 2.0


def test_retry_after_is_honoured_as_a_minimum() -> None:
    sleep = RecordingSleep()
    busy = Flaky("HTTP 429")
    busy.after = 12.0
    action, _ = _script(busy, "ok")
    with_retries(action, _classify, RetryPolicy(sleep=sleep), service="S")
    assert sleep.waits == [12.0]


def test_a_long_retry_after_stops_at_once_and_says_when() -> None:
    sleep = RecordingSleep()
    busy = Flaky("HTTP 429")
    busy.after = 3600.0
    action, calls = _script(busy, "ok")
    with pytest.raises(ProviderError, match="asks to wait 3600 s"):
        with_retries(action, _classify, RetryPolicy(sleep=sleep), service="Gemini")
    assert len(calls) == 1 and sleep.waits == []


def test_gives_up_after_three_tries_with_a_clear_message() -> None:
    sleep = RecordingSleep()
    action, calls = _script(Flaky("HTTP 503"), Flaky("HTTP 502"), Flaky("HTTP 500"), "never")
    with pytest.raises(ProviderError) as info:
        with_retries(action, _classify, RetryPolicy(sleep=sleep), service="OpenAI")
    assert len(calls) == 3 and len(sleep.waits) == 2
    assert str(info.value).startswith("OpenAI failed 3 times in a row (HTTP 500)")
    assert "Try again" in str(info.value)


def test_permanent_failures_are_not_retried() -> None:
    sleep = RecordingSleep()
    action, calls = _script(KeyError("x"), "never")
    with pytest.raises(ProviderError, match="^S: bad request$"):
        with_retries(action, _classify, RetryPolicy(sleep=sleep), service="S")
    action, calls = _script(PermissionError("x"), "never")
    with pytest.raises(MissingKeyError, match="Set the key"):
        with_retries(action, _classify, RetryPolicy(sleep=sleep), service="S")
    assert len(calls) == 1 and sleep.waits == []


def test_unknown_exceptions_propagate_unchanged() -> None:
    action, _ = _script(ZeroDivisionError("boom"))
    with pytest.raises(ZeroDivisionError):
        with_retries(action, _classify, RetryPolicy(sleep=RecordingSleep()), service="S")
