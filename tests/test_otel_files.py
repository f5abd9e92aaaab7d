"""OTLP/JSON files: the export's shape (the OTLP specification's JSON: hex ids, integer enums, camelCase), the round
trip of our own export back into History, other tools' runs (OpenInference as smolagents writes it, the GenAI
conventions) mapped to steps with what could not be mapped named, hostile files refused with one line naming the
field, and ``python -m react_core export-otel``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from otel_helpers import (
    attr,
    failed_call_run,
    genai_run,
    mcp_run,
    native_tools_run,
    otlp,
    scripted_run,
    smolagents_run,
    span,
    step_mode_run,
)
from test_export import _steps, _texts
from test_history_import import rich_trace

from react_core.base.errors import ConfigError
from react_core.base.trace import STOP_REASONS, Exchange, FailedCall, Trace
from react_core.history import open_history
from react_core.report.exports import to_json
from react_core.telemetry.imports import read_trace_file
from react_core.telemetry.otlp_import import NO_QUESTION
from react_core.telemetry.otlp_json import to_otlp_json

ROOT = Path(__file__).resolve().parent.parent
HEX = re.compile(r"[0-9a-f]+")


def spans_of(text: str) -> list[dict]:
    return [s for r in json.loads(text)["resourceSpans"] for ss in r["scopeSpans"] for s in ss["spans"]]


def test_the_file_is_otlp_json_with_hex_ids_and_integer_enums(tmp_path):
    data = json.loads(to_otlp_json(scripted_run(tmp_path)))
    resource = data["resourceSpans"][0]
    assert attr("service.name", "react-lab") in resource["resource"]["attributes"]
    spans = resource["scopeSpans"][0]["spans"]
    root = spans[0]
    assert root["name"] == "invoke_agent ReAct Lab"
    for s in spans:
        assert len(s["traceId"]) == 32 and HEX.fullmatch(s["traceId"])
        assert len(s["spanId"]) == 16 and HEX.fullmatch(s["spanId"])
        assert isinstance(s["kind"], int)
        assert s["startTimeUnixNano"].isdigit() and int(s["startTimeUnixNano"]) <= int(s["endTimeUnixNano"])
    assert [s.get("parentSpanId") for s in spans[1:]] == [root["spanId"]] * 3
    assert {"key": "reactlab.steps", "value": {"intValue": "2"}} in root["attributes"]


@pytest.mark.parametrize(
    "make",
    [rich_trace, scripted_run, native_tools_run, mcp_run, step_mode_run, failed_call_run],
    ids=["rich", "scripted", "native tools", "mcp", "step mode", "failed call"],
)
def test_an_export_with_content_imports_back_exactly(make, tmp_path):
    trace = make(tmp_path) if make in (scripted_run, native_tools_run, failed_call_run) else make()
    found = read_trace_file(to_otlp_json(trace, include_content=True))
    assert found.trace.to_dict() == trace.to_dict() and found.unmapped == ()
    store = open_history(url="", path=tmp_path / "h.sqlite")
    imported = store.import_json(to_otlp_json(trace, include_content=True).encode())
    assert store.get(imported.run_id).trace.to_dict() == trace.to_dict()
    # The same run again, as JSON this time, is recognised as the one already there.
    again = store.import_json(to_json(trace))
    assert again.existing and again.run_id == imported.run_id


def test_an_export_without_content_keeps_the_shape_of_the_run_and_says_what_it_lacks(tmp_path):
    trace = scripted_run(tmp_path)
    found = read_trace_file(to_otlp_json(trace))
    got = found.trace
    assert got.question == NO_QUESTION and got.settings == trace.settings and got.stop_reason == "finished"
    assert [s.index for s in got.steps] == [1, 2]
    assert [s.usage for s in got.steps] == [s.usage for s in trace.steps]
    assert [s.seconds for s in got.steps] == [s.seconds for s in trace.steps]
    assert got.steps[0].action.tool == "calculator" and got.steps[0].action.input == ""
    assert "6 * 7" not in json.dumps(got.to_dict())
    assert any("exported without content" in u for u in found.unmapped)


def test_a_failed_model_call_comes_back_from_an_export_without_content_as_no_step(tmp_path):
    trace = failed_call_run(tmp_path)
    got = read_trace_file(to_otlp_json(trace)).trace
    assert got.to_dict()["failed_call"] == trace.to_dict()["failed_call"]
    assert [s.index for s in got.steps] == [1] and got.stop_reason == "error"


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ("{not json", 'the attribute reactlab.failed_call of span "text_completion script" must hold JSON'),
        ('{"error_type": "ProviderError", "seconds": -1}', "failed_call.seconds must not be negative"),
        ('{"error_type": 503}', "failed_call.error_type must be text"),
        ('{"seconds": 1}', "failed_call.error_type is missing"),
    ],
)
def test_a_broken_failed_call_record_is_refused_naming_it(record, reason, tmp_path):
    data = json.loads(to_otlp_json(failed_call_run(tmp_path)))
    failed = data["resourceSpans"][0]["scopeSpans"][0]["spans"][-1]
    for a in failed["attributes"]:
        if a["key"] == "reactlab.failed_call":
            a["value"] = {"stringValue": record}
    with pytest.raises(ConfigError, match=re.escape(reason)):
        read_trace_file(json.dumps(data))


def test_a_smolagents_run_becomes_steps_and_its_chain_spans_are_named(tmp_path):
    found = read_trace_file(smolagents_run())
    t = found.trace
    assert t.question == "What is the capital of France?" and t.final_answer == "Paris"
    assert t.stop_reason == "finished" and t.settings == {"model": "gpt-4o-mini"}
    assert t.started_at == "2026-02-02T02:40:00+00:00"
    first, second = t.steps
    assert first.thought == "I will search for the capital."
    assert (first.action.tool, first.action.input) == ("web_search", "capital of France")
    assert first.observation.text == "Paris is the capital of France." and not first.observation.is_error
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (812, 31)
    assert first.seconds == pytest.approx(0.28 + 0.17)
    assert second.final_answer == "Paris" and second.action is None
    assert found.unmapped == (
        "2 spans that are neither a model call nor a tool (Step 1, Step 2)",
        "the prompts of 2 model calls (a step keeps the model's reply)",
    )
    imported = open_history(url="", path=tmp_path / "h.sqlite").import_json(smolagents_run())
    assert "Not kept from the file: 2 spans that are neither" in imported.message


def test_a_genai_run_with_a_failing_tool_imports_as_a_failed_run():
    found = read_trace_file(genai_run())
    t = found.trace
    assert t.question == "Weather in Lyon?" and t.stop_reason == "error" and t.final_answer is None
    (step,) = t.steps
    assert step.thought == "Let me check." and step.usage.prompt_tokens == 50
    assert step.action.tool == "get_weather" and step.action.input == "Lyon"
    assert step.observation.is_error


def test_spans_of_other_traces_are_left_out_and_counted():
    stray = span("c000000000000001", "GET /health", 0, 1)
    stray["traceId"] = "0" * 31 + "1"
    data = json.loads(smolagents_run())
    data["resourceSpans"][0]["scopeSpans"][0]["spans"].append(stray)
    found = read_trace_file(json.dumps(data))
    assert len(found.trace.steps) == 2
    assert found.unmapped[0] == "1 spans outside the run's own span (other traces or runs)"


def smol() -> dict:
    return json.loads(smolagents_run())


def with_span(path: str, value) -> str:
    """The smolagents file with one field of its first span (``name``, ``status.code``…) replaced."""
    data = smol()
    target = data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    *parents, last = path.split(".")
    for p in parents:
        target = target[int(p)] if isinstance(target, list) else target[p]
    target[int(last) if isinstance(target, list) else last] = value
    return json.dumps(data)


def many_scopes(scopes: int, each: int) -> str:
    data = json.loads(otlp(*[span(f"{i:016x}", "s", 0, 1) for i in range(1, each + 1)]))
    data["resourceSpans"][0]["scopeSpans"] *= scopes
    return json.dumps(data)


SPAN0 = "resourceSpans[0].scopeSpans[0].spans[0]"
HOSTILE = [
    (json.dumps({"resourceSpans": {}}), "resourceSpans must be a list"),
    (json.dumps({"resourceSpans": []}), "resourceSpans holds no spans"),
    (json.dumps({"resourceSpans": [3]}), "resourceSpans[0] must be an object"),
    (json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": "x"}]}]}), "scopeSpans[0].spans must be a list"),
    (with_span("spanId", "xyz"), f"{SPAN0}.spanId must be 16 hexadecimal digits"),
    (with_span("traceId", 7), f"{SPAN0}.traceId must be 32 hexadecimal digits"),
    (with_span("parentSpanId", "12"), f"{SPAN0}.parentSpanId must be 16 hexadecimal digits"),
    # The right length but not hexadecimal: an id is a key the run's steps are found by, never markup or text.
    (with_span("spanId", "<script>alert(1)"), f"{SPAN0}.spanId must be 16 hexadecimal digits"),
    (with_span("traceId", "g" * 32), f"{SPAN0}.traceId must be 32 hexadecimal digits"),
    (with_span("spanId", "0x0123_456789abc"), f"{SPAN0}.spanId must be 16 hexadecimal digits"),  # int(x, 16) reads it
    (with_span("parentSpanId", "0123456789abcde\u0661"), f"{SPAN0}.parentSpanId must be 16 hexadecimal digits"),
    (with_span("startTimeUnixNano", "-5"), f"{SPAN0}.startTimeUnixNano must be a time in nanoseconds"),
    (with_span("endTimeUnixNano", "9" * 30), f"{SPAN0}.endTimeUnixNano must be a time in nanoseconds"),
    (with_span("name", ["x"]), f"{SPAN0}.name must be text"),
    (with_span("status.code", 9), f"{SPAN0}.status.code must be 0, 1 or 2"),
    (with_span("attributes", {"a": 1}), f"{SPAN0}.attributes must be a list"),
    (with_span("attributes.0", {"key": 5}), f"{SPAN0}.attributes[0].key must be text"),
    (with_span("attributes.0.value", {"intValue": "1e9"}), f"{SPAN0}.attributes[0].value.intValue must be a 64-bit"),
    (with_span("attributes.0.value", {"doubleValue": "NaN"}), "attributes[0].value.doubleValue must be a finite"),
    (with_span("attributes.0.value", {"stringValue": 1}), "attributes[0].value.stringValue has the wrong type"),
    (with_span("attributes.0.value", {"weirdValue": 1}), 'attributes[0].value has an unknown value kind "weirdValue"'),
    (with_span("attributes.0.value", {"stringValue": "a", "intValue": 1}), "must hold exactly one value"),
    (with_span("attributes", [attr("k", "v")] * 1001), f"{SPAN0}.attributes has more than 1,000 items"),
    (otlp(*[span(f"{i:016x}", "s", 0, 1) for i in range(1, 10_002)]), "spans has more than 10,000 items"),
    (many_scopes(3, 4_000), "resourceSpans holds more than 10,000 spans"),
    ('{"resourceSpans": ' + "[" * 5000 + "]" * 5000 + "}", "nested deeper than 32 levels"),
    (" " * 5_000_001, "larger than 5 MB"),
    (with_span("attributes.1.value", {"intValue": "-3"}), "steps[0].usage.prompt_tokens must not be negative"),
]


@pytest.mark.parametrize(("data", "reason"), HOSTILE, ids=[r[:40] for _, r in HOSTILE])
def test_every_hostile_otlp_file_is_refused_with_a_one_line_reason(data, reason, tmp_path):
    if "usage.prompt_tokens" in reason:  # a negative token count, on the model call's span
        data = smol()
        llm = data["resourceSpans"][0]["scopeSpans"][0]["spans"][2]
        llm["attributes"] = [a for a in llm["attributes"] if a["key"] != "llm.token_count.prompt"]
        llm["attributes"].append({"key": "llm.token_count.prompt", "value": {"intValue": "-3"}})
        data = json.dumps(data)
    store = open_history(url="", path=tmp_path / "h.sqlite")
    with pytest.raises(ConfigError, match=re.escape(reason)) as caught:
        store.import_json(data.encode())
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 400
    assert store.count() == 0


def test_our_own_export_with_a_broken_step_record_is_refused_naming_the_attribute(tmp_path):
    data = json.loads(to_otlp_json(scripted_run(tmp_path), include_content=True))
    call = data["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    for a in call["attributes"]:
        if a["key"] == "reactlab.step":
            a["value"] = {"stringValue": "{not json"}
    with pytest.raises(ConfigError, match=r"the attribute reactlab\.step of span \"text_completion script\""):
        read_trace_file(json.dumps(data))


@pytest.mark.parametrize("levels", [40, 100_000])
def test_json_nested_deep_inside_an_attribute_is_refused_or_read_as_text_never_a_crash(levels, tmp_path):
    deep = "[" * levels + "]" * levels
    data = json.loads(to_otlp_json(scripted_run(tmp_path), include_content=True))
    own = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for a in own[1]["attributes"]:
        if a["key"] == "reactlab.step":
            a["value"] = {"stringValue": '{"index": 1, "x": ' + deep + "}"}
    with pytest.raises(ConfigError, match=r"reactlab\.step of span .* nested deeper than 32 levels\.$"):
        read_trace_file(json.dumps(data))
    foreign = smol()  # another tool's run: its question, answer and replies are JSON when they can be
    for span_ in foreign["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for a in span_["attributes"]:
            if a["key"] in ("input.value", "output.value", "llm.output_messages.0.message.content"):
                a["value"] = {"stringValue": deep}
        span_["attributes"].append(attr("gen_ai.input.messages", deep))
    trace = read_trace_file(json.dumps(foreign)).trace
    assert trace.final_answer == deep and trace.steps  # kept as the text it is


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
FIELDS = ["traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano", "endTimeUnixNano", "status",
          "attributes", "events", "links"]  # fmt: skip


@given(index=st.integers(0, 6), key=st.sampled_from(FIELDS), value=JSONISH)
def test_any_change_to_any_span_is_imported_or_refused_with_a_config_error(index, key, value):
    data = smol()
    data["resourceSpans"][0]["scopeSpans"][0]["spans"][index][key] = value
    try:
        found = read_trace_file(json.dumps(data))
    except ConfigError as e:
        assert "\n" not in str(e)
    else:  # whatever a file made of a run, that run exports again (History offers the export on every run)
        assert read_trace_file(to_otlp_json(found.trace, include_content=True)).trace.to_dict() == found.trace.to_dict()


@given(index=st.integers(0, 6), n=st.integers(0, 12), value=JSONISH)
def test_any_attribute_value_is_imported_or_refused_with_a_config_error(index, n, value):
    data = smol()
    attributes = data["resourceSpans"][0]["scopeSpans"][0]["spans"][index]["attributes"]
    if n < len(attributes):
        attributes[n]["value"] = value
    else:
        attributes.append({"key": "llm.token_count.prompt", "value": value})
    try:
        found = read_trace_file(json.dumps(data))
    except ConfigError as e:
        assert "\n" not in str(e)
    else:
        assert read_trace_file(to_otlp_json(found.trace, include_content=True)).trace.to_dict() == found.trace.to_dict()


def test_the_command_line_writes_the_otlp_json_of_a_trace_file(tmp_path):
    trace = scripted_run(tmp_path)
    source = tmp_path / "run.json"
    source.write_text(to_json(trace))
    out = tmp_path / "run.otlp.json"
    done = subprocess.run(
        [sys.executable, "-m", "react_core", "export-otel", str(source), "--include-content", "-o", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert read_trace_file(out.read_bytes()).trace.to_dict() == trace.to_dict()
    plain = subprocess.run(
        [sys.executable, "-m", "react_core", "export-otel", str(source)],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert plain.returncode == 0 and "6 * 7" not in plain.stdout
    assert [s["name"] for s in spans_of(plain.stdout)][0] == "invoke_agent ReAct Lab"
    bad = tmp_path / "bad.json"
    bad.write_text('{"question": 1}')
    refused = subprocess.run(
        [sys.executable, "-m", "react_core", "export-otel", str(bad)], capture_output=True, text=True, cwd=ROOT
    )
    assert refused.returncode == 2 and "question must be text" in refused.stderr


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"args": ["Paris"], "sanitize_inputs_outputs": True, "kwargs": {}}, "Paris"),  # smolagents, positional
        ({"args": [], "kwargs": {"city": "Lyon", "days": 3}}, '{"city": "Lyon", "days": 3}'),  # several: as JSON
        ({"expression": "6 * 7"}, "6 * 7"),  # GenAI's arguments object
    ],
)
def test_a_tools_arguments_become_the_actions_input(arguments, expected):
    root = "d000000000000001"
    data = otlp(
        span(root, "invoke_agent x", 0, 10, gen_ai__operation__name="invoke_agent"),
        span("d000000000000002", "execute_tool t", 1, 2, root, gen_ai__operation__name="execute_tool",
             gen_ai__tool__name="t", gen_ai__tool__call__arguments=json.dumps(arguments),
             gen_ai__tool__call__result="ok"),
    )  # fmt: skip
    (step,) = read_trace_file(data).trace.steps
    assert step.action.input == expected and step.observation.text == "ok" and step.thought == ""


@given(
    question=_texts,
    steps=_steps,
    answer=st.none() | _texts,
    stop=st.sampled_from([None, *STOP_REASONS]),
    context=st.lists(st.builds(Exchange, _texts, _texts), max_size=2),
    failed=st.none() | st.builds(FailedCall, _texts, st.floats(0, 1e6)),
)
def test_every_run_exported_with_content_imports_back_exactly(question, steps, answer, stop, context, failed):
    for i, step in enumerate(steps, start=1):
        step.index = i
    trace = Trace(
        question=question,
        settings={"provider": "scripted", "temperature": 0.5, "tools": ["search"]},
        steps=steps,
        final_answer=answer,
        stop_reason=stop,
        error="it broke" if stop == "error" else None,
        context=context,
        started_at="2026-01-01T00:00:00+00:00",
        failed_call=failed,
    )
    assert read_trace_file(to_otlp_json(trace, include_content=True)).trace.to_dict() == trace.to_dict()
