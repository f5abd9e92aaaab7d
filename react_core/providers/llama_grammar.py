"""Greedy decoding under a grammar, at the speed of greedy decoding without one.

llama-cpp-python puts llama.cpp's grammar sampler in front of the greedy one, so at every token the grammar checks the
whole vocabulary: 262,144 candidates for Gemma 3, which made a constrained step three to seven times slower than a
free one. llama.cpp's own sampler (``common_sampler_sample``) avoids that: it takes the best token first and asks the
grammar about that one token, and only when the grammar refuses it constrains the whole vocabulary and takes the best
of what is left. Both give the same token: the best token, if allowed, is the best allowed token (ties go to the first
in both). ``install`` makes a model do the same for greedy calls with a grammar and nothing else (no penalties, no
logits processors); every other call keeps llama-cpp-python's own sampler. A model test checks that the text is the
same as with llama-cpp-python's sampler, and ``bench/bench_grammar.py`` measures both.

Sampled calls (temperature above 0) with a grammar go the same way (``SampledUnderGrammar``, llama.cpp's
``common_sampler_sample`` exactly): llama-cpp-python's chain without the grammar (top-k, typical, top-p, min-p,
temperature, then a draw from ``dist`` seeded with the call's seed) draws a token; the grammar is asked about that
token alone; only when it refuses is the whole vocabulary constrained and the chain run again, which draws again.
The random stream: one draw of the seeded generator per token, two for a token whose first draw the grammar refused.
For the same seed that is not llama-cpp-python's sample (its grammar comes before top-k and the rest, and it draws
once per token), though it is the same distribution wherever the truncations (top-k, top-p, min-p) cut nothing the
grammar allows. So the provider records each sampled call's seed, and "Copy as Python" of a sampled call with a
grammar carries this module's sampler (``snippet_source``), which reproduces the call's text token for token.
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
        _free(self)


class SampledUnderGrammar:
    """A sampler for one sampled generation under a grammar: draw, ask the grammar about the drawn token, constrain
    everything and draw again only when it is refused (llama.cpp's ``common_sampler_sample``; see the module)."""

    def __init__(self, llama: Any, grammar: Any, options: dict[str, Any]) -> None:
        import llama_cpp.llama_cpp as lib
        import numpy as np
        from llama_cpp._internals import LlamaSampler

        self._lib, self._np = lib, np
        self.grammar = lib.llama_sampler_init_grammar(
            llama._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        self.chain = LlamaSampler()  # llama-cpp-python's chain for a sampled call, but for the grammar
        self.chain.add_top_k(options.get("top_k", 40))
        self.chain.add_typical(options.get("typical_p", 1.0), 1)
        self.chain.add_top_p(options.get("top_p", 0.95), 1)
        self.chain.add_min_p(options.get("min_p", 0.05), 1)
        self.chain.add_temp(options["temp"])
        self.chain.add_dist(llama._seed)  # the call's seed (create_completion sets it before asking for a sampler)
        self._n = llama.n_vocab()
        self._data = (lib.llama_token_data * self._n)()
        self._view = np.frombuffer(
            self._data, dtype=np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)])
        )
        self._ids = np.arange(self._n, dtype=np.intc)
        self._all = lib.llama_token_data_array(data=self._data, size=self._n, selected=-1, sorted=False)
        self._one = (lib.llama_token_data * 1)()
        self._single = lib.llama_token_data_array(data=self._one, size=1, selected=-1, sorted=False)

    def _candidates(self, ctx: Any, idx: int) -> Any:
        """Every token with its logit, as llama.cpp's ``set_logits`` makes them."""
        logits = self._np.ctypeslib.as_array(self._lib.llama_get_logits_ith(ctx.ctx, idx), shape=(self._n,))
        self._view["id"], self._view["logit"], self._view["p"] = self._ids, logits, 0.0
        self._all.size, self._all.selected, self._all.sorted = self._n, -1, False
        return ctypes.byref(self._all)

    def _draw(self, candidates: Any) -> int:
        self._lib.llama_sampler_apply(self.chain.sampler, candidates)
        return int(self._data[self._all.selected].id)

    def sample(self, ctx: Any, idx: int = -1) -> int:
        token = self._draw(self._candidates(ctx, idx))
        self._one[0].id, self._one[0].logit, self._one[0].p = token, 1.0, 0.0
        self._single.size, self._single.selected, self._single.sorted = 1, -1, False
        self._lib.llama_sampler_apply(self.grammar, ctypes.byref(self._single))
        if math.isinf(self._one[0].logit):  # refused: constrain them all, and the chain draws again
            candidates = self._candidates(ctx, idx)
            self._lib.llama_sampler_apply(self.grammar, candidates)
            token = self._draw(candidates)
        self._lib.llama_sampler_accept(self.grammar, token)
        self._lib.llama_sampler_accept(self.chain.sampler, token)
        return token

    def __del__(self) -> None:
        _free(self)


def _free(sampler: Any) -> None:
    grammar, sampler.grammar = getattr(sampler, "grammar", None), None
    if grammar is not None:
        try:
            sampler._lib.llama_sampler_free(grammar)
        except (AttributeError, TypeError):  # interpreter shutdown: llama.cpp already gone
            pass


def _plain(options: dict[str, Any]) -> bool:
    """A call with a grammar, no penalties, no logits processors and no mirostat: what these samplers serve."""
    return (
        options.get("grammar") is not None
        and not options.get("logits_processor")
        and options.get("repeat_penalty", 1.0) == 1.0
        and options.get("frequency_penalty", 0.0) == 0.0
        and options.get("presence_penalty", 0.0) == 0.0
        and options.get("mirostat_mode", 0) == 0
    )


def install(llama: Any) -> None:
    """Make calls with a grammar on this model use ``GreedyUnderGrammar`` (greedy) or ``SampledUnderGrammar``
    (temperature above 0) (``Llama.generate`` asks ``_init_sampler`` for a sampler at the start of every generation)."""
    original = llama._init_sampler

    def init_sampler(**options: Any) -> Any:
        if _plain(options) and options.get("temp") == 0.0:
            return GreedyUnderGrammar(llama, options["grammar"])
        if _plain(options) and options.get("temp", 0.0) > 0.0:
            return SampledUnderGrammar(llama, options["grammar"], options)
        return original(**options)

    llama._init_sampler = init_sampler


def snippet_source() -> str:
    """This module's samplers and ``install``, as a script carries them ("Copy as Python" of a sampled call with a
    grammar): the same code, so the same seed gives the same text."""
    import inspect

    parts = (GreedyUnderGrammar, SampledUnderGrammar, _free, _plain, install)
    return "import ctypes\nimport math\nfrom typing import Any\n\n\n" + "\n\n".join(inspect.getsource(p) for p in parts)
