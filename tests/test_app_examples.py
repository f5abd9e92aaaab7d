"""The Chat page's first examples can be answered by the knowledge the app will use, and when an offline pack stands
in, the page says once what it covers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from app_helpers import last_trace, new_session, offline_pack, unescape, use_app, wait_idle, write_script
from wiki_helpers import closed_port

from react_core.base.answers import exact_match
from react_core.history import HistoryStore
from react_core.knowledge.pack import PackSource


def _examples(at) -> list[str]:
    return [b.label for b in at.button if b.key and b.key.startswith("example-")]


def _sidebar(at) -> str:
    return " ".join(m.value for m in at.sidebar.markdown).replace("\\", "")  # as read, without markdown escapes


def test_with_an_offline_pack_the_examples_are_its_own_questions(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    at = new_session()
    pack = PackSource(offline_pack())
    known = {q.question for q in pack.sample_questions(1_000, seed=0)}
    examples = _examples(at)
    assert len(examples) == 3 and set(examples[:2]) <= known and examples[2] == "What is 17 * 23 + 4?"
    notes = [i.value for i in at.info if "offline pack" in i.value]
    assert len(notes) == 1 and pack.coverage.split(" ")[0] in notes[0]


def test_when_wikipedia_cannot_be_reached_the_default_pack_stands_in_and_says_so(monkeypatch, tmp_path):
    use_app(monkeypatch, tmp_path, [])
    monkeypatch.setenv("REACT_KNOWLEDGE", "wikipedia")
    monkeypatch.setenv("REACT_WIKI_URL", f"http://127.0.0.1:{closed_port()}/w/api.php")
    at = new_session()
    assert "Colorado orogeny" not in " ".join(_examples(at))
    assert any("Wikipedia cannot be reached from here" in i.value for i in at.info)
    assert "**Knowledge:** Wikipedia unreachable: offline pack" in _sidebar(at)


def test_with_wikipedia_reachable_the_everyday_examples_stay(monkeypatch, tmp_path):
    from wiki_helpers import hotpot_pack

    from react_core.knowledge.server import start_wiki_server

    use_app(monkeypatch, tmp_path, [])
    with start_wiki_server(hotpot_pack()) as server:
        monkeypatch.setenv("REACT_KNOWLEDGE", "wikipedia")
        monkeypatch.setenv("REACT_WIKI_URL", server.url)
        at = new_session()
        assert "Colorado orogeny" in _examples(at)[0]
        assert not [i for i in at.info if "offline pack" in i.value]
        assert "**Knowledge:** Wikipedia (live)" in _sidebar(at)


def _badges(at) -> list[str]:
    return [unescape(m.value) for m in at.markdown if "-badge[" in m.value]


@pytest.mark.parametrize("right", [False, True])
def test_an_example_question_shows_its_expected_answer_and_only_a_match_is_green(monkeypatch, tmp_path, right):
    pack = PackSource(offline_pack())
    use_app(monkeypatch, tmp_path, [])  # the script is written once the example drawn is known
    at = new_session()
    example = next(b for b in at.button if b.key == "example-0")
    expected = pack.question_for(example.label)
    assert expected is not None
    # The model searches a supporting page of the question, then answers: right, or with a title it searched (the
    # example drawn is random, and a comparison question's answer is one of its titles: then another one, or none).
    wrong = [t for t in expected.supporting_titles if not exact_match(t, expected.answer)] or ["Nobody at all"]
    title = wrong[0].replace("[", "(").replace("]", ")")
    answer = expected.answer if right else title
    write_script(
        Path(os.environ["REACT_SCRIPT"]),
        [
            f"Thought 1: I need to search {title}.\nAction 1: Search[{title}]",
            f"Thought 2: The answer is {answer}.\nAction 2: Finish[{answer}]",
        ],
    )
    example.click().run()
    wait_idle(at)

    assert last_trace(at)["expected_answer"] == expected.answer
    badges = _badges(at)
    assert len(badges) == 2, badges
    verdict, evidence = badges
    if right:
        assert verdict.startswith(":green-badge[") and f"Expected answer: «{expected.answer}» · exact match" in verdict
    else:
        assert verdict.startswith((":red-badge[", ":orange-badge[")), verdict
        assert f"Expected answer: «{expected.answer}»" in verdict and "» · exact match" not in verdict
    # The evidence check is told apart from the verdict: neutral, and it says where the words occur, nothing more.
    assert not evidence.startswith(":green-badge[") and "Found" not in evidence
    record = HistoryStore().list()[0]
    assert HistoryStore().get(record.id).trace.expected_answer == expected.answer
