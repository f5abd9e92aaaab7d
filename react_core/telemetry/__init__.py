"""Runs as OpenTelemetry traces, and traces from other tools as runs.

``spans`` turns a Trace into spans with the OpenTelemetry SDK (GenAI semantic conventions and OpenInference's
attributes; ``span_messages`` writes a call's prompt, its reply and a tool's arguments as both name them),
``otlp_json`` writes them as an OTLP/JSON file, ``live`` sends finished runs to an OTLP/HTTP endpoint, and
``otlp_import`` (with ``otlp_spans``, the file's checked shape) reads an OTLP/JSON file back into a Trace. ``atif``
writes a run as an ATIF trajectory and ``atif_import`` reads one back (checked by ``atif_schema``); ``run_facts`` says
what both formats say of a run (its id, agent, model, tools) once, and ``imports`` reads any file a person imports.
The OpenTelemetry packages are imported only when spans are made.
"""
