"""The one answer normaliser: HotpotQA's official order (lower-case, ASCII punctuation out, then the articles, then
whitespace) on tricky inputs, and its single home."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from react_core.base import answers
from react_core.base.answers import normalize_answer
from react_core.evaluation import tasks
from react_core.report import grounding

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        ("The  Eiffel-Tower!", "eiffeltower"),
        ("An apple, a day", "apple day"),
        ("THE END", "end"),
        # Punctuation goes before the articles, so an article joined to a word by punctuation survives in it.
        ("the-end", "theend"),
        ("a.k.a. Bob", "aka bob"),
        ("a-ha", "aha"),
        ("'the' answer", "answer"),
        ("The The", ""),
        ("the", ""),
        # Whole words only.
        ("Theatre and anthem in Athens", "theatre and anthem in athens"),
        ("a1 an2", "a1 an2"),
        # Only ASCII punctuation is removed, as string.punctuation defines it; typographic marks stay.
        ("“Hello” — world…", "“hello” — world…"),
        ("l’amour", "l’amour"),
        ("l'amour", "lamour"),
        ("snake_case", "snakecase"),
        ("1,234.5 km²", "12345 km²"),
        ("U.S.", "us"),
        # An article next to non-ASCII punctuation is a whole word; next to a letter it is not.
        ("the—end", "—end"),
        ("thé", "thé"),
        # Any Unicode whitespace separates words.
        ("New\u00a0York\tCity\n", "new york city"),
        ("Zürich", "zürich"),
        ("", ""),
        ("  ", ""),
    ],
)
def test_tricky_inputs(text, normalised):
    assert normalize_answer(text) == normalised


@given(st.text(alphabet=st.sampled_from(list("aAnNtThHeE .,-'_\t\n\u00a0é—1")) | st.characters(), max_size=40))
@example("the_")
@example("a\u0301")
def test_the_result_is_normal(text):
    out = normalize_answer(text)
    assert normalize_answer(out) == out
    assert not set(out) & set(string.punctuation)
    assert out == " ".join(out.split())
    assert not {"a", "an", "the"} & set(out.split())


def test_it_has_one_home_that_imports_nothing_from_the_project():
    assert tasks.exact_match is answers.exact_match and tasks.f1_score is answers.f1_score
    assert not hasattr(grounding, "normalize_answer") or grounding.normalize_answer is normalize_answer
    tree = ast.parse(Path(answers.__file__).read_text(encoding="utf-8"))
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if m and m.startswith("react_core")]
    defined = [p for p in (ROOT / "react_core").rglob("*.py") if "def normalize_answer" in p.read_text("utf-8")]
    assert defined == [ROOT / "react_core" / "base" / "answers.py"]


@pytest.mark.parametrize(
    ("prediction", "gold", "em", "f1"),
    [
        ("the Chief of Protocol!", "Chief of Protocol", 1.0, 1.0),
        ("Chief Protocol", "Chief of Protocol", 0.0, 0.8),  # most of the words is not the answer
        ("Protocol", "Chief of Protocol", 0.0, 0.5),
        ("yes", "no", 0.0, 0.0),
        ("yes indeed", "yes", 0.0, 0.0),  # HotpotQA's script: yes, no and noanswer score only exactly
        (None, "Paris", 0.0, 0.0),
    ],
)
def test_exact_match_and_f1_score_as_hotpotqa_scores_them(prediction, gold, em, f1):
    assert answers.exact_match(prediction, gold) == em and answers.f1_score(prediction, gold) == pytest.approx(f1)
