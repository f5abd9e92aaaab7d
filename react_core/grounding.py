"""Is a run's final answer found in its observations? The check behind the chat's grounding badge.

Answers and observations are normalised as HotpotQA's exact match does (lower case, punctuation and the articles
a/an/the removed, spaces collapsed), then the answer is looked for as a whole-word phrase in each non-error
observation. Yes/no answers are never literally in the text, so they get their own verdict instead of a false
"not found". UI-free: depends only on the trace; never imports streamlit.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Any

from react_core.trace import Trace

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """HotpotQA/SQuAD normalisation: lower-case, drop punctuation and articles, collapse whitespace."""
    text = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


@dataclass(frozen=True)
class Grounding:
    # grounded | partial | not_found | yes_no | no_answer
    kind: str
    message: str
    step: int | None = None

    @property
    def grounded(self) -> bool:
        return self.kind == "grounded"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "step": self.step}


def check_grounding(trace: Trace | dict[str, Any]) -> Grounding:
    """Where (if anywhere) the final answer occurs in the run's observations."""
    if isinstance(trace, dict):
        trace = Trace.from_dict(trace)
    if trace.final_answer is None or not normalize_answer(trace.final_answer):
        return Grounding("no_answer", "No answer to check.")
    answer = normalize_answer(trace.final_answer)
    if answer in ("yes", "no"):
        return Grounding("yes_no", "A yes/no answer: read the observations to judge it.")
    observations = [
        (s.index, normalize_answer(s.observation.text))
        for s in trace.steps
        if s.observation is not None and not s.observation.is_error
    ]
    for index, text in observations:
        if f" {answer} " in f" {text} ":
            return Grounding("grounded", f"Found in the observation of step {index}.", index)
    words = answer.split()
    seen = set(" ".join(t for _, t in observations).split())
    found = sum(1 for w in words if w in seen)
    if found and len(words) > 1:
        return Grounding("partial", f"Only {found} of {len(words)} answer words occur in the observations.")
    return Grounding("not_found", "Not found in any observation: the answer may come from the model's memory.")
