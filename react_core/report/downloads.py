"""A run taken away as a file, in each format the app offers: its text, its file name and its media type, so History's
export buttons, a share link's and a person's script name and label a run's files the same way.

The formats' texts are their own modules' (``report.exports``: JSON, Markdown; ``report.html``; ``telemetry.atif``;
``telemetry.otlp_json``); this module owns only which formats there are and what their files are called. UI-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from react_core.base.errors import ConfigError
from react_core.base.trace import Trace
from react_core.report.exports import file_stem, to_json, to_markdown
from react_core.report.html import to_html
from react_core.telemetry.atif import to_atif_json
from react_core.telemetry.otlp_json import to_otlp_json

__all__ = ["Download", "RunExport"]


@dataclass(frozen=True)
class Download:
    """One file of a run: what it holds, what it is called and its media type."""

    data: str
    file_name: str
    mime: str


@dataclass(frozen=True)
class RunExport:
    """A run's files. ``run_id``: its number in the history (in the file names and the HTML page's title);
    ``conversation``: the chat it was a turn of (ATIF and OpenTelemetry record it); ``calls_left_out``: why the HTML
    page leaves its model calls out (a shared follow-up, ``SharedView``)."""

    # Each format's file name ending and media type.
    FORMATS: ClassVar[dict[str, tuple[str, str]]] = {
        "json": (".json", "application/json"),
        "markdown": (".md", "text/markdown"),
        "html": (".html", "text/html"),
        "atif": (".atif.json", "application/json"),
        "otlp": (".otlp.json", "application/json"),
    }

    trace: Trace
    run_id: int | None = None
    conversation: str = ""
    calls_left_out: str = ""

    @property
    def stem(self) -> str:
        """The run's file names without their endings: ``react-run-12-who-was-…``."""
        return file_stem(self.trace, self.run_id)

    def download(self, fmt: str, *, include_content: bool = False) -> Download:
        """The run as a ``fmt`` file (one of ``FORMATS``). ``include_content``: OpenTelemetry's spans carry the
        messages (question, prompts, replies, tool results), which are left out unless asked for."""
        if fmt not in self.FORMATS:
            raise ConfigError(f"Unknown export format {fmt!r}: choose one of {', '.join(self.FORMATS)}.")
        ending, mime = self.FORMATS[fmt]
        return Download(self._text(fmt, include_content), self.stem + ending, mime)

    def _text(self, fmt: str, include_content: bool) -> str:
        if fmt == "json":
            return to_json(self.trace)
        if fmt == "markdown":
            return to_markdown(self.trace)
        if fmt == "html":
            return to_html(self.trace, self.run_id, calls_left_out=self.calls_left_out)
        if fmt == "atif":
            return to_atif_json(self.trace, conversation=self.conversation)
        return to_otlp_json(self.trace, include_content=include_content, conversation=self.conversation)
