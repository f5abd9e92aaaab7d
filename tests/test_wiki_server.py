"""The local MediaWiki-compatible server over real HTTP: the API shapes our client and the old ``wikipedia`` package
read (formatversion 1 and 2), MediaWiki's errors, fault injection and request counting."""

from __future__ import annotations

import httpx2
import pytest
from wiki_helpers import small_pack

from react_core.knowledge.server import start_wiki_server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with start_wiki_server(small_pack(tmp_path_factory.mktemp("pack") / "small.sqlite")) as srv:
        yield srv


@pytest.fixture
def api(server):
    server.reset()
    with httpx2.Client(timeout=5) as client:

        def get(**params):
            params.setdefault("action", "query")
            params.setdefault("format", "json")
            return client.get(server.url, params=params)

        yield get


def test_titles_v2_with_normalisation_redirects_info_and_extract(api):
    data = api(
        formatversion="2",
        titles="quicksilver_(planet)",
        redirects="1",
        prop="info|extracts|pageprops",
        inprop="url",
        explaintext="1",
    ).json()
    query = data["query"]
    assert query["normalized"] == [{"fromencoded": False, "from": "quicksilver_(planet)", "to": "Quicksilver (planet)"}]
    assert query["redirects"] == [{"from": "Quicksilver (planet)", "to": "Mercury (planet)"}]
    (page,) = query["pages"]
    assert page["title"] == "Mercury (planet)" and page["ns"] == 0 and isinstance(page["lastrevid"], int)
    assert page["canonicalurl"] == "https://en.wikipedia.org/wiki/Mercury_(planet)" == page["fullurl"]
    assert page["extract"] == "Mercury is the smallest planet. It is closest to the Sun."
    assert "pageprops" not in page and data["batchcomplete"] is True


def test_missing_invalid_and_several_titles_v1(api):
    data = api(titles="Nope Page|Zürich", prop="info").json()
    pages = data["query"]["pages"]
    assert pages["-1"] == {"ns": 0, "title": "Nope Page", "missing": ""}
    (found,) = [p for k, p in pages.items() if k != "-1"]
    assert found["title"] == "Zürich" and str(found["pageid"]) in pages
    invalid = api(formatversion="2", titles="\x1fA|B").json()["query"]["pages"][0]
    assert invalid["invalid"] is True and "title" in invalid


def test_disambiguation_pageprops_links_and_parsed_options(api):
    page = api(formatversion="2", titles="Mercury", prop="pageprops|links", ppprop="disambiguation", pllimit="max")
    (data,) = page.json()["query"]["pages"]
    assert data["pageprops"] == {"disambiguation": True}
    assert [link["title"] for link in data["links"]] == ["Freddie Mercury", "Mercury (element)", "Mercury (planet)"]
    parsed = api(titles="Mercury", prop="revisions", rvprop="content", rvparse="", rvlimit="1").json()
    (v1,) = parsed["query"]["pages"].values()
    option = '<li><a href="/wiki/Mercury_(planet)" title="Mercury (planet)">Mercury (planet)</a></li>'
    assert option in v1["revisions"][0]["*"]


def test_the_old_wikipedia_package_requests(api):
    """The exact parameter sets of wikipedia 1.4.0: search, page load, summary (exintro / exsentences), content."""
    found = api(list="search", srprop="", srlimit="1", limit="1", srsearch="Freddie Mercury", srinfo="suggestion")
    assert found.json()["query"]["search"][0]["title"] == "Freddie Mercury"
    assert "searchinfo" not in found.json()["query"]  # no suggestion to give
    load = api(prop="info|pageprops", inprop="url", ppprop="disambiguation", redirects="", titles="Freddie Mercury")
    ((pageid, page),) = load.json()["query"]["pages"].items()
    assert page["fullurl"] == "https://en.wikipedia.org/wiki/Freddie_Mercury" and "pageprops" not in page
    summary = api(prop="extracts", explaintext="", exintro="", titles="Long Page").json()
    (long_page,) = summary["query"]["pages"].values()
    assert long_page["extract"].startswith("Sentence zero. Beta sentence number 1.")
    four = api(prop="extracts", explaintext="", exsentences="4", titles="Long Page").json()
    assert next(iter(four["query"]["pages"].values()))["extract"].endswith("Alpha sentence number 3.")
    content = api(prop="extracts|revisions", explaintext="", rvprop="ids", pageids=pageid).json()
    revision = content["query"]["pages"][pageid]["revisions"][0]
    assert revision["parentid"] == revision["revid"] - 1


def test_sections_are_served_as_wikipedia_formats_them(api):
    wiki = api(formatversion="2", titles="Widget Company", prop="extracts", explaintext="1", exsectionformat="wiki")
    assert "\n== History ==\n" in wiki.json()["query"]["pages"][0]["extract"]
    plain = api(formatversion="2", titles="Widget Company", prop="extracts", explaintext="1", exsectionformat="plain")
    assert "==" not in plain.json()["query"]["pages"][0]["extract"]
    intro = api(formatversion="2", titles="Widget Company", prop="extracts", explaintext="1", exintro="1")
    assert "History" not in intro.json()["query"]["pages"][0]["extract"]
    html = api(formatversion="2", titles="Mercury (planet)", prop="extracts").json()["query"]["pages"][0]["extract"]
    assert html == "<p>Mercury is the smallest planet. It is closest to the Sun.</p>"


def test_search_list_with_limits_offsets_and_totalhits(api):
    data = api(formatversion="2", list="search", srsearch="mercury", srlimit="2").json()["query"]
    assert len(data["search"]) == 2 and data["searchinfo"]["totalhits"] == 2
    rest = api(formatversion="2", list="search", srsearch="mercury", srlimit="2", sroffset="2").json()["query"]
    assert not {h["title"] for h in rest["search"]} & {h["title"] for h in data["search"]}


def test_mediawiki_errors_for_what_it_does_not_serve(api):
    bad_action = api(action="parse")
    assert bad_action.status_code == 200 and bad_action.json()["error"]["code"] == "badvalue"
    assert bad_action.headers["MediaWiki-API-Error"] == "badvalue"
    assert api(list="search").json()["error"]["code"] == "nosrsearch"
    assert api(titles="X", prop="categories").json()["error"]["code"] == "badvalue"
    assert api(list="allpages").json()["error"]["code"] == "badvalue"
    assert api(format="xml").json()["error"]["code"] == "badvalue"


def test_other_paths_are_404_and_post_works(server):
    base = server.url.removesuffix("/w/api.php")
    with httpx2.Client(timeout=5) as client:
        assert client.get(base + "/wiki/Mercury").status_code == 404
        posted = client.post(server.url, data={"action": "query", "format": "json", "titles": "Zürich"})
    assert next(iter(posted.json()["query"]["pages"].values()))["title"] == "Zürich"


def test_faults_apply_to_the_next_requests_in_order_and_are_counted(server, api):
    server.inject("status", 1, status=429, retry_after=7)
    server.inject("malformed")
    throttled = api(titles="Zürich")
    assert throttled.status_code == 429 and throttled.headers["Retry-After"] == "7"
    with pytest.raises(ValueError):
        api(titles="Zürich").json()
    assert api(titles="Zürich").status_code == 200
    assert server.requests == 3 and [entry["params"]["titles"] for entry in server.log] == ["Zürich"] * 3
    with pytest.raises(ValueError, match="fault kind"):
        server.inject("explode")


def test_a_dropped_connection_and_a_delay(server, api):
    server.inject("drop")
    with pytest.raises(httpx2.RemoteProtocolError):
        api(titles="Zürich")
    server.delay_ms = 1
    try:
        assert api(titles="Zürich").status_code == 200
    finally:
        server.delay_ms = 0
