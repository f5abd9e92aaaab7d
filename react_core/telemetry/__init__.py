"""Runs as OpenTelemetry traces, and traces from other tools as runs.

``spans`` turns a Trace into spans with the OpenTelemetry SDK (GenAI semantic conventions and OpenInference's
attributes; ``span_messages`` writes a call's prompt, its reply and a tool's arguments as both name them),
``otlp_json`` writes them as an OTLP/JSON file, ``live`` sends finished runs to an OTLP/HTTP endpoint, and
``otlp_import`` (with ``otlp_spans``, the file's checked shape) reads an OTLP/JSON file back into a Trace. The
OpenTelemetry packages are imported only when spans are made.
"""
