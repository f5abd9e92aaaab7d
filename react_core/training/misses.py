"""Trajectories that miss a Search and recover, and trajectories that answer from what they read when a page cannot
be found: the v2 recipe's two lessons, each written from a question's gold trajectory (``gold.write_react``).

Why: the shipped adapter missed 315 of its 563 Searches on the 200 dev questions, and 25 episodes ended in a loop,
the model searching its missed query again ("Lawrence, Kansas is among the similar titles, so I need to search it")
until the run stopped. In three misses of four a page it needed was among the similar titles. The gold trajectories
show one kind of miss only (a title without its parenthesis), so that is all it learned.

- ``write_miss``: one hop's Search first misses with a query like the model's own (``queries``), then the next
  thought picks the page from the Similar list (or, when it is not there, searches a shorter name or the name the
  question gives) and that Search hits; one trajectory in ``DOUBLE_EVERY`` misses twice, with two different queries.
- ``write_partial``: a bridge whose answer was read before its last hop; that hop's page is not found by two
  different queries (neither lists it among the similar titles), and the trajectory answers from what it read
  instead of searching on: it finishes within the paper's budget (``PAPER_REACT_STEPS``) with partial evidence.

No trajectory searches the same query twice, and every observation is the real tool's: the whole trajectory is run
again, action by action, through a fresh set of the knowledge source's Search and Lookup (``_replayed``). UI-free.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from react_core.base.answers import normalize_answer
from react_core.base.trace import Action, Observation, Step, Trace
from react_core.evaluation.strategies import PAPER_REACT_STEPS
from react_core.tools.registry import ToolRegistry
from react_core.tools.wiki import clean_entity
from react_core.training.gold import GOLD_THOUGHT_CHARS, RECOVER_TERSE, GoldQuestion, base_title, snippet, variant
from react_core.training.queries import NAME_STYLES, candidates, parts, style_order

Tools = Callable[[], ToolRegistry]  # a fresh run's Search and Lookup over the knowledge source
DOUBLE_EVERY = 4  # one miss-recovery trajectory in this many misses twice before it recovers
MISS = "miss"  # what an inserted Search must read

PICK = (
    "There is no page {query}. The similar titles include {title}, so I need to search {title}.",
    "Could not find {query}, but {title} is among the similar titles. I need to search {title}.",
)
NOT_LISTED = "There is no page {query}, and none of the similar titles is it."
SHORTER = NOT_LISTED + " I need to search a shorter name, {title}."
NAMED = NOT_LISTED + " The question names {title}, so I need to search it."
AGAIN = NOT_LISTED + " I need to search {next} instead."
PARTIAL = 'There is no page {query} either. From what I read: "{quote}". So the answer is {answer}.'


def searched(steps: list[Step]) -> list[str]:
    """Every Search query of ``steps``, in order."""
    return [s.action.input for s in steps if s.action is not None and s.action.tool == "search"]


def repeats_a_query(steps: list[Step]) -> bool:
    """Whether ``steps`` search the same query twice (what a model that loops does)."""
    queries = searched(steps)
    return len(queries) != len(set(queries))


def _hops(trace: Trace) -> list[int]:
    """The steps whose Search finds a page at once, named in their own thought (``… search {title}``): where a miss
    can go in."""
    out = []
    for i, step in enumerate(trace.steps):
        action, seen = step.action, step.observation
        before = trace.steps[i - 1].observation if i else None
        after_miss = before is not None and not before.evidence
        if (
            action
            and action.tool == "search"
            and seen.evidence
            and not after_miss
            and f"search {action.input}" in step.thought
        ):
            out.append(i)
    return out


def _naming(thought: str, title: str, query: str) -> str | None:
    """``thought`` with its ``search {title}`` now ``search {query}`` (the model searches what it thought)."""
    key = f"search {title}"
    at = thought.rfind(key)
    changed = thought[:at] + f"search {query}" + thought[at + len(key) :]
    return changed if at >= 0 and len(changed) <= GOLD_THOUGHT_CHARS else None


def _fits(text: str) -> str | None:
    """A thought that fits a gold thought's line (and a title ending in a full stop does not end it twice)."""
    text = text[:-1] if text.endswith("..") and not text.endswith("...") else text
    return text if len(text) <= GOLD_THOUGHT_CHARS else None


class _Probe:
    """What Search shows for a query, from the real tool (a miss has no state to carry, so one registry serves)."""

    def __init__(self, tools: Tools) -> None:
        self.tools = tools()
        self.cache: dict[str, list[str] | None] = {}

    def similar(self, query: str) -> list[str] | None:
        """The Similar list when ``query`` misses; None when it finds a page or is an error."""
        if query not in self.cache:
            seen = self.tools.run(Action("search", query))
            self.cache[query] = seen.similar_titles if _missed(query, seen) else None
        return self.cache[query]


def _tries(gold: GoldQuestion, trace: Trace, i: int, rng: random.Random, styles: list[str] | None = None) -> list[str]:
    """Queries for the page step ``i`` of ``trace`` finds, in the order to try them (kinds drawn by weight unless
    ``styles`` says, each kind's queries shuffled); none already searched in the trajectory, none naming another of
    the question's pages (the thought that plans both would name it twice)."""
    title, before = trace.steps[i].action.input, trace.steps[i - 1] if i else None
    seen = before is not None and before.observation is not None and before.observation.evidence
    read, read_title = (before.observation.text, before.action.input) if seen else ("", "")
    used = set(searched(trace.steps))
    others = [base_title(t).casefold() for t in gold.supporting if t != title]  # a query naming another page
    out: list[str] = []
    for style in styles or style_order(rng):
        made = [
            q
            for q in candidates(gold, title, style, read, read_title)
            if q not in used and q not in out and not any(o in q.casefold() for o in others)
        ]
        rng.shuffle(made)
        out += made
    return out


def _recovering(gold: GoldQuestion, query: str, title: str, similar: list[str], terse: bool = False) -> str | None:
    """The thought after ``query`` missed that leads to ``title``: picked from the list (in the gold thoughts' own
    words when ``terse``), or a name it can be rewritten to (a shorter name the query holds, the name the question
    gives); None when neither is honest."""
    if title in similar:
        return _fits(
            RECOVER_TERSE.format(title=title) if terse else variant(gold, PICK).format(query=query, title=title)
        )
    if title in query:
        return _fits(SHORTER.format(query=query, title=title))
    if title in gold.question:
        return _fits(NAMED.format(query=query, title=title))
    return None


def write_miss(
    gold: GoldQuestion, trace: Trace, tools: Tools, *, seed: int = 0, double: bool = False, terse: bool = False
) -> Trace | None:
    """``trace`` (the gold trajectory of ``gold``) with one hop's Search first missing, then recovered; with
    ``double``, two different misses when the first one's list does not hold the page (the second query a shorter
    part of the first, or the page's own name changed). None when no query of any kind makes an honest miss.
    ``terse``: the pick from the list is said as terse gold thoughts say it (``gold.RECOVER_TERSE``)."""
    rng = random.Random(f"{seed}:miss:{gold.id}")
    hops = _hops(trace)
    rng.shuffle(hops)
    probe = _Probe(tools)
    for i in hops:
        step, title = trace.steps[i], trace.steps[i].action.input
        for first in _tries(gold, trace, i, rng):
            similar = probe.similar(first)
            thought = _naming(step.thought, title, first)
            if similar is None or thought is None:
                continue
            misses: list[tuple[str, str]] = [(thought, first)]
            if double and title not in similar:
                second = _retry(first, title, _tries(gold, trace, i, rng, NAME_STYLES), probe, listed=True)
                if second is not None:
                    misses.append(second)
            last = misses[-1][1]
            recovery = _recovering(gold, last, title, probe.similar(last) or [], terse)
            if recovery is None:
                continue
            planned = _kept(trace.steps[:i]) + [_searching(t, q) for t, q in misses]
            planned += [(replace(step, thought=recovery), step.observation), *_kept(trace.steps[i + 1 :])]
            written = _replayed(trace, planned, tools)
            if written is not None:
                return written
    return None


def _retry(first: str, title: str, others: list[str], probe: _Probe, *, listed: bool) -> tuple[str, str] | None:
    """The query searched after ``first`` missed without listing ``title``: a shorter part of it, else one of
    ``others``; one that misses too, whose Similar list holds ``title`` (``listed``) or not. With its thought."""
    for query in [*parts(first), *others]:
        similar = probe.similar(query) if query != first else None
        if similar is not None and (title in similar) == listed:
            thought = _fits(AGAIN.format(query=first, next=query))
            if thought is not None:
                return thought, query
    return None


def write_partial(gold: GoldQuestion, trace: Trace, tools: Tools, *, seed: int = 0) -> Trace | None:
    """``trace`` cut at its last hop, whose page two different queries cannot find (neither lists it), answered from
    what was read before: only for a bridge whose answer is already in an observation (never a guess)."""
    if gold.type == "comparison" or gold.yes_no:
        return None
    hops = _hops(trace)
    last = max((i for i, s in enumerate(trace.steps) if s.observation and s.observation.evidence), default=-1)
    if last not in hops:
        return None
    read = _read_answer(gold, trace.steps[:last])
    if read is None:
        return None
    rng = random.Random(f"{seed}:partial:{gold.id}")
    step, title = trace.steps[last], trace.steps[last].action.input
    probe = _Probe(tools)
    used = set(searched(trace.steps))
    for first in _tries(gold, trace, last, rng):
        similar = probe.similar(first)
        thought = _naming(step.thought, title, first)
        if similar is None or title in similar or thought is None:
            continue
        others = [q for q in _tries(gold, trace, last, rng, NAME_STYLES) if q not in used]
        second = _retry(first, title, others, probe, listed=False)
        if second is None or second[1] in used:
            continue
        answer = _answering(gold, second[1], read)
        if answer is None:
            continue
        planned = [*_kept(trace.steps[:last]), _searching(thought, first), _searching(*second)]
        planned.append((Step(0, thought=answer, final_answer=gold.final), None))
        written = _replayed(trace, planned, tools)
        if written is not None:
            return written
    return None


def _read_answer(gold: GoldQuestion, steps: list[Step]) -> str | None:
    """The last observation already read that holds the answer's words (a page or a Lookup's sentence)."""
    for step in reversed(steps):
        seen = step.observation
        if seen is not None and seen.evidence and _says(seen.text, gold.answer):
            return seen.text
    return None


def _says(text: str, answer: str) -> bool:
    """Whether ``text`` holds ``answer``'s words, whole (``Hertford`` is not in "Hertfordshire")."""
    wanted = normalize_answer(answer)
    return bool(wanted) and f" {wanted} " in f" {normalize_answer(text)} "


def _answering(gold: GoldQuestion, query: str, read: str) -> str | None:
    """The finishing thought: the words of what was read that hold the answer, then the answer."""
    room = GOLD_THOUGHT_CHARS - len(PARTIAL.format(query=query, quote="", answer=gold.final))
    if room < 20:
        return None
    quote = snippet(read, room, anchor=gold.answer, about=gold.question)
    if not _says(quote, gold.answer):
        return None
    return PARTIAL.format(query=query, quote=quote, answer=gold.final)


def _missed(query: str, seen: Observation) -> bool:
    """Whether ``seen`` is the Search tool's own miss for ``query`` (``Could not find [query]. Similar: [...]``)."""
    text = Observation.miss_text(clean_entity(query), seen.similar_titles)
    return not seen.is_error and not seen.evidence and seen.text == text


def _searching(thought: str, query: str) -> tuple[Step, str]:
    """An inserted Search, which must miss."""
    return Step(0, thought=thought, action=Action("search", query)), MISS


def _kept(steps: list[Step]) -> list[tuple[Step, Observation | None]]:
    """Steps of the gold trajectory, each to read exactly as it did."""
    return [(s, s.observation) for s in steps]


def _replayed(gold_trace: Trace, planned: list[tuple[Step, Observation | str | None]], tools: Tools) -> Trace | None:
    """The planned steps numbered and run again in order through a fresh run's real tools, every observation
    theirs; None when the trajectory would break a rule: a query searched twice, an inserted Search that does not
    miss, a step of the gold trajectory that now reads differently, more steps than the paper's budget, or no Finish
    at the end. ``planned``: each step with what it must read (an observation, ``MISS``, or None for a Finish)."""
    steps = [s for s, _ in planned]
    if repeats_a_query(steps) or len(steps) > PAPER_REACT_STEPS or steps[-1].final_answer is None:
        return None
    registry = tools()
    out = []
    for n, (step, expected) in enumerate(planned, 1):
        seen = None
        if step.action is not None:
            seen = registry.run(step.action)
            seen.stats.seconds = 0.0  # how long a lookup took is no part of a trajectory: the file stays the same
            if expected == MISS:
                if not _missed(step.action.input, seen):
                    return None
            elif not isinstance(expected, Observation) or (expected.text, expected.evidence) != (
                seen.text,
                seen.evidence,
            ):
                return None
        out.append(replace(step, index=n, observation=seen))
    return replace(gold_trace, steps=out, settings=dict(gold_trace.settings))
