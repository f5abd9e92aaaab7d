"""The conversation's verbs: ask, stop, pause here, retry, re-ask with a similar title, fork, decide at a paused step
(step mode), new chat, collect a finished turn.

Each verb checks its input, captures its settings as plain values into a TurnRequest and starts a background TurnJob.
A question uses the session's settings; a retry, a re-ask and a fork go on from an earlier run's steps, so they start
from that run's own settings (``ui.chat.run_settings``). ``collect()`` runs at the top of every page render and moves a
finished job into the conversation (a retry takes the failed turn's place).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import streamlit as st

from react_core import PROVIDERS, Action, Decision, Exchange, Recorded, Trace
from ui.chat import job_registry as registry
from ui.chat import run_settings
from ui.chat.job import Turn, TurnJob, TurnRequest, provider_signature
from ui.shared import export_settings, identity, presets, state, turn_labels

log = logging.getLogger(__name__)
QUESTION_KEY = "question"  # the chat input's key: a refused question is put back there


def _turns() -> list[Turn]:
    return st.session_state.chat["turns"]


def _turn(turn_id: int) -> Turn | None:
    return next((t for t in _turns() if t.id == turn_id), None)


def context_for_next_turn() -> list[Exchange]:
    """Earlier questions with their answers, so a follow-up question can refer to them. A conversation that began
    with a fork goes on from the exchanges its forked run was asked after."""
    turns = _turns()
    before = list(turns[0].trace.context) if turns else []
    return before + [Exchange(t.question, t.trace.final_answer) for t in turns if t.trace.final_answer is not None]


def _busy() -> bool:
    """Whether a turn is still running (the person is told); one that finished since the last render joins the
    conversation first."""
    collect()
    if state.running():
        state.flash("warning", "Still working on the last question. Wait for its answer, or press Stop first.")
        return True
    return False


def _start(request: TurnRequest) -> bool:
    if _busy():
        return False
    slot = st.session_state.provider_slot
    reuse = slot["provider"] if slot["signature"] == provider_signature(request.settings, request.api_key) else None
    job = TurnJob(request, reuse).start()
    registry.register(job)  # a reload of this page finds it again
    st.session_state.job = job
    return True


def _keep_provider(job: TurnJob) -> None:
    """Reuse the provider the turn built for the next turn; close the one it replaced (unless shared)."""
    slot = st.session_state.provider_slot
    old = slot["provider"]
    if job.provider is None or job.provider is old:
        return
    if old is not None and not old.shared:
        try:
            old.close()
        except Exception:  # closing a stale client must never fail the page
            log.debug("closing the previous provider failed", exc_info=True)
    slot.update(signature=job.signature, provider=job.provider)


def _request(question: str, start: run_settings.Start | None = None, **kwargs: Any) -> TurnRequest:
    """A turn with the session's settings, or with ``start`` (an earlier run's own)."""
    ss = st.session_state
    settings = dict(start.settings if start else ss.settings)
    prompt = start.preset if start else presets.active()
    # The key typed in Settings is for the provider chosen there; a run of another provider never gets it.
    same_provider = settings["provider"] == ss.settings["provider"]
    return TurnRequest(
        question=question,
        settings=settings,
        chat_id=ss.chat["id"],
        turn_id=state.next_turn_id(),
        # The prompt itself, resolved here from wherever it is kept (a person's own preset may be in their history).
        preset=prompt,
        dialect=prompt.dialect,
        api_key=ss.api_key if same_provider else "",
        allowance=identity.allowance(),
        export=export_settings.chosen(),
        **kwargs,
    )


def ask(text: str | None) -> bool:
    """A question from the chat input: empty is ignored, too long or while busy is refused with the reason, and
    the refused message goes back into the input so nothing typed is lost."""
    text = (text or "").strip()
    if not text:
        return False
    if len(text) > state.MAX_QUESTION_CHARS:
        state.flash(
            "error",
            f"That message is {len(text):,} characters long; questions are limited to "
            f"{state.MAX_QUESTION_CHARS:,}. Please shorten it.",
        )
        st.session_state[QUESTION_KEY] = text
        return False
    started = _start(_request(text, context=context_for_next_turn()))
    if not started:
        st.session_state[QUESTION_KEY] = text
    return started


def stop() -> None:
    """End the running turn for good (what the model has written of its step is kept)."""
    job = st.session_state.job
    if job is not None:
        job.cancel()


def pause_here() -> None:
    """Pause the running turn at the step being written, before its action: it waits for a decision as in step mode."""
    job = st.session_state.job
    if job is not None:
        job.pause()


def _noted(start: run_settings.Start) -> run_settings.Start:
    if start.note:
        state.flash("warning", start.note)
    return start


def retry(turn_id: int, current: bool = False) -> None:
    """Run a failed turn again from where it stopped, its steps kept: with its own settings (a passing failure: the
    network, a rate limit, a key typed since), or with the session's (``current``: another model, say), refused when
    their dialect differs from the one its steps are written in."""
    turn = _turn(turn_id)
    if turn is None:
        return
    trace = turn.trace
    own = run_settings.of_run(trace)
    start = run_settings.current() if current else _noted(own)
    clash = run_settings.dialect_clash(own, start)
    if clash:
        state.flash("error", clash)
        return
    _start(
        _request(
            trace.question,
            start,
            context=list(trace.context),
            prior_steps=list(trace.steps),
            origin="retry",
            label=turn.label,
            replaces_turn=turn_id,
        )
    )


def ask_similar(turn_id: int, step_index: int, title: str) -> None:
    """Go on from a missed Search as if it had searched one of the similar titles."""
    turn = _turn(turn_id)
    if turn is None:
        return
    trace = turn.trace
    _start(
        _request(
            trace.question,
            _noted(run_settings.of_run(trace)),
            context=list(trace.context),
            prior_steps=[s for s in trace.steps if s.index <= step_index],
            replace_action=Action("search", title),
            origin="similar",
            label=turn_labels.similar(step_index, title),
            parent_id=turn.history_id,
            fork_step=step_index,
        )
    )


def fork(run_id: int, trace: Trace, step_index: int, field: str, text: str, start: run_settings.Start) -> bool:
    """Re-run a stored run from one step whose Thought or Observation was edited, with ``start`` (the run's own
    settings unless the person chose otherwise on the form), in a conversation of its own."""
    steps = trace.steps
    step = next((s for s in steps if s.index == step_index), None)
    if step is None:
        return False
    clash = run_settings.dialect_clash(run_settings.of_run(trace), start)
    if clash:
        state.flash("error", clash)
        return False
    if _busy():
        return False
    # Not appended to whatever chat is open: a fork is another line of the run's own conversation.
    st.session_state.chat = state.new_chat()
    if field == "thought":
        prior, resume = [s for s in steps if s.index < step_index], text
    else:
        prior = [s for s in steps if s.index < step_index] + [step.with_observation_edited(text)]
        resume = None
    return _start(
        _request(
            trace.question,
            start,
            context=list(trace.context),
            prior_steps=prior,
            resume_thought=resume,
            origin="fork",
            label=turn_labels.fork(run_id, step_index, field),
            parent_id=run_id,
            fork_step=step_index,
        )
    )


def decide(turn_id: int, decision: Decision) -> None:
    """Step mode: take the person's decision at the paused step of a turn, in a new job that resumes the run with its
    own settings and prompt; the session's breakpoints apply from here (step mode turned off runs it to the end)."""
    turn = _turn(turn_id)
    if turn is None or turn.trace.stop_reason != "paused":
        return
    trace = turn.trace
    if trace.settings.get("provider") not in PROVIDERS:  # of_run would put the session's model in its place
        state.flash("error", str(Recorded(trace).cannot_go_on("that provider is not one this app has.")))
        return
    start = _noted(run_settings.of_run(trace))
    start.settings["pause_before"] = list(state.settings().get("pause_before", []))
    request = _request(
        trace.question,
        start,
        context=list(trace.context),
        prior_steps=list(trace.steps[:-1]),
        origin=turn.origin,
        label=turn.label,
        replaces_turn=turn_id,
        decision=decision,  # by "person": a signed-in person's id is not written into a run they may export
        paused=trace,
        history_id=turn.history_id,
        revision=turn.revision,
    )
    # The same turn id, so the panel's forms keep their keys (and what was typed) when it comes back.
    _start(replace(request, turn_id=turn_id))


def new_chat() -> None:
    stop()
    st.session_state.chat = state.new_chat()


def collect() -> None:
    """Move a finished job into the conversation (unless the person started a new chat meanwhile)."""
    ss = st.session_state
    job = ss.get("job")
    if job is None or not job.done:
        return
    ss.job = None
    registry.forget(job)
    _keep_provider(job)
    req, turn = job.request, job.turn
    if req.chat_id != ss.chat["id"] or turn is None:
        return  # a turn of a chat the person has left: it is in the history, not in this conversation
    if job.save_error:
        state.flash("warning", job.save_error)
    if job.refused:
        state.flash("error", job.refused)
    turns = ss.chat["turns"]
    index = next((i for i, t in enumerate(turns) if t.id == req.replaces_turn), None)
    if index is None:
        turns.append(turn)
    else:
        turns[index] = turn
