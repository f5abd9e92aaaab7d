"""Hosted evaluations in parallel: questions at once by default (the CLI's and the plan's), within calls a minute kept
by one pace per key (shared by every job of the key, never across keys), and a 429 with Retry-After that holds every
call of the key and is tried again at its turn instead of failing the question. Against the local OpenAI stand-in;
time is a fake clock, so nothing waits."""

from __future__ import annotations

import argparse
import threading

from provider_helpers import FakeOpenAI, fast_retry
from test_evaluation import plan_for

from react_core.evaluation.plan import HOSTED_CONCURRENCY, HOSTED_RPM
from react_core.evaluation.run import EvalPlan
from react_core.loop.settings import RunSettings
from react_core.providers import rate_limit
from react_core.providers.openai_compat import OpenAIProvider
from react_core.providers.rate_limit import Pace, RateLimited

KEY = "sk-test-pace-0123456789"
FINISH = " I know it.\nAction 1: Finish[yes]"


class FakeTime:
    """A clock that moves only when someone sleeps on it (thread-safe)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []
        self._lock = threading.Lock()

    def clock(self) -> float:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.waits.append(seconds)
            self.now += seconds


def openai(server: FakeOpenAI, key: str = KEY) -> OpenAIProvider:
    return OpenAIProvider.create(base_url=server.root + "/v1", api_key=key, model="m", retry=fast_retry())


def paced(monkeypatch, provider: OpenAIProvider) -> FakeTime:
    """The provider's key gets a pace on a fake clock (as the first job of that key would make it)."""
    time = FakeTime()
    monkeypatch.setitem(rate_limit.PACES, provider.pace_key(), Pace(clock=time.clock, sleep=time.sleep))
    return time


def too_many(seconds: str) -> dict:
    return {"status": 429, "headers": {"Retry-After": seconds}, "message": "Rate limit reached for requests"}


def test_a_429_with_retry_after_slows_the_evaluation_and_loses_no_question(monkeypatch, tmp_path):
    # 31 s is more than a chat waits for; five 429s in a row are more tries than a chat makes.
    with FakeOpenAI([FINISH] * 20).fail(too_many("31"), *[too_many("1")] * 5) as server:
        provider = openai(server)
        time = paced(monkeypatch, provider)
        plan = plan_for(tmp_path, ["react"], concurrency=3, rpm=600)
        run = plan.run(provider=provider)
    summary = run.summaries["react"]
    assert not run.stopped and summary.n == 3 and summary.finished == 1.0
    assert len(server.requests) == 3 + 6  # every refused call was tried again, none given up
    assert sum(time.waits) >= 31 + 5  # the pace waited what the service asked
    assert rate_limit.PACES[provider.pace_key()].slowdown > 1  # and calls now start further apart


def test_the_wait_a_429_asks_for_holds_every_job_of_the_key_and_no_other_key(monkeypatch):
    with FakeOpenAI(["a", "b", "c"]).fail(too_many("10")) as server:
        first, second, other = openai(server), openai(server), openai(server, key="sk-someone-else")
        time = paced(monkeypatch, first)
        one, two, three = RateLimited(first, 60), RateLimited(second, 60), RateLimited(other, 60)
        assert one.pace is two.pace and three.pace is not one.pace  # a digest of the key, never the key
        assert KEY not in first.pace_key()
        assert "".join(c.text for c in one.stream(request())) == "a"  # a 429 asking for 10 s, then its turn
        assert time.waits and time.waits[0] >= 10
        held = time.now
        assert "".join(c.text for c in two.stream(request())) == "b"  # another job of the key waits its turn too
        assert time.now > held and time.now - held >= 60 / 60  # at the slowed pace: more than a turn apart


def test_a_429_without_retry_after_is_still_the_retry_policys_to_give_up_on(monkeypatch):
    with FakeOpenAI(["never"]).fail(*[{"status": 429, "message": "slow down"}] * 3) as server:
        provider = openai(server)
        paced(monkeypatch, provider)
        limited = RateLimited(provider, 60)
        try:
            "".join(c.text for c in limited.stream(request()))
        except Exception as e:
            assert "3 times in a row" in str(e)
        else:
            raise AssertionError("a 429 without Retry-After was tried without end")


def test_hosted_questions_run_at_once_by_default_on_the_command_line_and_in_a_plan():
    from react_core.cli.evaluation import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(
        ["eval", "--dataset", "d.json", "--strategy", "react", "--out", "o", "--provider", "openai"]
    )
    assert (args.concurrency, args.rpm) == (HOSTED_CONCURRENCY, HOSTED_RPM)
    plan = EvalPlan(["d.json"], ["react"], "out", RunSettings())
    assert (plan.concurrency, plan.rpm) == (HOSTED_CONCURRENCY, HOSTED_RPM) and HOSTED_CONCURRENCY > 1


def request():
    from react_core.providers.base import CompletionRequest

    return CompletionRequest(system="s", prompt="Question: q\nThought 1:", stop=("\nObservation",))


def test_a_visitors_pace_stays_within_their_call_window(monkeypatch, tmp_path):
    from react_core.providers.allowance import Allowance
    from react_core.providers.quota import CallWindow
    from react_core.providers.scripted import ScriptedProvider

    made = []

    class Recording(RateLimited):
        def __init__(self, inner, rpm, **kw):
            made.append(rpm)
            super().__init__(inner, rpm, **kw)

    class HostedScript(ScriptedProvider):
        hosted = True

    monkeypatch.setattr(rate_limit, "RateLimited", Recording)
    visitor = Allowance(server_keys=False, window=CallWindow(20))
    plan_for(tmp_path, ["standard"], limit=1).run(provider=HostedScript([" yes"]), allowance=visitor)
    assert made == [20]  # a call beyond the window would be refused, failing a question
