"""``python -m react_core eval | eval-report | eval-table``: the paper's HotpotQA and FEVER evaluations from the command
line (the task is the dataset's, or ``--task``).

``eval`` prints ``EM 27.4  F1 36.2  n=500`` (FEVER: ``accuracy 60.9  n=500``; one such line per strategy, labelled,
when there are several) and writes one results file per strategy; ``eval-report`` prints results files or folders as
a Markdown table beside the paper's Table 1; ``eval-table`` runs all seven strategies (or those given) and rewrites the
task's table of docs/evaluation.md. All three go through
``EvalPlan.run`` with its defaults (the paper's setup), as the Evaluate page does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from react_core.cli.options import add_run_options
from react_core.evaluation import repeats
from react_core.evaluation.paper import STRATEGY_LABELS
from react_core.evaluation.plan import HOSTED_CONCURRENCY, HOSTED_RPM
from react_core.evaluation.strategies import PAPER_SC_SAMPLES, PAPER_TOOLS, STRATEGIES
from react_core.evaluation.tasks import TASKS
from react_core.knowledge.spec import pack_spec


def register(sub: Any) -> None:
    p = sub.add_parser("eval", help="evaluate strategies on HotpotQA or FEVER (EM/F1, accuracy, as in the ReAct paper)")
    p.add_argument(
        "--dataset",
        required=True,
        nargs="+",
        help="HotpotQA JSON file(s) (distractor or simplified), FEVER's paper_dev.jsonl, or your own question set",
    )
    p.add_argument("--strategy", required=True, nargs="+", choices=STRATEGIES, help="one or more strategies")
    p.add_argument(
        "--out", required=True, help="results folder (one STRATEGY.jsonl each), or a .jsonl file for one strategy"
    )
    p.add_argument("--repetitions", type=int, default=1, help="runs per question (above 1: give a --temperature > 0)")
    p.add_argument(
        "--versions",
        nargs="+",
        default=[],
        help="prompt versions (name@3, name@label) to compare: Act/ReAct run once each",
    )
    p.add_argument(
        "--models",
        nargs="+",
        action="extend",
        default=[],
        metavar="PROVIDER[:MODEL][+ADAPTER]",
        help="models to compare (local, openai:gpt-4o-mini, scripted:replies.json; the on-device model without its "
        "adapter local+none, with another local+FILE): everything runs once on each",
    )
    p.add_argument(
        "--baseline", help="a results file of the same questions: list those that newly pass and fail (per cell)"
    )
    p.add_argument("--check-tool", help="trajectory check: the run calls this tool (e.g. search)")
    p.add_argument("--check-no-tool", help="trajectory check: the run never calls this tool")
    p.add_argument("--check-steps", type=int, default=0, help="trajectory check: at most this many steps")
    _add_plan_options(p, add_run_options)
    p.set_defaults(func=_cmd_eval)

    r = sub.add_parser("eval-report", help="a Markdown table of results files beside the paper's Table 1")
    r.add_argument("results", nargs="+", help="results files or folders written by eval / eval-table / the app")
    r.set_defaults(func=_cmd_report)

    t = sub.add_parser("eval-table", help="run all seven strategies and rewrite the table in docs/evaluation.md")
    t.add_argument("--out", required=True, help="results folder (resumable; the offline pack is built here)")
    t.add_argument(
        "--dataset",
        nargs="+",
        help="HotpotQA files (default: the shared dev_distractor_*.json; with --task fever, FEVER's paper_dev.jsonl "
        "in the order of the paper's 500)",
    )
    t.add_argument(
        "--strategy",
        nargs="+",
        choices=STRATEGIES,
        default=list(STRATEGIES),
        help="the rows to run (default all seven; the others show as not run)",
    )
    t.add_argument(
        "--doc", help="the Markdown file whose marked table section is rewritten (default: docs/evaluation.md)"
    )
    t.add_argument("--no-doc", action="store_true", help="print the section instead of rewriting a file")
    _add_plan_options(t, add_run_options)
    t.set_defaults(func=_cmd_table)


def _add_plan_options(p: argparse.ArgumentParser, add_run_options: Any) -> None:
    p.add_argument("--task", choices=list(TASKS), help="hotpotqa or fever (default: the one the dataset holds)")
    p.add_argument("--limit", type=int, help="at most this many questions")
    p.add_argument("--indices", help="JSON list of dataset rows to use (e.g. the paper's 500)")
    p.add_argument(
        "--concurrency", type=int, default=HOSTED_CONCURRENCY, help="questions at once (hosted providers only)"
    )
    p.add_argument("--rpm", type=float, default=HOSTED_RPM, help="model calls per minute for hosted providers")
    p.add_argument("--samples", type=int, default=PAPER_SC_SAMPLES, help="CoT-SC samples (the paper: 21)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_run_options(p)


def _cmd_report(args: argparse.Namespace) -> int:
    from react_core.cli.options import UsageError
    from react_core.evaluation.report import load_groups, markdown_table

    missing = [f for f in args.results if not Path(f).exists()]
    if missing:
        raise UsageError(f"no such results file or folder: {missing[0]}")
    print(markdown_table(load_groups([Path(f) for f in args.results])))
    return 0


def _plan(args: argparse.Namespace, strategies: list[str], out_dir: str, names: dict[str, str]) -> Any:
    """The plan for these options: the paper's setup, changed only where an option says so."""
    from react_core.cli.options import UsageError, settings_from_args
    from react_core.evaluation.run import EvalPlan
    from react_core.evaluation.strategies import PAPER_REACT_STEPS
    from react_core.presets.store import PresetStore

    if args.dialect:
        raise UsageError("eval picks a prompt per strategy: give --preset NAME instead of --dialect")
    settings = settings_from_args(args)
    presets = {}  # the task's own prompts, but for a role --preset plays
    if args.preset:  # the preset's mode says which role it plays: standard, cot, or an agent prompt (act / react)
        preset = PresetStore().load(args.preset)
        role = preset.mode if preset.mode != "react" else ("act" if preset.dialect == "act" else "react")
        presets[role] = args.preset
    return EvalPlan(
        datasets=list(args.dataset),
        strategies=strategies,
        out_dir=out_dir,
        settings=settings,
        indices=args.indices,
        limit=args.limit,
        max_calls=args.max_calls or PAPER_REACT_STEPS,
        tools=list(settings.tools) if args.tools is not None else list(PAPER_TOOLS),
        temperature=args.temperature,
        samples=args.samples,
        sentences=args.sentences,
        presets=presets,
        names=names,
        concurrency=args.concurrency,
        rpm=args.rpm,
        repetitions=getattr(args, "repetitions", 1),
        versions=list(getattr(args, "versions", None) or []),
        models=list(getattr(args, "models", None) or []),
        task=args.task or "",
    )


def _run(args: argparse.Namespace, plan: Any) -> Any:
    """Run with a progress bar per unit on stderr (one under another while hosted models run at once); Ctrl-C stops
    and says how to resume."""

    bars: dict[str, Any] = {}
    where: dict[str, str] = {}  # which unit of how many, e.g. " (2/4)"

    def on_progress(event: dict) -> None:
        unit = event.get("unit") or event.get("strategy", "")
        if event["kind"] == "preparing":
            print(event["message"], file=sys.stderr, flush=True)
        if event["kind"] == "strategy":
            where[unit] = f" ({event['position']}/{event['of']})" if event["of"] > 1 else ""
        if args.no_progress:
            return
        if event["kind"] == "start":
            from tqdm import tqdm

            if unit in bars:
                bars.pop(unit).close()
            bars[unit] = tqdm(
                total=event["total"],
                initial=event["done"],
                file=sys.stderr,
                unit="q",
                desc=unit + where.get(unit, ""),
                position=len(bars),
            )
        elif event["kind"] == "result" and unit in bars:
            bars[unit].update(1)
        elif event["kind"] == "done" and unit in bars:
            bars.pop(unit).close()

    try:
        return plan.run(on_progress=on_progress)
    except KeyboardInterrupt:
        print(f"Stopped: the results so far are in {plan.out_dir}; run the same command to resume.", file=sys.stderr)
        raise
    finally:
        for bar in bars.values():
            bar.close()


def _cmd_eval(args: argparse.Namespace) -> int:
    from react_core.cli.options import UsageError

    strategies = list(dict.fromkeys(args.strategy))
    out = Path(args.out)
    if out.suffix == ".jsonl":
        if len(strategies) > 1 or len(args.versions) > 1 or len(args.models) > 1:
            raise UsageError("--out FILE.jsonl takes one strategy, version and model; give a folder for several")
        key = f"{strategies[0]}@{args.versions[0]}" if args.versions else strategies[0]
        plan = _plan(args, strategies, str(out.parent), {key: out.stem})
    else:
        plan = _plan(args, strategies, str(out), {})
    baseline = _baseline(args.baseline)
    result = _run(args, plan)
    checks = _checks(args)
    several = len(result.summaries) > 1
    units = {unit.key: unit.strategy for unit in plan.units()}
    versions, models = plan.unit_versions(), plan.unit_models()
    task = plan.the_task()
    for key, summary in result.summaries.items():
        strategy, version, model = units[key], versions[key], models[key]
        cell = STRATEGY_LABELS[strategy] + (f" {version}" if version else "") + (f" on {model}" if model else "")
        prefix = f"{cell}: " if several else ""
        print(prefix + summary.line(task.metric, task.f1))
        print(f"{prefix}{summary.ended_line()}", file=sys.stderr)
        records = _records(plan, key, strategy)
        scores = repeats.score_results(records, checks)
        print(f"{prefix}{scores.line()}", file=sys.stderr)
        print(f"{prefix}checks: " + ", ".join(f"{n} {v * 100:.0f}%" for n, v in scores.checks.items()), file=sys.stderr)
        if baseline is not None:
            print(prefix + _comparison_lines(repeats.compare_results(baseline, records)))
    return 0


def _baseline(path: str | None) -> list[dict] | None:
    from react_core.cli.options import UsageError
    from react_core.evaluation.results import read_results

    if path is None:
        return None
    if not Path(path).is_file():
        raise UsageError(f"no such results file: {path}")
    records = read_results(path)
    if not records:
        raise UsageError(f"{path} holds no results")
    return records


def _checks(args: argparse.Namespace) -> Any:
    from react_core.cli.options import UsageError
    from react_core.report.checks import Checks

    if args.check_tool and args.check_no_tool:
        raise UsageError("give --check-tool or --check-no-tool, not both")
    if args.check_steps < 0:
        raise UsageError("--check-steps must be at least 1")
    tool = args.check_tool or args.check_no_tool or ""
    return Checks(tool=tool.lower(), tool_absent=bool(args.check_no_tool), max_steps=args.check_steps)


def _records(plan: Any, key: str, strategy: str) -> list[dict]:
    from react_core.evaluation.results import read_results
    from react_core.evaluation.run import load_plan_questions

    wanted = {q.id for q in load_plan_questions(plan)}
    return [r for r in read_results(plan.path(key)) if r["id"] in wanted and r.get("strategy") == strategy]


def _comparison_lines(c: Any) -> str:
    if not c.shared:
        return "against the baseline: no question in common (the same id and question), so nothing to compare"
    lacking = f"; {len(c.only_here)} not in the baseline" if c.only_here else ""
    lines = [
        f"against the baseline: {len(c.newly_pass)} newly pass, {len(c.newly_fail)} newly fail "
        f"({c.both_pass} pass in both, {c.both_fail} fail in both) on {c.shared} questions in common{lacking}"
    ]
    lines += [f"  newly pass: {q} — {c.rows[q]['question']}" for q in c.newly_pass]
    lines += [f"  newly fail: {q} — {c.rows[q]['question']}" for q in c.newly_fail]
    return "\n".join(lines)


def _cmd_table(args: argparse.Namespace) -> int:
    from react_core.cli.options import UsageError
    from react_core.evaluation import table
    from react_core.evaluation.results import Evaluation, read_results
    from react_core.evaluation.tasks import FEVER, task_for
    from react_core.knowledge.default_pack import hotpotqa_sources
    from react_core.providers import FALLBACK

    task = task_for(args.dataset or [], args.task or "")
    command = _command(args)
    if args.dataset is None and task is FEVER:  # the paper's claims, in the order of its 500
        dev, rows = task.paper_files()
        args.dataset, args.indices = [str(dev)], args.indices or str(rows)
        if not dev.is_file():
            raise UsageError(f"no FEVER claims at {dev}: give --dataset FILE or set REACT_SHARED_DATA")
    args.dataset = args.dataset or [str(p) for p in hotpotqa_sources()]
    if not args.dataset:
        raise UsageError("no HotpotQA files in the shared data: give --dataset FILE ... or set REACT_SHARED_DATA")
    doc = Path(args.doc) if args.doc else table.DOC
    if not args.no_doc and not doc.is_file():
        raise UsageError(f"no such document: {doc}")
    args.provider = args.provider or FALLBACK.name  # the table is this machine's on-device model unless told
    if args.knowledge is None and task is not FEVER:  # FEVER's evidence has no text to pack: live Wikipedia, or given
        args.knowledge = pack_spec(table.ensure_pack(args.out, args.dataset))
    plan = _plan(args, list(dict.fromkeys(args.strategy)), args.out, {})
    resumed = any(read_results(p) for p in Path(args.out).glob("*.jsonl"))
    started = time.monotonic()
    result = _run(args, plan)
    minutes = (time.monotonic() - started) / 60
    if result.stopped:
        raise UsageError(f"the run stopped before every question was answered; run it again to resume ({args.out})")
    new_section = table.section(plan, Evaluation.load(args.out), command, minutes, resumed)
    if args.no_doc:
        print(new_section)
    else:
        table.rewrite(doc, new_section, task)
        print(f"Rewrote the {task.label} table in {doc}.", file=sys.stderr)
    return 0


def _command(args: argparse.Namespace) -> str:
    """The command that regenerates this table, as a person would type it."""
    parts = ["python -m react_core eval-table"]
    parts += [f"--task {args.task}"] if args.task else []
    parts += ["--dataset", *args.dataset] if args.dataset else []
    parts += [f"--indices {args.indices}"] if args.indices else []
    parts += ["--strategy", *args.strategy] if list(args.strategy) != list(STRATEGIES) else []
    parts += [f"--limit {args.limit}"] if args.limit else []
    parts += [f"--out {args.out}"]
    parts += [f"--provider {args.provider}"] if args.provider else []
    parts += [f"--samples {args.samples}"] if args.samples != PAPER_SC_SAMPLES else []
    return " ".join(parts)
