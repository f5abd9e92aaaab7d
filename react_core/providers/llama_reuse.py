"""What a call on the on-device model reuses instead of evaluating: the context's canonical positions, or the saved
state of its prompt's prefix (``llama_states``), and keeping that state for next time.

A request's ``system`` text is its fixed prefix (instructions and examples, the same for every question of a preset).
The first call with a prefix no state is saved for evaluates the prefix's blocks first, saves them (memory and disk),
and goes on with the rest of its prompt: the same blocks it would have evaluated anyway, so this costs only the copy.
A later call with another prefix (a preset switch, an arena column, CoT-SC after ReAct) loads that prefix's state in
milliseconds instead of evaluating it. ``warm`` does the same ahead of a question, and ``read_ahead`` goes on into a
question the person is likely to ask next (the first example the Chat page shows): its whole blocks after the prefix,
which a cold run computes the same way, so asking it leaves only the prompt's last, partial block to read. Everything
here runs under the model's lock.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from react_core.providers.llama_states import Positions, State, StateStore, aligned, common_prefix

_TOKENIZED = 8  # prefixes whose tokens are remembered (a tokenization of the paper's prefix takes milliseconds)


@dataclass(frozen=True)
class Plan:
    """How one prompt starts: keep ``reuse`` positions (after loading ``state`` when given); with ``save_at``, first
    evaluate the prefix up to there if needed and save its state."""

    reuse: int
    state: State | None = None
    source: str = ""  # where reused positions come from: "context", "memory", "disk", or '' (none)
    save_at: int = 0


class PromptCache:
    def __init__(self, llama: Any, positions: Positions, store: StateStore) -> None:
        self.llama, self.positions, self.store = llama, positions, store
        self._tokens: OrderedDict[str, list[int]] = OrderedDict()

    def tokens_of(self, prefix: str) -> list[int]:
        if prefix not in self._tokens:
            self._tokens[prefix] = self.llama.tokenize(prefix.encode("utf-8"), add_bos=True, special=False)
            while len(self._tokens) > _TOKENIZED:
                self._tokens.popitem(last=False)
        self._tokens.move_to_end(prefix)
        return self._tokens[prefix]

    def edge(self, prefix: str, tokens: Sequence[int]) -> int:
        """The block boundary up to which ``tokens`` are the prefix's own: never its last token (the question's first
        characters may join it into another token) nor the prompt's last."""
        own = self.tokens_of(prefix)
        return aligned(common_prefix(own, tokens, min(len(own), len(tokens)) - 1), self.positions.block)

    def plan(self, tokens: Sequence[int], prefix: str) -> Plan:
        reuse = self.positions.reusable(tokens)
        if not prefix:
            return Plan(reuse, source="context" if reuse else "")
        edge = self.edge(prefix, tokens)
        if reuse >= edge:
            if edge == 0 or self.store.holds(prefix) or self.positions.keepable(edge) < edge:
                return Plan(reuse, source="context" if reuse else "")
            # The context holds this prefix's blocks (an edit after them, a state pruned): keep them as its state.
            return Plan(edge, source="context", save_at=edge)
        found = self.store.get(prefix)
        if found is None:
            return Plan(reuse, source="context" if reuse else "", save_at=edge)
        state, where = found
        usable = aligned(common_prefix(state.tokens, tokens, len(tokens) - 1), self.positions.block)
        if usable < len(state.tokens):  # a restored state serves only as a whole (llama_states)
            return Plan(reuse, source="context" if reuse else "", save_at=edge)
        return Plan(usable, state=state, source=where)

    def start(self, plan: Plan, tokens: Sequence[int], prefix: str) -> None:
        """Make the context hold exactly the first ``plan.reuse`` (or ``plan.save_at``) positions of ``tokens``;
        llama.cpp's ``generate`` then evaluates the rest from that block boundary on."""
        if plan.state is not None:
            self.positions.restore(plan.state)
        if plan.save_at:
            if plan.save_at > plan.reuse:
                self.positions.evaluate(tokens, plan.reuse, plan.save_at)
            self.store.put(prefix, self.positions.snapshot(plan.save_at))
        self.positions.rewind(max(plan.reuse, plan.save_at))

    def warm(self, prefix: str, on_progress: Callable[[int, int], None] | None = None) -> str:
        """Make the context hold the prefix's blocks and keep its state; says where they came from: "context",
        "memory", "disk", "evaluated", or '' for a prefix shorter than a block."""
        own = self.tokens_of(prefix)
        edge = aligned(len(own) - 1, self.positions.block)
        if edge == 0:
            return ""
        held = self.positions.keepable(common_prefix(self.positions.canonical, own, edge))
        if held >= edge:
            if not self.store.holds(prefix):
                self.store.put(prefix, self.positions.snapshot(edge))
            return "context"
        found = self.store.get(prefix)
        if found is not None:
            self.positions.restore(found[0])
            return found[1]
        done = (lambda at: on_progress(at - held, edge - held)) if on_progress else None
        self.positions.evaluate(own, held, edge, done)
        self.store.put(prefix, self.positions.snapshot(edge))
        return "evaluated"

    def read_ahead(self, text: str) -> int:
        """Evaluate the whole blocks of ``text`` (a likely next prompt, whole: prefix, question, step label) that the
        context does not hold, after the positions it keeps; never its last, partial block. Returns the positions
        evaluated. A prompt that turns out different keeps what it has in common, as any prompt does."""
        tokens = self.llama.tokenize(text.encode("utf-8"), add_bos=True, special=False)
        end = aligned(len(tokens) - 1, self.positions.block)
        held = self.positions.keepable(common_prefix(self.positions.canonical, tokens, end))
        if end <= held:
            return 0
        self.positions.evaluate(tokens, held, end)
        return end - held
