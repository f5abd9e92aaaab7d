"""An ATIF trajectory (Agent Trajectory Interchange Format, v1.0 to v1.7) checked by the format's own rules, as
Phoenix's client checks one before it draws it (``phoenix.client.helpers.atif._validate``, which follows Harbor's
reference models): the required fields of the root, the agent and each step; ``schema_version`` as ``ATIF-vX.Y`` of
major version 1; ``session_id`` required before v1.7; step ids 1, 2, 3…; sources ``user``, ``agent`` or ``system``; a
message on every user and system step (and every step from v1.7 on); the agent-only fields on agent steps only;
numeric metrics; tool calls with an id, a function name and arguments; observation results whose ``source_call_id``
names a call of their step; embedded subagent trajectories with unique ids, and references that resolve. A test
holds this check to Phoenix's on the same documents.

The first problem is refused in one line that names its field (``Not an ATIF trajectory: steps[2].step_id is 4,
expected 3.``). Fields the rules leave open are read defensively by ``atif_import``, never trusted.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from react_core.base.errors import ConfigError

VERSION = re.compile(r"^ATIF-v(\d+)\.(\d+)$")
SOURCES = ("user", "agent", "system")
AGENT_ONLY = ("model_name", "reasoning_content", "reasoning_effort")
STEP_METRICS = ("prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd")
FINAL_METRICS = (
    "total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_cost_usd", "total_steps",
)  # fmt: skip


class InvalidAtif(ConfigError):
    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"Not an ATIF trajectory: {field + ' ' if field else ''}{problem}.")


def is_atif(value: Any) -> bool:
    """Whether a file means to be an ATIF trajectory (then it is checked as one, and refused as one)."""
    if not isinstance(value, dict):
        return False
    version = value.get("schema_version")
    return isinstance(version, str) and version.startswith("ATIF") or {"agent", "steps", "schema_version"} <= set(value)


def minor_version(trajectory: dict[str, Any]) -> int | None:
    found = VERSION.match(str(trajectory.get("schema_version", "")))
    return int(found.group(2)) if found else None


def check(trajectory: Any, path: str = "", *, embedded: bool = False) -> None:
    """Raise InvalidAtif naming the first field that breaks the format's rules."""
    if not isinstance(trajectory, dict):
        raise InvalidAtif(path, "must be an object")
    for name in ("schema_version", "agent", "steps"):
        if name not in trajectory:
            raise InvalidAtif(_at(path, name), "is missing")
    version = trajectory["schema_version"]
    found = VERSION.match(version) if isinstance(version, str) else None
    if found is None:
        raise InvalidAtif(_at(path, "schema_version"), "must be written ATIF-vX.Y, e.g. ATIF-v1.7")
    if int(found.group(1)) >= 2:
        raise InvalidAtif(_at(path, "schema_version"), f"is {version}: only ATIF v1.x is supported")
    minor = int(found.group(2))
    session = trajectory.get("session_id")
    if session is None and minor < 7:
        raise InvalidAtif(_at(path, "session_id"), "is missing (it is required before ATIF v1.7)")
    if session is not None and not _text(session):
        raise InvalidAtif(_at(path, "session_id"), "must be a non-empty string")
    trajectory_id = trajectory.get("trajectory_id")
    if trajectory_id is not None and not _text(trajectory_id):
        raise InvalidAtif(_at(path, "trajectory_id"), "must be a non-empty string")
    if embedded and minor >= 7 and not trajectory_id:
        raise InvalidAtif(_at(path, "trajectory_id"), "is required on an embedded subagent trajectory")
    _agent(trajectory["agent"], _at(path, "agent"))
    final = trajectory.get("final_metrics")
    if final is not None:
        _numbers(final, FINAL_METRICS, _at(path, "final_metrics"))
    steps = trajectory["steps"]
    if not isinstance(steps, list) or not steps:
        raise InvalidAtif(_at(path, "steps"), "must be a non-empty list")
    embedded_ids = _subagents(trajectory.get("subagent_trajectories"), _at(path, "subagent_trajectories"))
    for i, step in enumerate(steps):
        _step(step, i, f"{_at(path, 'steps')}[{i}]", minor, embedded_ids)


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _agent(agent: Any, path: str) -> None:
    if not isinstance(agent, dict):
        raise InvalidAtif(path, "must be an object")
    for name in ("name", "version"):
        if name not in agent:
            raise InvalidAtif(f"{path}.{name}", "is missing")
        if not _text(agent[name]):
            raise InvalidAtif(f"{path}.{name}", "must be a non-empty string")
    if "model_name" in agent and not isinstance(agent["model_name"], str):
        raise InvalidAtif(f"{path}.model_name", "must be a string")
    if agent.get("extra") is not None and not isinstance(agent["extra"], dict):
        raise InvalidAtif(f"{path}.extra", "must be an object")


def _numbers(value: Any, names: tuple[str, ...], path: str) -> None:
    if not isinstance(value, dict):
        raise InvalidAtif(path, "must be an object")
    for name in names:
        item = value.get(name)
        if item is not None and (not isinstance(item, int | float) or isinstance(item, bool)):
            raise InvalidAtif(f"{path}.{name}", "must be a number")


def _objects(value: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
    """A list that must hold objects: each with its path."""
    if not isinstance(value, list):
        raise InvalidAtif(path, "must be a list")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise InvalidAtif(f"{path}[{i}]", "must be an object")
    return [(f"{path}[{i}]", item) for i, item in enumerate(value)]


def _subagents(value: Any, path: str) -> set[str]:
    if value is None:
        return set()
    ids: set[str] = set()
    for where, subagent in _objects(value, path):
        trajectory_id = subagent.get("trajectory_id")
        if not _text(trajectory_id):
            raise InvalidAtif(f"{where}.trajectory_id", "is required")
        if trajectory_id in ids:
            raise InvalidAtif(f"{where}.trajectory_id", f"repeats {trajectory_id!r}")
        ids.add(trajectory_id)
        check(subagent, where, embedded=True)
    return ids


def _step(step: Any, i: int, path: str, minor: int, embedded_ids: set[str]) -> None:
    if not isinstance(step, dict):
        raise InvalidAtif(path, "must be an object")
    for name in ("step_id", "source"):
        if name not in step:
            raise InvalidAtif(f"{path}.{name}", "is missing")
    if step["step_id"] != i + 1:
        raise InvalidAtif(f"{path}.step_id", f"is {step['step_id']!r}, expected {i + 1} (step ids count from 1)")
    source = step["source"]
    if source not in SOURCES:
        raise InvalidAtif(f"{path}.source", f"must be one of {', '.join(SOURCES)}")
    timestamp = step.get("timestamp")
    if timestamp is not None and not _iso(timestamp):
        raise InvalidAtif(f"{path}.timestamp", "must be an ISO 8601 time")
    if step.get("message") is None and (source != "agent" or minor >= 7):
        why = f"{source} steps" if source != "agent" else "every step from ATIF v1.7 on"
        raise InvalidAtif(f"{path}.message", f"is missing (it is required on {why})")
    if source != "agent":
        for name in AGENT_ONLY:
            if name in step:
                raise InvalidAtif(f"{path}.{name}", f"is not allowed on {source} steps")
    calls = step.get("llm_call_count")
    if calls is not None:
        if not isinstance(calls, int) or calls < 0:
            raise InvalidAtif(f"{path}.llm_call_count", "must be a whole number, 0 or more")
        if source == "agent" and calls == 0:
            for name in ("metrics", "reasoning_content"):
                if step.get(name) is not None:
                    raise InvalidAtif(f"{path}.{name}", "must be absent when llm_call_count is 0")
    if step.get("metrics") is not None:
        _numbers(step["metrics"], STEP_METRICS, f"{path}.metrics")
    call_ids = _tool_calls(step, path)
    observation = step.get("observation")
    if observation is not None:
        _observation(observation, f"{path}.observation", call_ids, minor, embedded_ids)


def _iso(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _tool_calls(step: dict[str, Any], path: str) -> set[str]:
    if "tool_calls" not in step:
        return set()
    ids: set[str] = set()
    for where, call in _objects(step["tool_calls"], f"{path}.tool_calls"):
        for name in ("tool_call_id", "function_name", "arguments"):
            if name not in call:
                raise InvalidAtif(f"{where}.{name}", "is missing")
        if isinstance(call["tool_call_id"], str):
            ids.add(call["tool_call_id"])
    return ids


def _observation(observation: Any, path: str, call_ids: set[str], minor: int, embedded_ids: set[str]) -> None:
    if not isinstance(observation, dict) or "results" not in observation:
        raise InvalidAtif(path, "must be an object with results")
    for where, result in _objects(observation["results"], f"{path}.results"):
        source = result.get("source_call_id")
        if isinstance(source, str) and call_ids and source not in call_ids:
            raise InvalidAtif(f"{where}.source_call_id", f"{source!r} names no tool call of this step")
        refs = result.get("subagent_trajectory_ref")
        if refs is None:
            continue
        for at, ref in _objects(refs, f"{where}.subagent_trajectory_ref"):
            if minor < 7:
                continue
            has_id, has_path = _text(ref.get("trajectory_id")), _text(ref.get("trajectory_path"))
            if not has_id and not has_path:
                raise InvalidAtif(at, "needs a trajectory_id or a trajectory_path")
            if has_id and not has_path and ref["trajectory_id"] not in embedded_ids:
                raise InvalidAtif(f"{at}.trajectory_id", "names no embedded subagent trajectory")
