"""A file a person imports, whatever it is: ReAct Lab's JSON export, an ATIF trajectory (``atif_import``) or an
OTLP/JSON file of spans (``otlp_import``). Every one meets the limits all imports share first
(``trace_schema.read_import``: size, JSON, nesting); only ConfigError leaves.
"""

from __future__ import annotations

from react_core.base.trace import Trace
from react_core.base.trace_schema import read_import, validate_trace
from react_core.telemetry.atif_import import from_atif
from react_core.telemetry.atif_schema import is_atif
from react_core.telemetry.otlp_import import ImportedTrace, from_otlp, is_otlp


def read_trace_file(data: bytes | str) -> ImportedTrace:
    value = read_import(data)
    if is_otlp(value):
        return from_otlp(value)
    if is_atif(value):
        return from_atif(value)
    return ImportedTrace(Trace.from_dict(validate_trace(value)))
