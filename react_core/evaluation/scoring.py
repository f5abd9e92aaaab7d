"""HotpotQA scoring as in the ReAct paper (SQuAD normalisation, ``react_core.answers``): exact match and token F1."""

from __future__ import annotations

from collections import Counter

from react_core.answers import normalize_answer


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
