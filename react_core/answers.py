"""The answer normaliser of SQuAD and HotpotQA, once: exact match, F1 and the grounding check all compare answers
through it.

It matches ``normalize_answer`` of HotpotQA's official ``hotpot_evaluate_v1.py`` on every input, in the same order:
lower-case, then delete ASCII punctuation (``string.punctuation``; ``"the-end"`` becomes ``"theend"``, so the article
survives inside the word), then replace the whole words a/an/the with a space, then collapse whitespace. Typographic
punctuation (``“ ” — …``) is not ASCII and stays, as in the official script.
"""

from __future__ import annotations

import re
import string

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """``"The  Eiffel-Tower!"`` -> ``"eiffeltower"``; ``"An apple, a day"`` -> ``"apple day"``."""
    text = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())
