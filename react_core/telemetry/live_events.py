"""A run's evaluation results as the GenAI conventions now define them: log-based events (``gen_ai.evaluation.result``
log records, each parented to the run's span), sent live to the operator's logs endpoint beside the spans.

Only ``OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`` turns them on, never the traces endpoint (from which the specification would
derive ``/v1/logs``): Phoenix and most trace back ends take no logs, and every run would report a failed export. The
spans keep the same results as span events, which Phoenix shows and a file of spans can hold. Sent as the spans are:
a bounded queue, a background thread, the bounded transport (``otlp_http``), and the last failure kept for the
sidebar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from react_core.base import environment
from react_core.telemetry.spans import EVALUATION, SCOPE, resource

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan


def logs_endpoint(env: Any = None) -> str:
    """Where the events go ('' when they are not sent): the operator's variable only, in every mode."""
    return environment.environment_value("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", env)


class EventExport:
    """One OTLP/HTTP log exporter behind one bounded queue and its background thread."""

    def __init__(self, url: str, *, max_queue: int, every_ms: int) -> None:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor, LogRecordExporter, LogRecordExportResult

        from react_core.telemetry.otlp_http import BoundedTransport, exported

        self.url, self.problem = url, ""
        outer = self

        class Watched(LogRecordExporter):
            """The SDK's exporter, with each batch's outcome kept for ``problem``."""

            def __init__(self) -> None:
                self.transport = BoundedTransport()
                self.inner = OTLPLogExporter(endpoint=url, _transport=self.transport)

            def export(self, batch):
                outcomes = (LogRecordExportResult.SUCCESS, LogRecordExportResult.FAILURE)
                result, why = exported(self.inner, self.transport, batch, *outcomes)
                outer.problem = f"The last run's evaluation events could not be sent to {url}: {why}" if why else ""
                return result

            def shutdown(self) -> None:
                self.inner.shutdown()

            def force_flush(self, timeout_millis: int = 30_000) -> bool:
                return self.inner.force_flush(timeout_millis)

        self._provider = LoggerProvider(resource=resource())
        self._provider.add_log_record_processor(
            BatchLogRecordProcessor(Watched(), max_queue_size=max_queue, schedule_delay_millis=every_ms)
        )
        self._logger = self._provider.get_logger(SCOPE)

    def send(self, spans: list[ReadableSpan]) -> None:
        """Queue the run's evaluation results (its span's ``gen_ai.evaluation.result`` events) as log records."""
        from opentelemetry._logs import LogRecord

        root = spans[0]
        for event in root.events:
            if event.name == EVALUATION:
                self._logger.emit(
                    LogRecord(
                        timestamp=event.timestamp,
                        trace_id=root.context.trace_id,
                        span_id=root.context.span_id,
                        trace_flags=root.context.trace_flags,
                        event_name=EVALUATION,
                        attributes=dict(event.attributes or {}),
                    )
                )

    def flush(self) -> None:
        self._provider.force_flush()

    def shutdown(self) -> None:
        self._provider.shutdown()
