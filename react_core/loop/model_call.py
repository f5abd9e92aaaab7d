"""One model call: stream it, report text as it arrives, cut at the stop sequences, within a deadline and a size.

The loop reads a reply as it arrives with ``read_reply`` (a generator of text pieces that returns the ``Reply``); the
evaluation's direct-answer strategies and the tests call ``stream_completion``, the same read whole. It reads the
provider's chunks until a stop sequence appears (enforced here whatever the provider did), the reply outgrows its
token budget (the rest is not read: the reply is cut, as a model stopping at its length would be), the call passes
its wall-clock deadline (a provider failure: nothing half-read is ever taken for an answer; for a model computing on
this machine, counted from its last progress: a busy machine slows it down, a stall ends it), or the person presses
Stop (which also cuts a read that is waiting, through ``react_core.base.cancel.guarded_call``; ``Stopped`` carries
what the model had written by then, as a Reply whose finish reason is ``cancelled``). A provider that tries a
failed stream again says so with a ``restart`` chunk: the text so far is dropped and the reader hears it start over.
Native tool calls come back whole in ``Reply.tool_calls``. Several samples of one request that a provider draws
together (``sample_replies``) are each read the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from react_core.base import call_records, cancel
from react_core.base.calls import LENGTH, STOPPED, cut_reason
from react_core.base.cancel import Cancelled
from react_core.base.errors import ProviderError, ReactLabError
from react_core.base.text import scrub
from react_core.base.trace import ModelCall, Step, ToolCall, Usage
from react_core.providers.base import Chunk, CompletionRequest, Provider, cut_at_stop
from react_core.providers.messages import said

# A model call that has not finished within this many seconds has failed (a stream that keeps sending keep-alive
# comments, a server that trickles). Generous: a slow on-device step takes a few seconds. A model computing on this
# machine (``computes_here``) fails only after this long without progress (no prompt block read, no token written):
# on a busy machine a long prompt is read at a few tokens a second, which is slow, not broken.
CALL_DEADLINE = 180.0
# Characters read per token of the budget before the rest of a reply is left unread (a token is about four).
CHARS_PER_TOKEN = 8
# The most of a reply a trace keeps: far more than any step, and small enough that an export always imports back.
MAX_REPLY_CHARS = 20_000
# The most native tool calls one reply may bring (each becomes a step; the run's budget still counts model calls).
MAX_TOOL_CALLS = 32


class Stopped(Cancelled):
    """Stop reached a model call: ``reply`` is what the model had written by then (finish reason ``cancelled``)."""

    def __init__(self, reply: Reply) -> None:
        super().__init__()
        self.reply = reply


@dataclass
class Reply:
    text: str  # exactly what was read (the parser cuts at the stop sequence); at most MAX_REPLY_CHARS
    usage: Usage
    sent: dict[str, Any] | None  # what the provider says it sent (see providers.base.Chunk.sent)
    finish_reason: str
    first_token_seconds: float
    seconds: float
    cut_at: int | None  # where a stop sequence begins in ``text``
    cut_by: str
    tool_calls: list[ToolCall] = field(default_factory=list)  # native function calls, in order

    @property
    def cut(self) -> str:
        """Why the reply was cut before the model ended it ('' when it ended it): ``length`` (it ran out of tokens:
        the local budget here, or the provider's), or the service's reason (a content filter, a safety block). What
        it was writing may be unfinished (``Dialect.parse(..., cut=reply.cut)``)."""
        return cut_reason(self.finish_reason)


def stream_completion(
    provider: Provider,
    request: CompletionRequest,
    *,
    on_text: Callable[[str, str], None] | None = None,
    deadline: float | None = CALL_DEADLINE,
) -> Reply:
    """The whole reply, ``on_text(delta, text so far)`` hearing it arrive (``read_reply`` without the generator).
    Raises Cancelled when the run is stopped, and a ReactLabError for any failure of the provider."""
    pieces = read_reply(provider, request, deadline=deadline)
    while True:
        try:
            delta, text = next(pieces)
        except StopIteration as done:
            return done.value
        if on_text is not None:
            on_text(delta, text)


def sample_replies(
    provider: Provider, request: CompletionRequest, n: int, *, on_text: Callable[[str, str], None] | None = None
) -> list[Reply] | None:
    """``n`` replies to one sampled request drawn together where the provider can (``Provider.sample_batch``), each
    then read as ``stream_completion`` reads a reply (stop sequences, budget; ``on_text`` hears them one after
    another), its time its share of the batch's; None when the provider draws them one call at a time."""
    started = time.perf_counter()
    try:
        drawn = provider.sample_batch(request, n)
    except (Cancelled, ReactLabError):
        raise
    except Exception as e:
        cancel.check()
        raise ProviderError(f"{provider.label} provider failed: {said(f'{type(e).__name__}: {e}')}") from e
    if drawn is None:
        return None
    share = round((time.perf_counter() - started) / max(1, len(drawn)), 6)
    replies = []
    for chunks in drawn:
        reply = stream_completion(_Drawn(provider, chunks), request, on_text=on_text, deadline=None)
        replies.append(replace(reply, seconds=share, first_token_seconds=share))
    return replies


class _Drawn(Provider):
    """One reply of a batch, already drawn, streamed again as the chunks its own call would have sent."""

    def __init__(self, provider: Provider, chunks: list[Chunk]) -> None:
        self.name, self.label, self._chunks = provider.name, provider.label, chunks

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        yield from self._chunks


def read_reply(
    provider: Provider, request: CompletionRequest, *, deadline: float | None = CALL_DEADLINE
) -> Generator[tuple[str, str], None, Reply]:
    """Yields (delta, text so far) as the reply arrives (("", "") when a retried stream starts over) and returns the
    Reply. Raises ``Stopped`` (a Cancelled, with the reply so far) when the run is stopped, and a ReactLabError for
    any failure of the provider."""
    started = time.perf_counter()
    text, usage, sent, finish, first = "", None, None, "", 0.0
    tool_calls: list[ToolCall] = []

    def reply(finish: str, cut_at: int | None = None, cut_by: str = "") -> Reply:
        # Without the provider's count (a stopped reply never gets one), estimated: the prompt was read, text written.
        counted = usage or Usage(
            Provider.estimate_tokens(request.system + request.prompt), Provider.estimate_tokens(text)
        )
        return Reply(
            text=text,
            usage=counted,
            sent=sent,
            finish_reason=finish,
            first_token_seconds=round(first, 6),
            seconds=round(time.perf_counter() - started, 6),
            cut_at=cut_at,
            cut_by=cut_by,
            tool_calls=tool_calls,
        )

    budget = min(MAX_REPLY_CHARS, max(1, request.max_tokens) * CHARS_PER_TOKEN)
    longest_stop = max((len(s) for s in request.stop), default=0)
    hit: str | None = None
    stalls = provider.computes_here  # its deadline is about progress, not the whole reply's time
    try:
        with cancel.guarded_call(deadline, provider.progress if stalls else None) as guard:
            stream = provider.stream(request)
            try:
                for chunk in stream:
                    guard.alive()
                    cancel.check()
                    if guard.expired:
                        break
                    if chunk.restart:
                        text, usage, finish, tool_calls = "", None, "", []
                        yield "", ""
                    if chunk.sent is not None:
                        sent = chunk.sent
                    if chunk.tool_calls:
                        tool_calls = (tool_calls + [_bounded(c) for c in chunk.tool_calls])[:MAX_TOOL_CALLS]
                    if chunk.usage is not None:
                        usage = chunk.usage
                    if chunk.finish_reason:
                        finish = chunk.finish_reason
                    if not chunk.text:
                        continue
                    if not text:
                        first = time.perf_counter() - started
                    piece = scrub(chunk.text)[: budget - len(text)]
                    before = len(text)
                    text += piece
                    yield piece, text
                    # Only the new text (plus a stop's length of overlap) can hold a stop sequence.
                    _, hit = cut_at_stop(text[max(0, before - longest_stop) :], request.stop)
                    if hit is not None:
                        finish = "stop"
                        break
                    if len(text) >= budget:
                        finish = LENGTH  # the rest is not read: a reply past its budget is cut, never awaited
                        break
            except Cancelled:
                raise
            except ReactLabError:
                cancel.check()
                if guard.expired:  # the provider's error came from the deadline cutting its read
                    raise _too_slow(provider, deadline, stalls) from None
                raise
            except Exception as e:
                cancel.check()  # a read that failed because Stop closed it is a stop, not a provider failure
                if guard.expired:
                    raise _too_slow(provider, deadline, stalls) from None
                # An SDK's own exception: still the provider's failure, reported as such.
                raise ProviderError(f"{provider.label} provider failed: {said(f'{type(e).__name__}: {e}')}") from e
            finally:
                close = getattr(stream, "close", None)
                if close:
                    close()
        cancel.check()
    except Cancelled:
        raise Stopped(reply(STOPPED)) from None
    if guard.expired and hit is None and finish != LENGTH:
        raise _too_slow(provider, deadline, stalls)
    return reply(finish, text.find(hit) if hit is not None else None, hit or "")


def stopped_step(
    index: int,
    thought: str,
    request: CompletionRequest,
    reply: Reply,
    previous: call_records.CallTexts | None,
    started: float,
) -> Step:
    """Step ``index`` as far as the model wrote it before Stop (``Step.stopped``: its call's finish reason says so):
    its thought, reply, call and tokens; no action, nothing run."""
    step = Step(index, thought, raw_output=reply.text, usage=reply.usage, call=call_record(request, reply, previous))
    step.seconds = round(time.perf_counter() - started, 6)
    return step


def call_record(request: CompletionRequest, reply: Reply, previous: call_records.CallTexts | None) -> ModelCall:
    """The step's record of this call, stored relative to the run's previous call (``react_core.base.call_records``)."""
    sent = reply.sent or {}
    return call_records.record(
        previous,
        request.system,
        request.prompt,
        api=sent.get("api", ""),
        endpoint=sent.get("endpoint", ""),
        body=sent.get("body") or {"system": request.system, "prompt": request.prompt},
        conversation=sent.get("conversation", ""),
        omitted=list(sent.get("omitted", [])),
        reused_tokens=sent.get("reused_tokens"),
        response_id=sent.get("response_id", ""),
        response_model=sent.get("response_model", ""),
        stop_local=list(request.stop),
        finish_reason=reply.finish_reason,
        cut_at=reply.cut_at,
        cut_by=reply.cut_by,
        first_token_seconds=reply.first_token_seconds,
        seconds=reply.seconds,
    )


def _bounded(call: ToolCall) -> ToolCall:
    """A call made safe to keep: well-formed text, arguments kept to the reply cap (cut arguments are malformed JSON,
    which the model hears about)."""
    arguments = scrub(call.arguments)[:MAX_REPLY_CHARS]
    return ToolCall(scrub(call.id)[:200], scrub(call.name)[:200], arguments, call.signature)


def _too_slow(provider: Provider, deadline: float | None, stalls: bool) -> ProviderError:
    if stalls:
        return ProviderError(
            f"{provider.label} made no progress for {deadline:g} s (no prompt read, no token written); nothing it "
            "wrote was used. Try again, or switch provider in the settings."
        )
    return ProviderError(
        f"{provider.label} did not finish its reply within {deadline:g} s; nothing it sent was used. "
        "Try again, or switch provider in the settings."
    )
