"""One recorded model call as something to run outside the app: a cURL command or a Python script with the provider's
official SDK, sending the same body. The key is always a variable (``$OPENAI_API_KEY``, ``os.environ[…]``), never its
value; the body is data in the snippet (a quoted here-document, a Python literal), so nothing in it is ever executed
by the shell or the interpreter.
"""

from __future__ import annotations

import json
import pprint
import re
import shlex
from collections.abc import Mapping
from typing import Any

from react_core.base.errors import ConfigError

STYLES = ("curl", "python")
_DELIMITER = "REQUEST_BODY"  # a quoted here-document: no expansion; JSON never has it alone on a line


def check_style(style: str, label: str) -> None:
    if style not in STYLES:
        raise ConfigError(f"A {label} call can be shown as {' or '.join(STYLES)}, not {style!r}.")


def curl(
    endpoint: str, body: Any, headers: Mapping[str, str] | None = None, *, comment: str = "", url: str = ""
) -> str:
    """A cURL command that POSTs ``body`` as JSON. Header values may name shell variables (``$KEY``): they are
    double-quoted so the shell expands them; the URL is quoted as is unless ``url`` gives it with a variable."""
    lines = [f"# {line}" for line in comment.splitlines()]
    lines.append(f"curl -sS -N {url or shlex.quote(endpoint)} \\")
    lines.append('  -H "Content-Type: application/json" \\')
    for name, value in (headers or {}).items():
        lines.append(f'  -H "{name}: {value}" \\')
    lines.append(f"  --data-binary @- <<'{_DELIMITER}'")
    lines.append(json.dumps(body, ensure_ascii=False, indent=2))
    lines.append(_DELIMITER)
    return "\n".join(lines) + "\n"


def literal(value: Any) -> str:
    """A Python literal that evaluates to ``value`` (JSON-like data: dicts, lists, strings, numbers, booleans)."""
    return pprint.pformat(value, width=110, sort_dicts=False)


def base_url(endpoint: str, suffix: str) -> str:
    """The part of ``endpoint`` before ``suffix`` (a regular expression matching its end)."""
    return re.sub(suffix, "", endpoint)
