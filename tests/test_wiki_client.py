"""The live Wikipedia client over real HTTP against the local MediaWiki server: request budget, cache, retries,
faults, offline fallback, sharing between threads, and all 200 questions' gold titles."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import httpx2
import pytest
from wiki_helpers import (
    RecordedSleep,
    close_shared_sources,
    closed_port,
    gold_articles,
    hotpot_pack,
    live_source,
    small_pack,
)

from react_core.base.errors import ConfigError
from react_core.base.retry_after import parse_retry_after
from react_core.knowledge import create_knowledge
from react_core.knowledge.reach import WIKIPEDIA_API
from react_core.knowledge.server import start_wiki_server
from react_core.knowledge.text import collapse
from react_core.knowledge.wikipedia import WikipediaSource, endpoint_for, user_agent
from react_core.tools.wiki import make_wiki_tools

FALLBACK_NOTE = "Wikipedia could not be reached; answered from the offline pack (HotpotQA 2017 paragraphs)."


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with start_wiki_server(small_pack(tmp_path_factory.mktemp("pack") / "small.sqlite")) as srv:
        yield srv


@pytest.fixture
def srv(server):
    server.reset()
    server.delay_ms = 0
    return server


@pytest.fixture(autouse=True)
def _no_shared_sources():
    yield
    close_shared_sources()


def tools_for(source, sentences=5):
    search, lookup = make_wiki_tools(source, sentences=sentences)
    return search.function, lookup.function


def test_request_budget_hit_1_miss_2_lookup_0_repeat_0(srv):
    search, lookup = tools_for(live_source(srv.url))
    hit = search("Mercury (planet)")
    assert hit.text == "Mercury is the smallest planet. It is closest to the Sun."
    assert hit.stats.http_requests == 1 and srv.requests == 1
    assert hit.sources[0].url == "https://en.wikipedia.org/wiki/Mercury_(planet)" and hit.sources[0].revision
    assert lookup("sun").stats.http_requests == 0 and srv.requests == 1
    miss = search("Mercury planet")
    assert miss.text.startswith("Could not find [Mercury planet]. Similar: ['Mercury (planet)'")
    assert miss.stats.http_requests == 2 and srv.requests == 3
    assert search("Mercury (planet)").stats.http_requests == 0
    assert search("Mercury planet").stats.http_requests == 0
    assert srv.requests == 3


def test_the_hit_request_asks_for_everything_at_once_with_our_user_agent(srv):
    live_source(srv.url, contact="mailto:ops@example.org").search("Zürich")
    (request,) = srv.log
    params = request["params"]
    assert params["titles"] == "Zürich" and "redirects" in params and params["formatversion"] == "2"
    assert set(params["prop"].split("|")) == {"extracts", "info", "pageprops"} and params["inprop"] == "url"
    assert request["user_agent"] == f"ReActLab/0.1 (+mailto:ops@example.org) httpx2/{httpx2.__version__}"


def test_redirects_disambiguation_and_markup_through_the_client(srv):
    source = live_source(srv.url)
    assert source.search("Quicksilver (planet)").page.title == "Mercury (planet)"
    assert source.search("zurich").page.title == "Zürich"
    disambiguation = source.search("Mercury")
    assert disambiguation.page is None and disambiguation.http_requests == 2
    assert set(disambiguation.similar) == {"Freddie Mercury", "Mercury (planet)", "Mercury (element)"}
    search, lookup = tools_for(source, sentences=20)
    text = search("Widget Company").text
    assert text.startswith("The Widget & Gadget Company is a maker of widgets. It was founded by Dr. J. R. Smith")
    assert "<" not in text and "[3]" not in text and "==" not in text and "Official website" not in text
    assert lookup("gadgets").text == "(Result 1 / 1) It makes gadgets now."


@pytest.mark.parametrize("entity", ["C#", "A|B", "[[Mercury", "{{x}}", "x" * 300])
def test_strings_that_cannot_be_titles_cost_one_search_request(srv, entity):
    outcome = live_source(srv.url).search(entity)
    assert outcome.page is None and not outcome.error and outcome.http_requests == 1
    assert srv.log[0]["params"]["list"] == "search" and "titles" not in srv.log[0]["params"]
    if entity == "C#":
        assert outcome.similar == ["C Sharp (programming language)"]


def test_unicode_titles_are_one_request_hits(srv):
    outcome = live_source(srv.url).search("東京")
    assert outcome.page.sentences == ["東京は日本の首都です。"] and outcome.http_requests == 1


def test_a_500_is_retried_with_backoff(srv):
    sleep = RecordedSleep()
    srv.inject("status", 1, status=500)
    outcome = live_source(srv.url, sleep=sleep).search("Freddie Mercury")
    assert outcome.page.title == "Freddie Mercury" and outcome.http_requests == 2 and sleep.calls == [0.5]


def test_persistent_5xx_becomes_an_error_observation_after_the_retries(srv):
    sleep = RecordedSleep()
    srv.inject("status", 3, status=503)
    search, _ = tools_for(live_source(srv.url, sleep=sleep))
    obs = search("Freddie Mercury")
    assert obs.is_error and "HTTP 503, after 3 tries" in obs.text and srv.url in obs.text
    assert obs.stats.http_requests == 3 and sleep.calls == [0.5, 1.0]
    assert search("Freddie Mercury").stats.http_requests == 1  # failures are not cached


def test_no_retry_starts_that_could_end_past_the_deadline(srv):
    sleep = RecordedSleep()
    srv.inject("status", 3, status=503)
    outcome = live_source(srv.url, sleep=sleep, read_timeout=0.3, deadline=1.0).search("Freddie Mercury")
    assert "giving up after 2 tries" in outcome.error and outcome.http_requests == 2 and sleep.calls == [0.5]
    srv.reset()


def test_429_waits_as_long_as_retry_after_says(srv):
    sleep = RecordedSleep()
    srv.inject("status", 2, status=429, retry_after=3)
    outcome = live_source(srv.url, sleep=sleep).search("Freddie Mercury")
    assert outcome.page is not None and outcome.http_requests == 3 and sleep.calls == [3.0, 3.0]


def test_a_retry_after_beyond_the_limit_fails_at_once(srv):
    sleep = RecordedSleep()
    srv.inject("status", 1, status=429, retry_after=3600)
    outcome = live_source(srv.url, sleep=sleep).search("Freddie Mercury")
    assert "rate limited" in outcome.error and "wait 3600 s" in outcome.error and sleep.calls == []


def test_malformed_json_is_an_error_not_a_crash(srv):
    srv.inject("malformed")
    obs = tools_for(live_source(srv.url))[0]("Freddie Mercury")
    assert obs.is_error and "not JSON" in obs.text and obs.stats.http_requests == 1


def test_a_slow_answer_times_out_and_is_retried(srv):
    srv.inject("slow", 1, seconds=1.5)
    outcome = live_source(srv.url, read_timeout=0.3).search("Freddie Mercury")
    assert outcome.page is not None and outcome.http_requests == 2


def test_a_dropped_connection_is_retried(srv):
    srv.inject("drop")
    outcome = live_source(srv.url).search("Freddie Mercury")
    assert outcome.page is not None and outcome.http_requests == 2


def test_the_cache_expires(srv):
    now = [0.0]
    source = live_source(srv.url, cache_ttl=60, clock=lambda: now[0])
    assert source.search("Zürich").http_requests == 1
    now[0] = 59.0
    assert source.search("Zürich").http_requests == 0
    now[0] = 61.0
    assert source.search("Zürich").http_requests == 1


def test_an_unreachable_endpoint_answers_from_the_pack_and_is_remembered():
    url = f"http://127.0.0.1:{closed_port()}/w/api.php"
    now = [0.0]
    source = live_source(url, fallback_pack=str(hotpot_pack()), clock=lambda: now[0])
    search, lookup = tools_for(source)
    obs = search("Ed Wood")
    assert obs.text.startswith("Edward Davis Wood Jr.") and obs.note == FALLBACK_NOTE and not obs.is_error
    assert obs.stats.http_requests == 1 and obs.sources[0].title == "Ed Wood"
    assert lookup("director").note == FALLBACK_NOTE
    second = search("Scott Derrickson")
    assert second.stats.http_requests == 0 and second.note == FALLBACK_NOTE  # known unreachable: straight to pack
    now[0] = 61.0
    assert search("Tyler Bates").stats.http_requests == 1  # tries the network again after a minute


def test_unreachable_without_a_pack_is_an_error_that_says_what_to_do():
    url = f"http://127.0.0.1:{closed_port()}/w/api.php"
    obs = tools_for(live_source(url))[0]("Ed Wood")
    assert obs.is_error and "could not be reached" in obs.text and "--knowledge pack:PATH" in obs.text


def test_a_dns_failure_counts_as_unreachable():
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("[Errno -2] Name or service not known", request=request)

    source = live_source(
        "https://no-such-host.invalid/w/api.php", transport=httpx2.MockTransport(refuse), fallback_pack=hotpot_pack()
    )
    outcome = source.search("Ed Wood")
    assert outcome.page.title == "Ed Wood" and outcome.note == FALLBACK_NOTE


def test_auto_fallback_builds_the_default_pack_on_first_need(tmp_path, monkeypatch):
    monkeypatch.setenv("REACT_PACK", str(tmp_path / "default.sqlite"))
    url = f"http://127.0.0.1:{closed_port()}/w/api.php"
    outcome = WikipediaSource(url, fallback_pack="auto").search("Ed Wood")
    assert outcome.page.title == "Ed Wood" and outcome.note == FALLBACK_NOTE
    assert (tmp_path / "default.sqlite").is_file()


def test_every_gold_title_comes_back_through_the_client_and_server():
    gold = gold_articles()
    with start_wiki_server(hotpot_pack()) as srv:
        search = tools_for(live_source(srv.url), sentences=1000)[0]
        for title, sentences in gold.items():
            obs = search(title)
            assert obs.text == collapse("".join(sentences)), title
            assert obs.stats.http_requests == 1 and obs.sources[0].title == title
        assert srv.requests == len(gold)


def test_one_shared_source_per_endpoint_serves_many_threads(srv):
    a = create_knowledge("wikipedia", wiki_url=srv.url, fallback_pack=None)
    assert create_knowledge("wikipedia", wiki_url=srv.url, fallback_pack=None) is a
    assert create_knowledge("wikipedia", wiki_url=srv.url + "?x=1", fallback_pack=None) is not a
    a.close()  # a run's close leaves the shared client open
    titles = ["Mercury (planet)", "Mercury (element)", "Freddie Mercury", "Zürich", "Long Page", "Widget Company"]
    results: list[str] = []

    def work() -> None:
        for t in titles:
            results.append(a.search(t).page.title)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted(titles * 4)
    assert srv.requests <= len(titles) * 4


def test_endpoint_configuration():
    assert endpoint_for(None, "de") == WIKIPEDIA_API.format(language="de")
    assert endpoint_for("http://127.0.0.1:9/w/api.php") == "http://127.0.0.1:9/w/api.php"
    for bad_url in ("ftp://x/api.php", "not a url", "http://"):
        with pytest.raises(ConfigError, match="wiki-url"):
            endpoint_for(bad_url)
    with pytest.raises(ConfigError, match="language"):
        endpoint_for(None, "english!")
    assert "ReActLab/0.1 (+https://" in user_agent()


def test_environment_supplies_endpoint_language_and_contact(monkeypatch):
    monkeypatch.setenv("REACT_WIKI_LANGUAGE", "fr")
    assert endpoint_for() == WIKIPEDIA_API.format(language="fr")
    monkeypatch.setenv("REACT_WIKI_URL", "http://127.0.0.1:1/w/api.php")
    assert endpoint_for() == "http://127.0.0.1:1/w/api.php"
    monkeypatch.setenv("REACT_WIKI_CONTACT", "https://example.org/contact")
    assert "(+https://example.org/contact)" in user_agent()


def test_retry_after_reads_seconds_and_dates():
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    now = datetime.fromtimestamp(1445412470.0, UTC)
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=now) == 10.0
