"""What every subcommand of the command line shares: the one-line usage errors and the run options.

``ask``, ``eval`` and the knowledge commands take the same run options (provider, model, dialect, knowledge, …) and
turn them into RunSettings the same way, with the environment's defaults underneath.
"""

from __future__ import annotations

import argparse
from typing import Any

from react_core.dialects import DIALECTS

EXIT_USAGE = 2


class CliParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, as scripts expect; argparse prints usage + message
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class UsageError(Exception):
    """A bad argument found after parsing (an unreadable file, an invalid value)."""


def add_run_options(p: argparse.ArgumentParser) -> None:
    """Options shared by everything that runs the agent (ask, eval)."""
    from react_core.loop.agent import EARLY_STOPPING
    from react_core.providers import PROVIDERS

    p.add_argument(
        "--provider",
        choices=PROVIDERS,
        default=None,
        help="model provider (default: REACT_PROVIDER, else gemini/openai when a key is set, else local)",
    )
    p.add_argument("--model", help="model name (provider default when omitted)")
    p.add_argument("--model-path", help="a GGUF file for the local provider")
    p.add_argument(
        "--adapter",
        help="the local model's LoRA adapter: shipped (default, on the bundled model), none, or a .gguf file",
    )
    p.add_argument("--base-url", help="API base URL (OpenAI-compatible servers, or a Gemini endpoint)")
    p.add_argument("--script", help="JSON array of model outputs for --provider scripted")
    p.add_argument("--delay", type=float, default=0.0, help="seconds the scripted provider waits per call")
    # --format: the name the option had before "dialect" became the one word for it.
    p.add_argument(
        "--dialect", "--format", dest="dialect", choices=list(DIALECTS), help="action dialect; picks its shipped preset"
    )
    p.add_argument("--preset", help="preset name or .toml path (overrides --dialect)")
    p.add_argument("--max-calls", type=int, default=None, help="model calls before stopping (default 8)")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument(
        "--knowledge", default=None, help="'wikipedia' or 'pack:PATH' (default: REACT_KNOWLEDGE, else wikipedia)"
    )
    p.add_argument("--wiki-url", help="MediaWiki Action API endpoint (default English Wikipedia)")
    p.add_argument("--wiki-language", help="Wikipedia language code, e.g. de (default en; ignored with --wiki-url)")
    p.add_argument("--sentences", type=int, default=5, help="sentences a Search returns (the paper: 5)")
    p.add_argument("--tools", default=None, help="comma-separated tools to enable (default: search,lookup,calculator)")
    p.add_argument(
        "--grammar",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="constrain the on-device model to one well-formed step of the dialect (default: on where possible)",
    )
    p.add_argument(
        "--early-stopping",
        choices=list(EARLY_STOPPING),
        default=None,
        help="when the run's steps end without an answer (a loop, the budget): stop (force, the default) or ask the "
        "model once more for its final answer (generate, LangChain's name; one call beyond --max-calls)",
    )


def settings_from_args(args: argparse.Namespace, **defaults: Any) -> Any:
    """RunSettings: the environment's, then the run options given on the command line, else ``defaults``."""
    from react_core.loop.settings import RunSettings

    overrides = {
        "provider": args.provider,
        "model": args.model,
        "model_path": args.model_path,
        "adapter": args.adapter,
        "base_url": args.base_url,
        "script": args.script,
        "delay": args.delay or None,
        "dialect": args.dialect,
        "preset": args.preset,
        "max_calls": args.max_calls,
        "temperature": args.temperature,
        "knowledge": args.knowledge,
        "wiki_url": args.wiki_url,
        "wiki_language": args.wiki_language,
        "sentences": args.sentences,
        "tools": _tool_list(args.tools),
        "grammar": args.grammar,
        "pause_before": _breakpoints(getattr(args, "pause_before", None)),
        "early_stopping": args.early_stopping,
    }
    given = {k: v for k, v in overrides.items() if v is not None and k != "provider"}
    if args.preset:  # a preset keeps the tools it was written for (its [run] table): enabled unless --tools says
        given = {**_preset_run(args.preset), **given}
    # The environment's settings for the provider chosen here: REACT_BASE_URL meant for REACT_PROVIDER's provider
    # never goes to another one's --provider (nor does its key follow it there).
    return RunSettings.from_env(provider=args.provider or defaults.get("provider")).updated(**{**defaults, **given})


def _preset_run(ref: str) -> dict[str, Any]:
    """What a preset's ``[run]`` table enables (its tools, its grammar), as settings."""
    from react_core.presets.store import PresetStore

    preset = PresetStore().load(ref)
    kept = {"tools": preset.run_tools, "grammar": preset.grammar}
    return {k: v for k, v in kept.items() if v is not None}


def _breakpoints(value: str | None) -> list[str] | None:
    from react_core.cli.step_mode import breakpoints

    return None if value is None else breakpoints(value)


def _tool_list(value: str | None) -> list[str] | None:
    return None if value is None else [t.strip().lower() for t in value.split(",") if t.strip()]
