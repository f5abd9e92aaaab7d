"""The Evaluate page's verbs and what it draws, as values: start an evaluation, open one, the progress label, the
message after Stop (the results as tables: ``ui.evaluate.tables``).

Everything shown about an evaluation is read from its results folder (``react_core.evaluation.results``), the
running one included, so a reload or another day shows the same thing. Evaluations belong to their owner like runs:
each owner's folders sit in their own root (``Evaluation.root``), and only those are listed or opened. The
plan comes from the page's own widgets (the paper's setup unless changed there) and the model, key and knowledge
source from Settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from react_core import (
    EvalPlan,
    Evaluation,
    PresetStore,
    ReactLabError,
    RunSettings,
    Task,
    VersionRef,
)
from ui.evaluate import models as eval_models
from ui.evaluate import question_sets
from ui.evaluate import tasks as eval_tasks
from ui.evaluate.job import EvalJob
from ui.shared import export_settings, identity, state, text

AT_ONCE_HELP = "Hosted models answer this many questions at the same time; the on-device model answers one at a time."
RPM_HELP = (
    "At most this many model calls a minute, shared by every evaluation with the same key. When the service says "
    '"too many requests" and how long to wait, the whole evaluation waits and slows down; no question is lost.'
)


def paper_setup() -> dict[str, Any]:
    """The paper's setup for the chosen dataset's task: its budget, tools, samples and the task's prompts."""
    task = eval_tasks.chosen()
    paper = EvalPlan.defaults(task)
    return {
        "eval-max-calls": paper.max_calls,
        "eval-tools": list(paper.tools),
        "eval-samples": paper.samples,
        **eval_tasks.paper_defaults(task),
    }


def roles(strategies: list[str]) -> list[str]:
    return list(EvalPlan.needs(strategies).roles)


def compares_versions(strategies: list[str]) -> bool:
    """Whether these strategies can run several prompt versions (Act and ReAct only)."""
    return EvalPlan.needs(strategies).versions


def uses_agent(strategies: list[str]) -> bool:
    return EvalPlan.needs(strategies).agent


def samples(strategies: list[str]) -> bool:
    return EvalPlan.needs(strategies).sampling


def preset_choices(role: str) -> list[str]:
    """Presets that can play a role (this person's own included; a name means its newest version): of its mode, and
    for Act and ReAct, with or without thoughts accordingly. Then, for lines with saved versions, each version and
    label by its address (``paper@2``, ``paper@best``)."""
    owner = identity.owner()
    names = _preset_choices(role, owner)
    addresses = _addresses(role, owner)
    lines = [VersionRef.parse(a).name for a in addresses]
    return names + [a for a, line in zip(addresses, lines, strict=True) if lines.count(line) > 1]


def version_choices(strategies: list[str]) -> list[str]:
    """Every version (``name@3``) and label (``name@best``) of the prompts the chosen Act / ReAct strategies can run:
    what "Compare prompt versions" offers."""
    owner = identity.owner()
    found = [a for role in EvalPlan.needs(strategies).versioned_roles for a in _addresses(role, owner)]
    return list(dict.fromkeys(found))


@st.cache_data(ttl=30, show_spinner=False)
def _addresses(role: str, owner: str) -> list[str]:
    store = PresetStore(owner)
    out = []
    for name in _preset_choices(role, owner):
        out += store.addresses(name, labels=True)
    return out


@st.cache_data(ttl=30, show_spinner=False)
def _preset_choices(role: str, owner: str) -> list[str]:
    store = PresetStore(owner)
    names = store.names(EvalPlan.ROLE_MODES[role])
    if EvalPlan.ROLE_MODES[role] != "react":
        return names
    dialects = {}
    for name in names:
        try:
            dialects[name] = store.load(name).dialect
        except Exception:  # a broken user preset is simply not offered
            continue
    return [n for n, d in dialects.items() if (d == "act") == (role == "act")]


def root() -> Path:
    """This person's evaluations folder."""
    return Evaluation.root(identity.owner())


def owns(folder: str | Path | None) -> bool:
    """Whether ``folder`` is one of this person's evaluations (a crafted name of another's is not)."""
    return bool(folder) and Path(folder).resolve().parent == root().resolve()


def opened() -> str | None:
    """The evaluation the page shows, if it is this person's."""
    folder = st.session_state.eval_open
    return folder if owns(folder) else None


def reset_to_paper() -> None:
    st.session_state.update(paper_setup())


def start() -> None:
    """Run button: an evaluation of the page's choices in a new folder, which opens at once."""
    ss = st.session_state
    if state.running() or any(j is not None and not j.done for j in (ss.eval_job, ss.get("boot_job"))):
        state.flash("warning", "Something is already running; wait for it or stop it first.")
        return
    chosen = list(ss.get("eval-strategies") or [])
    if not chosen:
        state.flash("warning", "Choose at least one strategy.")
        return
    if not ss.get(eval_models.MODELS_KEY):
        state.flash("warning", "Choose at least one model.")
        return
    repetitions = int(ss.get("eval-repetitions") or 1)
    choice = ss.get("eval-dataset") or ""
    task = eval_tasks.task_of(choice)
    paper = EvalPlan.defaults(task)
    folder = Evaluation.new_folder(root())
    try:
        shared = eval_tasks.datasets()
        dataset = question_sets.dataset_file(choice, folder) if question_sets.is_set(choice) else shared[choice]
    except (ReactLabError, KeyError) as e:
        state.flash("error", f"Cannot read the questions: {e}")
        folder.rmdir()
        return
    plan = EvalPlan(
        datasets=[str(dataset)],
        strategies=chosen,
        out_dir=str(folder),
        settings=RunSettings.from_dict(state.settings()),
        indices=str(Task.paper_rows(dataset)) if ss.get("eval-500") and not question_sets.is_set(choice) else None,
        repetitions=repetitions,
        temperature=float(ss.get("eval-temperature") or 0.0) if repetitions > 1 else paper.temperature,
        limit=int(ss["eval-limit"]),
        max_calls=int(ss.get("eval-max-calls", paper.max_calls)),
        tools=list(ss.get("eval-tools", paper.tools)),
        samples=int(ss.get("eval-samples", paper.samples)),
        presets={r: ss.get(f"eval-preset-{r}", preset) for r, preset in task.presets.items()},
        task=task.name,
        owner=identity.owner(),
        versions=list(ss.get("eval-versions") or []) if compares_versions(chosen) else [],
        models=eval_models.chosen(),
        concurrency=int(ss.get("eval-at-once") or paper.concurrency),
        rpm=float(ss.get("eval-rpm") or paper.rpm),
    )
    ss.eval_job = EvalJob(plan, identity.allowance(), api_key=ss.api_key, export=export_settings.chosen()).start()
    ss.eval_open = plan.out_dir


def open_past() -> None:
    ss = st.session_state
    if owns(ss.get("eval-past")):
        ss.eval_open = ss["eval-past"]
    ss["eval-past"] = None


# -- reading folders (cached until a file changes) --------------------------------------------------------


def _files(folder: Path) -> tuple:
    return tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(folder.glob("*.jsonl")))


@st.cache_data(max_entries=64, show_spinner=False)
def _load(folder: str, signature: tuple) -> Evaluation:  # the signature is part of the cache key
    return Evaluation.load(folder)


def load(folder: str | Path) -> Evaluation:
    return _load(str(folder), _files(Path(folder)))


def past() -> list[Evaluation]:
    return Evaluation.load_all(root(), load=load)


# -- what the page draws -------------------------------------------------------------------------------


def unit_label(key: str, snap: dict[str, Any]) -> str:
    """What a running evaluation runs, in words: the strategy, the prompt version when it compares versions and the
    model when it compares models (the job's ``versions`` and ``models`` say which, by unit key such as
    ``react@paper@2``)."""
    strategy = EvalPlan.unit_strategy(key)
    version = (snap.get("versions") or {}).get(key, "")
    model = (snap.get("models") or {}).get(key, "")
    name = EvalPlan.label(strategy)
    return name + (f" {version}" if version else "") + (f" on {model}" if model else "")


def progress_label(snap: dict[str, Any]) -> str:
    """Where a running evaluation is, in words that are true in every state."""
    name = unit_label(snap["strategy"], snap)
    so_far = f"{name}: {snap['done']} of {snap['total']} questions done" if snap["strategy"] else ""
    if snap["cancelling"]:
        return "Stopping after the question under way…" + (f" ({so_far})" if so_far else "")
    if not snap["strategy"]:
        return snap["message"] or "Preparing: reading the questions and getting the model ready…"
    if len(snap["strategies"]) > 1:
        so_far = so_far.replace(":", f" (strategy {snap['position']} of {len(snap['strategies'])}):", 1)
    return so_far + time_left(snap.get("per_question"), int(snap.get("left") or 0))


def time_left(per_question: float | None, left: int) -> str:
    """At the pace of the questions answered so far ('' before the first is answered)."""
    return text.time_left(per_question * left if per_question is not None and left > 0 else None)


def ending(snap: dict[str, Any]) -> tuple[str, str] | None:
    """For a finished job that did not complete: stopped after k of n (and what was not run), or the failure."""
    if not snap["stopped"] and not snap["error"]:
        return None
    cut = [f"{unit_label(s, snap)} after {d} of {t} questions" for s, (d, t) in snap["counts"].items() if d < t]
    not_run = [unit_label(s, snap) for s in snap["strategies"] if s not in snap["counts"]]
    detail = "; ".join(cut + ([f"not run: {', '.join(not_run)}"] if not_run else []))
    if snap["error"]:
        return "error", snap["error"] + (f" — {detail}." if detail else "")
    if not snap["counts"]:
        return "warning", "Stopped before the first question; nothing was run."
    return "warning", f"Stopped: {detail or 'nothing was left to run'}. What finished is saved and shown below."
