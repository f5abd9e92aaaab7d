"""Gold trajectories: a HotpotQA question with supporting facts turned into the run a good agent would make.

The paper fine-tuned on trajectories a large model wrote; with no such model here, a trajectory is written from the
question's own annotation (``supporting_facts``): Search each gold title in the order the question needs them, Lookup
when a supporting sentence is not among the sentences a Search shows, and Finish with the gold answer. Every
Observation is what the knowledge source's own Search and Lookup return (``react_core.tools.wiki``), so the model
learns from exactly what it will read. Thoughts are short and say why: which entity comes next and the words of the
evidence that lead there (quoted from what was just read), then the words the answer is taken from. The quoting is
the point: a small model that copies the right span of what it read is a small model that answers.

``plan_hops`` orders the titles (a comparison in the question's order; a bridge ending on the paragraph that holds
the answer), ``snippet`` picks the words to quote, ``write_react`` runs the tools and writes the steps; ``write_act``,
``write_cot`` and ``write_standard`` give the other methods of the paper's Figure 3 the same facts in their own
shape. A question whose trajectory cannot be written faithfully (a gold title the source cannot find, an answer the
dialect cannot write) gives None, never a wrong example. UI-free.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from react_core.base.answers import normalize_answer
from react_core.base.trace import Action, Observation, Step, Trace
from react_core.dialects.grammar import MAX_INPUT_CHARS
from react_core.tools.registry import ToolRegistry

# The longest gold thought: the grammar's line when v1 was made. Fixed here, so that every recipe's trajectories
# stay what they were (the shipped manifests record recipes, not this length) when the grammar gives more room.
GOLD_THOUGHT_CHARS = 160

# Sentences a Search shows (the paper's and the app's default): a supporting sentence past them needs a Lookup.
SEARCH_SENTENCES = 5
YES_NO = ("yes", "no")
_WORD = re.compile(r"[\w'’.-]+|[^\w\s]", re.UNICODE)
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")
# Words that tell nothing about what a question asks (kept short: the overlap only ranks windows of a sentence).
STOPWORDS = frozenset(
    "a an the of in on at to for from by with and or is was are were be been which who whom what when where how "
    "did does do that this these those it its as his her their he she they than then both also same".split()
)


@dataclass(frozen=True)
class GoldQuestion:
    """One annotated question: what it asks, its answer, and the paragraphs and sentences that support it."""

    id: str
    question: str
    answer: str
    type: str  # bridge or comparison
    supporting: dict[str, list[int]]  # title -> supporting sentence numbers, in the annotation's order
    paragraphs: dict[str, list[str]]  # title -> its sentences

    @classmethod
    def from_record(cls, record: Mapping[str, Any], number: int = 0) -> GoldQuestion:
        """From a distractor-format record (HF ``{"title": [...], ...}`` or official ``[[title, ...], ...]`` layout)."""
        facts, context = record.get("supporting_facts") or [], record.get("context") or []
        pairs = zip(facts["title"], facts["sent_id"], strict=True) if isinstance(facts, dict) else facts
        supporting: dict[str, list[int]] = {}
        for title, sent in pairs:
            supporting.setdefault(str(title), []).append(int(sent))
        if isinstance(context, dict):
            paragraphs = {
                str(t): [str(s) for s in ss] for t, ss in zip(context["title"], context["sentences"], strict=True)
            }
        else:
            paragraphs = {str(t): [str(s) for s in ss] for t, ss in context}
        return cls(
            id=str(record.get("id") or record.get("_id") or number),
            question=" ".join(str(record["question"]).split()),
            answer=" ".join(str(record.get("answer", "")).split()),
            type=str(record.get("type", "")),
            supporting=supporting,
            paragraphs=paragraphs,
        )

    def sentence(self, title: str, number: int) -> str:
        sentences = self.paragraphs.get(title, [])
        return " ".join(sentences[number].split()) if 0 <= number < len(sentences) else ""

    def evidence(self, title: str) -> list[str]:
        return [s for s in (self.sentence(title, n) for n in self.supporting.get(title, [])) if s]

    @property
    def final(self) -> str:
        """The answer as Finish writes it: a quoted title loses its quotes (Finish reads ``"Salt Rain"`` as
        ``Salt Rain``; the score ignores them), an answer with quotes inside is not written at all ('')."""
        answer = self.answer
        if len(answer) > 2 and answer[0] == answer[-1] and answer[0] in "\"'":
            answer = answer[1:-1]
        return "" if any(q in answer for q in '"“”') else answer

    @property
    def yes_no(self) -> bool:
        return normalize_answer(self.answer) in YES_NO


def base_title(title: str) -> str:
    """``Doolittle (album)`` -> ``Doolittle``: how a text mentions the article."""
    return _PARENTHETICAL.sub("", title).strip()


def _mentioned_at(text: str, title: str) -> int:
    """Where ``text`` first mentions the article (case-insensitive; every word of its name, as in ``Richard "Dick"
    Miller`` for ``Dick Miller``), or -1."""
    name = base_title(title).casefold()
    if not name:
        return -1
    at = text.casefold().find(name)
    if at >= 0:
        return at
    words = _content(name)
    said = normalize_answer(text).split()
    if words and words <= set(said):
        first = min(said.index(w) for w in words)
        return len(" ".join(said[:first]))
    return -1


def _holds(sentences: Sequence[str], answer: str) -> bool:
    wanted = normalize_answer(answer)
    return bool(wanted) and any(wanted in normalize_answer(s) for s in sentences)


def plan_hops(gold: GoldQuestion) -> list[str]:
    """The supporting titles in the order a reader needs them. A comparison: as the question names them. A bridge:
    the paragraph holding the answer last; of the others, one the question names first."""
    titles = list(gold.supporting)
    if gold.type == "comparison" or gold.yes_no:
        placed = [(_mentioned_at(gold.question, t), i, t) for i, t in enumerate(titles)]
        return [t for _, _, t in sorted(placed, key=lambda p: (p[0] < 0, p[0], p[1]))]
    last = [t for t in titles if _holds(gold.evidence(t), gold.answer)]
    if len(last) != 1:  # the answer in both paragraphs (or neither): the one the question does not name comes last
        last = [t for t in titles if _mentioned_at(gold.question, t) < 0][-1:] or titles[-1:]
    first = [t for t in titles if t not in last]
    first.sort(key=lambda t: (_mentioned_at(gold.question, t) < 0, titles.index(t)))
    return first + last


def _words(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _WORD.finditer(text)]


def _content(text: str) -> set[str]:
    return {w for w in normalize_answer(text).split() if w not in STOPWORDS}


def snippet(sentence: str, limit: int, *, anchor: str = "", about: str = "") -> str:
    """At most ``limit`` characters of ``sentence``, whole words: of the windows that hold ``anchor`` (the answer,
    the next entity) when the sentence does, the one sharing most words with ``about`` (the question) and holding most
    numbers (what comparisons compare), the earliest of equals."""
    sentence = " ".join(sentence.split())
    if len(sentence) <= limit:
        return sentence.rstrip(".")
    spans = _words(sentence)
    at = sentence.casefold().find(anchor.casefold()) if anchor else -1
    wanted = _content(about)
    worth = [(normalize_answer(sentence[s:e]) in wanted) + any(c.isdigit() for c in sentence[s:e]) for s, e in spans]
    best: tuple[int, int, int] | None = None  # (score, first, last)
    for first in range(len(spans)):
        last = first
        while last + 1 < len(spans) and spans[last + 1][1] - spans[first][0] <= limit:
            last += 1
        if spans[last][1] - spans[first][0] > limit:
            continue
        if at >= 0 and not (spans[first][0] <= at and at + len(anchor) <= spans[last][1]):
            continue
        score = sum(worth[first : last + 1])
        if best is None or score > best[0]:
            best = (score, first, last)
    if best is None:  # the anchor alone is longer than the limit: its start
        start = max(at, 0)
        return sentence[start : start + limit].rsplit(" ", 1)[0]
    return sentence[spans[best[1]][0] : spans[best[2]][1]].strip(" ,;:").rstrip(".")


def variant(gold: GoldQuestion, choices: Sequence[str]) -> str:
    """One of ``choices``, the same for a question every time (so a trajectory file is reproducible)."""
    digest = hashlib.sha256(gold.id.encode("utf-8")).digest()
    return choices[digest[0] % len(choices)]


def _fit(template: str, quote: str, **values: str) -> str:
    """``template`` with ``{quote}`` cut so the whole thought fits GOLD_THOUGHT_CHARS."""
    room = _room(template, **values)
    if len(quote) > room:
        quote = quote[:room].rsplit(" ", 1)[0] if room > 0 else ""
    return template.format(quote=quote, **values)


def _room(template: str, **values: str) -> int:
    return GOLD_THOUGHT_CHARS - len(template.replace("{quote}", "").format(**values))


def _quoted(template: str, sentence: str, *, anchor: str, about: str, quote: int = 0, **values: str) -> str:
    """``template`` with the best words of ``sentence`` that fit as its ``{quote}`` (at most ``quote`` characters of
    them, when it is not 0)."""
    room = _room(template, **values)
    return _fit(template, snippet(sentence, min(room, quote) if quote else room, anchor=anchor, about=about), **values)


def _lookup_keyword(sentences: Sequence[str], number: int, gold: GoldQuestion) -> str | None:
    """A keyword whose first match in the page is sentence ``number`` (what Lookup would show first): the answer,
    else a word the question shares with it, else a name in it."""
    target = " ".join(sentences[number].split())
    question_words = _content(gold.question)
    candidates = [gold.answer] if not gold.yes_no else []
    candidates += sorted((w for w in _WORD.findall(target) if normalize_answer(w) in question_words), key=len)[::-1]
    candidates += sorted((w for w in _WORD.findall(target) if w[:1].isupper()), key=len, reverse=True)
    for keyword in candidates:
        keyword = keyword.strip(" .,;:\"'")
        if len(keyword) < 3 or not writable(keyword):
            continue
        needle = keyword.casefold()
        first = next((i for i, s in enumerate(sentences) if needle in " ".join(s.split()).casefold()), None)
        if first == number:
            return keyword
    return None


def writable(text: str) -> bool:
    """Whether the paper dialect can write ``text`` as an action's input (no brackets, one line, the grammar's
    length)."""
    return bool(text) and "[" not in text and "]" not in text and "\n" not in text and len(text) <= MAX_INPUT_CHARS


@dataclass
class _Writer:
    gold: GoldQuestion
    tools: ToolRegistry
    steps: list[Step]
    style: int = 0  # which of each thought template (``_NEXT`` ...): 0 quote first, 1 decision first, 2 decision only

    def act(self, thought: str, tool: str, value: str) -> Observation:
        action = Action(tool, value)
        observation = self.tools.run(action)
        observation.stats.seconds = 0.0  # how long a lookup took is no part of a trajectory: the file stays the same
        self.steps.append(Step(len(self.steps) + 1, thought=thought, action=action, observation=observation))
        return observation

    def name_for(self, title: str) -> str:
        """What a reader searches first: the name a text uses (``Doolittle`` for ``Doolittle (album)``) when
        searching it misses and offers the title among the similar ones (a miss to recover from), else the title."""
        name = base_title(title)
        if name == title or not writable(name):
            return title
        probe = self.tools.run(Action("search", name))  # not recorded: the same search is made again in ``read``
        return name if not probe.evidence and title in probe.similar_titles else title

    def read(self, thought: str, title: str, name: str) -> bool:
        """Search ``name`` (recovering to ``title`` from a miss), then Lookup a supporting sentence the Search did
        not show; False when the source does not hold what the annotation says (no faithful observation to learn
        from)."""
        if name != title:
            self.act(thought, "search", name)
            thought = _RECOVER[self.style].format(title=title)
        seen = self.act(thought[:GOLD_THOUGHT_CHARS], "search", title)
        if seen.is_error or not seen.evidence:
            return False
        sentences = self.gold.paragraphs.get(title, [])
        late = [i for i in self.gold.supporting[title] if SEARCH_SENTENCES <= i < len(sentences)]
        if not late:
            return True
        keyword = _lookup_keyword(sentences, late[0], self.gold)
        if keyword is None:
            return False
        thought = f"{base_title(title)} does not say it in its first sentences. I need to look up {keyword}."
        found = self.act(thought[:GOLD_THOUGHT_CHARS], "lookup", keyword)
        return not found.is_error and found.evidence

    def finish(self, thought: str) -> None:
        self.steps.append(Step(len(self.steps) + 1, thought=thought, final_answer=self.gold.final))

    def trace(self, strategy: str = "react") -> Trace:
        return Trace(
            question=self.gold.question,
            settings={"strategy": strategy},
            steps=self.steps,
            final_answer=self.gold.final,
            stop_reason="finished",
            expected_answer=self.gold.answer,
        )


def _first_thought(gold: GoldQuestion, hops: list[str], names: Mapping[str, str]) -> str:
    first = names[hops[0]]
    if len(hops) == 2 and (gold.type == "comparison" or gold.yes_no):
        return f"I need to search {first} and {names[hops[1]]}, then compare them."[:GOLD_THOUGHT_CHARS]
    if _mentioned_at(gold.question, hops[0]) >= 0:
        return variant(
            gold,
            (
                f"I need to search {first}, then find what the question asks about it.",
                f"The question is about {base_title(hops[0])}. I need to search {first} first.",
                f"I need to search {first} and follow what it says to the answer.",
            ),
        )[:GOLD_THOUGHT_CHARS]
    return f"I need to search {first}."[:GOLD_THOUGHT_CHARS]


# A thought that reads one page, as evidence then decision (v1), decision then evidence (``decide_first``, v4) or
# the decision alone (``terse``, v5), and the one after a miss whose title is among the similar ones.
_NEXT = (
    'It says "{quote}". Next I need to search {nxt}.',
    'Next I need to search {nxt}. It says "{quote}".',
    "Next I need to search {nxt}.",
)
_BOTH = (
    '{name}: "{quote}". Now I need to search {nxt}.',
    'Now I need to search {nxt}. {name}: "{quote}".',
    "Now I need to search {nxt}.",
)
_ANSWER = (
    'It says "{quote}". So the answer is {answer}.',
    'The answer is {answer}. It says "{quote}".',
    "So the answer is {answer}.",
)
RECOVER_TERSE = "I need to search {title}, as the similar titles spell it."
_RECOVER = (
    "{title} is among the similar titles, so I need to search it.",
    "{title} is among the similar titles, so I need to search it.",
    RECOVER_TERSE,
)


def write_react(
    gold: GoldQuestion,
    tools: ToolRegistry,
    *,
    quote: int = 0,
    decide_first: bool = False,
    terse: bool = False,
    terse_compare: bool = False,
) -> Trace | None:
    """The ReAct trajectory of ``gold`` with ``tools`` (Search and Lookup over a knowledge source that holds its
    paragraphs), or None when it cannot be written faithfully. ``quote``: at most this many characters of a sentence
    in a thought, the words around the answer or the next title (0: as many as the thought's line holds).
    ``decide_first``: a thought that reads one page names what to do next (the next title, the answer) before the
    words that lead there, so the model picks them right after the observation, as Act's action does; a thought that
    compares two pages still compares first. ``terse``: such a thought names the decision alone, no quote (the nearest
    ReAct gets to Act, which names its action right after the observation); the comparing thought still quotes, unless
    ``terse_compare``: then it too names the answer alone."""
    order = 2 if terse else int(decide_first)
    if not writable(gold.final) or len(gold.supporting) < 2:
        return None
    hops = plan_hops(gold)
    if any(not writable(t) for t in hops):
        return None
    compare = gold.type == "comparison" or gold.yes_no
    writer = _Writer(gold, tools, [], order)
    names = {t: writer.name_for(t) for t in hops}
    thought = _first_thought(gold, hops, names)
    quotes: dict[str, str] = {}
    for n, title in enumerate(hops):
        if not writer.read(thought, title, names[title]):
            return None
        evidence = gold.evidence(title) or [""]
        rest = hops[n + 1 :]
        if not compare and _holds(evidence, gold.answer) and all(_mentioned_at(gold.question, t) >= 0 for t in rest):
            # The answer is in view and what is left only restates the question: answer now, as a reader would.
            writer.finish(_answer_thought(gold, evidence, quote, _ANSWER[order]))
            return writer.trace()
        nxt = rest[0] if rest else ""
        if nxt and not compare:
            anchor = base_title(nxt)
            best = next((s for s in evidence if anchor.casefold() in s.casefold()), evidence[0])
            thought = _quoted(
                _NEXT[order],
                best,
                anchor=anchor,
                about=gold.question,
                quote=quote,
                nxt=names[nxt],
            )
        elif nxt:
            quotes[title] = _best_for_question(evidence, gold)
            thought = _quoted(
                _BOTH[order],
                quotes[title],
                anchor="",
                about=gold.question,
                quote=quote,
                name=base_title(title),
                nxt=names[nxt],
            )
        else:
            quotes[title] = _best_for_question(evidence, gold)
    if compare and terse_compare:
        writer.finish(_ANSWER[2].format(answer=gold.final))
    elif compare:
        writer.finish(_comparing_thought(gold, hops, quotes, quote))
    else:
        writer.finish(_answer_thought(gold, gold.evidence(hops[-1]) or [""], quote, _ANSWER[order]))
    return writer.trace()


def _answer_thought(gold: GoldQuestion, evidence: Sequence[str], quote: int, template: str) -> str:
    """The words of the evidence the answer is taken from and the answer, in ``template``'s order."""
    wanted = normalize_answer(gold.answer)
    best = next((s for s in evidence if wanted in normalize_answer(s)), evidence[0])
    return _quoted(
        template,
        best,
        anchor=gold.answer,
        about=gold.question,
        quote=quote,
        answer=gold.final,
    )


def _best_for_question(evidence: Sequence[str], gold: GoldQuestion) -> str:
    """The supporting sentence that shares most with the question (numbers count: comparisons compare them)."""
    wanted = _content(gold.question)

    def score(sentence: str) -> int:
        words = normalize_answer(sentence).split()
        return sum(w in wanted for w in words) + sum(any(c.isdigit() for c in w) for w in words)

    return max(evidence, key=score)


def _comparing_thought(gold: GoldQuestion, hops: list[str], quotes: Mapping[str, str], quote: int = 0) -> str:
    """Both quotes side by side (each at most ``quote`` characters, when it is not 0), then the answer."""
    a, b = hops[0], hops[-1]
    frame = f'"" and "". So the answer is {gold.final}.'
    half = (GOLD_THOUGHT_CHARS - len(frame)) // 2
    half = min(half, quote) if quote else half
    if half < 8:
        return _ANSWER[2].format(answer=gold.final)[:GOLD_THOUGHT_CHARS]
    qa, qb = (snippet(quotes.get(t, ""), half, about=gold.question) for t in (a, b))
    return f'"{qa}" and "{qb}". So the answer is {gold.final}.'


def write_act(gold: GoldQuestion, tools: ToolRegistry) -> Trace | None:
    """The same actions and observations as ``write_react``, without thoughts (the paper's Act)."""
    react = write_react(gold, tools)
    if react is None:
        return None
    for step in react.steps:
        step.thought = ""
    react.settings["strategy"] = "act"
    return react


def write_cot(gold: GoldQuestion) -> Trace | None:
    """Chain of thought from the supporting sentences, no tools (the paper's CoT): the facts, then the answer."""
    if not writable(gold.final):
        return None
    facts = [
        snippet(s, 90, anchor=gold.answer, about=gold.question) for t in plan_hops(gold) for s in gold.evidence(t)[:1]
    ]
    thought = "Let's think step by step. " + ". ".join(f for f in facts if f) + f". So the answer is {gold.final}."
    writer = _Writer(gold, ToolRegistry(), [])
    writer.finish(thought)
    return writer.trace("cot")


def write_standard(gold: GoldQuestion) -> Trace | None:
    """The answer alone (the paper's Standard prompting)."""
    if not writable(gold.final):
        return None
    writer = _Writer(gold, ToolRegistry(), [])
    writer.finish("")
    return writer.trace("standard")
