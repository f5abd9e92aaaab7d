"""Live export: each finished run sent as OpenTelemetry spans over OTLP/HTTP, when the operator names an endpoint.

``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (the full URL) or ``OTEL_EXPORTER_OTLP_ENDPOINT`` (a base URL; ``/v1/traces`` is
added) turn it on, as the OpenTelemetry specification names them; the SDK's exporter reads them and its other
``OTEL_EXPORTER_OTLP_*`` variables (headers such as a Langfuse key, timeout, compression) itself. Message content is
sent only with ``REACT_OTEL_CONTENT=1``; ``OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`` adds the evaluation results as log-based
events (``live_events``). In local mode the Settings page may name the endpoint and the content switch
too; elsewhere only the operator's variables apply (``LiveTarget.endpoint`` keeps that rule).

A run is never slowed or broken by its export: ``export_finished_run`` hands the spans to the SDK's
BatchSpanProcessor (a bounded queue that drops rather than waits when full) and returns; a background thread sends
them, and a failing or slow endpoint costs only that thread's time, bounded too: the exporter sends through
``otlp_http.BoundedTransport`` (the export's timeout is the whole request's, the reply is read raw and only its head
kept). ``flush`` waits no longer than it is told, whatever the endpoint does. ``LiveTarget.problem()`` says what went
wrong last, for the sidebar; it is cleared by the next export that succeeds.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from react_core.base import environment
from react_core.base.trace import Trace
from react_core.telemetry.live_events import EventExport
from react_core.telemetry.live_events import logs_endpoint as logs_endpoint
from react_core.telemetry.spans import run_spans

__all__ = [
    "LiveExport",
    "LiveTarget",
    "MAX_QUEUED_SPANS",
    "SEND_EVERY_MS",
    "TRACES_PATH",
    "export_finished_run",
    "flush",
    "log",
    "logs_endpoint",
    "traces_url",
]

log = logging.getLogger(__name__)
MAX_QUEUED_SPANS = 2048  # about a hundred runs; beyond that spans are dropped, never waited for
SEND_EVERY_MS = 1000
TRACES_PATH = "/v1/traces"  # what the specification adds to OTEL_EXPORTER_OTLP_ENDPOINT


def traces_url(base: str) -> str:
    """The Settings page's URL: a base URL gets ``/v1/traces`` as ``OTEL_EXPORTER_OTLP_ENDPOINT`` does, and a full
    traces URL is taken as it is."""
    base = base.strip().rstrip("/")
    return base if base.endswith(TRACES_PATH) else base + TRACES_PATH


class LiveExport:
    """One OTLP/HTTP exporter behind one bounded queue and its background thread."""

    def __init__(
        self, url: str, *, include_content: bool = False, max_queue: int = MAX_QUEUED_SPANS, logs_url: str = ""
    ) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

        from react_core.telemetry.otlp_http import BoundedTransport, exported

        outcomes = (SpanExportResult.SUCCESS, SpanExportResult.FAILURE)
        self.url, self.include_content, self.logs_url = url, include_content, logs_url
        self._problem = ""
        # The evaluation results as log-based events, when the operator names a logs endpoint (``live_events``).
        self._events = EventExport(logs_url, max_queue=max_queue, every_ms=SEND_EVERY_MS) if logs_url else None
        outer = self

        class Watched(SpanExporter):
            """The SDK's exporter, with each batch's outcome kept for ``problem``."""

            def __init__(self) -> None:
                self.transport = BoundedTransport()
                self.inner = OTLPSpanExporter(endpoint=url, _transport=self.transport)

            def export(self, spans):
                result, why = exported(self.inner, self.transport, spans, *outcomes)
                outer._note(why)
                return result

            def shutdown(self) -> None:
                self.inner.shutdown()

            def force_flush(self, timeout_millis: int = 30_000) -> bool:
                return self.inner.force_flush(timeout_millis)

        self._processor = BatchSpanProcessor(
            Watched(),
            max_queue_size=max_queue,
            schedule_delay_millis=SEND_EVERY_MS,
            max_export_batch_size=min(512, max_queue),
        )

    def _note(self, why: str) -> None:
        if why:
            when = datetime.now(UTC).strftime("%H:%M UTC")
            self._problem = f"The last run could not be sent to {self.url} ({when}): {why}"
            log.warning("OpenTelemetry export to %s failed: %s", self.url, why)
        else:
            self._problem = ""

    @property
    def problem(self) -> str:
        return self._problem or (self._events.problem if self._events is not None else "")

    def send(self, trace: Trace, conversation: str = "") -> None:
        """Queue the run's spans (``conversation``: the chat it was a turn of), and its evaluation events when they
        are sent; returns at once."""
        spans = run_spans(trace, include_content=self.include_content, conversation=conversation)
        for span in spans:
            self._processor.on_end(span)
        if self._events is not None:
            self._events.send(spans)

    def flush(self, timeout_seconds: float = 5.0) -> bool:
        """Send what is queued now, waiting at most ``timeout_seconds`` (the command line, before it exits); False
        when that was not enough. The SDK's ``force_flush`` ignores its timeout (it sends in the caller's thread, for
        as long as the exporter takes), so it runs on a thread of its own that is waited for only that long."""
        sent = threading.Event()

        def send_all() -> None:
            try:
                self._processor.force_flush()
                if self._events is not None:
                    self._events.flush()
            finally:
                sent.set()

        threading.Thread(target=send_all, name="otel-flush", daemon=True).start()
        return sent.wait(timeout_seconds)

    def shutdown(self) -> None:
        self._processor.shutdown()
        if self._events is not None:
            self._events.shutdown()


_lock = threading.Lock()
_live: LiveExport | None = None


def _current(url: str, content: bool) -> LiveExport | None:
    """The process's exporter for this endpoint, made on first use (and again if the endpoint changes)."""
    global _live, _target
    with _lock:
        _target = url
        if not url:
            return None
        logs = logs_endpoint()
        if _live is None or (_live.url, _live.include_content, _live.logs_url) != (url, content, logs):
            if _live is not None:  # sends what it holds on a thread of its own: a run never waits for that
                threading.Thread(target=_live.shutdown, name="otel-shutdown", daemon=True).start()
            _live = LiveExport(url, include_content=content, logs_url=logs)
        return _live


_setup_problem = ""
_target = ""  # where the last finished run was to go ('' when live export was off)


@dataclass(frozen=True)
class LiveTarget:
    """Where a person's finished runs go: the URL and the content switch the Settings page names, which count only
    for the operator at their own machine (``visitor`` False; ``endpoint`` keeps that rule); by default the
    operator's variables alone."""

    url: str = ""
    content: bool | None = None
    visitor: bool = True

    def endpoint(self, env: Any = None) -> str:
        """Where finished runs are sent ('' when live export is off).

        The one rule for who may name it: the ``url`` chosen in Settings counts only when the person is the operator
        at their own machine (local mode, ``visitor`` False). A visitor (public demo or signed-in mode) never names
        it, as the app's server would connect to their URL from inside the operator's network: there only the
        operator's environment variables apply."""
        if self.url.strip() and not self.visitor:
            return traces_url(self.url)
        traces = environment.environment_value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", env)
        if traces:
            return traces
        base = environment.environment_value("OTEL_EXPORTER_OTLP_ENDPOINT", env)
        return base.rstrip("/") + TRACES_PATH if base else ""  # as the specification says: always added

    def sends_content(self, env: Any = None) -> bool:
        """Whether spans carry the messages: the Settings switch in local mode, else ``REACT_OTEL_CONTENT=1``."""
        if self.content is not None and not self.visitor:
            return bool(self.content)
        return environment.environment_value("REACT_OTEL_CONTENT", env) == "1"

    @staticmethod
    def problem() -> str:
        """What went wrong sending the last finished run ('' when it worked or live export is off)."""
        if not (_target or LiveTarget().endpoint()):
            return ""
        return _setup_problem or (_live.problem if _live is not None else "")


def export_finished_run(trace: Trace, to: LiveTarget = LiveTarget(), *, conversation: str = "") -> None:
    """Send a finished run to the OTLP endpoint, if one is configured (``LiveTarget.endpoint``: the operator's
    variables, or in local mode the Settings page's URL); never raises, never waits for the network. ``conversation``:
    the chat the run was a turn of, so that a chat's turns are one session where the spans are read."""
    global _setup_problem
    try:
        live = _current(to.endpoint(), to.sends_content())
        if live is not None:
            live.send(trace, conversation)
        _setup_problem = ""
    except Exception as e:  # a missing package or a malformed endpoint must not break the run that just finished
        log.warning("OpenTelemetry export is not working: %s", e)
        _setup_problem = f"Runs cannot be sent to the OpenTelemetry endpoint: {e}"


def flush(timeout_seconds: float = 5.0) -> bool:
    """Wait (at most ``timeout_seconds``) for queued runs to be sent: a process about to exit calls it. False when
    they were not all sent in that time."""
    live = _live
    return live.flush(timeout_seconds) if live is not None else True
