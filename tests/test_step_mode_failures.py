"""Step mode when something fails at a pause: regenerating cut short by a rate limit (a real local server's 429), the
public demo's call limit or Stop leaves the run paused and resumable, the alternatives drawn before it kept and the
failure said; and a stale resume's write is refused. On SQLite and PostgreSQL."""

from __future__ import annotations

import re
import threading

import pytest
from provider_helpers import FakeOpenAI, fast_retry
from test_step_mode import COMPUTE, FINISH, agent, preset, saved_pause

from react_core.base.events import RunDone, StepStarted, final_trace
from react_core.loop.agent import Agent, RunConfig
from react_core.loop.pause import Decision, resume
from react_core.loop.service import Run
from react_core.providers.openai_compat import OpenAIProvider
from react_core.providers.quota import CallWindow, QuotaLimited
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import ToolRegistry

DRAWN = " Again.\nAction 1: Calculator[2*21]"


def on(provider) -> Agent:
    config = RunConfig(provider=provider, preset=preset(), tools=ToolRegistry([CALCULATOR]), pause_before=("tool",))
    return Agent(config)


def regenerate_cut_short(failure: str, store, run_id: int):
    """Regenerate 3 where the first is drawn and the second meets ``failure``; the resumed events read to the end."""
    cancel = threading.Event()
    if failure == "429":
        with FakeOpenAI([DRAWN]) as server:
            server.fail({}, {"status": 429, "message": "You exceeded your current quota", "code": "insufficient_quota"})
            provider = OpenAIProvider.create(
                base_url=server.root + "/v1", api_key="sk-test", model="gpt-4.1-mini", retry=fast_retry()
            )
            resumed = Run.resume(store, run_id, Decision("regenerate", k=3), agent=on(provider), revision=0)
            return resumed, final_trace(resumed)
    if failure == "demo limit":
        provider = QuotaLimited(ScriptedProvider([DRAWN, DRAWN]), CallWindow(1, clock=lambda: 0.0))
    else:
        provider = ScriptedProvider([DRAWN, DRAWN])
    resumed = Run.resume(store, run_id, Decision("regenerate", k=3), agent=on(provider), revision=0, cancel=cancel)
    starts = 0
    for event in resumed:
        if isinstance(event, StepStarted):
            starts += 1
            if starts == 2 and failure == "stop":
                cancel.set()  # the person presses Stop as the second alternative starts
        if isinstance(event, RunDone):
            return resumed, event.trace
    raise AssertionError("no RunDone")


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        ("429", r"Regenerating failed with 1 of 3 alternatives drawn \(offered below\): .*quota left.*billing\. The"),
        ("demo limit", "Regenerating failed with 1 of 3 .*: This public demo allows 1 model calls a minute"),
        ("stop", "Stopped while regenerating, with 1 of 3 alternatives drawn"),
    ],
)
def test_regenerating_cut_short_keeps_the_run_paused_with_what_was_drawn_and_says_why(open_store, failure, said):
    run_id = saved_pause(open_store)
    resumed, trace = regenerate_cut_short(failure, open_store(), run_id)
    step = trace.steps[-1]
    assert trace.stop_reason == "paused" and step.pending == "tool" and step.observation is None
    assert [alt.raw_output for alt in step.offered] == [DRAWN]  # the one drawn before the failure is offered
    assert re.search(said, trace.error or "") and trace.error.endswith("The run stays paused here.")
    assert not resumed.save_error and resumed.revision == 2
    rec = open_store().get(run_id)
    assert not rec.damaged and rec.stop_reason == "paused" and rec.revision == 2
    assert rec.trace.to_dict() == trace.to_dict()
    # Still the person's to decide on: the one alternative is picked, and the failure is no longer said.
    again = Run.resume(open_store(), run_id, Decision("pick", number=1), agent=agent([FINISH]), revision=2)
    done = final_trace(again)
    assert done.stop_reason == "finished" and done.final_answer == "42" and done.error is None
    assert done.steps[0].observation.text == "2*21 = 42"


def test_regenerating_that_fails_before_any_draw_keeps_the_earlier_alternatives_offered():
    a = agent([COMPUTE, DRAWN, {"error": "HTTP 503 overloaded"}])
    offered = final_trace(resume(a, a.run("q"), Decision("regenerate", k=1)))
    assert [alt.raw_output for alt in offered.steps[0].offered] == [DRAWN]
    failed = final_trace(resume(a, offered, Decision("regenerate", k=2)))
    step = failed.steps[0]
    assert failed.stop_reason == "paused" and [alt.raw_output for alt in step.offered] == [DRAWN]
    assert step.interventions == []  # nothing was passed over: the earlier alternatives are still on offer
    assert failed.error.startswith("Regenerating failed with 0 of 2 alternatives drawn: HTTP 503 overloaded")


def test_a_stale_resume_cannot_write_over_a_run_resumed_since(open_store):
    run_id = saved_pause(open_store)
    first = Run.resume(open_store(), run_id, Decision("regenerate", k=1), agent=agent([DRAWN]), revision=0)
    final_trace(first)  # claimed at 0 -> 1, written at 1 -> 2: paused again, with one alternative
    second = Run.resume(open_store(), run_id, Decision("pick", number=1), agent=agent([FINISH]), revision=2)
    done = final_trace(second)  # claimed at 2 -> 3, written at 3 -> 4
    store = open_store()
    stale = Agent(RunConfig(provider=ScriptedProvider([]), preset=preset())).run("q")
    assert not store.update(run_id, stale, 1)  # the first resume's revision: refused, nothing written
    assert not store.update(run_id, stale, 3)  # nor the second's once it has been used
    rec = open_store().get(run_id)
    assert rec.revision == 4 and rec.trace.to_dict() == done.to_dict()
    assert store.update(run_id, done, 4) and open_store().get(run_id).revision == 5
