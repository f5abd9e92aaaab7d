"""The offline pack: building from HotpotQA (both layouts), the paper's Search semantics over it, all 200 questions."""

from __future__ import annotations

import html
import json
import sqlite3
import threading
from pathlib import Path

import pytest
from wiki_helpers import gold_articles, hotpot_pack, hotpotqa_files, small_pack

from react_core.base.errors import ConfigError
from react_core.knowledge import create_knowledge, open_pack
from react_core.knowledge.default_pack import ensure_default_pack
from react_core.knowledge.pack import PACK_VERSION, PackSource, rebuild_command
from react_core.knowledge.pack_build import build_pack, read_hotpotqa
from react_core.knowledge.text import collapse
from react_core.tools.wiki import make_wiki_tools


@pytest.fixture(scope="module")
def hotpot() -> PackSource:
    return PackSource(hotpot_pack())


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> PackSource:
    return PackSource(small_pack(tmp_path_factory.mktemp("pack") / "small.sqlite"))


def test_the_shared_files_build_into_1963_articles(hotpot):
    assert hotpot.articles == 1963
    assert hotpot.description == "HotpotQA 2017 paragraphs"
    assert json.loads(hotpot.meta["sources"]) == [f.name for f in hotpotqa_files()]


def test_every_gold_title_of_the_200_questions_returns_its_paragraph(hotpot):
    gold = gold_articles()
    assert len(gold) == 395
    search = make_wiki_tools(hotpot, sentences=1000)[0].function
    first5 = make_wiki_tools(hotpot, sentences=5)[0].function
    for title, sentences in gold.items():
        obs = search(title)
        assert not obs.is_error, title
        assert obs.text == collapse("".join(sentences)), title
        assert obs.sources[0].title == title
        assert obs.sources[0].url.startswith("https://en.wikipedia.org/wiki/")
        assert first5(title).text == collapse("".join(sentences[:5])), title


def test_search_uses_mediawiki_title_normalisation(hotpot):
    assert hotpot.search("Scott_Derrickson").page.title == "Scott Derrickson"
    assert hotpot.search("  scott   Derrickson ").page.title == "Scott Derrickson"
    miss = hotpot.search("Scott derrickson")  # only the first letter is case-insensitive, as on Wikipedia
    assert miss.page is None and miss.similar[0] == "Scott Derrickson"


def test_a_miss_lists_similar_titles_exact_case_first_then_fuzzy(hotpot):
    miss = hotpot.search("Ed wood")
    assert miss.page is None and miss.similar[:2] == ["Ed Wood", "Ed Wood (film)"] and len(miss.similar) == 5
    assert hotpot.search("Scot Derickson").similar[0] == "Scott Derrickson"  # fuzzy title match
    assert hotpot.search("zzqx qqzv").similar == []


def test_a_disambiguation_page_is_a_miss_whose_options_are_similar(hotpot, small):
    assert small.search("Mercury").page is None
    assert small.search("Mercury").similar == ["Freddie Mercury", "Mercury (planet)", "Mercury (element)"]
    detected = hotpot.search("122nd Division")  # "… may refer to:" in the HotpotQA text
    assert detected.page is None and detected.similar == ["122nd Division (Imperial Japanese Army)"]


def test_redirects_are_followed_and_unicode_titles_work(small):
    assert small.search("Quicksilver (planet)").page.title == "Mercury (planet)"
    assert small.search("Zurich").page.title == "Zürich"
    assert small.search("東京").page.sentences == ["東京は日本の首都です。"]


@pytest.mark.parametrize("entity", ["C#", "A|B", "[[Mercury", "x" * 5000, "", "   ", "{{Mercury}}", "%41"])
def test_strings_that_cannot_be_titles_are_misses_not_failures(small, entity):
    outcome = small.search(entity)
    assert outcome.page is None and not outcome.error


def test_text_with_markup_is_cleaned_for_search_and_kept_raw_for_the_server(small):
    page = small.search("Widget Company").page
    text = "".join(page.sentences)
    assert "<" not in text and "&amp;" not in text and "[3]" not in text and "==" not in text
    assert "A citation" not in text and "Official website" not in text  # References / External links dropped
    assert page.revision == 4242
    assert "<b>Widget</b>" in small.entry("Widget Company").text


def test_official_layout_and_json_lines_are_accepted(tmp_path):
    record = {"question": "q", "context": [["Alpha Page", ["Alpha is first.", " It is a letter."]]]}
    (tmp_path / "official.json").write_text(json.dumps([record]))
    (tmp_path / "lines.jsonl").write_text(
        json.dumps({"context": {"title": ["Beta Page"], "sentences": [["Beta is second."]]}}) + "\n"
    )
    stats = build_pack([tmp_path / "official.json", tmp_path / "lines.jsonl"], tmp_path / "p.sqlite")
    assert (stats.articles, stats.questions) == (2, 2)
    pack = PackSource(tmp_path / "p.sqlite")
    assert pack.search("Alpha Page").page.sentences == ["Alpha is first.", " It is a letter."]
    assert "2 articles" in stats.summary()


@pytest.mark.parametrize(
    ("content", "message"),
    [("not json", "not JSON"), ('[{"question": "no context"}]', "distractor format"), ("[[1, 2]]", "distractor")],
)
def test_bad_input_files_are_config_errors_and_leave_no_pack(tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(ConfigError, match=message):
        build_pack([bad], tmp_path / "out.sqlite")
    assert not (tmp_path / "out.sqlite").exists()
    with pytest.raises(ConfigError, match="Cannot read"):
        read_hotpotqa(tmp_path / "missing.json")


def test_opening_a_missing_or_foreign_file_says_how_to_build_a_pack(tmp_path):
    with pytest.raises(ConfigError, match="pack build"):
        PackSource(tmp_path / "none.sqlite")
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t(x)").connection.commit()
    with pytest.raises(ConfigError, match="not a ReAct Lab pack.*pack build"):
        PackSource(other)
    with pytest.raises(ConfigError, match="pack build"):
        create_knowledge(f"pack:{tmp_path / 'none.sqlite'}")
    with pytest.raises(ConfigError, match="needs a path"):
        create_knowledge("pack:")
    with pytest.raises(ConfigError, match="wikipedia"):
        create_knowledge("encyclopedia")


def test_create_knowledge_shares_one_open_pack_and_a_runs_close_keeps_it_open():
    a = create_knowledge(f"pack:{hotpot_pack()}", wiki_url="http://ignored.example/w/api.php")
    b = open_pack(hotpot_pack())
    assert a is b
    a.close()
    assert b.search("Ed Wood").page is not None


def test_one_pack_serves_many_threads(hotpot):
    titles = list(gold_articles())[:80]
    failures: list[str] = []

    def work(chunk: list[str]) -> None:
        for t in chunk:
            if hotpot.search(t).page is None or not hotpot.similar(t + " x"):
                failures.append(t)

    threads = [threading.Thread(target=work, args=(titles[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_rebuilding_replaces_the_file_atomically(tmp_path):
    out = tmp_path / "p.sqlite"
    build_pack(hotpotqa_files()[:1], out)
    first = PackSource(out).articles
    build_pack(hotpotqa_files(), out)
    assert PackSource(out).articles == 1963 > first
    assert not [p for p in Path(tmp_path).iterdir() if p.name.endswith(".tmp")]


# -- titles as Wikipedia names them ------------------------------------------------------------------------------


def test_html_entities_in_hotpotqa_titles_are_unescaped(hotpot):
    escaped = {
        title
        for f in hotpotqa_files()
        for record in json.loads(f.read_text(encoding="utf-8"))
        for title in record["context"]["title"]
        if html.unescape(title) != title
    }
    assert len(escaped) >= 16 and "Etiquette &amp; Espionage" in escaped
    for title in escaped:
        assert hotpot.search(html.unescape(title)).page.title == html.unescape(title), title
    page = hotpot.search("Etiquette & Espionage").page
    assert page.url == "https://en.wikipedia.org/wiki/Etiquette_%26_Espionage"
    assert hotpot.search("X&Y").page.url == "https://en.wikipedia.org/wiki/X%26Y"
    assert hotpot.search('I"s').page is not None
    assert hotpot.search("Etiquette and Espionage").similar[0] == "Etiquette & Espionage"
    assert not [t for t in hotpot.titles() if "&amp;" in t or "&quot;" in t]


def _set_version(path: Path, version: str) -> None:
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'version'", (version,))
    db.close()


def test_a_pack_from_an_older_release_is_refused_with_the_rebuild_command(tmp_path):
    old = build_pack(hotpotqa_files()[:1], tmp_path / "old.sqlite").path
    _set_version(old, "1")
    with pytest.raises(ConfigError, match="older ReAct Lab") as refused:
        PackSource(old)
    assert rebuild_command(old) in str(refused.value)
    assert rebuild_command(old) == f"python -m react_core pack build --hotpotqa {HOTPOTQA} --out {old}"
    with pytest.raises(ConfigError, match="older ReAct Lab"):
        create_knowledge(f"pack:{old}")
    _set_version(old, str(PACK_VERSION + 1))
    with pytest.raises(ConfigError, match="newer ReAct Lab"):
        PackSource(old)


HOTPOTQA = "../shared/data/hotpotqa/dev_distractor_*.json"


def test_an_older_default_pack_is_rebuilt_on_first_need(tmp_path, monkeypatch):
    path = tmp_path / "default.sqlite"
    monkeypatch.setenv("REACT_PACK", str(path))
    build_pack(hotpotqa_files()[:1], path)
    _set_version(path, "1")
    assert ensure_default_pack() == path
    rebuilt = PackSource(path)
    assert rebuilt.meta["version"] == str(PACK_VERSION) and rebuilt.search("Etiquette & Espionage").page is not None


# -- what the pack can answer ------------------------------------------------------------------------------------


def test_the_pack_says_what_it_covers(hotpot, small):
    assert hotpot.coverage == "1,963 Wikipedia opening paragraphs (2017) behind 198 HotpotQA questions"
    assert hotpot.question_count == 198  # 200 records; two questions are in both shared files
    assert small.coverage == "9 pages" and small.question_count == 0 and small.sample_questions(3) == []


def test_sampled_questions_are_stable_per_seed_and_distinct(hotpot):
    first = hotpot.sample_questions(5, seed=7)
    assert first == hotpot.sample_questions(5, seed=7) and len({q.question for q in first}) == 5
    assert first != hotpot.sample_questions(5, seed=8)
    assert len(hotpot.sample_questions(1000, seed=0)) == 198 and hotpot.sample_questions(0) == []
    question = next(q for q in hotpot.sample_questions(198, seed=0) if "Speed of Sound" in q.question)
    assert question.supporting_titles == ("Speed of Sound (song)", "X&Y")  # unescaped, as the pages are
    assert question.to_dict()["supporting_titles"] == list(question.supporting_titles)


def test_every_question_s_supporting_pages_are_found_by_search(hotpot):
    search = make_wiki_tools(hotpot)[0].function
    questions = hotpot.sample_questions(1000, seed=0)
    assert len(questions) == 198
    for q in questions:
        assert q.question and q.answer and q.type in ("bridge", "comparison") and q.supporting_titles, q
        for title in q.supporting_titles:
            obs = search(title)
            assert obs.evidence and obs.sources[0].title == title, (q.question, title)


# -- text that cannot be printed ----------------------------------------------------------------------------------


def test_lone_surrogates_in_the_data_become_replacement_characters(tmp_path):
    record = {
        "question": "Who \\ud800 sang?",
        "answer": "Fred\\udc00",
        "supporting_facts": {"title": ["Loud Page"], "sent_id": [0]},
        "context": {
            "title": ["Loud Page", "Bad \\ud800 Title"],
            "sentences": [["It \\udfff sang.", " Loudly."], ["Never seen."]],
        },
    }
    data = json.dumps([record]).replace("\\\\", "\\")  # JSON escapes of lone surrogates, as a file may hold
    assert "\ud800" in json.loads(data)[0]["question"]
    (tmp_path / "bad.json").write_text(data)
    stats = build_pack([tmp_path / "bad.json"], tmp_path / "p.sqlite")
    assert stats.skipped == 1  # "Bad \ufffd Title": U+FFFD is one of the characters no title can hold
    pack = PackSource(stats.path)
    assert pack.search("Loud Page").page.sentences == ["It \ufffd sang.", " Loudly."]
    (question,) = pack.sample_questions(1)
    assert (question.question, question.answer) == ("Who \ufffd sang?", "Fred\ufffd")
    make_wiki_tools(pack)[0].function("Loud Page").text.encode("utf-8")  # printable: a lone surrogate raises here


def test_text_that_is_not_utf8_in_a_pack_is_read_as_replacement_characters(tmp_path):
    path = build_pack(hotpotqa_files()[:1], tmp_path / "p.sqlite").path
    with sqlite3.connect(path) as db:
        page_id = db.execute(
            "INSERT INTO pages(title, title_key, url, text, sentences) "
            "VALUES (CAST(x'4f6464ff' AS TEXT), 'odd', 'u', 'x', '[\"A \\ud800 b.\"]')"
        ).lastrowid
    db.close()
    pack = PackSource(path)  # a pack written by another tool
    assert "Odd\ufffd" in pack.titles()
    entry = pack.entry_by_id(page_id)
    assert entry.title == "Odd\ufffd" and entry.sentences == ("A \ufffd b.",)
