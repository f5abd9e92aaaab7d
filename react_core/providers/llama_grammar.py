"""Greedy decoding under a grammar, at the speed of greedy decoding without one.

llama-cpp-python puts llama.cpp's grammar sampler in front of the greedy one, so at every token the grammar checks the
whole vocabulary: 262,144 candidates for Gemma 3, which made a constrained step three to seven times slower than a
free one. llama.cpp's own sampler (``common_sampler_sample``) avoids that: it takes the best token first and asks the
grammar about that one token, and only when the grammar refuses it constrains the whole vocabulary and takes the best
of what is left. Both give the same token: the best token, if allowed, is the best allowed token (ties go to the first
in both). ``install`` makes a model do the same for greedy calls with a grammar and nothing else (no penalties, no
logits processors); every other call keeps llama-cpp-python's own sampler. A model test checks that the text is the
same as with llama-cpp-python's sampler, and ``bench/bench_grammar.py`` measures both.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any


class GreedyUnderGrammar:
    """A sampler for one generation: the best token the grammar allows (quacks like llama-cpp-python's LlamaSampler
    where ``Llama.sample`` uses it)."""

    def __init__(self, llama: Any, grammar: Any) -> None:
        import llama_cpp.llama_cpp as lib
        import numpy as np
        from llama_cpp._internals import LlamaSampler

        self._lib = lib
        self._logits = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)])
        self._argmax = np.argmax
        self._frombuffer = np.frombuffer
        self.grammar = lib.llama_sampler_init_grammar(
            llama._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        self.chain = LlamaSampler()
        self.chain.add_custom(self._apply)
        self.chain.add_greedy()
        self._one = (lib.llama_token_data * 1)()
        self._single = lib.llama_token_data_array(data=self._one, size=1, selected=-1, sorted=False)

    def _apply(self, candidates: Any) -> None:
        array = candidates.contents
        data = (self._lib.llama_token_data * array.size).from_address(ctypes.addressof(array.data.contents))
        best = int(self._argmax(self._frombuffer(data, dtype=self._logits)["logit"]))
        self._one[0] = data[best]
        self._single.size, self._single.selected, self._single.sorted = 1, -1, False
        self._lib.llama_sampler_apply(self.grammar, ctypes.byref(self._single))
        if math.isinf(self._one[0].logit):  # refused: constrain them all, greedy then takes the best allowed
            self._lib.llama_sampler_apply(self.grammar, candidates)

    def sample(self, ctx: Any, idx: int = -1) -> int:
        token = self._lib.llama_sampler_sample(self.chain.sampler, ctx.ctx, idx)
        self._lib.llama_sampler_accept(self.grammar, token)  # the chain's accept does not reach our grammar
        return token

    def __del__(self) -> None:
        grammar, self.grammar = getattr(self, "grammar", None), None
        if grammar is not None:
            try:
                self._lib.llama_sampler_free(grammar)
            except (AttributeError, TypeError):  # interpreter shutdown: llama.cpp already gone
                pass


def _plain_greedy(options: dict[str, Any]) -> bool:
    return (
        options.get("grammar") is not None
        and options.get("temp") == 0.0
        and not options.get("logits_processor")
        and options.get("repeat_penalty", 1.0) == 1.0
        and options.get("frequency_penalty", 0.0) == 0.0
        and options.get("presence_penalty", 0.0) == 0.0
    )


def install(llama: Any) -> None:
    """Make greedy calls with a grammar on this model use ``GreedyUnderGrammar`` (``Llama.generate`` asks
    ``_init_sampler`` for a sampler at the start of every generation)."""
    original = llama._init_sampler

    def init_sampler(**options: Any) -> Any:
        if _plain_greedy(options):
            return GreedyUnderGrammar(llama, options["grammar"])
        return original(**options)

    llama._init_sampler = init_sampler
