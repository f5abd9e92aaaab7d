"""Is a run's final answer found in the evidence its tools returned? The check behind the chat's grounding badge.

Only evidence counts (``Observation.evidence``): a page that Search found, a Lookup result, a Calculator result. A
miss ("Could not find [X]. Similar: […]") echoes the model's own words, and an error or "No more results." holds
nothing, so an answer that matches them is not grounded. Of a Calculator result only the value counts, not the
expression it echoes; of a Lookup result not its "(Result k / n)" counter. Answers and evidence are compared after
HotpotQA's normalisation (``react_core.base.answers``), as a whole-word phrase, and the verdict names the step, its tool
and the sentence that holds the answer. It says where the answer's words occur, never that the answer is right: a
wrong answer often occurs too (a title the model had just searched). Whether it is right is the expected answer's
question (``react_core.report.expected``). Yes/no answers are never literally in the text, so they get their own
verdict instead of a false "not found". UI-free: never imports streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from react_core.base.answers import normalize_answer
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import Step, Trace
from react_core.knowledge.text import split_sentences
from react_core.tools.calculator import calculator_result
from react_core.tools.wiki import lookup_sentence

__all__ = ["Grounding", "QUOTE_CHARS", "check_grounding"]

QUOTE_CHARS = 200  # the longest quote of the sentence a message shows (``Grounding.sentence`` holds all of it)


@dataclass(frozen=True)
class Grounding:
    # grounded | partial | not_found | yes_no | no_answer
    kind: str
    message: str
    # The step whose observation holds the answer, its tool (e.g. "search") and the sentence there that holds it.
    step: int | None = None
    tool: str = ""
    sentence: str = ""

    @property
    def grounded(self) -> bool:
        return self.kind == "grounded"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "step": self.step,
            "tool": self.tool,
            "sentence": self.sentence,
        }


def check_grounding(trace: Trace) -> Grounding:
    """Where (if anywhere) the final answer occurs in the evidence the run's tools returned."""
    answer = normalize_answer(trace.final_answer or "")
    if not answer:
        return Grounding("no_answer", "No answer to check.")
    evidence = [s for s in trace.steps if s.observation is not None and s.observation.evidence]
    if answer in ("yes", "no"):
        if not evidence:
            return Grounding("yes_no", "A yes/no answer, and no tool returned evidence: it comes from the model alone.")
        return Grounding("yes_no", "A yes/no answer: read the evidence to judge it.")
    for step in evidence:
        sentence = _sentence_with(answer, step)
        if sentence:
            tool = step.action.tool if step.action else ""
            where = f"step {step.index}'s {ToolSpec.label_of(tool)} result" if tool else f"step {step.index}'s result"
            # "Occurs", never "found" or "correct": a wrong answer (a title the model just searched) occurs too.
            message = f"Occurs in {where}: «{_quote(sentence, answer)}»"
            return Grounding("grounded", message, step.index, tool, sentence)
    if not evidence:
        return Grounding(
            "not_found",
            "No tool returned evidence (a page, a Lookup or a Calculator result): the answer may come from the "
            "model's memory.",
        )
    words = answer.split()
    seen = set(" ".join(normalize_answer(_matched_text(s)) for s in evidence).split())
    found = sum(1 for w in words if w in seen)
    if found == len(words) > 1:
        return Grounding("partial", f"All {len(words)} answer words occur in the evidence, but not as one phrase.")
    if found and len(words) > 1:
        verb = "occurs" if found == 1 else "occur"
        return Grounding("partial", f"Only {found} of the {len(words)} answer words {verb} in the evidence.")
    return Grounding("not_found", "Not found in the evidence: the answer may come from the model's memory.")


def _matched_text(step: Step) -> str:
    """The part of an evidence observation an answer may be found in."""
    text = step.observation.text if step.observation else ""
    tool = step.action.tool if step.action else ""
    if tool == "calculator":
        return calculator_result(text)
    if tool == "lookup":
        return lookup_sentence(text)
    return text


def _sentence_with(answer: str, step: Step) -> str:
    """The sentence of the step's evidence that holds the (normalised) answer as a phrase; '' when none does."""
    text = _matched_text(step)
    if not _holds(text, answer):
        return ""
    if step.action is not None and step.action.tool == "calculator":
        return step.observation.text  # type: ignore[union-attr]  # the whole result: "17 * 23 + 4 = 395"
    for sentence in split_sentences(text):
        if _holds(sentence, answer):
            return sentence
    return text  # the answer spans sentences


def _holds(text: str, answer: str) -> bool:
    return f" {answer} " in f" {normalize_answer(text)} "


def _quote(sentence: str, answer: str) -> str:
    """The sentence, or the part of it around the answer when it is long."""
    if len(sentence) <= QUOTE_CHARS:
        return sentence
    at = sentence.casefold().find(answer.split()[0])
    start = max(0, min(at - QUOTE_CHARS // 3, len(sentence) - QUOTE_CHARS)) if at >= 0 else 0
    excerpt = sentence[start : start + QUOTE_CHARS].strip()
    return ("…" if start > 0 else "") + excerpt + ("…" if start + QUOTE_CHARS < len(sentence) else "")
