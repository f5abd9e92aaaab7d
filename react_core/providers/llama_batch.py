"""Several samples of one prompt drawn together on the on-device model: the prompt read once, then one llama.cpp batch
per token for all of them (``REACT_LLAMA_BATCH=1``; off by default).

A second llama.cpp context on the loaded model holds one sequence per sample in one KV cache (``kv_unified``: the
prompt's cells are shared, and a prefix's saved state, written for a one-stream cache, loads into it). The prompt is
read once into sequence 0 (from the prefix's saved state, ``llama_states``, then its remaining blocks, as a single
call reads it) and given to the others (``llama_memory_seq_cp``); then every step
decodes one token of each unfinished sample in one batch, and each sample draws its next token from its own logits
with its own sampler: the one llama-cpp-python (or ``llama_grammar``, under a grammar) makes for a call with that
seed. A sample ends on its own, as ``Llama.create_completion`` ends it: an end-of-generation token, a stop sequence
(the text before it is the reply) or ``max_tokens``. On a CPU one token of 21 sequences costs far less than 21
tokens of one, since decoding one sequence mostly waits for the weights to be read.

Not bit-exact with one sample alone. Decoding one token multiplies the weights by one column, and ggml takes its
vector dot products; a batch of several columns goes to its matrix kernels instead (llamafile's tinyBLAS for the
Q5_0, Q8_0 and F16 weights from two columns on, the repacked Q4_K kernels by four columns, the tiled K-quant kernels
from eight), which add up in another order. The logits differ in their last bits from the first batched step, and
sometimes a draw picks another token (measured on a CoT prompt: 53 of 2,100 tokens, 21 samples x 100 teacher-forced
tokens; 19 of the 21 samples then go another way). A batch of one sample is exactly the single call (a model test
checks it). So each sampled call drawn this way records that it was (``BATCH_NOTE``), and its "Copy as Python" draws
another sample of the same distribution with that seed.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from react_core.base import cancel
from react_core.providers.llama_states import BLOCK, aligned, common_prefix

# Samples per batch: a llama.cpp batch holds at most n_batch (BLOCK) tokens; more samples are drawn in several.
MAX_LANES = 32
# Each sample's KV stream holds its prompt and reply, in steps of this many positions.
_CELLS = 256
BATCH_NOTE = (
    "drawn with {others} other samples of this prompt in one llama.cpp batch (REACT_LLAMA_BATCH=1): not bit-exact "
    "with this seed drawn alone, which gives another sample of the same distribution"
)


# What ``create_completion`` passes to its sampler (``Llama._init_sampler``) besides the temperature and the grammar,
# when ``LocalProvider.stream`` calls it: a batch's samples are drawn with the same.
_SAMPLER_DEFAULTS = {
    "top_k": 40,
    "top_p": 0.95,
    "min_p": 0.05,
    "typical_p": 1.0,
    "repeat_penalty": 1.0,
    "frequency_penalty": 0.0,
    "presence_penalty": 0.0,
    "tfs_z": 1.0,
    "mirostat_mode": 0,
    "mirostat_tau": 5.0,
    "mirostat_eta": 0.1,
    "penalize_nl": True,
    "logits_processor": None,
}


def sample(provider: Any, request: Any, n: int) -> list[list[Any]]:
    """``n`` samples of ``request`` on ``provider``'s model (a ``LocalProvider``), each as the chunks its own call
    (``LocalProvider.stream``) would send: the seeds that many calls in a row would draw, each recorded with its
    call, and a note on how it was drawn when it was drawn with others."""
    from react_core.base.trace import Usage
    from react_core.providers.base import Chunk
    from react_core.providers.llama_support import grammar_option, next_seed

    shared = provider.prepare()
    llama = shared.llama
    with cancel.held(shared.lock), shared.activity.doing("reading"):
        tokens, arguments = provider.arguments(llama, request)
        seeds: list[int] = []
        for _ in range(n):  # each from the one before, as create_completion draws a call's seed
            seeds.append(request.seed if request.seed is not None and not seeds else next_seed(llama))
            llama.set_seed(seeds[-1])
        saved = shared.prompts.warm(request.system) and shared.prompts.store.get(request.system)
        grammar = grammar_option(request.grammar).get("grammar")
        lanes = draw(
            llama,
            tokens,
            saved[0] if saved else None,
            {**_SAMPLER_DEFAULTS, "temp": request.temperature, "grammar": grammar},
            seeds,
            max_tokens=arguments["max_tokens"],
            stops=arguments["stop"],
            on_decode=shared.activity.on_batch,
        )
        note = [{"param": "batch", "reason": BATCH_NOTE.format(others=n - 1)}] if n > 1 else []
        replies = []
        for lane in lanes:
            body = {**arguments, "seed": lane.seed}
            sent = {"api": "llama.cpp", "endpoint": "", "body": body, "omitted": note, "reused_tokens": lane.reused}
            text = lane.text.decode("utf-8", errors="ignore")
            usage = Usage(len(tokens), len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)))
            replies.append([Chunk(sent=sent), Chunk(text=text), Chunk(usage=usage, finish_reason=lane.finish)])
    return replies


@dataclass
class Lane:
    """One sample: its seed, sampler, tokens so far and, once it has ended, its text and why it ended."""

    seed: int
    sampler: Any
    tokens: list[int] = field(default_factory=list)
    text: bytes = b""
    finish: str = ""
    reused: int = 0  # prompt positions loaded from the prefix's saved state rather than read
    _multibyte: int = 0


class _View:
    """What a llama-cpp-python sampler's ``sample(ctx, idx)`` reads of a context: its pointer."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx


def draw(
    llama: Any,
    prompt: Sequence[int],
    state: Any,
    options: dict[str, Any],
    seeds: Sequence[int],
    *,
    max_tokens: int,
    stops: Sequence[str],
    on_decode: Callable[[int, float, bool], None] | None = None,
) -> list[Lane]:
    """The samples of ``prompt`` for ``seeds``, ``MAX_LANES`` at a time. ``state``: the prefix's saved state
    (``llama_states.State``) to start from, or None; ``options``: the sampler's (``Llama._init_sampler``'s);
    ``on_decode(tokens, seconds, sampling)`` hears each batch decoded (``sampling``: the samples' tokens, not the
    prompt's)."""
    lanes: list[Lane] = []
    for at in range(0, len(seeds), MAX_LANES):
        lanes += _batch(llama, prompt, state, options, seeds[at : at + MAX_LANES], max_tokens, stops, on_decode)
    return lanes


def _batch(llama, prompt, state, options, seeds, max_tokens, stops, on_decode) -> list[Lane]:
    import llama_cpp as lib

    lanes: list[Lane] = []
    for seed in seeds:
        llama.set_seed(seed)  # the seeded draw of the sampler (dist) reads it, as create_completion sets it
        lanes.append(Lane(seed, llama._init_sampler(**options)))
    cells = -(-(len(prompt) + len(lanes) * (max_tokens + 1)) // _CELLS) * _CELLS
    ctx = _context(llama, len(lanes), cells)
    batch = lib.llama_batch_init(BLOCK, 0, 1)
    try:
        last, reused = _read_prompt(lib, ctx, batch, prompt, state, on_decode)
        for lane in lanes:
            lane.reused = reused
        memory = lib.llama_get_memory(ctx)
        for i in range(1, len(lanes)):
            lib.llama_memory_seq_cp(memory, 0, i, -1, -1)  # the prompt's cells, shared: no copy
        view, stop_bytes = _View(ctx), [s.encode("utf-8") for s in stops if s]
        rows = {i: last for i in range(len(lanes))}  # where each unfinished sample's logits are in the last batch
        while rows:
            cancel.check()
            going = []
            for i, row in rows.items():
                lane = lanes[i]
                token = lane.sampler.sample(view, row)
                if not _take(llama, lane, token, prompt, stop_bytes, max_tokens):
                    going.append((i, token))
            if not going:
                break
            _fill(batch, [(token, len(prompt) + len(lanes[i].tokens) - 1, i, True) for i, token in going])
            _decode(lib, ctx, batch, on_decode, sampling=True)
            rows = {i: row for row, (i, _) in enumerate(going)}
    finally:
        lib.llama_batch_free(batch)
        lib.llama_free(ctx)
    return lanes


def _take(llama: Any, lane: Lane, token: int, prompt: Sequence[int], stops: list[bytes], max_tokens: int) -> bool:
    """Add ``token`` to the sample; True when the sample has ended. ``Llama._create_completion``'s rules, in its
    order: an end-of-generation token; then, unless a character's bytes are still incomplete, the first of the stop
    sequences (in their order) that the text holds, and the budget."""
    import llama_cpp as lib

    if lib.llama_vocab_is_eog(llama._model.vocab, token):
        lane.text, lane.finish = llama.detokenize(lane.tokens, prev_tokens=prompt), "stop"
        return True
    lane.tokens.append(token)
    text = llama.detokenize(lane.tokens, prev_tokens=prompt)
    for k, char in enumerate(text[-3:]):
        k = 3 - k
        for num, pattern in [(2, 192), (3, 224), (4, 240)]:
            if num > k and pattern & char == pattern:
                lane._multibyte = num - k
    if lane._multibyte > 0:  # llama-cpp-python goes on to the next token, budget unchecked
        lane._multibyte -= 1
        return False
    hit = next((s for s in stops if s in text), None)
    if hit is not None:
        lane.text, lane.finish = text[: text.index(hit)], "stop"
        return True
    if len(lane.tokens) >= max_tokens:
        lane.text, lane.finish = text, "length"
        return True
    return False


def _context(llama: Any, lanes: int, cells: int) -> Any:
    """A context on the loaded model (its weights and adapter) whose ``cells`` KV cells the samples share (the
    prompt's once), set up as the model's own context is otherwise (blocks of ``BLOCK``, threads, attention,
    sliding-window cache)."""
    import llama_cpp as lib

    own = llama.context_params
    params = lib.llama_context_default_params()
    params.n_ctx, params.n_seq_max, params.kv_unified = cells, lanes, True
    params.n_batch = params.n_ubatch = BLOCK
    params.n_threads, params.n_threads_batch = own.n_threads, own.n_threads_batch
    params.flash_attn_type, params.swa_full, params.type_k, params.type_v = (
        own.flash_attn_type,
        own.swa_full,
        own.type_k,
        own.type_v,
    )
    params.no_perf = True
    ctx = lib.llama_init_from_model(llama._model.model, params)
    if not ctx:
        raise MemoryError(f"llama.cpp could not make a context for {lanes} samples of {cells} positions")
    adapter = getattr(llama, "_lora_adapter", None)
    if adapter:
        adapters = (lib.llama_adapter_lora_p_ctypes * 1)(adapter)
        scales = (ctypes.c_float * 1)(llama.lora_scale)
        if lib.llama_set_adapters_lora(ctx, adapters, 1, scales):
            lib.llama_free(ctx)
            raise RuntimeError("llama.cpp could not apply the LoRA adapter to the batch's context")
    return ctx


def _read_prompt(lib: Any, ctx: Any, batch: Any, prompt: Sequence[int], state: Any, on_decode) -> tuple[int, int]:
    """Put ``prompt`` in sequence 0: the saved prefix state when it is the prompt's own, then the rest in blocks of
    ``BLOCK`` aligned to absolute positions (as ``llama_states`` reads every prompt). Returns where the last
    token's logits are in the last batch, and how many positions came from the state."""
    start = 0
    own = state is not None and len(state.tokens) < len(prompt) and common_prefix(state.tokens, prompt)
    if own and own == len(state.tokens) == aligned(own):
        data = (ctypes.c_uint8 * len(state.data)).from_buffer_copy(state.data)
        if lib.llama_state_seq_set_data(ctx, data, len(state.data), 0):
            start = own
        else:  # refused (a state of another format): the whole prompt is read instead
            lib.llama_memory_clear(lib.llama_get_memory(ctx), False)
    for at in range(start, len(prompt), BLOCK):
        block = prompt[at : at + BLOCK]
        _fill(batch, [(token, at + j, 0, at + j == len(prompt) - 1) for j, token in enumerate(block)])
        _decode(lib, ctx, batch, on_decode, sampling=False)
    return (len(prompt) - 1) % BLOCK, start  # blocks start at multiples of BLOCK


def _fill(batch: Any, items: Sequence[tuple[int, int, int, bool]]) -> None:
    """(token, position, sequence, logits wanted) each."""
    batch.n_tokens = len(items)
    for row, (token, position, sequence, logits) in enumerate(items):
        batch.token[row], batch.pos[row], batch.logits[row] = token, position, logits
        batch.n_seq_id[row], batch.seq_id[row][0] = 1, sequence


def _decode(lib: Any, ctx: Any, batch: Any, on_decode, *, sampling: bool) -> None:
    began = time.perf_counter()
    result = lib.llama_decode(ctx, batch)
    if result != 0:
        raise RuntimeError(f"llama_decode failed ({result}) on a batch of {batch.n_tokens} tokens")
    if on_decode is not None:
        on_decode(batch.n_tokens, time.perf_counter() - began, sampling)
