"""ATIF out and in: every run exports as a trajectory that Phoenix's own ATIF check accepts and its converter draws, and
imports back exactly; another tool's trajectory imports as steps, says where it came from, and names what it could
not keep; a file that breaks the format's rules is refused in one line, exactly when Phoenix's check refuses it."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from otel_helpers import failed_call_run, mcp_run, native_tools_run, scripted_run, step_mode_run
from phoenix.client.helpers.atif import _convert_atif_trajectories_to_spans
from phoenix.client.helpers.atif._validate import _validate_atif_trajectory

from react_core.base.errors import ConfigError
from react_core.base.trace import Exchange
from react_core.telemetry.atif import to_atif, to_atif_json
from react_core.telemetry.imports import read_trace_file
from react_core.telemetry.run_facts import run_id


def _run(make, tmp_path):
    return make() if make in (step_mode_run, mcp_run) else make(tmp_path)


@pytest.mark.parametrize("make", [scripted_run, native_tools_run, failed_call_run, step_mode_run, mcp_run])
def test_every_run_exports_as_atif_phoenix_accepts_and_imports_back_exactly(make, tmp_path):
    trace = _run(make, tmp_path)
    trajectory = to_atif(trace)
    _validate_atif_trajectory(trajectory)  # the format's rules, as Phoenix's client checks them
    spans = _convert_atif_trajectories_to_spans([trajectory])
    tools = [s["name"] for s in spans if s["span_kind"] == "TOOL"]
    assert tools == [s.action.tool for s in trace.steps if s.action is not None]
    assert read_trace_file(to_atif_json(trace)).trace.to_dict() == trace.to_dict()


def test_a_step_is_the_reply_its_call_with_the_arguments_and_the_observation_as_that_calls_result(tmp_path):
    trace = scripted_run(tmp_path)
    trajectory = to_atif(trace)
    system, user, act, finish = trajectory["steps"]
    assert [s["step_id"] for s in trajectory["steps"]] == [1, 2, 3, 4]
    assert system["source"] == "system" and system["message"].startswith("Solve a question answering task")
    assert user == {"step_id": 2, "source": "user", "message": "What is 6 * 7?", "timestamp": trace.started_at}
    assert act["message"] == trace.steps[0].raw_output and act["model_name"] == "script"
    assert act["tool_calls"] == [{"tool_call_id": "call_1", "function_name": "calculator",
                                  "arguments": {"expression": "6 * 7"}}]  # fmt: skip
    assert act["observation"] == {"results": [{"source_call_id": "call_1", "content": "6 * 7 = 42"}]}
    assert act["metrics"] == trace.steps[0].usage.to_dict()
    assert "tool_calls" not in finish and finish["message"] == trace.steps[1].raw_output  # Finish: no call
    assert trajectory["agent"]["name"] == "ReAct Lab" and trajectory["agent"]["version"] == "paper@1"
    names = [d["function"]["name"] for d in trajectory["agent"]["tool_definitions"]]
    assert names == ["calculator", "finish"]
    assert trajectory["final_metrics"]["total_prompt_tokens"] == trace.totals["prompt_tokens"]
    assert trajectory["notes"] == "Answered"


def test_a_native_calls_id_names_its_call_and_its_result(tmp_path):
    act = to_atif(native_tools_run(tmp_path))["steps"][2]
    assert act["tool_calls"][0]["tool_call_id"] == "call_6x7"
    assert act["observation"]["results"][0]["source_call_id"] == "call_6x7"


def test_the_same_run_is_the_same_trajectory_and_a_chats_turn_carries_its_conversation_as_session(tmp_path):
    trace = scripted_run(tmp_path)
    assert to_atif_json(trace) == to_atif_json(trace)
    alone, in_chat = to_atif(trace), to_atif(trace, conversation="chat-7")
    assert alone["trajectory_id"] == in_chat["trajectory_id"] == run_id(trace)
    assert alone["session_id"] == run_id(trace) and in_chat["session_id"] == "chat-7"
    other = scripted_run(tmp_path, question="What is 6 times 7?")
    assert to_atif(other)["trajectory_id"] != alone["trajectory_id"]


def test_earlier_turns_of_the_conversation_are_copied_context(tmp_path):
    trace = scripted_run(tmp_path)
    trace.context = [Exchange("What is 6?", "6")]
    steps = to_atif(trace)["steps"]
    assert [(s["source"], s["message"], s.get("is_copied_context")) for s in steps[1:4]] == [
        ("user", "What is 6?", True),
        ("agent", "6", True),
        ("user", "What is 6 * 7?", None),
    ]
    _validate_atif_trajectory(to_atif(trace))
    assert read_trace_file(to_atif_json(trace)).trace.to_dict() == trace.to_dict()


# -- other tools' trajectories ------------------------------------------------------------------------------------


def terminus_trajectory() -> dict:
    """A trajectory as Harbor's terminus-2 agent writes one (ATIF-v1.6): a system prompt, the task, agent steps that
    call a tool with keyword arguments and get its output back, metrics with cached tokens and cost."""
    return {
        "schema_version": "ATIF-v1.6",
        "session_id": "6619b28d-d79c-474a-bca0-1b12b5688dc2",
        "agent": {
            "name": "terminus-2",
            "version": "2.0.0",
            "model_name": "anthropic/claude-opus-4-6",
            "extra": {"parser": "json", "temperature": 0.7},
            "tool_definitions": [{"type": "function", "function": {"name": "bash_command"}}],
        },
        "steps": [
            {"step_id": 1, "timestamp": "2026-02-01T10:00:00Z", "source": "system", "message": "You are an agent."},
            {"step_id": 2, "timestamp": "2026-02-01T10:00:00Z", "source": "user", "message": "Which file is largest?"},
            {
                "step_id": 3,
                "timestamp": "2026-02-01T10:00:04.5Z",
                "source": "agent",
                "model_name": "anthropic/claude-opus-4-6",
                "message": "I will list the files by size.",
                "reasoning_content": "List them first.",
                "tool_calls": [
                    {
                        "tool_call_id": "call_0_1",
                        "function_name": "bash_command",
                        "arguments": {"keystrokes": "ls -S | head -1\n", "duration": 0.1},
                    }  # fmt: skip
                ],
                "observation": {"results": [{"source_call_id": "call_0_1", "content": "big.bin\n"}]},
                "metrics": {"prompt_tokens": 900, "completion_tokens": 40, "cached_tokens": 800, "cost_usd": 0.01},
            },
            {
                "step_id": 4,
                "timestamp": "2026-02-01T10:00:06Z",
                "source": "agent",
                "message": "The largest file is big.bin.",
                "metrics": {"prompt_tokens": 960, "completion_tokens": 12},
            },
        ],
        "final_metrics": {"total_prompt_tokens": 1860, "total_completion_tokens": 52, "total_cost_usd": 0.02},
    }


def test_another_tools_trajectory_becomes_steps_and_says_where_it_came_from():
    found = read_trace_file(json.dumps(terminus_trajectory()))
    trace = found.trace
    assert trace.question == "Which file is largest?" and trace.final_answer == "The largest file is big.bin."
    assert trace.stop_reason == "finished" and trace.started_at == "2026-02-01T10:00:00+00:00"
    first, last = trace.steps
    assert (first.thought, first.raw_output) == ("List them first.", "I will list the files by size.")
    assert first.action.tool == "bash_command" and json.loads(first.action.input)["keystrokes"] == "ls -S | head -1\n"
    assert first.observation.text == "big.bin\n" and first.observation.evidence
    assert (first.usage.prompt_tokens, first.usage.completion_tokens, first.seconds) == (900, 40, 4.5)
    assert last.final_answer == "The largest file is big.bin." and last.seconds == 1.5
    origin = trace.imported_from
    assert (origin.format, origin.producer, origin.version) == ("ATIF-v1.6", "terminus-2", "2.0.0")
    assert origin.model == "anthropic/claude-opus-4-6"
    assert origin.described == ("an ATIF-v1.6 trajectory written by terminus-2 2.0.0, model anthropic/claude-opus-4-6")
    assert "the system prompt" in found.unmapped and "the tools' definitions" in found.unmapped
    # Exported again (as ATIF or as spans with content), it is the same imported run, still saying where it came from.
    assert read_trace_file(to_atif_json(trace)).trace.to_dict() == trace.to_dict()
    from react_core.telemetry.otlp_json import to_otlp_json

    assert read_trace_file(to_otlp_json(trace, include_content=True)).trace.to_dict() == trace.to_dict()


def test_earlier_turns_become_the_conversation_and_a_final_answer_tool_is_the_answer():
    trajectory = {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "smolagents", "version": "1.21"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "What is 2 + 2?", "is_copied_context": True},
            {"step_id": 2, "source": "agent", "message": "4", "is_copied_context": True},
            {"step_id": 3, "source": "user", "message": [{"type": "text", "text": "And times 3?"}]},
            {
                "step_id": 4,
                "source": "agent",
                "message": "",
                "tool_calls": [
                    {"tool_call_id": "a", "function_name": "python", "arguments": {"code": "4 * 3"}},
                    {"tool_call_id": "b", "function_name": "python", "arguments": {"code": "3 * 4"}},
                ],
                "observation": {
                    "results": [{"source_call_id": "a", "content": "12"}, {"source_call_id": "b", "content": "12"}]
                },  # fmt: skip
            },
            {
                "step_id": 5,
                "source": "agent",
                "message": "",
                "tool_calls": [{"tool_call_id": "c", "function_name": "final_answer", "arguments": {"answer": "12"}}],
            },
        ],
    }
    found = read_trace_file(json.dumps(trajectory))
    trace = found.trace
    assert trace.question == "And times 3?" and [t.to_dict() for t in trace.context] == [
        {"question": "What is 2 + 2?", "answer": "4"}
    ]
    assert [(s.action.input if s.action else None, s.final_answer) for s in trace.steps] == [
        ("4 * 3", None),
        ("3 * 4", None),
        (None, "12"),
    ]
    assert trace.final_answer == "12" and trace.imported_from.version == "1.21"
    assert any("made 2 tool calls at once" in u for u in found.unmapped)


# -- the format's rules, held to Phoenix's ------------------------------------------------------------------------


def _breakages() -> list[tuple[str, object]]:
    """(path, value) changes to a valid trajectory: each one breaks a rule, or is allowed by it."""
    return [
        ("schema_version", "ATIF-2.0"),
        ("schema_version", "ATIF-v2.0"),
        ("schema_version", "ATIF-v1.9"),
        ("schema_version", 7),
        ("session_id", None),
        ("session_id", " "),
        ("trajectory_id", ""),
        ("agent", "terminus"),
        ("agent.name", ""),
        ("agent.version", None),
        ("agent.model_name", 3),
        ("agent.extra", []),
        ("steps", []),
        ("steps", {}),
        ("steps.0", "a step"),
        ("steps.0.step_id", 2),
        ("steps.0.step_id", None),
        ("steps.1.source", "tool"),
        ("steps.1.timestamp", "yesterday"),
        ("steps.1.timestamp", "2026-02-01 10:00"),
        ("steps.1.message", None),
        ("steps.2.message", None),
        ("steps.1.model_name", "x"),
        ("steps.0.reasoning_content", "x"),
        ("steps.2.llm_call_count", -1),
        ("steps.2.llm_call_count", 0),
        ("steps.3.llm_call_count", 0),
        ("steps.2.metrics", "many"),
        ("steps.2.metrics.prompt_tokens", "900"),
        ("steps.2.metrics.cost_usd", True),
        ("steps.2.tool_calls", {}),
        ("steps.2.tool_calls.0", "ls"),
        ("steps.2.tool_calls.0.arguments", None),
        ("steps.2.observation", []),
        ("steps.2.observation.results.0", "x"),
        ("steps.2.observation.results.0.source_call_id", "call_9"),
        ("steps.3.observation", {"results": [{"content": "x", "source_call_id": "any"}]}),
        ("final_metrics", 3),
        ("final_metrics.total_steps", "4"),
        ("subagent_trajectories", {}),
        (
            "subagent_trajectories",
            [
                {
                    "schema_version": "ATIF-v1.7",
                    "agent": {"name": "a", "version": "1"},
                    "steps": [{"step_id": 1, "source": "agent", "message": ""}],
                }
            ],
        ),  # fmt: skip
    ]


def _changed(trajectory: dict, path: str, value: object) -> dict:
    out = copy.deepcopy(trajectory)
    *parents, last = path.split(".")
    here: object = out
    for key in parents:
        here = here[int(key)] if isinstance(here, list) else here.setdefault(key, {})
    if isinstance(here, list):
        here[int(last)] = value
    elif value is None and last in ("session_id", "agent", "steps"):
        here.pop(last, None)
    else:
        here[last] = value
    return out


def _phoenix_refuses(trajectory: dict) -> bool:
    try:
        _validate_atif_trajectory(trajectory)
    except ValueError:
        return True
    return False


@pytest.mark.parametrize(("path", "value"), _breakages())
def test_a_trajectory_is_refused_exactly_when_phoenixs_check_refuses_it_in_one_line(path, value):
    trajectory = _changed(terminus_trajectory(), path, value)
    if _phoenix_refuses(trajectory):
        with pytest.raises(ConfigError) as refused:
            read_trace_file(json.dumps(trajectory))
        said = str(refused.value)
        assert said.startswith("Not an ATIF trajectory: ") and "\n" not in said, said
    else:
        read_trace_file(json.dumps(trajectory))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(["steps.2", "steps.3", "steps.2.tool_calls.0", "steps.2.observation", "agent", "steps.1"]),
    st.sampled_from(["message", "arguments", "content", "results", "tool_calls", "name", "extra", "metrics"]),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
        max_leaves=6,
    ),
)
def test_any_value_anywhere_is_imported_or_refused_with_a_config_error(where, key, value):
    trajectory = _changed(terminus_trajectory(), f"{where}.{key}", value)
    try:
        found = read_trace_file(json.dumps(trajectory))
    except ConfigError:
        return
    assert read_trace_file(to_atif_json(found.trace)).trace.to_dict() == found.trace.to_dict()
