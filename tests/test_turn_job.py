"""The chat's background turn, without a page: what it does with a request the app made for the person."""

from __future__ import annotations

import pytest
from app_helpers import offline_pack

from react_core import Action, Step
from react_core.base.observation import Observation
from ui.chat.job import TurnJob, TurnRequest


def _similar(title: str):
    missed = Step(1, thought="Look it up.", action=Action("search", "Foo"), observation=Observation("Could not find"))
    settings = {
        "provider": "scripted",
        "script": ["Thought 2: done\nAction 2: Finish[x]"],
        "knowledge": f"pack:{offline_pack()}",
    }
    request = TurnRequest(
        question="q?",
        settings=settings,
        chat_id="c",
        turn_id=1,
        prior_steps=[missed],
        replace_action=Action("search", title),
        origin="similar",
    )
    job = TurnJob(request)
    job.run.keeping.owner = None  # no history here: only what the run did
    job.work()
    return job.turn.trace.to_dict()


@pytest.mark.parametrize("title", ["Foo\nbar", "  "])
def test_a_similar_title_the_dialect_cannot_write_is_refused_with_the_reason(title):
    # Written as Search[…], the model would read another input (one line "Foo bar", or nothing): the run says so
    # instead of running an action the prompt would misstate. (Which inputs a dialect can write: test_formats_*.)
    trace = _similar(title)
    assert trace["stop_reason"] == "error" and "cannot write" in trace["error"]
    assert [s["action"]["input"] for s in trace["steps"]] == ["Foo"]  # the step as it was, nothing run


def test_a_similar_title_the_dialect_can_write_is_searched_and_the_run_goes_on():
    trace = _similar("Ed Wood")
    first = trace["steps"][0]
    assert first["action"]["input"] == "Ed Wood" and "Edward Davis Wood Jr." in first["observation"]["text"]
    assert trace["stop_reason"] == "finished"


@pytest.fixture
def stalled_wiki(tmp_path, monkeypatch):
    """A MediaWiki API on 127.0.0.1 whose answers never come (the knowledge layer's own test server); a history of the
    test's own."""
    from wiki_helpers import close_shared_sources, small_pack

    from react_core.knowledge.server import start_wiki_server

    monkeypatch.setenv("REACT_HISTORY_DB", str(tmp_path / "history.sqlite"))
    with start_wiki_server(small_pack(tmp_path / "small.sqlite")) as srv:
        srv.inject("stall")
        yield srv
        srv.reset()
    close_shared_sources()


def test_stop_while_a_similar_title_is_searched_ends_the_turn_as_stopped_with_its_steps(stalled_wiki):
    # The replacement Search ran outside the loop: Stop there reached the job as a crash ("Unexpected error").
    missed = Step(1, thought="Look it up.", action=Action("search", "Foo"), observation=Observation("Could not find"))
    settings = {
        "provider": "scripted",
        "script": ["Thought 2: done\nAction 2: Finish[x]"],
        "wiki_url": stalled_wiki.url,
    }
    request = TurnRequest(
        "q?", settings, chat_id="c", turn_id=1, prior_steps=[missed], replace_action=Action("search", "Ed Wood")
    )
    job = TurnJob(request).start()
    assert stalled_wiki.waiting.wait(30), "the Search never reached the wiki"
    job.cancel()
    assert job.wait(30), "Stop did not end the turn"
    trace = job.turn.trace
    assert trace.stop_reason == "cancelled" and trace.error is None
    assert [s.to_dict() for s in trace.steps] == [missed.to_dict()]  # the step as it was, nothing half-run kept
