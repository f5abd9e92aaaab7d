"""Trajectory checks: what a run did on its way to its answer, beside the answer's score (as promptfoo's
``trajectory:*`` assertions): it finished, its answer is grounded, no step was unreadable, a given tool was used (or
not), it took at most k steps. Each check is a plain function of a Trace; ``run_checks`` applies the ones asked.
UI-free.
"""

from __future__ import annotations

from dataclasses import dataclass

from react_core.base.trace import Trace
from react_core.report.grounding import check_grounding

__all__ = [
    "Checks",
    "backed_by_evidence",
    "finished",
    "grounded",
    "readable",
    "reference_checks",
    "run_checks",
    "used_tool",
    "within_steps",
    "worth_learning",
]


@dataclass(frozen=True)
class Checks:
    """Which checks to apply: always finished, grounded and readable; a tool and a step limit when given."""

    tool: str = ""  # a tool name (e.g. "search"): the run must call it, or must not when ``tool_absent``
    tool_absent: bool = False
    max_steps: int = 0  # 0: no limit

    def names(self) -> list[str]:
        names = ["finished", "grounded", "readable"]
        if self.tool:
            names.append(f"no {self.tool}" if self.tool_absent else f"used {self.tool}")
        if self.max_steps:
            names.append(f"≤ {self.max_steps} steps")
        return names


def finished(trace: Trace) -> bool:
    """It ended with an answer of its own steps: an answer asked for after they stopped (``answered_at_stop``) is
    not one."""
    return trace.stop_reason == "finished" and trace.final_answer is not None


def grounded(trace: Trace) -> bool:
    return check_grounding(trace).grounded


def backed_by_evidence(trace: Trace) -> bool:
    """Grounded, or a yes/no answer given after a tool returned evidence. A yes or a no is never literally in a page
    (``grounding``'s own "yes_no" verdict), so the nearest check for it is that the run read evidence before it: without
    this, no comparison question could ever become a bootstrapped example. What bootstrapping asks of a trajectory."""
    found = check_grounding(trace)
    if found.kind == "yes_no":
        return any(s.observation is not None and s.observation.evidence for s in trace.steps)
    return found.grounded


def readable(trace: Trace) -> bool:
    """No step whose reply held neither an action nor a final answer (the parser could not read it)."""
    return all(s.action is not None or s.final_answer is not None for s in trace.steps)


def worth_learning(trace: Trace, exact: bool) -> bool:
    """A trajectory to learn from (a bootstrapped example, a fine-tuning trajectory): answered right (``exact``:
    an exact match with the expected answer), finished, backed by evidence, every step readable."""
    return exact and finished(trace) and backed_by_evidence(trace) and readable(trace)


def used_tool(trace: Trace, tool: str) -> bool:
    return any(s.action is not None and s.action.tool == tool for s in trace.steps)


def within_steps(trace: Trace, k: int) -> bool:
    return len(trace.steps) <= k


def run_checks(trace: Trace, checks: Checks | None = None) -> dict[str, bool]:
    """Each check's name (as ``Checks.names``) and whether the run passes it."""
    checks = checks or Checks()
    out = {"finished": finished(trace), "grounded": grounded(trace), "readable": readable(trace)}
    if checks.tool:
        used = used_tool(trace, checks.tool)
        out[checks.names()[3]] = not used if checks.tool_absent else used
    if checks.max_steps:
        out[f"≤ {checks.max_steps} steps"] = within_steps(trace, checks.max_steps)
    return out


# Against a reference run of the same question (an assignment's, ``react_core.evaluation.assignments``): the names
# a class board shows, in order.
SAME_TOOLS, NO_LONGER, SAME_PAGES = "the reference's tools", "≤ the reference's steps", "the reference's pages"


def _tools(trace: Trace) -> set[str]:
    return {s.action.tool for s in trace.steps if s.action is not None and s.final_answer is None}


def _pages(trace: Trace) -> set[str]:
    return {src.title for s in trace.steps if s.observation and s.observation.evidence for src in s.observation.sources}


def reference_checks(trace: Trace, reference: Trace) -> dict[str, bool]:
    """The run's trajectory against a reference run of its question: it used every tool the reference used, took no
    more steps, and read every page the reference drew evidence from."""
    return {
        SAME_TOOLS: _tools(reference) <= _tools(trace),
        NO_LONGER: len(trace.steps) <= len(reference.steps),
        SAME_PAGES: _pages(reference) <= _pages(trace),
    }
