"""ReAct Lab's engine, through its front door: everything the app, the command line and a person's own script use.

    import react_core
    trace = react_core.ask("Who directed Sinister?", react_core.RunSettings(provider="gemini"))
    for event in react_core.stream("What is 17 * 23?"): ...

The package is folders of layers, bottom to top (``tests/test_layers.py`` holds them to it): ``base`` (a run as
data, its events, errors, paths, text safety), ``dialects`` (how a model writes an action), the parts (``providers``,
``tools``, ``knowledge``, ``presets``, ``history``, ``report``), ``loop`` (the agent, one model call, settings),
``evaluation`` and ``cli``. The app (``ui/``, ``pages/``) imports only this module.

UI-free: nothing in this package imports Streamlit (a test checks it). Importing it is cheap: each name below loads
its module the first time it is used, so SDKs and llama.cpp load only when a run needs them.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

# name -> the module that defines it (a name ending in ":" is the module itself).
_EXPORTS: dict[str, str] = {
    # a run as data, and as it happens
    **dict.fromkeys(
        (
            "Action",
            "Exchange",
            "Observation",
            "Source",
            "Step",
            "Trace",
            "Usage",
            "STOP_REASONS",
            "BREAKPOINTS",
            "Alternative",
            "Intervention",
        ),
        "base.trace",
    ),
    **dict.fromkeys(
        (
            "Event",
            "StepStarted",
            "TextDelta",
            "ActionParsed",
            "ToolProgress",
            "StepDone",
            "RunDone",
            "Paused",
            "LiveRun",
            "Writing",
            "final_trace",
        ),
        "base.events",
    ),
    **dict.fromkeys(("ReactLabError", "ConfigError", "ProviderError", "MissingKeyError", "Conflict"), "base.errors"),
    "call_records": "base.call_records:",
    "CallTexts": "base.call_records",
    "cancel": "base.cancel:",
    **dict.fromkeys(("setting_defaults", "environment_value"), "base.environment"),
    **dict.fromkeys(("shared_data_dir", "evaluations_dir"), "base.paths"),
    **dict.fromkeys(("TOOL_ORDER", "tool_label", "ordered_tools"), "base.tool_specs"),
    **dict.fromkeys(("md_escape", "safe_url"), "base.text"),
    # run a question
    **dict.fromkeys(("ask", "stream", "warm_up"), "loop.run"),
    **dict.fromkeys(("Run", "RunRequest", "resume_saved"), "loop.service"),
    "Keeping": "loop.keeping",
    **dict.fromkeys(("recorded_settings", "settings_of"), "loop.recorded"),
    **dict.fromkeys(("Agent", "RunConfig"), "loop.agent"),
    **dict.fromkeys(
        (
            "Decision",
            "parse_decision",
            "resume",
            "cannot_go_on",
            "pending_step",
            "tool_call_text",
            "DEFAULT_ALTERNATIVES",
            "MAX_ALTERNATIVES",
            "DEFAULT_TEMPERATURE",
        ),
        "loop.pause",
    ),
    **dict.fromkeys(
        ("RunSettings", "build_run_config", "default_provider", "default_preset", "MAX_CALLS_LIMIT"),
        "loop.settings",
    ),
    # the registries
    **dict.fromkeys(("DIALECTS", "get_dialect"), "dialects"),
    **dict.fromkeys(
        ("PROVIDERS", "CATALOGUE", "provider_class", "speaks", "unspoken", "model_label", "model_choice_label"),
        "providers",
    ),
    **dict.fromkeys(("ModelChoice", "offered_models", "environment_settings"), "providers.choice"),
    **dict.fromkeys(("Provider", "estimate_tokens"), "providers.base"),
    **dict.fromkeys(("Allowance", "OPERATOR", "CallWindow"), "providers.allowance"),
    **dict.fromkeys(("script_choices", "model_file_choices", "adapter_choices"), "providers.file_choices"),
    **dict.fromkeys(("shipped_adapter", "adapter_label", "found_adapters"), "providers.adapters"),
    # fine-tuning
    **dict.fromkeys(("FinetunePlan", "finetune", "write_only", "check_environment"), "training.finetune"),
    **dict.fromkeys(("Recipe", "METHODS", "RECIPES", "RECIPE_NOTES"), "training.recipe"),
    **dict.fromkeys(("finetune_dir", "training_python"), "base.paths"),
    **dict.fromkeys(("script_outputs", "MAX_SCRIPT_BYTES", "SCRIPT_FORMAT"), "providers.scripted"),
    **dict.fromkeys(
        ("SampleScript", "sample_scripts", "sample_for", "script_label", "run_as_script", "script_json"),
        "providers.samples",
    ),
    # prompts
    **dict.fromkeys(
        (
            "Preset",
            "DEFAULT_PRESET",
            "MAX_DYNAMIC",
            "list_presets",
            "load_preset",
            "preset_paths",
            "preset_from_toml",
            "default_preset_for",
        ),
        "presets.preset",
    ),
    **dict.fromkeys(("render_prefix", "render_question", "render_first_prompt"), "presets.render"),
    **dict.fromkeys(("Problem", "validate_preset"), "presets.check"),
    **dict.fromkeys(("check_new_preset", "PresetStore"), "presets.store"),
    **dict.fromkeys(
        ("VersionRef", "parse_ref", "address", "version_choice", "export_version", "import_version"), "presets.versions"
    ),
    **dict.fromkeys(
        ("VersionDiff", "ExampleChange", "FieldDiff", "diff_versions", "ADDED", "REMOVED", "CHANGED", "SAME"),
        "presets.diff",
    ),
    **dict.fromkeys(("example_from_run", "example_warnings"), "presets.from_run"),
    # knowledge and tools
    **dict.fromkeys(("standing_pack", "knowledge_reach"), "knowledge"),
    "pack_choices": "knowledge.choices",
    **dict.fromkeys(
        ("knowledge_label", "text_credit", "pack_spec", "pack_text", "pack_path", "is_pack"), "knowledge.spec"
    ),
    "similar_titles": "tools.wiki",
    "mcp_statuses": "tools.mcp",
    **dict.fromkeys(
        (
            "may_add_mcp_server",
            "check_mcp_server",
            "refused_tools",
            "parse_headers",
            "own_server",
            "entry_url",
            "entry_oauth",
            "masked_headers",
            "may_use_oauth",
        ),
        "tools.mcp_config",
    ),
    **dict.fromkeys(("start_mcp_sign_in", "finish_mcp_sign_in", "mcp_sign_out"), "tools.mcp_sign_in"),
    "asking": "loop.acting",
    # history
    **dict.fromkeys(("open_history", "Store", "RunRecord"), "history"),
    "Imported": "history.store",
    **dict.fromkeys(("Share", "shared_view", "CALLS_LEFT_OUT"), "history.shares"),
    **dict.fromkeys(("MAX_OWNER_CHARS", "IMPORTED"), "history.records"),
    "conversation_turns": "history.conversations",
    # reading a run: grounding, the expected answer, exports, how a run is said
    "check_grounding": "report.grounding",
    **dict.fromkeys(("run_sign", "SIGNS"), "report.signs"),
    **dict.fromkeys(("Edit", "hand_edits", "EDITED_NOTE"), "report.edits"),
    "to_html": "report.html",
    "csv_text": "report.spreadsheet",
    **dict.fromkeys(("check_expected", "expected_answer_for"), "report.expected"),
    **dict.fromkeys(
        (
            "CREDIT",
            "to_json",
            "to_markdown",
            "file_stem",
            "summary_line",
            "action_text",
            "action_title",
            "plural",
        ),
        "report.exports",
    ),
    # runs as OpenTelemetry traces
    "to_otlp_json": "telemetry.otlp_json",
    "to_atif_json": "telemetry.atif",  # the Agent Trajectory Interchange Format
    **dict.fromkeys(
        ("LiveTarget", "export_run_live", "live_export_problem", "live_export_endpoint", "live_export_content"),
        "telemetry.live",
    ),
    # the arena: one question, 2-4 variants side by side
    **dict.fromkeys(
        (
            "Arena",
            "Variant",
            "ColumnEvent",
            "ColumnResult",
            "ARENA_STRATEGIES",
            "MIN_COLUMNS",
            "MAX_COLUMNS",
            "figure_one",
            "line_up",
            "first_difference",
            "column_label",
            "run_budget",
            "saved_columns",
            "DIFFERENCE_MARK",
            "SAME_ACTIONS",
        ),
        "evaluation.arena",
    ),
    **dict.fromkeys(("arena_to_html", "arena_file_name"), "evaluation.arena_html"),
    **dict.fromkeys(("Parting", "first_parting"), "evaluation.parting"),
    "ArenaSummary": "history.arenas",
    # evaluation
    **dict.fromkeys(("EvalPlan", "run_evaluation", "VERSIONED"), "evaluation.run"),
    **dict.fromkeys(("HOSTED_CONCURRENCY", "HOSTED_RPM"), "evaluation.plan"),
    "eval_results": "evaluation.results:",
    **dict.fromkeys(("PAPER_HOTPOTQA_EM", "PAPER_MODEL", "STRATEGY_LABELS"), "evaluation.paper"),
    **dict.fromkeys(("PAPER_N", "result_label"), "evaluation.report"),
    **dict.fromkeys(("TASKS", "HOTPOTQA", "PAPER_500", "Task", "dataset_task"), "evaluation.tasks"),
    "ENDINGS": "evaluation.summary",
    # a person's own questions, repetitions, baselines and trajectory checks; bootstrapping
    **dict.fromkeys(
        (
            "QuestionSetError",
            "parse_question_set",
            "save_question_set_upload",
            "add_run_to_question_set",
            "write_set_file",
        ),
        "evaluation.question_sets",
    ),
    **dict.fromkeys(
        ("MAX_REPETITIONS", "RESAMPLES", "score_results", "compare_results", "common_questions", "base_id"),
        "evaluation.repeats",
    ),
    **dict.fromkeys(("Checks", "run_checks", "reference_checks"), "report.checks"),
    # a class: assignments handed out by link, submissions and the board
    **dict.fromkeys(("Assignment", "Submission"), "history.assignments"),
    **dict.fromkeys(
        ("write_assignment_file", "assignment_of", "references_from", "submission_of", "best_per_student", "submitter"),
        "evaluation.assignments",
    ),
    **dict.fromkeys(("BootstrapPlan", "bootstrap"), "evaluation.bootstrap"),
    "figure3_table": "evaluation.figure3",
    **dict.fromkeys(
        (
            "STRATEGIES",
            "AGENTS",
            "SAMPLING",
            "ROLES",
            "ROLE_MODES",
            "DEFAULT_PRESETS",
            "PAPER_REACT_STEPS",
            "PAPER_SC_SAMPLES",
            "PAPER_TEMPERATURE",
            "PAPER_TOOLS",
            "SC_TEMPERATURE",
            "role_presets",
        ),
        "evaluation.strategies",
    ),
}
# Names the front door gives a clearer name than their module does.
_ALIASES = {
    "environment_value": "value",
    "offered_models": "offered",
    "knowledge_reach": "reach",
    "result_label": "label",
    "tool_label": "label",
    "conversation_turns": "turns",
    "export_run_live": "export_finished_run",
    "live_export_problem": "problem",
    "live_export_endpoint": "endpoint",
    "live_export_content": "include_content",
    "version_choice": "choice",
    "save_question_set_upload": "save_upload",
    "add_run_to_question_set": "add_run",
    "score_results": "score",
    "compare_results": "compare",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module 'react_core' has no attribute {name!r}")
    module = import_module(f"react_core.{where.rstrip(':')}")
    value = module if where.endswith(":") else getattr(module, _ALIASES.get(name, name))
    globals()[name] = value  # the next use is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
