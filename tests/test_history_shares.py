"""Read-only share links in the history store, on SQLite and PostgreSQL: the owner creates, lists and revokes links to
their own runs; anyone's store resolves a live link to that one run; a revoked link, a deleted run, another owner's
run and anything that is not a token resolve to nothing."""

from __future__ import annotations

import json
import sqlite3

import pytest
from schema_helpers import sqlite_history_at

from react_core.base.errors import ConfigError
from react_core.base.trace import Trace
from react_core.history import open_history
from react_core.history.migrations import LATEST, MIGRATIONS
from react_core.history.shares import well_formed


def _run(store, question: str) -> int:
    return store.save(Trace(question=question, final_answer="x", stop_reason="finished"))


def test_a_link_shows_that_run_only_to_anyone_until_it_is_revoked(open_store):
    ann, bob, stranger = open_store("oidc:ann"), open_store("oidc:bob"), open_store()
    first, second = _run(ann, "Ann's first"), _run(ann, "Ann's second")
    share = ann.create_share(first)
    assert well_formed(share.token) and share.run_id == first
    for anyone in (ann, bob, stranger):
        shown = anyone.resolve_share(share.token)
        assert shown is not None and shown.id == first and shown.trace.question == "Ann's first"
    other = ann.create_share(second)
    assert other.token != share.token
    assert {s.token for s in ann.shares()} == {share.token, other.token}
    assert [s.token for s in ann.shares(first)] == [share.token]
    assert bob.shares() == [] and bob.revoke_share(share.token) is False  # only the owner revokes
    assert ann.resolve_share(share.token) is not None

    assert ann.revoke_share(share.token) is True
    assert bob.resolve_share(share.token) is None and ann.resolve_share(share.token) is None
    assert ann.revoke_share(share.token) is False
    assert [s.token for s in ann.shares()] == [other.token]
    assert stranger.resolve_share(other.token).id == second


def test_a_deleted_runs_link_is_refused(open_store):
    ann = open_store("oidc:ann")
    run = _run(ann, "Soon gone")
    share = ann.create_share(run)
    assert ann.delete(run)
    assert open_store().resolve_share(share.token) is None
    assert ann.shares() == []


def test_only_your_own_runs_can_be_shared(open_store):
    ann, bob = open_store("oidc:ann"), open_store("oidc:bob")
    run = _run(ann, "Ann's")
    for who, run_id in ((bob, run), (ann, 999_999), (ann, -1)):
        with pytest.raises(ConfigError, match="not in your history"):
            who.create_share(run_id)
    assert ann.shares() == [] and bob.shares() == []


@pytest.mark.parametrize("token", ["", "x", "' OR 1=1 --", "A" * 42, "A" * 44, "A" * 42 + "=", None, 7])
def test_what_is_not_a_token_resolves_to_nothing(open_store, token):
    ann = open_store("oidc:ann")
    ann.create_share(_run(ann, "Ann's"))
    assert ann.resolve_share(token) is None and ann.revoke_share(token) is False


def test_the_shares_migration_upgrades_an_existing_history(tmp_path):
    path = tmp_path / "h.sqlite"
    shares = next(m.version for m in MIGRATIONS if "share" in m.description)
    sqlite_history_at(path, shares - 1)  # a history as the migrations before the shares one left it, with a run
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO runs (created_at, question, owner, trace_json) VALUES ('2026-01-02', 'Before', 'oidc:ann', ?)",
            (json.dumps(Trace(question="Before").to_dict()),),
        )
    again = open_history("oidc:ann", url="", path=path)
    share = again.create_share(again.list()[0].id)
    assert again.resolve_share(share.token).trace.question == "Before"
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] == LATEST


def test_a_shared_follow_up_leaves_out_the_earlier_turns_and_the_calls_that_carry_them():
    from react_core.base.trace import Exchange
    from react_core.history.shares import SharedView
    from react_core.loop.run import ask
    from react_core.loop.settings import RunSettings
    from react_core.report.exports import to_json, to_markdown
    from react_core.report.html import to_html

    earlier = Exchange("Who signed the private memo about Project Zebulon?", "Quentin Marsh")
    settings = RunSettings(provider="scripted", script=["Thought 1: Known.\nAction 1: Finish[1961]"], tools=[])
    trace = ask("And in which year was he born?", settings, context=[earlier])
    assert "Zebulon" in to_html(trace) and trace.steps[0].call is not None  # the owner's own copy keeps everything

    shared = SharedView.of(trace)
    assert shared.calls_left_out and shared.trace.context == [] and shared.trace.final_answer == "1961"
    assert [s.call for s in shared.trace.steps] == [None]
    page = to_html(shared.trace, calls_left_out=shared.calls_left_out)
    assert shared.calls_left_out in page
    for artefact in (page, to_json(shared.trace), to_markdown(shared.trace)):
        assert "Zebulon" not in artefact and "Quentin" not in artefact
    assert trace.context == [earlier] and trace.steps[0].call is not None  # the stored run is not changed

    first = ask("Who signed it?", RunSettings(provider="scripted", script=["Thought 1: x\nAction 1: Finish[y]"]))
    assert SharedView.of(first).trace is first and SharedView.of(first).calls_left_out == ""


def test_a_link_is_the_whole_256_bit_token_and_nothing_near_it(open_store):
    import base64

    ann, stranger = open_store("oidc:ann"), open_store()
    run = _run(ann, "Ann's")
    tokens = {ann.create_share(run).token for _ in range(20)}
    assert len(tokens) == 20
    for token in tokens:  # 32 random bytes each: a guess has 2**-256 odds, not 2**-64
        assert len(base64.urlsafe_b64decode(token + "=")) == 32
    token = sorted(tokens)[0]
    swap = {c: "B" if c == "A" else "A" for c in token}
    near = [
        token[:8] + "".join(swap[c] for c in token[8:]),  # the same first 8 characters, the rest different
        token[:-1] + swap[token[-1]],  # one character off at the end
        token[:20] + swap[token[20]] + token[21:],  # one in the middle
        token.swapcase(),  # another case
        "_" * 43,  # every character a LIKE wildcard
    ]
    for guess in near:
        assert well_formed(guess) and guess not in tokens
        assert stranger.resolve_share(guess) is None, guess
        assert ann.revoke_share(guess) is False
    assert len(ann.shares(run)) == 20 and stranger.resolve_share(token).id == run
