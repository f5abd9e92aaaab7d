"""The action formats (dialects) by the names the CLI and presets use: the six text dialects paper, xml, json, pause,
function and mrkl, ``tools`` (native tool calling), and the paper's Act-only baseline ``act`` (used by the
evaluation)."""

from __future__ import annotations

from react_core.base.errors import ConfigError
from react_core.dialects.act import ActFormat
from react_core.dialects.base import Dialect, ParseResult
from react_core.dialects.function_call import FunctionFormat
from react_core.dialects.json_blob import JsonFormat
from react_core.dialects.mrkl import MrklFormat
from react_core.dialects.paper import PaperFormat
from react_core.dialects.pause import PauseFormat
from react_core.dialects.tools import ToolsFormat
from react_core.dialects.xml import XmlFormat

DIALECTS: dict[str, Dialect] = {
    f.name: f
    for f in (
        PaperFormat(),
        XmlFormat(),
        JsonFormat(),
        PauseFormat(),
        FunctionFormat(),
        MrklFormat(),
        ToolsFormat(),
        ActFormat(),
    )
}


def get_dialect(name: str) -> Dialect:
    try:
        return DIALECTS[name]
    except KeyError:
        raise ConfigError(f"Unknown dialect {name!r}: choose one of {', '.join(DIALECTS)}.") from None


__all__ = ["DIALECTS", "Dialect", "ParseResult", "get_dialect"]
