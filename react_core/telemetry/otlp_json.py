"""A run as an OTLP/JSON file: the spans of ``telemetry.spans`` encoded by the OTLP exporter's own protobuf encoder
(``opentelemetry-exporter-otlp-proto-common``'s ``encode_spans``, the very request the OTLP exporters send), then
written with protobuf's JSON mapping and the changes the OTLP specification makes to it: trace and span ids as
hexadecimal strings (not base64), enums as integers, field names in lowerCamelCase. Collectors, Jaeger, Phoenix and
Langfuse read such a file; ``react_core.telemetry.otlp_import`` reads it back into a Trace.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from react_core.base.trace import Trace
from react_core.telemetry.spans import run_spans

__all__ = ["to_otlp_json"]

_IDS = ("traceId", "spanId", "parentSpanId")


def to_otlp_json(trace: Trace, *, include_content: bool = False, conversation: str = "") -> str:
    """The run as one OTLP/JSON ``ExportTraceServiceRequest`` (what a file exporter or ``/v1/traces`` takes);
    ``conversation``: the chat the run was a turn of."""
    from google.protobuf import json_format
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    request = encode_spans(run_spans(trace, include_content=include_content, conversation=conversation))
    value = json_format.MessageToDict(request, use_integers_for_enums=True, preserving_proto_field_name=False)
    _hex_ids(value)
    return json.dumps(value, ensure_ascii=False, indent=1)


def _hex_ids(value: Any) -> None:
    """OTLP/JSON writes ids as hex where protobuf's JSON mapping writes bytes as base64 (spans and their links)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _IDS and isinstance(item, str):
                value[key] = base64.b64decode(item).hex()
            else:
                _hex_ids(item)
    elif isinstance(value, list):
        for item in value:
            _hex_ids(item)
