"""Plain text for observations (no HTML, entities, wiki markup or reference markers), sentences, titles, the cache."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from react_core.knowledge.cache import TTLCache
from react_core.knowledge.text import article_sentences, clean_text, collapse, split_sentences
from react_core.knowledge.titles import invalid_reason, normalize_title, page_url, search_text


def test_clean_text_removes_html_entities_refs_and_markers():
    raw = (
        'The <b>Widget</b> &amp; Gadget<ref name="a">cite me</ref> Co.[3] was <i>it</i>alic[12][a][citation needed]'
        " <!-- hidden --> &lt;script&gt;alert(1)&lt;/script&gt;done [[Foo|bar]] and [[Baz]] '''bold'''."
    )
    assert clean_text(raw) == "The Widget & Gadget Co. was italic done bar and Baz bold."


def test_clean_text_keeps_what_only_looks_like_markup():
    assert clean_text("Donoghue v Stevenson [1932] UKHL 100") == "Donoghue v Stevenson [1932] UKHL 100"
    assert clean_text("3 < 5 and 7 > 2") == "3 < 5 and 7 > 2"
    assert clean_text('"The Simpsons"<nowiki>\'</nowiki> eighth season') == '"The Simpsons"\' eighth season'


def test_block_tags_separate_words_inline_tags_do_not():
    assert clean_text("one<br/>two<p>three</p><span>fo</span>ur") == "one two three four"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab <>/&;[]1 3=.'\"refbpi")), max_size=80))
def test_clean_text_never_leaves_a_tag_or_marker(raw):
    out = clean_text(raw)
    assert not re.search(r"</?[A-Za-z][^<>]*>", out)
    assert not re.search(r"\[\d{1,3}\]", out)
    assert out == out.strip()


def test_split_sentences_knows_abbreviations_initials_and_decimals():
    text = "Dr. Smith lived in the U.S. for 3.5 years. J. R. R. Tolkien met him in St. Louis! Why? See e.g. him."
    assert split_sentences(text) == [
        "Dr. Smith lived in the U.S. for 3.5 years.",
        "J. R. R. Tolkien met him in St. Louis!",
        "Why?",
        "See e.g. him.",
    ]


def test_split_sentences_handles_quotes_and_full_width_stops():
    assert split_sentences('He said "Go." Then he left.') == ['He said "Go."', "Then he left."]
    assert split_sentences("東京は日本の首都です。人口は多い。") == ["東京は日本の首都です。", "人口は多い。"]
    assert split_sentences("") == []


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('Ab. ?!"3x')), max_size=60))
def test_split_sentences_loses_no_text(text):
    assert "".join(split_sentences(text)).replace(" ", "") == text.replace(" ", "").strip()


def test_article_sentences_drop_headings_and_reference_sections():
    extract = (
        "Intro one. Intro two.\n\n== History ==\nOld times.\n=== Detail ===\nDetail text.\n"
        "== References ==\nA citation.\n=== Books ===\nA book.\n== Legacy ==\nStill read."
    )
    sentences = article_sentences(extract)
    assert sentences == ["Intro one.", " Intro two.", " Old times.", " Detail text.", " Still read."]
    assert collapse("".join(sentences)) == "Intro one. Intro two. Old times. Detail text. Still read."


def test_titles_follow_mediawiki_normalisation():
    assert normalize_title("  scott_derrickson  ") == "Scott derrickson"
    assert normalize_title("Ed   Wood") == "Ed Wood"
    assert normalize_title("ümlaut") == "Ümlaut"
    assert invalid_reason("Ed Wood") == ""
    for bad in ("C#", "A|B", "[[X]]", "{x}", "a<b", "%41", ""):
        assert invalid_reason(normalize_title(bad)), bad
    assert "255 bytes" in invalid_reason("x" * 300)
    assert search_text("[[Foo|bar]]#x") == "Foo bar x"


def test_page_urls_are_encoded_as_wikipedia_writes_them():
    assert page_url("Scott Derrickson") == "https://en.wikipedia.org/wiki/Scott_Derrickson"
    assert page_url("Arthur's Magazine") == "https://en.wikipedia.org/wiki/Arthur%27s_Magazine"
    assert page_url("Zürich") == "https://en.wikipedia.org/wiki/Z%C3%BCrich"
    assert page_url("AC/DC (band), live") == "https://en.wikipedia.org/wiki/AC/DC_(band),_live"


def test_ttl_cache_evicts_least_recently_used_and_expires():
    now = [0.0]
    cache: TTLCache[int] = TTLCache(maxsize=2, ttl=10, clock=lambda: now[0])
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3
    now[0] = 10.0
    assert cache.get("a") is None and len(cache) == 1
