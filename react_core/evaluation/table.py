"""``python -m react_core eval-table``: the paper's whole Table 1 on this machine, written into docs/evaluation.md.

It runs the seven strategies (or those chosen) over the same questions into one folder (``EvalPlan.run``; the
hybrids reuse the folder's CoT-SC and ReAct results), with an offline pack built into that folder from the same
HotpotQA files when no knowledge source is given, and replaces what lies between the task's two markers of the
document (HotpotQA's, or FEVER's ``eval-table:fever``) with a description of the run and the table (``report``).
Everything outside the markers is left as it is. UI-free.
"""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from pathlib import Path

from react_core.base.errors import ConfigError
from react_core.base.paths import PROJECT_ROOT
from react_core.base.tool_specs import ToolSpec
from react_core.evaluation.report import markdown_table
from react_core.evaluation.results import Evaluation
from react_core.evaluation.run import EvalPlan
from react_core.evaluation.strategies import AGENTS, COMPONENTS
from react_core.evaluation.tasks import FEVER, HOTPOTQA, Task
from react_core.knowledge.spec import is_pack, pack_path

BEGIN = "<!-- eval-table:begin (written by python -m react_core eval-table; edits between the markers are lost) -->"
END = "<!-- eval-table:end -->"
FEVER_BEGIN = (
    "<!-- eval-table:fever:begin (written by python -m react_core eval-table --task fever; edits between the markers "
    "are lost) -->"
)
FEVER_END = "<!-- eval-table:fever:end -->"
DOC = PROJECT_ROOT / "docs" / "evaluation.md"
PACK_NAME = "pack.sqlite"


def ensure_pack(out_dir: str | Path, datasets: list[str]) -> Path:
    """The folder's offline pack, built from the evaluation's own HotpotQA files the first time."""
    from react_core.knowledge import open_pack
    from react_core.knowledge.pack_build import build_pack

    path = Path(out_dir) / PACK_NAME
    if path.is_file():
        try:
            open_pack(path)
            return path
        except ConfigError:
            pass  # half a pack from an older crash: build it again
    path.parent.mkdir(parents=True, exist_ok=True)
    build_pack(datasets, path)
    return path


def describe(plan: EvalPlan, evaluation: Evaluation, command: str, minutes: float, resumed: bool) -> str:
    """How the table was made, in one paragraph, from the plan and the results files' headers."""
    config = next((r.config for r in evaluation.results if r.config), {})
    task = plan.the_task()
    knowledge = plan.settings.knowledge
    path = pack_path(knowledge) if is_pack(knowledge) else None
    if path is not None:
        knowledge = f"the offline pack `{path.name}` built from the same files"
    tools = ", ".join(ToolSpec.label_of(t) for t in plan.tools) or "no tools"
    source = ", ".join(f"`{Path(d).name}`" for d in plan.datasets)
    if plan.indices:
        source = f"the rows of {source} listed in `{Path(plan.indices).name}`"
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    decoded = next((r.config["grammar"] for r in evaluation.results if "grammar" in (r.config or {})), None)
    grammar = {True: ", each step decoded under the dialect's grammar", False: ", no grammar"}.get(decoded, "")
    when = f"{minutes:.0f} minutes" if minutes >= 1 else "under a minute"
    timing = (
        f"This run took {when} of wall time"
        + (" (resumed: questions already in the folder were not run again)" if resumed else "")
        + f" on {os.cpu_count()} CPU cores ({platform.machine()})."
    )
    agents = (
        f"Knowledge: {knowledge}. ReAct and Act: at most {plan.max_calls} model calls, tools {tools}, "
        f"{plan.sentences} sentences a Search{grammar}. "
        if set(plan.strategies) & set(AGENTS)
        else "No tool and no knowledge source: Act, ReAct and the combinations were not run. "
    )
    reuse = (
        "CoT-SC → ReAct and ReAct → CoT-SC reuse the CoT-SC and ReAct results of the same folder for the same question "
        "instead of running them again. "
        if set(plan.strategies) & set(COMPONENTS)
        else ""
    )
    return (
        f"_Generated on {day} by `{command}`._ Model: {config.get('model', '?')} (`{plan.settings.provider}`). "
        f"{task.items.capitalize()}: the first {evaluation.planned} of {source}, from {task.source}. "
        f"{agents}CoT-SC: {plan.samples} samples at temperature {plan.sc_temperature}; "
        f"greedy decoding (temperature {plan.temperature}) otherwise. {reuse}"
        f"{timing} The columns `finished` … `loop` count the episodes by how they ended."
    )


def markers(task: Task) -> tuple[str, str]:
    """The lines a task's table section lies between."""
    return (FEVER_BEGIN, FEVER_END) if task is FEVER else (BEGIN, END)


def section(plan: EvalPlan, evaluation: Evaluation, command: str, minutes: float, resumed: bool) -> str:
    task = plan.the_task()
    table = markdown_table(evaluation.results, every_strategy=True, task=task)
    begin, end = markers(task)
    return f"{begin}\n{describe(plan, evaluation, command, minutes, resumed)}\n\n{table}\n{end}"


def rewrite(doc: str | Path, new_section: str, task: Task = HOTPOTQA) -> None:
    """Replace the task's marked table section of ``doc``."""
    rewrite_section(doc, new_section, *markers(task))


def rewrite_section(doc: str | Path, new_section: str, begin_marker: str, end_marker: str) -> None:
    """Replace what lies between two markers of ``doc`` (written beside and renamed, so never half written)."""
    doc = Path(doc)
    try:
        text = doc.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"Cannot read {doc}: {e.strerror or e}.") from None
    begin = text.find(begin_marker.split(" (")[0])
    end = text.find(end_marker, begin + 1) if begin >= 0 else -1
    if begin < 0 or end < 0:
        raise ConfigError(f"{doc} has no table section: put {begin_marker!r} and {end_marker!r} lines where it goes.")
    updated = text[:begin] + new_section + text[end + len(end_marker) :]
    partial = doc.with_name(f".{doc.name}.partial")
    partial.write_text(updated, encoding="utf-8")
    os.replace(partial, doc)
