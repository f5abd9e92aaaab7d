"""The live client against hostile servers on 127.0.0.1: answers that trickle, stall or never end, redirects away from
the endpoint, lone surrogates in the JSON, and Stop pressed while a Search waits."""

from __future__ import annotations

import json
import threading
import tracemalloc
from collections.abc import Callable

import httpx2
import pytest
from wiki_helpers import close_shared_sources, live_source, small_pack

from react_core.base import cancel
from react_core.base.trace import Action
from react_core.knowledge.server import start_wiki_server
from react_core.knowledge.wikipedia import WikipediaSource
from react_core.tools import build_tools
from react_core.tools.wiki import make_wiki_tools

# How long a test waits for a call that Stop should have ended at once: a hang guard, not a speed requirement.
HANG_GUARD = 30.0


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with start_wiki_server(small_pack(tmp_path_factory.mktemp("pack") / "small.sqlite")) as srv:
        yield srv


@pytest.fixture
def srv(server):
    server.reset()
    yield server
    server.reset()  # ends any answer still stalled or trickling


@pytest.fixture(autouse=True)
def _no_shared_sources():
    yield
    close_shared_sources()


def stopped_when(signal: threading.Event, call: Callable[[], object]) -> BaseException | object:
    """Run ``call`` inside a cancellation scope on a thread, set Stop once ``signal`` fires; what it returned or
    raised. Fails the test when the call is still waiting long after Stop."""
    stop = threading.Event()
    outcome: list[object] = []

    def run() -> None:
        with cancel.scope(stop):
            try:
                outcome.append(call())
            except BaseException as e:  # the test inspects what came out
                outcome.append(e)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    assert signal.wait(HANG_GUARD), "the server never saw the request"
    stop.set()
    worker.join(HANG_GUARD)
    assert not worker.is_alive(), "Stop did not end the wait"
    return outcome[0]


# -- wall-clock limits and size caps --------------------------------------------------------------------------


def test_a_trickling_answer_is_cut_off_at_the_request_timeout(srv):
    srv.inject("trickle", seconds=0.05)  # the whole answer would take ~20 s
    search = make_wiki_tools(live_source(srv.url, request_timeout=0.5))[0].function
    obs = search("Freddie Mercury")
    assert obs.is_error and not obs.evidence
    assert "did not arrive within 0.5 s (request_timeout)" in obs.text
    assert obs.stats.http_requests == 1  # a server that slow is not asked again


def test_the_deadline_bounds_a_query_with_its_retries(srv):
    srv.inject("trickle", seconds=0.05)
    outcome = live_source(srv.url, request_timeout=60, deadline=0.5).search("Freddie Mercury")
    assert "did not arrive within" in outcome.error and outcome.page is None


def test_an_answer_over_the_size_cap_is_refused_while_streaming(srv):
    srv.inject("huge", size=3_000_000)  # no Content-Length: only reading tells the size
    search = make_wiki_tools(live_source(srv.url, max_body_bytes=1_000_000))[0].function
    obs = search("Freddie Mercury")
    assert obs.is_error and "larger than 1 MB" in obs.text and "max_body_bytes" in obs.text
    assert obs.stats.http_requests == 1


def test_a_declared_length_over_the_cap_is_refused_before_reading(srv):
    page = {"title": "Freddie Mercury", "extract": "x" * 5_000, "canonicalurl": "https://en.wikipedia.org/wiki/F"}
    srv.inject("body", body=json.dumps({"query": {"pages": [page]}}).encode())
    outcome = live_source(srv.url, max_body_bytes=2_000).search("Freddie Mercury")
    assert "larger than 2,000 bytes" in outcome.error


def test_a_50_mb_answer_costs_a_few_megabytes_of_memory_not_the_answer(srv):
    srv.inject("huge", size=50_000_000)
    source = live_source(srv.url)  # the default cap
    tracemalloc.start()
    try:
        outcome = source.search("Freddie Mercury")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "larger than 4 MB" in outcome.error
    assert peak < 20_000_000  # the cap (4 MB) plus buffers; reading it whole took about 1 GB


# -- Stop -------------------------------------------------------------------------------------------------------


def test_stop_ends_a_search_waiting_on_a_silent_server(srv):
    srv.inject("stall")  # headers never come; only the 60 s read timeout would end the wait
    tools = build_tools(live_source(srv.url, read_timeout=60, request_timeout=120, deadline=300), ["search"])
    outcome = stopped_when(srv.waiting, lambda: tools.run(Action("search", "Freddie Mercury")))
    assert isinstance(outcome, cancel.Cancelled)  # through the tool registry, not an error observation


def test_stop_ends_a_search_while_the_body_trickles_in(srv):
    srv.inject("trickle", seconds=0.2)
    source = live_source(srv.url, read_timeout=60, request_timeout=300, deadline=300)
    outcome = stopped_when(srv.waiting, lambda: source.search("Freddie Mercury"))
    assert isinstance(outcome, cancel.Cancelled)


def test_stop_ends_the_backoff_before_a_retry(srv):
    srv.inject("status", status=429, retry_after=3600)  # with time.sleep the retry would wait an hour
    source = WikipediaSource(srv.url, fallback_pack=None, max_retry_after=7200, deadline=10_000)
    outcome = stopped_when(srv.received, lambda: source.search("Freddie Mercury"))
    assert isinstance(outcome, cancel.Cancelled) and srv.requests == 1
    source.shutdown()


def test_outside_a_scope_nothing_is_cancelled_and_the_search_answers(srv):
    srv.inject("trickle", seconds=0.001)
    assert live_source(srv.url).search("Freddie Mercury").page.title == "Freddie Mercury"


# -- redirects --------------------------------------------------------------------------------------------------


def test_a_redirect_to_another_host_is_refused(srv):
    elsewhere = f"http://localhost:{srv.port}/w/api.php?action=query"
    srv.inject("redirect", status=301, location=elsewhere)
    obs = make_wiki_tools(live_source(srv.url))[0].function("Freddie Mercury")
    assert obs.is_error and "redirected to another host" in obs.text and "localhost" in obs.text
    assert "--wiki-url" in obs.text and srv.requests == 1  # never followed


def test_a_redirect_to_another_port_is_refused(srv, tmp_path):
    with start_wiki_server(small_pack(tmp_path / "other.sqlite")) as other:
        srv.inject("redirect", location=other.url)
        outcome = live_source(srv.url).search("Freddie Mercury")
        assert "redirected to another host" in outcome.error and other.requests == 0


def test_a_redirect_from_https_to_http_is_refused():
    seen: list[str] = []

    def downgrade(request: httpx2.Request) -> httpx2.Response:
        seen.append(str(request.url))
        return httpx2.Response(301, headers={"Location": str(request.url.copy_with(scheme="http"))})

    source = live_source("https://wiki.test/w/api.php", transport=httpx2.MockTransport(downgrade))
    outcome = source.search("Freddie Mercury")
    assert "redirected from https to http" in outcome.error and len(seen) == 1


def test_a_redirect_within_the_endpoint_is_followed_and_counted(srv):
    srv.inject("redirect", status=307, location="/w/api.php?" + "&".join(f"{k}={v}" for k, v in _hit_params().items()))
    outcome = live_source(srv.url).search("Freddie Mercury")
    assert outcome.page.title == "Freddie Mercury" and outcome.http_requests == 2 and srv.requests == 2


def test_a_redirect_loop_ends(srv):
    srv.inject("redirect", 10, location="/w/api.php?again=1")
    outcome = live_source(srv.url, max_redirects=3).search("Freddie Mercury")
    assert "more than 3 redirects" in outcome.error and srv.requests == 4


def _hit_params() -> dict[str, str]:
    return {
        "action": "query",
        "format": "json",
        "formatversion": "2",
        "prop": "extracts|info|pageprops",
        "redirects": "1",
        "explaintext": "1",
        "inprop": "url",
        "titles": "Freddie_Mercury",
    }


# -- lone surrogates ---------------------------------------------------------------------------------------------


def _printable(text: str) -> bool:
    text.encode("utf-8")  # raises on a lone surrogate, as printing, SQLite and the browser do
    return True


def test_lone_surrogates_in_a_page_become_replacement_characters(srv):
    page = {
        "title": "Freddie \\ud800Mercury",
        "extract": "He sang \\udc00 well. He was \\ud83d born in Zanzibar.",
        "canonicalurl": "https://en.wikipedia.org/wiki/Freddie_\\udfff",
        "lastrevid": 1,
    }
    body = json.dumps({"query": {"pages": [page]}}).replace("\\\\", "\\").encode()
    assert b"\\ud800" in body
    srv.inject("body", body=body)
    search, lookup = (t.function for t in make_wiki_tools(live_source(srv.url)))
    obs = search("Freddie Mercury")
    assert obs.text == "He sang \ufffd well. He was \ufffd born in Zanzibar." and _printable(obs.text)
    assert obs.sources[0].title == "Freddie \ufffdMercury" and _printable(obs.sources[0].url)
    assert _printable(lookup("born").text)


def test_lone_surrogates_in_similar_titles_and_errors_are_scrubbed(srv):
    srv.inject("body", body=b'{"query": {"pages": [{"title": "Nope", "missing": true}]}}')
    srv.inject("body", body=b'{"query": {"search": [{"title": "Bad \\ud800 title"}, {"title": "Fine"}]}}')
    obs = make_wiki_tools(live_source(srv.url))[0].function("Nope")
    # Scrubbed, the first title holds U+FFFD, which no MediaWiki title can: it is not offered as a suggestion.
    assert obs.text == "Could not find [Nope]. Similar: ['Fine']." and _printable(obs.text)
    srv.inject("body", body=b'{"error": {"code": "bad\\udc80", "info": "broken \\ud800 info"}}')
    error = make_wiki_tools(live_source(srv.url))[0].function("Zurich")
    assert error.is_error and "broken \ufffd info" in error.text and _printable(error.text)
