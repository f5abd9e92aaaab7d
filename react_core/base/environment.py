"""Every environment variable ReAct Lab reads, once: its name, what it means, and the setting it gives a default to.

Settings read their defaults from here (``RunSettings.from_env``), the app pins the same settings from here, the folders
in ``react_core.base.paths`` read their overrides from here, and a test checks that the code reads no other ``REACT_*``
variable and that docs/deployment.md lists every one. The API keys are declared by the providers that read them
(``Provider.key_vars``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["BY_NAME", "SETTING_VARIABLES", "VARIABLES", "Variable", "environment_value", "is_set", "setting_defaults"]


@dataclass(frozen=True)
class Variable:
    name: str
    meaning: str
    # The RunSettings field this variable gives a default to (and pins in the app); '' when it is not a setting.
    setting: str = ""


VARIABLES = (
    Variable("REACT_PROVIDER", "the model provider: local, openai, gemini or scripted", "provider"),
    Variable("REACT_MODEL", "the model name", "model"),
    Variable("REACT_BASE_URL", "the model API's base URL", "base_url"),
    Variable("REACT_MODEL_PATH", "a GGUF model file for the on-device provider", "model_path"),
    Variable(
        "REACT_ADAPTER", "the on-device model's LoRA adapter: shipped (default), none, or a .gguf file", "adapter"
    ),
    Variable("REACT_SCRIPT", "the scripted provider's JSON file of model outputs", "script"),
    Variable("REACT_PRESET", "the prompt preset", "preset"),
    Variable("REACT_KNOWLEDGE", "the knowledge source: wikipedia or pack:PATH", "knowledge"),
    Variable("REACT_WIKI_URL", "the MediaWiki api.php endpoint", "wiki_url"),
    Variable("REACT_WIKI_LANGUAGE", "the Wikipedia language code", "wiki_language"),
    Variable("REACT_WIKI_CONTACT", "the contact (URL or e-mail) in the Wikipedia User-Agent"),
    Variable("REACT_SHARED_DATA", "the shared reference data folder (default ../shared/data)"),
    Variable("REACT_DATA_DIR", "the user data folder: history, saved presets, evaluation results"),
    Variable("REACT_CACHE_DIR", "the user cache folder: the offline pack, the on-device model"),
    Variable("REACT_HISTORY_DB", "the history store's SQLite file"),
    Variable("REACT_HISTORY_URL", "a postgresql:// URL: keep the history in PostgreSQL instead of SQLite"),
    Variable("REACT_PRESETS_DIR", "the folder of saved presets"),
    Variable("REACT_TRAIN_PYTHON", "the training environment's Python for finetune (default .venv-train/bin/python)"),
    Variable("REACT_PACK", "the default offline pack file"),
    Variable("REACT_MODEL_CACHE", "where the on-device model file is assembled"),
    Variable("REACT_SECRETS_PATH", "secrets files to read keys from, separated by the path separator (empty: none)"),
    Variable("REACT_PUBLIC_DEMO", "1: public demo mode (no sign-in; each browser session keeps its runs to itself)"),
    Variable("REACT_DEMO_SERVER_KEYS", "1: in public demo mode, visitors may use the server's own API keys"),
    Variable(
        "REACT_DEMO_CALLS_PER_MINUTE", "in public demo mode, model calls a visitor may make per minute (default 20)"
    ),
    Variable(
        "REACT_DEMO_TOTAL_CALLS_PER_MINUTE",
        "in public demo mode, model calls all visitors together may make per minute (default 200)",
    ),
    Variable("REACT_MCP_SERVERS", "the operator's MCP servers (JSON: name -> command or url); also in secrets.toml"),
    Variable("REACT_MCP_VISITOR_HTTP", "1: in public demo and signed-in modes, visitors may add MCP servers by URL"),
    Variable("REACT_MCP_VISITOR_OAUTH", "1: in those modes, visitors' own MCP servers may sign them in with OAuth"),
    Variable("REACT_MCP_ALLOW_DESTRUCTIVE", "1: run MCP tools not declared read-only (default: refused or approved)"),
    Variable(
        "REACT_CREDENTIALS_KEY", "a long random string: seals MCP servers' headers and OAuth tokens in the history"
    ),
    Variable("REACT_MCP_TIMEOUT", "seconds an MCP call may take before it becomes an error observation (default 30)"),
    Variable("REACT_LLAMA_EXTRA_BUFFERS", "1 or 0: llama.cpp's extra buffer types on or off (default: off with AMX)"),
    Variable("REACT_LLAMA_THREADS", "CPU threads the on-device model computes with (default: every core)"),
    Variable(
        "REACT_LLAMA_BATCH",
        "1: the on-device model draws CoT-SC's samples in one batch (faster; not bit-exact with one drawn alone)",
    ),
    # OpenTelemetry's own names (its specification's), read here to decide whether finished runs are sent at all;
    # the SDK's exporter reads them, and its other OTEL_EXPORTER_OTLP_* variables, itself.
    Variable("OTEL_EXPORTER_OTLP_ENDPOINT", "send each finished run as OpenTelemetry spans to this OTLP/HTTP base URL"),
    Variable("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "the same, as the full traces URL (wins over the base URL)"),
    Variable("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "also send each run's evaluation results as log events to this URL"),
    Variable("OTEL_EXPORTER_OTLP_HEADERS", "headers sent with each export, e.g. Authorization=Basic … for Langfuse"),
    Variable("REACT_OTEL_CONTENT", "1: exported spans include the messages (question, prompts, replies, tool results)"),
    # Read by the SDK itself, for every span this app makes (live and in files): the service the spans come from.
    Variable("OTEL_SERVICE_NAME", "the service name on exported spans (default react-lab)"),
    Variable("OTEL_RESOURCE_ATTRIBUTES", "more attributes of that service, e.g. deployment.environment.name=prod"),
)
BY_NAME = {v.name: v for v in VARIABLES}
# Setting field -> variable, for the settings that an environment variable can give a default to.
SETTING_VARIABLES = {v.setting: v.name for v in VARIABLES if v.setting}


def environment_value(name: str, env: Mapping[str, str] | None = None) -> str:
    """The variable's value, stripped ('' when unset). Only declared variables may be read."""
    if name not in BY_NAME:
        raise KeyError(f"{name} is not declared in react_core.base.environment.VARIABLES")
    return (os.environ if env is None else env).get(name, "").strip()


def is_set(name: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether the variable is present at all (an empty value can mean "none", as for REACT_SECRETS_PATH)."""
    if name not in BY_NAME:
        raise KeyError(f"{name} is not declared in react_core.base.environment.VARIABLES")
    return name in (os.environ if env is None else env)


def setting_defaults(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The settings the environment gives a value to: {field: value} for every set setting variable."""
    return {
        field: environment_value(name, env) for field, name in SETTING_VARIABLES.items() if environment_value(name, env)
    }
