"""Search and Lookup exactly as the paper's environment answers, over any source; bad input gives clean observations."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from wiki_helpers import small_pack

from react_core.base.cancel import Cancelled
from react_core.base.trace import Action, Observation
from react_core.knowledge.base import Page, SearchOutcome
from react_core.knowledge.pack import PackSource
from react_core.tools import build_tools
from react_core.tools.registry import Tool, ToolRegistry
from react_core.tools.wiki import (
    clean_entity,
    make_wiki_tools,
)


class FakeSource:
    """Answers from a dict; records what it was asked."""

    name = "fake"

    def __init__(self, pages: dict[str, Page], **outcome_fields) -> None:
        self.pages = pages
        self.asked: list[str] = []
        self.fields = outcome_fields

    def search(self, entity: str) -> SearchOutcome:
        self.asked.append(entity)
        page = self.pages.get(entity)
        return SearchOutcome(page=page, similar=[] if page else ["Other A", "Other's B"], **self.fields)

    def close(self) -> None:
        pass


PLANET = Page(
    title="Mercury (planet)",
    url="https://en.wikipedia.org/wiki/Mercury_(planet)",
    sentences=["Mercury is a planet.", " It is small.", " Mercury is hot.", " It has no moons.", " It is grey."]
    + [" Mercury orbits fast.", " The end."],
    revision=7,
)


@pytest.fixture
def tools():
    search, lookup = make_wiki_tools(FakeSource({"Mercury (planet)": PLANET}), sentences=5)
    return search.function, lookup.function


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> PackSource:
    return PackSource(small_pack(tmp_path_factory.mktemp("pack") / "small.sqlite"))


def test_a_hit_gives_the_first_n_sentences_and_its_source(tools):
    search, _ = tools
    obs = search("Mercury (planet)")
    assert obs.text == "Mercury is a planet. It is small. Mercury is hot. It has no moons. It is grey."
    assert not obs.is_error and obs.note == ""
    assert [s.to_dict() for s in obs.sources] == [
        {"title": "Mercury (planet)", "url": "https://en.wikipedia.org/wiki/Mercury_(planet)", "revision": 7}
    ]
    one = make_wiki_tools(FakeSource({"Mercury (planet)": PLANET}), sentences=1)[0].function
    assert one("Mercury (planet)").text == "Mercury is a planet."


def test_a_miss_is_a_normal_observation_in_the_papers_words(tools):
    search, _ = tools
    obs = search("Mercury")
    assert obs.text == "Could not find [Mercury]. Similar: ['Other A', \"Other's B\"]."
    assert not obs.is_error and obs.sources == []
    assert obs.similar_titles == ["Other A", "Other's B"]


def test_lookup_walks_matching_sentences_then_says_no_more(tools):
    search, lookup = tools
    search("Mercury (planet)")
    assert lookup("mercury").text == "(Result 1 / 3) Mercury is a planet."
    assert lookup("MERCURY").text == "(Result 2 / 3) Mercury is hot."  # same keyword, any case: next result
    assert lookup("Mercury").text == "(Result 3 / 3) Mercury orbits fast."
    assert lookup("mercury").text == "No more results."
    assert lookup("small").text == "(Result 1 / 1) It is small."  # a new keyword starts again
    assert lookup("mercury").text == "(Result 1 / 3) Mercury is a planet."
    assert lookup("mercury").sources[0].title == "Mercury (planet)"
    assert lookup("volcano").text == "No more results."
    assert lookup("mercury").stats.http_requests == 0


def test_a_new_search_resets_the_lookup_cursor_and_a_miss_keeps_the_last_page(tools):
    search, lookup = tools
    search("Mercury (planet)")
    lookup("mercury")
    search("Mercury (planet)")
    assert lookup("mercury").text.startswith("(Result 1 / 3)")
    search("Nothing here")
    assert lookup("mercury").text == "(Result 1 / 3) Mercury is a planet."  # the last page *found*


def test_lookup_before_any_successful_search_says_so(tools):
    search, lookup = tools
    obs = lookup("mercury")
    assert obs.is_error and "Search[" in obs.text
    search("Nothing here")
    assert lookup("mercury").is_error


@pytest.mark.parametrize(
    ("entity", "message"),
    [("", "needs an entity"), ("   ", "needs an entity"), ("x" * 5000, "5,000 characters"), ("é" * 200, "255 bytes")],
)
def test_empty_and_huge_entities_are_error_observations_without_a_request(entity, message):
    source = FakeSource({})
    search = make_wiki_tools(source)[0].function
    obs = search(entity)
    assert obs.is_error and message in obs.text and source.asked == []


def test_the_model_s_decorations_are_taken_off_the_entity():
    assert clean_entity("[[Mercury (planet)|the planet]]") == "Mercury (planet)"
    assert clean_entity('"Mercury (planet)"') == "Mercury (planet)"
    assert clean_entity("\u201cMercury\u201d") == "Mercury"
    assert clean_entity('"Weird Al" Yankovic') == '"Weird Al" Yankovic'
    assert clean_entity("  Ed \n Wood ") == "Ed Wood"


@pytest.mark.parametrize("entity", ["C#", "A|B", "[[Mercury", "{{Mercury}}", "東京", "Zürich", "<b>Mercury</b>"])
def test_odd_and_unicode_entities_give_clean_observations(small, entity):
    search = make_wiki_tools(small)[0].function
    obs = search(entity)
    assert not obs.is_error
    assert "<" not in obs.text.replace("<b>Mercury</b>", "")


def test_page_text_with_html_comes_out_plain(small):
    search, lookup = (t.function for t in make_wiki_tools(small, sentences=10))
    obs = search("Widget Company")
    assert "<" not in obs.text and "&" not in obs.text.replace("Widget & Gadget", "") and "[3]" not in obs.text
    assert obs.text.startswith("The Widget & Gadget Company is a maker of widgets. It was founded by Dr. J. R. Smith")
    assert "History" not in obs.text and "Official website" not in obs.text
    assert lookup("boston").text == "(Result 1 / 1) The company moved to Boston in 1950."


def test_a_source_failure_is_an_error_observation_with_its_request_count():
    source = FakeSource({}, http_requests=3, error="Wikipedia failed: HTTP 503.")
    obs = make_wiki_tools(source)[0].function("Mercury")
    assert obs.is_error and obs.text == "Wikipedia failed: HTTP 503." and obs.stats.http_requests == 3


def test_the_fallback_note_rides_on_search_and_lookup():
    note = "Wikipedia could not be reached; answered from the offline pack (HotpotQA 2017 paragraphs)."
    search, lookup = (t.function for t in make_wiki_tools(FakeSource({"Mercury (planet)": PLANET}, note=note)))
    assert search("Mercury (planet)").note == note
    assert lookup("hot").note == note
    assert search("Missing").note == note


def test_build_tools_registers_search_and_lookup(small):
    registry = build_tools(small, ["search", "lookup"])
    assert registry.names == ["search", "lookup"]
    obs = registry.run(Action("search", "Mercury (planet)"))
    assert obs.text == "Mercury is the smallest planet. It is closest to the Sun." and obs.stats.seconds >= 0
    assert build_tools(small, ["lookup"]).names == ["lookup"]


def test_each_run_gets_its_own_lookup_state(small):
    first, second = build_tools(small), build_tools(small)
    first.run(Action("search", "Long Page"))
    assert first.run(Action("lookup", "alpha")).text.startswith("(Result 1 / 3)")
    assert second.run(Action("lookup", "alpha")).is_error


@given(st.lists(st.text(min_size=1, max_size=30), max_size=5), st.text(max_size=40))
def test_similar_titles_reads_back_any_miss(titles, entity):
    assert Observation(Observation.miss_text(entity, titles)).similar_titles == titles


def test_similar_titles_ignores_other_text():
    assert Observation("Mercury is a planet.").similar_titles == []
    assert Observation("Could not find [X]. Similar: [broken").similar_titles == []
    assert Observation("Could not find [X]. Similar: [].").similar_titles == []


def test_evidence_is_a_page_found_or_a_lookup_result_never_a_miss_or_an_error(tools):
    search, lookup = tools
    assert search("Mercury (planet)").evidence
    assert lookup("mercury").evidence
    assert not lookup("volcano").evidence  # "No more results."
    assert not search("Mercury").evidence  # a miss
    assert not search("").evidence  # the model's mistake
    failing = make_wiki_tools(FakeSource({}, error="Wikipedia failed: HTTP 503."))[0].function
    assert not failing("Mercury").evidence


def test_the_calculator_marks_results_as_evidence_and_errors_not():
    registry = build_tools(None, ["calculator"])
    assert registry.run(Action("calculator", "6 * 7")).evidence
    assert not registry.run(Action("calculator", "6 / 0")).evidence


def test_an_observation_s_text_is_bounded_however_long_the_page():
    giant = "word " * 200_000  # one 1 MB "sentence", as a hostile or broken server can send
    page = Page("Giant", "https://en.wikipedia.org/wiki/Giant", [giant.strip() + ".", " Second giant " + giant])
    registry = ToolRegistry(make_wiki_tools(FakeSource({"Giant": page})))
    for obs in (registry.run(Action("search", "Giant")), registry.run(Action("lookup", "second"))):
        # The documented figure, written out: a test against the constant would pass whatever it became.
        assert 9_000 < len(obs.text) <= 10_000 and obs.text.endswith(" [… cut at 10,000 characters]")
        assert obs.evidence
    failing = ToolRegistry(make_wiki_tools(FakeSource({}, error="x" * 50_000)))
    error = failing.run(Action("search", "Giant"))
    assert len(error.text) <= 10_000 and error.is_error and error.text.endswith(" [… cut at 10,000 characters]")


def test_stop_passes_through_the_registry_other_failures_become_observations():
    def waiting(_: str) -> str:
        raise Cancelled

    def broken(_: str) -> str:
        raise RuntimeError("boom")

    registry = ToolRegistry([Tool("search", waiting), Tool("lookup", broken)])
    with pytest.raises(Cancelled):
        registry.run(Action("search", "Mercury"))
    obs = registry.run(Action("lookup", "x"))
    assert obs.is_error and "RuntimeError: boom" in obs.text
