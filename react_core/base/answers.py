"""The answer normaliser of SQuAD and HotpotQA, once, and the two scores built on it as the ReAct paper used them:
exact match and token F1. The evaluation, the expected-answer check and the grounding check all compare answers
through it.

It matches ``normalize_answer`` of HotpotQA's official ``hotpot_evaluate_v1.py`` on every input, in the same order:
lower-case, then delete ASCII punctuation (``string.punctuation``; ``"the-end"`` becomes ``"theend"``, so the article
survives inside the word), then replace the whole words a/an/the with a space, then collapse whitespace. Typographic
punctuation (``“ ” — …``) is not ASCII and stays, as in the official script.
"""

from __future__ import annotations

import re
import string
from collections import Counter

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """``"The  Eiffel-Tower!"`` -> ``"eiffeltower"``; ``"An apple, a day"`` -> ``"apple day"``."""
    text = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str | None, gold: str) -> float:
    return float(normalize_answer(prediction or "") == normalize_answer(gold))


def f1_score(prediction: str | None, gold: str) -> float:
    pred, ref = normalize_answer(prediction or ""), normalize_answer(gold)
    # As in the HotpotQA script: yes/no/noanswer only score when they match exactly.
    if pred in ("yes", "no", "noanswer") or ref in ("yes", "no", "noanswer"):
        return float(pred == ref)
    pred_tokens, ref_tokens = pred.split(), ref.split()
    common = Counter(pred_tokens) & Counter(ref_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(ref_tokens)
    return 2 * precision * recall / (precision + recall)
