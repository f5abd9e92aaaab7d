"""``python -m react_core.providers.llama_server --model FILE.gguf [--host --port --n_ctx …]``: llama-cpp-python's
OpenAI-compatible server (``llama_cpp.server``, same arguments) with the CPU workaround of ``llama_support``.

Point the ``openai`` provider at it with ``--base-url http://HOST:PORT/v1``; the tests do exactly that.
"""

from __future__ import annotations

from react_core.providers.llama_support import apply_for_process


def main() -> None:
    apply_for_process()
    from llama_cpp.server.__main__ import main as serve

    serve()


if __name__ == "__main__":
    main()
