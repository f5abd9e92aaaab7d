"""Dynamic examples, a per-version option (``dynamic_examples = k`` in a preset): for each question, the ``k``
examples of the version whose questions are most like it replace the fixed set, as DSPy's ``KNNFewShot`` picks
demonstrations by similarity, here by BM25 over the example questions (the maintained ``bm25s`` library, English stop
words dropped) so it needs no embedding model and works offline.

The examples of the version are the pool. The chosen ones keep the pool's order (so the prompt reads as the author
wrote it); ties in score go to the earlier example, so a choice is deterministic. A question that shares no word
with any example gets the first ``k``.
"""

from __future__ import annotations

from react_core.dialects import DIALECTS
from react_core.presets.diff import example_key, split_examples
from react_core.presets.preset import Preset


def pool(preset: Preset) -> list[str]:
    """The version's examples as whole examples: the pool the dynamic choice draws from."""
    return split_examples(preset.examples, DIALECTS.get(preset.dialect))


def choose(preset: Preset, question: str) -> list[int]:
    """The indexes (in pool order) of the examples a run of ``question`` uses; every one when the option is off or
    the pool is no larger than ``k``."""
    examples = pool(preset)
    k = preset.dynamic_examples
    if k <= 0 or len(examples) <= k:
        return list(range(len(examples)))
    import bm25s  # loaded only by a version that uses dynamic examples

    corpus = bm25s.tokenize([example_key(e) for e in examples], stopwords="en", show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    query = bm25s.tokenize([question], stopwords="en", return_ids=False, show_progress=False)
    if not query[0]:  # nothing to match on (only stop words or symbols): the first k
        return list(range(k))
    ids, scores = retriever.retrieve(query, k=len(examples), show_progress=False)
    ranked = sorted(zip(ids[0].tolist(), scores[0].tolist(), strict=True), key=lambda p: (-p[1], p[0]))
    return sorted(i for i, _ in ranked[:k])


def chosen_examples(preset: Preset, question: str) -> tuple[str, list[str]]:
    """(the examples text a run of ``question`` uses, the question lines of the ones chosen: [] when the option is
    off, so a trace records a choice only when one was made)."""
    examples = pool(preset)
    picked = choose(preset, question)
    if preset.dynamic_examples <= 0 or len(picked) == len(examples):
        return preset.examples, []
    gap = "\n\n" if "\n\n" in preset.examples.strip("\n") else "\n"
    return gap.join(examples[i] for i in picked) + "\n", [example_key(examples[i]) for i in picked]
