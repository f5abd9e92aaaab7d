"""Run settings as one plain value, and how they become a RunConfig (provider, preset, tools, knowledge).

The same settings serve the CLI, the chat page (kept as a plain dict in session state), the evaluation harness and
the tests. Defaults come from the environment for deployments and tests (``react_core.base.environment`` lists which). A
key is never a setting: it is passed separately and never stored in a trace, the history or an export.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, ClassVar

from react_core.base.environment import environment_value
from react_core.base.errors import ConfigError, ReactLabError
from react_core.base.recorded_settings import current_names
from react_core.base.tool_specs import ToolSpec, is_tool_name
from react_core.base.trace import Step
from react_core.loop.agent import DEFAULT_MAX_CALLS, EARLY_STOPPING, RunConfig
from react_core.presets.check import validate_preset
from react_core.presets.preset import Preset, preset_dialect
from react_core.presets.store import PresetStore
from react_core.providers import FALLBACK
from react_core.providers.choice import environment_settings
from react_core.providers.file_choices import check_files
from react_core.providers.scripted import checked_outputs
from react_core.report.expected import expected_answer_for
from react_core.tools import DEFAULT_SENTENCES, build_tools
from react_core.tools.mcp_config import all_servers, missing_servers, own_entry

__all__ = [
    "RunSettings",
    "TEMPERATURES",
    "adapter_recorded",
    "build_run_config",
    "check_temperature",
    "default_provider",
    "provider_for",
    "resolve_preset",
]

TEMPERATURES = (0.0, 2.0)  # the sampling temperatures a run, a step-mode draw or CoT-SC may ask for


def check_temperature(value: float, name: str = "temperature") -> None:
    """The one home of the temperature range; ``name`` says whose it is in the message."""
    low, high = TEMPERATURES
    if not low <= float(value) <= high:
        raise ConfigError(f"{name} must be between {low:g} and {high:g} (got {value}).")


def default_provider(env: Mapping[str, str] | None = None) -> str:
    """REACT_PROVIDER, else a hosted provider with a key configured, else the on-device model."""
    from react_core.providers import default_provider_name

    return environment_value("REACT_PROVIDER", env) or default_provider_name(env)


@dataclass
class RunSettings:
    MAX_CALLS: ClassVar[int] = 20  # the most model calls a run may be given (``max_calls``)
    EARLY_STOPPING: ClassVar[dict[str, str]] = EARLY_STOPPING  # the choices of ``early_stopping``, as said to a person

    provider: str = field(default_factory=lambda: FALLBACK.name)
    model: str = ""
    base_url: str = ""
    model_path: str = ""
    adapter: str = ""  # the on-device model's LoRA adapter: '' or "shipped" (the default), "none", or a .gguf file
    # The scripted provider's JSON file, or the outputs themselves (a script a person uploaded, kept in their session).
    script: str | list[Any] = ""
    delay: float = 0.0
    dialect: str = ""
    preset: str = ""  # empty: the shipped preset of ``format`` (paper when no format is set)
    max_calls: int = DEFAULT_MAX_CALLS
    temperature: float = 0.0
    knowledge: str = "wikipedia"
    wiki_url: str = ""
    wiki_language: str = ""
    sentences: int = DEFAULT_SENTENCES
    tools: list[str] = field(default_factory=lambda: list(ToolSpec.ORDER))
    # The person's own MCP servers, name -> streamable-HTTP URL, or -> {"url", "headers"} when they gave it
    # credentials (``react_core.tools.mcp_config.own_entry``); the operator's are configured on the server. Their tools
    # are enabled in ``tools`` by their name-spaced names. Never recorded in a trace (``SETTINGS_FIELDS``).
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    # Constrain decoding to one well-formed step of the dialect, where the provider can (the on-device model).
    grammar: bool = True
    # Step mode: pause before a tool call, on an unreadable step, before Finish (``Step.BREAKPOINTS``); [] is off.
    pause_before: list[str] = field(default_factory=list)
    # When the run's own steps end without an answer: "force" stops there, "generate" asks once more
    # (``react_core.loop.agent.EARLY_STOPPING``).
    early_stopping: str = "force"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, provider: str | None = None) -> RunSettings:
        """The defaults for ``provider`` (else the environment's own), with every setting the environment gives that
        provider (``react_core.providers.choice.environment_settings``: REACT_BASE_URL only to REACT_PROVIDER's)."""
        chosen = provider or default_provider(env)
        return cls(**{**environment_settings(chosen, env), "provider": chosen})

    @classmethod
    def starting(cls, remembered: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> RunSettings:
        """A new session's settings: the defaults, then the settings it last ran with (``remembered``, unless they no
        longer pass ``check``), then what the environment pins for a deployment or a test: REACT_PROVIDER over the
        remembered provider (none remembered: the environment's default provider), and what it gives that provider
        (``from_env``)."""
        settings = cls()
        if remembered:
            known = {f.name for f in fields(cls)}
            try:
                candidate = cls.from_dict({**settings.to_dict(), **{k: v for k, v in remembered.items() if k in known}})
                candidate.check()
                settings = candidate
            except (ReactLabError, TypeError, ValueError):
                pass  # remembered settings from an older version that no longer validate: start from defaults
        provider = environment_value("REACT_PROVIDER", env)
        if not provider:
            provider = settings.provider if remembered and remembered.get("provider") else default_provider(env)
        return replace(settings, provider=provider, **environment_settings(provider, env))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunSettings:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in current_names(d).items() if k in known})

    def updated(self, **changes: Any) -> RunSettings:
        return replace(self, **changes)

    def unattended(self, **changes: Any) -> RunSettings:
        """These settings for a run nobody decides step by step (an arena column, an evaluation): step mode is the
        chat's, so it is off."""
        return replace(self, **changes, pause_before=[])

    @property
    def preset_ref(self) -> str:
        """The preset these settings run, as a name or a version (``name@3``): the one chosen; none chosen, the one the
        model's adapter learned to answer (its manifest's), else the shipped preset of the dialect (the paper's when
        none is set)."""
        if self.preset:
            return self.preset
        from react_core.providers import PROVIDERS

        dialect = str(self.dialect or "")
        learned = PROVIDERS[str(self.provider or FALLBACK.name)].preset_for(self.to_dict())
        if learned and dialect in ("", preset_dialect(learned)):
            return learned
        return Preset.default_for(dialect or Preset.DEFAULT)

    def warm_up(self, preset: Preset, question: str = "") -> Any:
        """Get the fixed prefix of ``preset`` (instructions and examples, with the enabled tools) ready on the model
        these settings name, in the background, and then as much of ``question``'s first step as can be read before
        it is asked (the question a person is likely to ask first: the Chat page's first example): the handle of the
        warm-up (``Provider.warm``), or None when that provider has nothing to prepare or cannot be built. Never
        loads an SDK: only providers that warm (``Provider.warms``) are built, and building the on-device one is
        cheap (the model loads in the background)."""
        from react_core.presets.render import render_first_prompt, render_prefix
        from react_core.providers import PROVIDERS

        if not PROVIDERS[self.provider].warms:
            return None
        try:
            provider = provider_for(self, on_progress=lambda _message: None)
        except ReactLabError:
            return None  # a missing model file: the run will say so
        tools = list(self.tools)
        ahead = render_first_prompt(preset, tools, question) if question.strip() else ""
        return provider.warm(render_prefix(preset, tools), ahead)

    def expected_answer(self, question: str) -> str | None:
        """The gold answer a run of ``question`` with these settings is checked against, when it is a known HotpotQA
        question (the pack answering their knowledge setting, else the shared data's files); else None."""
        return expected_answer_for(question, self.to_dict())

    def check(self) -> None:
        if not 1 <= int(self.max_calls) <= self.MAX_CALLS:
            raise ConfigError(f"max calls must be between 1 and {self.MAX_CALLS} (got {self.max_calls}).")
        check_temperature(self.temperature)
        if not 1 <= int(self.sentences) <= 50:
            raise ConfigError(f"sentences must be between 1 and 50 (got {self.sentences}).")
        if self.early_stopping not in EARLY_STOPPING:
            raise ConfigError(
                f"early stopping must be one of {', '.join(EARLY_STOPPING)} (got {self.early_stopping!r})."
            )
        stray = set(self.pause_before) - set(Step.BREAKPOINTS)
        if stray:
            raise ConfigError(f"unknown breakpoints {sorted(stray)}: choose from {', '.join(Step.BREAKPOINTS)}.")
        unknown = {t for t in set(self.tools) if not is_tool_name(t)}
        if unknown:
            raise ConfigError(
                f"unknown tools {sorted(unknown)}: choose from {', '.join(ToolSpec.ORDER)} or an MCP server's tools."
            )
        if not isinstance(self.mcp_servers, dict) or not all(isinstance(k, str) for k in self.mcp_servers):
            raise ConfigError("mcp_servers must map server names to URLs.")
        for name, entry in self.mcp_servers.items():
            own_entry(name, entry)
        if not isinstance(self.script, str):
            checked_outputs(self.script)


def resolve_preset(settings: RunSettings, preset: Preset | None = None) -> Preset:
    """The preset a run uses: an edited one passed in, else the named one, else the shipped one of the format."""
    if preset is None:
        # A name, or a version of it (``name@3``, ``name@label``), from wherever the person's prompts are kept.
        preset = PresetStore().load(settings.preset_ref)
    if preset.mode != "react":
        raise ConfigError(
            f"Preset {preset.name!r} is a direct-answer prompt ({preset.mode}) for the evaluation; an agent run "
            "needs a ReAct preset (Thought, Action, Observation)."
        )
    if settings.dialect and preset.dialect != settings.dialect:
        raise ConfigError(f"Preset {preset.name!r} is written in dialect {preset.dialect!r}, not {settings.dialect!r}.")
    problems = validate_preset(preset)
    if problems:
        raise ConfigError(f"Preset {preset.name!r} is invalid: {problems[0]}")
    return preset


def adapter_recorded(provider: Any) -> dict[str, str]:
    """What a run records of the LoRA adapter its provider applies (nothing when none)."""
    from react_core.providers.adapters import setting_of

    adapter = getattr(provider, "adapter", None)
    return {"adapter": setting_of(adapter)} if adapter is not None else {}


def provider_for(settings: RunSettings, *, api_key: str | None = None, on_progress: Any = None) -> Any:
    """The provider these settings name (SDKs and llama.cpp are imported only now). Under the job's key rules: a
    visitor's script and model file only among the operator's (``file_choices``)."""
    from react_core.providers import PROVIDERS, create_provider
    from react_core.providers.keys import visitor

    kind = PROVIDERS[settings.provider]
    check_files(
        kind, script=settings.script, model_path=settings.model_path, adapter=settings.adapter, visitor=visitor()
    )
    return create_provider(
        settings.provider,
        model=settings.model or None,
        base_url=settings.base_url or None,
        model_path=settings.model_path or None,
        adapter=settings.adapter or None,
        script=settings.script or None,
        delay=settings.delay,
        api_key=api_key,
        on_progress=on_progress,
    )


def build_run_config(
    settings: RunSettings,
    *,
    preset: Preset | None = None,
    api_key: str | None = None,
    provider: Any = None,
    on_progress: Any = None,
) -> RunConfig:
    """Everything a run needs. ``provider`` may be passed in to reuse one (the scripted provider across runs);
    ``on_progress`` hears about slow first-use preparation (assembling the on-device model)."""
    from react_core.knowledge import create_knowledge

    settings.check()
    chosen = resolve_preset(settings, preset)
    if provider is None:
        provider = provider_for(settings, api_key=api_key, on_progress=on_progress)
    knowledge = None
    if set(settings.tools) & {"search", "lookup"}:
        # Under the job's key rules (``visitor=None``): a visitor's pack and wiki endpoint only the operator's.
        knowledge = create_knowledge(
            settings.knowledge, wiki_url=settings.wiki_url or None, language=settings.wiki_language or None
        )
    servers = []
    if set(settings.tools) - set(ToolSpec.ORDER):
        from react_core.providers.keys import visitor

        # Under the job's key rules: a visitor's own servers only where the operator allows them.
        servers = all_servers(settings.mcp_servers, visitor=visitor())
        missing = missing_servers(settings.tools, servers)
        if missing:  # refused, never silently dropped: the prompt would otherwise describe tools the run lacks
            raise ConfigError(missing)
    return RunConfig(
        provider=provider,
        preset=chosen,
        tools=build_tools(knowledge, settings.tools, sentences=settings.sentences, mcp_servers=servers),
        max_calls=int(settings.max_calls),
        temperature=float(settings.temperature),
        grammar=bool(settings.grammar),
        pause_before=tuple(b for b in Step.BREAKPOINTS if b in settings.pause_before),
        early_stopping=settings.early_stopping,
        recorded={"knowledge": settings.knowledge, **adapter_recorded(provider)},
    )
