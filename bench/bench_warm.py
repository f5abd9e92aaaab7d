"""Instant on-device (issue 23): saved prefix states and the warm-up, measured. Writes the ``warm`` section of
docs/benchmarks.md.

Every figure runs in fresh processes (this script's ``--worker`` modes) with a states folder of its own (the model file
linked into a scratch model cache), so the user's cache is never touched:

* first-token time of step 1 and step 2 of the same run (the chat's calls: paper-style presets, grammar on,
  temperature 0): right after start-up with the warm-up done, right after a preset switch with its warm-up done, after a
  switch back without one (the state is in memory), and with no state at all;
* per saved state (each shipped preset): its tokens, bytes in memory and on disk, and the time to evaluate the prefix,
  to save it, and to load it from disk or from memory;
* a freshly started process: how long the warm-up takes (nothing saved yet; the state on disk), then the time from
  asking the first question to its first streamed token;
* N questions with one prompt (paper preset, offline pack, the paper's budget of 7 calls, one at a time as an
  evaluation runs them): total time, with this engine and with the engine of ``--before`` (a checkout of an earlier
  commit, e.g. ``git archive COMMIT | tar -x -C DIR``).

Run: ``.venv/bin/python bench/bench_warm.py [--questions N] [--before DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

STARTED = time.perf_counter()
ROOT = Path(__file__).resolve().parent.parent
SWITCHES = ("mrkl", "langchain-json", "pause")  # presets switched to, in turn, after the paper preset
SHIPPED = ("paper", "gemini-xml", "langchain-json", "pause", "function-call", "mrkl")


def _engine(path: str) -> None:
    sys.path.insert(0, path)


# -- workers (each in a fresh process) ---------------------------------------------------------------------


class Timed:
    """The provider as the loop sees it, timing each call's first streamed text."""

    def __init__(self, inner) -> None:
        self.inner, self.calls = inner, []

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def stream(self, request) -> Iterator:
        started, first = time.perf_counter(), None
        for chunk in self.inner.stream(request):
            if chunk.text and first is None:
                first = time.perf_counter() - started
            yield chunk
        self.calls.append(first if first is not None else time.perf_counter() - started)


def _run(provider, preset: str, question: str, pack: str, max_calls: int) -> list[float]:
    from react_core.loop.agent import Agent
    from react_core.loop.settings import RunSettings, build_run_config

    timed = Timed(provider)
    settings = RunSettings(provider="local", preset=preset, knowledge=f"pack:{pack}", max_calls=max_calls)
    config = build_run_config(settings, provider=provider)
    config.provider = timed
    Agent(config).run(question)
    return timed.calls


def _prefix(provider, preset: str, pack: str) -> str:
    from react_core.loop.settings import RunSettings, build_run_config
    from react_core.presets.render import render_prefix

    config = build_run_config(RunSettings(provider="local", preset=preset, knowledge=f"pack:{pack}"), provider=provider)
    return render_prefix(config.preset, config.tools.names)


def worker_ttft(args: argparse.Namespace) -> dict:
    from react_core.providers.local import LocalProvider

    local = LocalProvider(on_progress=None)
    qs = _questions(args.questions)
    out: dict = {"warm": [], "switch": [], "back": [], "cold": [], "warmups": []}
    warm = local.warm(_prefix(local, "paper", args.pack))
    warm.wait()
    out["warmups"].append(("paper", warm.source, warm.seconds))
    out["warm"].append(_run(local, "paper", qs[0], args.pack, 3))
    for preset, q in zip(SWITCHES, qs[1:], strict=False):
        warm = local.warm(_prefix(local, preset, args.pack))
        warm.wait()
        out["warmups"].append((preset, warm.source, warm.seconds))
        out["switch"].append(_run(local, preset, q, args.pack, 3))
    for preset, q in zip(("paper", *SWITCHES[:-1]), qs[1:], strict=False):  # back, without a warm-up
        out["back"].append(_run(local, preset, q, args.pack, 3))
    shared = local.prepare()
    for q in qs[:3]:
        with shared.lock:
            shared.prompts.store.clear()
            shared.llama.reset()
        out["cold"].append(_run(local, "gemini-xml", q, args.pack, 3))
    return out


def worker_states(args: argparse.Namespace) -> dict:
    from react_core.providers.llama_states import StateStore, aligned
    from react_core.providers.local import LocalProvider

    local = LocalProvider(on_progress=None)
    shared = local.prepare()
    prompts, rows = shared.prompts, {}
    for preset in SHIPPED:
        prefix = _prefix(local, preset, args.pack)
        own = prompts.tokens_of(prefix)
        edge = aligned(len(own) - 1)
        shared.llama.reset()
        began = time.perf_counter()
        prompts.positions.evaluate(own, 0, edge)
        evaluate = time.perf_counter() - began
        began = time.perf_counter()
        state = prompts.positions.snapshot(edge)
        snapshot = time.perf_counter() - began
        began = time.perf_counter()
        prompts.store.put(prefix, state)
        save = time.perf_counter() - began
        shared.llama.reset()
        began = time.perf_counter()
        found, where = StateStore(prompts.store.identity, prompts.store.folder).get(prefix)
        prompts.positions.restore(found)
        from_disk = time.perf_counter() - began
        assert where == "disk"
        shared.llama.reset()
        began = time.perf_counter()
        prompts.positions.restore(state)
        from_memory = time.perf_counter() - began
        file = prompts.store.folder / f"{prompts.store.key(prefix)}.kv"
        rows[preset] = dict(
            tokens=len(own), kept=edge, memory=state.nbytes, disk=file.stat().st_size, evaluate=evaluate,
            snapshot=snapshot, save=save, from_disk=from_disk, from_memory=from_memory,
        )  # fmt: skip
    return rows


def worker_first(args: argparse.Namespace) -> dict:
    """A fresh process: start, warm up, ask the first question."""
    from react_core.loop.model_call import stream_completion
    from react_core.providers.base import CompletionRequest
    from react_core.providers.local import LocalProvider

    local = LocalProvider(on_progress=None)
    prefix = _prefix(local, "paper", args.pack)
    warm = local.warm(prefix)
    warm.wait()
    ready = time.perf_counter() - STARTED
    question = _questions(1)[0]
    request = CompletionRequest(system=prefix, prompt=f"Question: {question}\nThought 1:", stop=("\nObservation",))
    asked = time.perf_counter()
    first = []
    stream_completion(local, request, on_text=lambda *_: first.append(time.perf_counter()) if not first else None)
    return {"source": warm.source, "warm_up": warm.seconds, "ready": ready, "first_token": first[0] - asked}


def worker_eval(args: argparse.Namespace) -> dict:
    """One evaluation process: a question at a time as the orchestra sends its number, timings back."""
    import resource

    from react_core.providers.local import LocalProvider

    local = LocalProvider(on_progress=None)
    local.prepare()
    qs = _questions(args.questions)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        began, usage = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        calls = _run(local, "paper", qs[int(line)], args.pack, 7)
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
        print(json.dumps({"seconds": time.perf_counter() - began, "cpu": cpu, "calls": calls}), flush=True)
    return {}


def _questions(n: int) -> list[str]:
    from react_core.base.paths import shared_data_dir

    rows = json.loads((shared_data_dir() / "hotpotqa" / "dev_distractor_first100.json").read_text(encoding="utf-8"))
    return [r["question"] for r in rows[:n]]


WORKERS = {"ttft": worker_ttft, "states": worker_states, "first": worker_first, "eval": worker_eval}


# -- the orchestra -----------------------------------------------------------------------------------------


def _spawn(mode: str, cache: Path, pack: Path, questions: int, engine: Path = ROOT) -> dict:
    from react_core.base.paths import shared_data_dir

    env = {**os.environ, "REACT_MODEL_CACHE": str(cache), "REACT_CACHE_DIR": str(cache.parent)}
    env["REACT_SHARED_DATA"] = str(shared_data_dir())
    command = [sys.executable, __file__, "--worker", mode, "--engine", str(engine), "--pack", str(pack)]
    command += ["--questions", str(questions)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"worker {mode} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _evaluate(engines: dict[str, Path], pack: Path, questions: int, folder: Path) -> dict:
    """Each engine's evaluation in a process of its own, question by question in turn (the first to go alternates), so
    that both meet the same load from whatever else runs on the machine."""
    from react_core.base.paths import shared_data_dir

    workers = {}
    for name, engine in engines.items():
        env = {**os.environ, "REACT_MODEL_CACHE": str(_cache(folder / name / "cache")), "REACT_CACHE_DIR": str(folder)}
        env["REACT_SHARED_DATA"] = str(shared_data_dir())
        command = [sys.executable, __file__, "--worker", "eval", "--engine", str(engine), "--pack", str(pack)]
        command += ["--questions", str(questions)]
        worker = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        json.loads(worker.stdout.readline())
        workers[name] = worker
    results = {name: {"seconds": 0.0, "cpu": 0.0, "calls": []} for name in engines}
    order = list(engines)
    for index in range(questions):
        for name in order if index % 2 == 0 else order[::-1]:
            workers[name].stdin.write(f"{index}\n")
            workers[name].stdin.flush()
            done = json.loads(workers[name].stdout.readline())
            results[name]["seconds"] += done["seconds"]
            results[name]["cpu"] += done["cpu"]
            results[name]["calls"].append(done["calls"])
    for worker in workers.values():
        worker.stdin.close()
        worker.wait()
    return results


def _cache(folder: Path) -> Path:
    """A scratch model cache holding a link to the user's model file (assembled there if needed)."""
    from react_core.providers.local import default_model_path

    model = default_model_path(None)
    cache = folder / "models"
    cache.mkdir(parents=True, exist_ok=True)
    (cache / model.name).symlink_to(model)
    return cache


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=20, help="questions of the evaluation (default 20)")
    parser.add_argument("--before", type=Path, help="a checkout of the engine to compare the evaluation with")
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--engine", default=str(ROOT), help=argparse.SUPPRESS)
    parser.add_argument("--pack", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _engine(args.engine)
        print(json.dumps(WORKERS[args.worker](args)))
        return
    _engine(str(ROOT))
    from bench.bench_local import build_pack

    with tempfile.TemporaryDirectory() as tmp:
        pack = build_pack(Path(tmp))
        results: dict = {}
        for name in ("ttft", "states"):
            results[name] = _spawn(name, _cache(Path(tmp) / name / "cache"), pack, 4)
        first_cache = _cache(Path(tmp) / "first" / "cache")
        results["first"] = [_spawn("first", first_cache, pack, 1) for _ in range(2)]  # nothing saved; then on disk
        engines = {"eval": ROOT} | ({"before": args.before} if args.before else {})
        results |= _evaluate(engines, pack, args.questions, Path(tmp) / "evaluations")
    from bench.warm_report import report

    report(results, args)


if __name__ == "__main__":
    main()
