"""Streams as they really fail, for each hosted provider against its local fake server: a stream cut short is never
an answer (it is tried again, the shown text starting over, then a clear error); hostile servers end within their
limits; Stop reaches a call that waits on a silent server and a retry's backoff; SSE comments are legal."""

from __future__ import annotations

import threading
import tracemalloc
import zlib

import httpx2
import pytest
from provider_helpers import FakeGemini, FakeOpenAI, RecordingSleep, fast_retry, gzip_bomb, wait_for

from react_core.base import cancel
from react_core.base.errors import ProviderError
from react_core.base.events import TextDelta
from react_core.loop.agent import Agent, RunConfig
from react_core.loop.model_call import stream_completion
from react_core.presets.preset import Preset
from react_core.providers import create_provider
from react_core.providers.base import CompletionRequest
from react_core.providers.bodies import MAX_EVENT_BYTES, EventStream, bounded
from react_core.providers.retry import RetryPolicy
from react_core.tools.calculator import CALCULATOR
from react_core.tools.registry import ToolRegistry

FAKES = {"openai": FakeOpenAI, "gemini": FakeGemini}
ANSWER = " I know it.\nAction 1: Finish[the United States]"
PIECES = 7  # " ", "I ", "know ", "it.\n", "Action ", "1: ", "Finish[the " of 9 pieces: cut inside Finish[…]
# Events before the text: OpenAI's first event only says who speaks.
LEAD = {"openai": 1, "gemini": 0}


def hosted(name: str, server, **options):
    base_url = server.root + ("/v1" if name == "openai" else "")
    if name == "openai":
        options.setdefault("model", "gpt-4.1-mini")
    options.setdefault("retry", fast_retry())
    return create_provider(name, api_key="k-0123456789", base_url=base_url, **options)


def agent(provider) -> Agent:
    preset = Preset(name="t", dialect="paper", instructions="Use the tools:\n{tools}", examples="")
    return Agent(RunConfig(provider=provider, preset=preset, tools=ToolRegistry([CALCULATOR])))


def request(max_tokens: int = 100) -> CompletionRequest:
    prompt = "Question: q\nThought 1:"
    return CompletionRequest(system="s", prompt=prompt, stop=("\nObservation",), max_tokens=max_tokens)


# -- a stream cut short ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_a_stream_cut_mid_answer_is_tried_again_and_the_text_starts_over(name: str) -> None:
    with FAKES[name]([ANSWER, ANSWER]) as server:
        server.fail({"cut_after": LEAD[name] + PIECES})  # ends cleanly, after "Finish[the ", without finishing
        events = list(agent(hosted(name, server)).stream("Which country?"))
    trace = events[-1].trace
    assert trace.stop_reason == "finished" and trace.final_answer == "the United States"
    assert len(server.requests) == 2
    shown = [e.text for e in events if isinstance(e, TextDelta)]
    restart = shown.index("")  # the partial text was withdrawn before the second try streamed
    assert shown[restart - 1].endswith("Finish[the ") and shown[-1] == ANSWER


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_a_stream_cut_every_time_is_a_clear_error_never_an_answer(name: str) -> None:
    with FAKES[name]([ANSWER] * 3) as server:
        server.fail(*[{"cut_after": LEAD[name] + PIECES}] * 3)
        trace = agent(hosted(name, server)).run("Which country?")
    assert trace.stop_reason == "error" and trace.final_answer is None and trace.steps == []
    assert "stopped in the middle of an answer 3 times in a row" in trace.error
    assert "ended before the answer was complete" in trace.error


def test_an_openai_stream_that_finished_but_lost_its_done_marker_is_whole() -> None:
    with FakeOpenAI([ANSWER]) as server:
        server.fail({"cut_after": LEAD["openai"] + 9 + 1})  # after the finish reason: no usage, no [DONE]
        reply = stream_completion(hosted("openai", server), request())
    assert reply.text == ANSWER and len(server.requests) == 1


def test_the_last_failure_is_retried_with_a_backoff_that_stop_interrupts() -> None:
    assert RetryPolicy().sleep is cancel.sleep
    stop, sleeping = threading.Event(), threading.Event()

    def sleep(seconds: float) -> None:
        sleeping.set()
        cancel.sleep(seconds)  # what RetryPolicy uses by default, with a wait no test could sit out

    threading.Thread(target=lambda: sleeping.wait(30) and stop.set(), daemon=True).start()
    with FakeOpenAI([ANSWER]) as server:
        server.fail({"status": 503})
        policy = RetryPolicy(base_delay=600, max_delay=600, sleep=sleep)
        trace = agent(hosted("openai", server, retry=policy)).run("Which country?", cancel=stop)
    assert trace.stop_reason == "cancelled" and len(server.requests) == 1


# -- hostile servers --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_tokens_without_end_are_cut_at_the_budget_and_the_stream_closed(name: str) -> None:
    with FAKES[name]() as server:
        server.fail({"forever": True})
        reply = stream_completion(hosted(name, server), request(max_tokens=20))
        assert wait_for(lambda: server.aborted >= 1)  # the client hung up: the server stops writing
    assert reply.finish_reason == "length" and reply.text.startswith("blah blah") and len(reply.text) <= 20 * 8


@pytest.mark.parametrize("fault", [{"keepalive": True}, {"trickle": 0.05}])
@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_a_stream_that_never_completes_ends_at_the_deadline(name: str, fault: dict) -> None:
    with FAKES[name]() as server:
        server.fail(fault)
        with pytest.raises(ProviderError, match=r"did not finish its reply within 0.5 s; nothing it sent was used"):
            stream_completion(hosted(name, server), request(), deadline=0.5)


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_a_huge_event_is_refused_without_reading_it_all(name: str) -> None:
    with FAKES[name]() as server:
        server.fail({"huge": 30_000_000})
        with pytest.raises(ProviderError, match="a single event of more than 1 MiB"):
            stream_completion(hosted(name, server), request())
    assert len(server.requests) == 1  # not tried again: a server that does this once does it again


# Far more than a client may read: each body below fails within the 1 MiB cap, so memory stays a few MiB.
HOSTILE = 64 << 20
HOSTILE_BODIES = {
    "gzip bomb": ({"gzip_bomb": HOSTILE}, "a single event of more than 1 MiB"),
    "not events": ({"flood": HOSTILE}, "more than 1 MiB in a reply that is not a stream of events"),
    "error page": ({"flood": HOSTILE, "status": 502, "content_type": "text/html"}, "HTTP 502 with more than 1 MiB"),
    # The SDKs join an event's data: lines until a blank line: an event of short lines is bounded as a whole.
    "one event of short lines": (
        {"flood": HOSTILE, "content_type": "text/event-stream", "lines": True},
        "a single event of more than 1 MiB",
    ),
    "error as events": (
        {"flood": HOSTILE, "status": 500, "content_type": "text/event-stream", "lines": True},
        "HTTP 500 with more than 1 MiB",
    ),
}


@pytest.mark.parametrize("body", HOSTILE_BODIES)
@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_a_hostile_body_is_refused_in_bounded_memory(name: str, body: str) -> None:
    fault, message = HOSTILE_BODIES[body]
    gzip_bomb(HOSTILE, comments=False)  # made (and cached) before memory is counted
    with FAKES[name]() as server:
        server.fail(fault)
        provider = hosted(name, server)  # its SDK imported before memory is counted
        tracemalloc.start()
        try:
            with pytest.raises(ProviderError, match=message):
                stream_completion(provider, request())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        if "flood" in fault:  # the client hung up long before the end
            assert wait_for(lambda: server.aborted == 1) and server.completed == 0
    assert peak < 8 << 20, f"{peak / (1 << 20):.0f} MiB held for a {HOSTILE >> 20} MiB body"
    assert len(server.requests) == 1  # not tried again: a server that does this once does it again


def test_inflating_stops_as_soon_as_the_call_is_aborted() -> None:
    # Bytes already received inflate without a socket read, so the abort that shuts the socket must reach here too:
    # 16 MiB of keep-alives give the SDK nothing, and would all be inflated and filtered before it heard of the abort.
    aborted = threading.Event()
    headers = {"content-type": "text/event-stream", "content-encoding": "gzip"}
    body = httpx2.ByteStream(gzip_bomb(16 << 20, comments=True))
    response = bounded(httpx2.Response(200, headers=headers, stream=body), aborted.is_set)
    assert "content-encoding" not in response.headers  # inflated here, never again by the SDK
    aborted.set()
    with pytest.raises(httpx2.ReadError, match="the call was stopped"):
        next(iter(response.stream))


def _packed(raw: bytes, wbits: int) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
    return packer.compress(raw) + packer.flush()


@pytest.mark.parametrize(
    ("encoding", "wbits"),
    [("gzip", 16 + zlib.MAX_WBITS), ("x-gzip", 16 + zlib.MAX_WBITS), ("deflate", zlib.MAX_WBITS), ("deflate", -15)],
)
def test_a_compressed_reply_within_bounds_reads_as_sent(encoding: str, wbits: int) -> None:
    # A server ignoring "Accept-Encoding: identity" still answers: deflate comes zlib-wrapped or raw, as httpx reads it.
    events = b"".join(b'data: {"n": %d}\n\n' % n for n in range(5000)) + b"data: [DONE]\n\n"
    packed = _packed(events, wbits)
    pieces = [packed[i : i + 7] for i in range(0, len(packed), 7)]  # tiny reads: the inflater resumes mid-stream
    headers = {"content-type": "text/event-stream", "content-encoding": encoding}
    response = bounded(httpx2.Response(200, headers=headers, stream=_Pieces(pieces)), None)
    assert b"".join(response.stream) == events and isinstance(response.stream, EventStream)
    assert response.stream.last_data == b"[DONE]"


class _Pieces(httpx2.SyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self._pieces = pieces

    def __iter__(self):
        yield from self._pieces


@pytest.mark.parametrize("encoding", ["br", "gzip, br"])
def test_an_encoding_this_client_cannot_bound_is_refused_in_one_line(encoding: str) -> None:
    response = httpx2.Response(200, headers={"content-encoding": encoding}, stream=httpx2.ByteStream(b"..."))
    with pytest.raises(ProviderError, match=rf"compressed as {encoding}, which ReAct Lab does not read"):
        bounded(response, None)


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_a_silent_server_times_out_on_each_try_then_is_explained(name: str) -> None:
    sleep = RecordingSleep()
    with FAKES[name]() as server:
        server.fail(*[{"silent": True}] * 3)
        with pytest.raises(ProviderError, match=r"failed 3 times in a row \(no answer within the 0.3 s timeout\)"):
            stream_completion(hosted(name, server, timeout=0.3, retry=fast_retry(sleep)), request())
    assert len(server.requests) == 3 and len(sleep.waits) == 2


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_the_deadline_cuts_a_wait_for_headers_that_would_outlast_it(name: str) -> None:
    with FAKES[name]() as server:
        server.fail({"silent": True})
        with pytest.raises(ProviderError, match="did not finish its reply within 0.5 s"):
            stream_completion(hosted(name, server, timeout=60), request(), deadline=0.5)
    assert len(server.requests) == 1  # an aborted call is not tried again


@pytest.mark.timeout(30)
@pytest.mark.parametrize("fault", [{"silent": True}, {"keepalive": True}])
@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_stop_ends_a_call_waiting_on_the_server(name: str, fault: dict) -> None:
    stop = threading.Event()
    with FAKES[name]() as server:
        server.fail(fault)
        # Stop once the server holds the request: an event, not a delay (the read timeout is a minute).
        threading.Thread(target=lambda: server.holding.wait(30) and stop.set(), daemon=True).start()
        trace = agent(hosted(name, server, timeout=60)).run("Which country?", cancel=stop)
    assert trace.stop_reason == "cancelled" and trace.error is None
    assert len(server.requests) == 1


# -- SSE comments -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["openai", "gemini"])
def test_sse_comments_between_events_are_ignored(name: str) -> None:
    with FAKES[name]([" Multiply.\nAction 1: Calculator[6*7]", " Done.\nAction 2: Finish[42]"], comments=True) as s:
        trace = agent(hosted(name, s)).run("What is 6*7?")
    assert trace.stop_reason == "finished" and trace.final_answer == "42" and len(s.requests) == 2


def _filtered(*chunks: bytes, cap: int | None = None) -> tuple[bytes, EventStream]:
    stream = EventStream(iter(chunks))  # type: ignore[arg-type]
    return b"".join(stream), stream


def test_comment_lines_go_whatever_the_line_endings_and_chunk_boundaries() -> None:
    raw = b': keepalive\r\ndata: {"a": 1}\r\n\r\n:x\n\n:\rdata: {"b": ":not a comment"}\n\ndata: [DONE]\n\n'
    expected = b'data: {"a": 1}\r\n\r\n\ndata: {"b": ":not a comment"}\n\ndata: [DONE]\n\n'
    for size in (1, 2, 3, 7, len(raw)):
        out, stream = _filtered(*[raw[i : i + size] for i in range(0, len(raw), size)])
        assert out == expected, size
        assert stream.last_data == b"[DONE]"


def test_an_event_is_bounded_as_a_whole_and_a_blank_line_starts_the_count_again() -> None:
    line = b"data: " + b"x" * 1000 + b"\n"
    many = line * (MAX_EVENT_BYTES // len(line) + 1)
    with pytest.raises(ProviderError, match="a single event of more than 1 MiB"):
        _filtered(many)
    for blank in (b"\n", b"\r\n", b"\r"):
        events = many[: len(many) // 2] + blank  # each event under the bound, together far over it
        out, _ = _filtered(*[events] * 8, b": keepalive\n" * 2000)
        assert len(out) == 8 * len(events)


def test_an_sdks_error_that_carries_the_whole_body_is_one_short_line() -> None:
    # One event of half a MiB that is not JSON: the Gemini SDK raises with all of it in its message ("Raw response:").
    with FakeGemini() as server:
        server.fail({"flood": MAX_EVENT_BYTES // 2, "content_type": "text/event-stream", "lines": True})
        trace = agent(hosted("gemini", server)).run("Which country?")
    assert trace.stop_reason == "error" and "Raw response: x x x" in trace.error
    assert "\n" not in trace.error and len(trace.error) < 600, trace.error[:600]


def test_the_last_data_line_is_remembered_and_a_long_line_is_refused() -> None:
    _, stream = _filtered(b'data: {"x": 1}\n\n')
    assert stream.last_data == b'{"x": 1}'
    _, stream = _filtered(b'data: {"text": "a longer event"}\n\n')
    assert stream.last_data == b"..."  # not [DONE]: the provider treats the stream as cut short
    line = b"data: " + b"x" * (MAX_EVENT_BYTES + 10)
    with pytest.raises(ProviderError, match="more than 1 MiB"):
        _filtered(*[line[i : i + 65536] for i in range(0, len(line), 65536)])
