"""ReAct Lab's engine, through its front door: the names the app, the command line and a person's own script use.

    import react_core
    trace = react_core.ask("Who directed Sinister?", react_core.RunSettings(provider="gemini"))
    for event in react_core.stream("What is 17 * 23?"): ...

The package is folders of layers, bottom to top (``tests/test_layers.py`` holds them to it): ``base`` (a run as
data, its events, errors, paths, text safety), ``dialects`` (how a model writes an action), the parts (``providers``,
``tools``, ``knowledge``, ``presets``, ``history``, ``report``, ``telemetry``), ``loop`` (the run service, the agent,
one model call, settings), ``evaluation``, ``training`` and ``cli``. The app (``ui/``, ``pages/``) imports only this
module; each name here is imported plainly from the module that defines it (each declares ``__all__``), and
``tests/test_front_door.py`` checks that every one is used by the app, the command line or the docs' examples.

UI-free: nothing in this package imports Streamlit (a test checks it). Importing it loads the engine's own modules;
SDKs (google-genai, openai, the OpenTelemetry exporter), llama.cpp, jsonschema and the training stack load only when
a run, an import or a fine-tune needs them (``tests/test_engine_imports.py``).
"""

from __future__ import annotations

from react_core.base.call_records import CallTexts
from react_core.base.errors import ReactLabError
from react_core.base.events import (
    ActionParsed,
    LiveRun,
    Paused,
    RunDone,
    StepDone,
    StepStarted,
    TextDelta,
    ToolProgress,
    Writing,
)
from react_core.base.text import md_escape, plural
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import Action, Alternative, Exchange, Source, Step, Trace
from react_core.dialects import DIALECTS
from react_core.evaluation.arena import Arena, ColumnResult, Variant
from react_core.evaluation.arena_html import SideBySide
from react_core.evaluation.assignments import Board
from react_core.evaluation.bootstrap import BootstrapPlan
from react_core.evaluation.figure3 import figure3_table, measure_adapter
from react_core.evaluation.parting import Parting
from react_core.evaluation.question_sets import QuestionSets
from react_core.evaluation.results import Evaluation, StrategyResults
from react_core.evaluation.run import EvalPlan
from react_core.evaluation.tasks import Task
from react_core.history import RunRecord, Store, open_history
from react_core.history.assignments import Assignment
from react_core.history.shares import SharedView
from react_core.knowledge.setting import Knowledge
from react_core.loop.keeping import Keeping
from react_core.loop.pause import Decision
from react_core.loop.recorded import Recorded
from react_core.loop.run import ask, stream
from react_core.loop.service import Run, RunRequest
from react_core.loop.settings import RunSettings
from react_core.presets.diff import VersionDiff
from react_core.presets.edit import PromptEdit
from react_core.presets.preset import Preset
from react_core.presets.store import PresetStore
from react_core.presets.versions import VersionRef
from react_core.providers import PROVIDERS
from react_core.providers.adapters import Adapter
from react_core.providers.allowance import Allowance
from react_core.providers.base import Provider
from react_core.providers.choice import ModelChoice
from react_core.providers.file_choices import offered_files
from react_core.providers.public_demo import PublicDemo
from react_core.providers.quota import CallWindows
from react_core.providers.samples import SampleScript
from react_core.providers.script import Script
from react_core.report.checks import Checks
from react_core.report.downloads import RunExport
from react_core.report.exports import Saying
from react_core.report.signs import Verdict
from react_core.report.spreadsheet import csv_text
from react_core.telemetry.live import LiveTarget
from react_core.tools.mcp_servers import McpServers
from react_core.training.finetune import FinetunePlan
from react_core.training.recipe import Recipe

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ActionParsed",
    "Adapter",
    "Allowance",
    "Alternative",
    "Arena",
    "Assignment",
    "Board",
    "BootstrapPlan",
    "CallTexts",
    "CallWindows",
    "Checks",
    "ColumnResult",
    "DIALECTS",
    "Decision",
    "EvalPlan",
    "Evaluation",
    "Exchange",
    "FinetunePlan",
    "Keeping",
    "Knowledge",
    "LiveRun",
    "LiveTarget",
    "McpServers",
    "ModelChoice",
    "PROVIDERS",
    "Parting",
    "Paused",
    "Preset",
    "PresetStore",
    "PromptEdit",
    "Provider",
    "PublicDemo",
    "QuestionSets",
    "ReactLabError",
    "Recipe",
    "Recorded",
    "Run",
    "RunDone",
    "RunExport",
    "RunRecord",
    "RunRequest",
    "RunSettings",
    "SampleScript",
    "Saying",
    "Script",
    "SharedView",
    "SideBySide",
    "Source",
    "Step",
    "StepDone",
    "StepStarted",
    "Store",
    "StrategyResults",
    "Task",
    "TextDelta",
    "ToolProgress",
    "ToolSpec",
    "Trace",
    "Variant",
    "Verdict",
    "VersionDiff",
    "VersionRef",
    "Writing",
    "ask",
    "csv_text",
    "figure3_table",
    "md_escape",
    "measure_adapter",
    "offered_files",
    "open_history",
    "plural",
    "stream",
]
