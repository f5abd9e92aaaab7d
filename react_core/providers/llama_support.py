"""Loading a llama.cpp model so that it runs on this kind of machine.

llama.cpp's AMX matrix kernels (its "extra buffer types", used on Intel CPUs that report AMX) crash with a segmentation
fault in ``ggml_backend_amx_mul_mat`` on the virtual machines we run on, although the CPU reports AMX. So on a CPU that
reports AMX the extra buffer types are turned off (plain AVX-512 kernels, still fast for a small model);
``REACT_LLAMA_EXTRA_BUFFERS=1`` turns them back on, ``=0`` off everywhere. llama-cpp-python offers no argument for this,
so the model parameters' defaults are patched while a model loads.
"""

from __future__ import annotations

import contextlib
import functools
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from react_core.base.environment import environment_value

_PATCH_LOCK = threading.Lock()


@functools.cache
def _this_cpuinfo() -> str:
    """This machine's /proc/cpuinfo, read once: a live run's redraws ask (the Python snippet) several times a second."""
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def cpu_has_amx(cpuinfo: str | None = None) -> bool:
    if cpuinfo is None:
        cpuinfo = _this_cpuinfo()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return "amx_tile" in line.split(":", 1)[-1].split()
    return False


def extra_buffers_wanted(env: dict[str, str] | None = None, cpuinfo: str | None = None) -> bool:
    wanted = environment_value("REACT_LLAMA_EXTRA_BUFFERS", env)
    if wanted in ("0", "1"):
        return wanted == "1"
    return not cpu_has_amx(cpuinfo)


@contextlib.contextmanager
def safe_model_defaults() -> Iterator[None]:
    """While active, models load without llama.cpp's extra buffer types when this CPU needs that."""
    if extra_buffers_wanted():
        yield
        return
    import llama_cpp.llama_cpp as lib

    with _PATCH_LOCK:
        original = lib.llama_model_default_params
        lib.llama_model_default_params = _without_extra_buffers(original)
        try:
            yield
        finally:
            lib.llama_model_default_params = original


def apply_for_process() -> None:
    """For a process that only serves one model (``llama_server``): patch the defaults for good."""
    if extra_buffers_wanted():
        return
    import llama_cpp.llama_cpp as lib

    lib.llama_model_default_params = _without_extra_buffers(lib.llama_model_default_params)


def _without_extra_buffers(original: Any) -> Any:
    def defaults() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    return defaults


def grammar_option(grammar: str | None) -> dict[str, Any]:
    if not grammar:
        return {}
    from llama_cpp import LlamaGrammar

    return {"grammar": LlamaGrammar.from_string(grammar, verbose=False)}


def next_seed(llama: Any) -> int:
    """The seed llama-cpp-python draws for a call given none (``Llama._create_completion``), drawn here to record it."""
    return random.Random(llama._seed).randint(0, 2**32)
